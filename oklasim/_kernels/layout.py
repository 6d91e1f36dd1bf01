"""Index constants of ``Rules.to_array()`` and codes of its enumerated fields.

Kernels read the packed rules through these names; ``oklasim.game.rules`` packs
them. Plain module-level ints, which numba treats as compile-time constants.
"""

from .cards_nb import N_CARDS
from .melds_nb import MAX_MELDS_IN_ARRANGEMENT

R_PLAYERS = 0
R_HAND_SIZE = 1
R_OKLAHOMA = 2
R_FIXED_KNOCK_LIMIT = 3
R_ACE_UPCARD = 4
R_SPADE_DOUBLE = 5
R_GIN_BONUS = 6
R_BIG_GIN = 7
R_BIG_GIN_BONUS = 8
R_UNDERCUT_BONUS = 9
R_TIE_RULE = 10
R_DISCARD_TAKEN_CARD = 11
R_WALL_RULE = 12
R_DEALER_RULE = 13
R_TARGET_SCORE = 14
R_BOX_BONUS = 15
R_GAME_BONUS = 16
R_SHUTOUT_RULE = 17
R_SINGLE_HAND = 18
R_MAX_DRAWS = 19
R_DEAL_KNOCK_LIMIT = 20
N_RULE_FIELDS = 21

ACE_GIN_ONLY = 0
ACE_ONE = 1

TIE_UNDERCUT = 0
TIE_NO_SCORE = 1
TIE_KNOCKER_ZERO = 2

WALL_VOID = 0
WALL_FIFTIETH_CARD = 1

DEALER_WINNER = 0
DEALER_ALTERNATE = 1
DEALER_LOSER = 2

SHUTOUT_NONE = 0
SHUTOUT_DOUBLE_BONUS = 1
SHUTOUT_DOUBLE_TOTAL = 2

# -- Decisions a strategy is asked for (the ``kind`` argument of ``decide``) ------------
D_TAKE_UPCARD = 0  # first turn: 1 = take the upcard, 0 = pass
D_DRAW = 1  # 1 = take the top of the discard pile, 0 = draw from the stock
D_KNOCK = 2  # a card of V_KNOCK_DISCARDS to knock with, BIG_GIN (if V_BIG_GIN), or -1 to play on
D_DISCARD = 3  # the card to discard (held, not V_FORBIDDEN)
D_ARRANGE = 4  # index of the knocker's arrangement among V_N_ARRANGEMENTS
N_DECISIONS = 5
# A question the advisor asks, never the engine, and only of families declaring ``confirms_discard``: 1 when the
# card V_ASKED is the one D_DISCARD would throw from this view, else 0 (asked to weigh worlds by an opponent's
# discards, where a "no" may stop early: most sampled hands would throw another card).
D_CONFIRM_DISCARD = 5
BIG_GIN = N_CARDS  # the D_KNOCK answer "lay all 11 cards, no discard" (not a card index)
NO_CARD = -1

# -- A player's view: everything that seat may know, one int64 row per seat ------------
V_SEAT = 0
V_PLAYERS = 1
V_DEALER = 2
V_HAND = 3  # own cards (mask); 11 cards between drawing and discarding
V_HAND_NUMBER = 4  # hand of the game, from 0
V_UPCARD = 5
V_KNOCK_LIMIT = 6  # 0 = gin only
V_MULTIPLIER = 7  # 2 when a spade upcard doubles the hand
V_STOCK_LEFT = 8
V_PILE_SIZE = 9
V_DRAWS = 10  # draws by all players this hand (a taken upcard counts)
V_MY_DRAWS = 11
V_DRAWN = 12  # card drawn this turn, NO_CARD before the draw
V_FORBIDDEN = 13  # card that may not be discarded now, or NO_CARD
V_KNOCK_DISCARDS = 14  # mask of discards that leave a legal knock (at D_KNOCK)
V_BIG_GIN = 15  # 1 when big gin is on offer (at D_KNOCK)
V_LAST_CHANCE = 16  # 1 under the fiftieth-card rule: take the last discard only to knock
V_N_ARRANGEMENTS = 17  # at D_ARRANGE
V_RNG = 18  # the seat's own random stream state (see kit: rand_below_nb)
V_PILE_MASK = 19  # cards in the discard pile
V_SCORES = 20  # 4 slots: game score of each seat
V_TAKEN = 24  # 4 slots: mask of cards each seat took from the pile (public)
V_DISCARDED = 28  # 4 slots: mask of cards each seat discarded (public)
V_PASSED = 32  # 4 slots: 1 if the seat passed the first upcard
V_MEMORY = 36  # 8 slots the strategy may use freely; zeroed at each deal
N_MEMORY = 8
V_RULES = 44  # N_RULE_FIELDS slots: the packed rules
V_PILE = V_RULES + N_RULE_FIELDS  # N_CARDS slots: the discard pile, bottom first
MAX_ARRANGEMENTS = 32
V_ARRANGEMENTS = V_PILE + N_CARDS  # MAX_ARRANGEMENTS x MAX_MELDS_IN_ARRANGEMENT meld masks (at D_ARRANGE)
V_ASKED = V_ARRANGEMENTS + MAX_MELDS_IN_ARRANGEMENT * MAX_ARRANGEMENTS  # the card asked about (D_CONFIRM_DISCARD)
MAX_SEATS = 4
# The hand's public log, turn by turn in the order played (engine_nb.log_draw_nb / log_discard_nb): what any player
# at the table has seen, which the pile alone does not tell (whose discard each card was, who took which and when).
# A turn is LOG_BITS bits: the seat, how it drew (LOG_PASS, LOG_PILE: the first upcard too, LOG_STOCK) and its
# discard + 1 (0: none yet), LOG_PER_SLOT turns to a slot. V_LOG_TURNS counts on past MAX_LOG_TURNS (a hand that
# long, possible only through the draw guard, is no longer logged).
V_LOG_TURNS = V_ASKED + 1
V_LOG = V_LOG_TURNS + 1
LOG_SLOTS = 20
LOG_BITS = 10
LOG_PER_SLOT = 6
MAX_LOG_TURNS = LOG_SLOTS * LOG_PER_SLOT
LOG_PASS, LOG_PILE, LOG_STOCK = 0, 1, 2
LOG_SEAT_SHIFT, LOG_DRAW_SHIFT, LOG_DISCARD_SHIFT = 0, 2, 4  # fields of a turn: 2, 2 and 6 bits
V_LOG_END = V_LOG + LOG_SLOTS
# Public counts over the game so far, STYLE_FIELDS slots per seat (zeroed at each game): what each seat's showdowns
# showed of how it plays (engine_nb.reveal_nb).
V_STYLE = V_LOG_END
STYLE_KNOCKS = 0  # hands it ended by a knock that was not gin
STYLE_HELD = 1  # showdowns it did not start where its hand allowed a knock it had declined (it had drawn)
STYLE_GINS = 2  # hands it ended by gin (big gin too)
STYLE_FIELDS = 3
V_STYLE_END = V_STYLE + STYLE_FIELDS * MAX_SEATS
V_SIZE = V_STYLE_END
MAX_PARAMS = 24

# -- Hand records: one int64 row per hand -----------------------------------------------
H_GAME = 0
H_HAND = 1
H_DEALER = 2
H_UPCARD = 3
H_KNOCK_LIMIT = 4
H_MULTIPLIER = 5
H_OUTCOME = 6
H_KNOCKER = 7
H_KNOCKER_DEADWOOD = 8
H_DEFENDER_DEADWOOD = 9  # 2 players: the defender after layoffs; more: the lowest opponent
H_LAID_OFF = 10  # cards laid off, all opponents
H_POINTS = 11  # points scored by the hand's winner
H_WINNER = 12
H_DRAWS = 13
H_STOCK_LEFT = 14
H_FIRST_TAKER = 15  # seat that took the first upcard, -1 if all passed
H_PLAYERS = 16
H_SEAT_POINTS = 17  # 4 slots: points each seat scored in the hand
H_SEAT_DEADWOOD = 21  # 4 slots: each seat's deadwood at the end (after layoffs)
N_HAND_FIELDS = H_SEAT_DEADWOOD + MAX_SEATS

# -- The engine's board: rows 0..3 are the seats' views, row HIDDEN what no seat sees ----
HIDDEN = MAX_SEATS
BOARD_ROWS = MAX_SEATS + 1
S_DEALER = 0
S_TURN = 1  # seat to act
S_PHASE = 2
S_OFFERS = 3  # first-upcard offers made so far
S_STOCK_POS = 4  # index in S_DECK of the top of the stock
S_FIRST_TAKER = 5
S_GAME = 6
S_TRACING = 7  # 1 when events are written to the trace
S_HANDS = 8  # MAX_SEATS slots: every hand
S_DECK = S_HANDS + MAX_SEATS  # N_CARDS slots: the deck order of this hand
S_RULES = S_DECK + N_CARDS  # N_RULE_FIELDS slots
S_RECORD = S_RULES + N_RULE_FIELDS  # N_HAND_FIELDS slots: the hand record being filled
S_ERROR = S_RECORD + N_HAND_FIELDS  # ERROR_FIELDS slots (see illegal_nb in engine_nb)
ERROR_FIELDS = 9  # E_* code, seat, kind, answer, hand, game, hand number, forbidden, knock mask
S_TAKEN = S_ERROR + ERROR_FIELDS  # the card the seat to act took from the pile this turn (NO_CARD: none)
S_KNOCKER = S_TAKEN + 1  # the seat that knocked, from the knock to the end of the showdown
S_BIG_GIN = S_KNOCKER + 1  # 1 when that knock is a big gin
S_KEEP = S_BIG_GIN + 1  # at the fiftieth card: the hand of the seat offered the last discard, without it
# 1 when the other hands on the board are a completion (sim.completion): a showdown then counts no style
# (V_STYLE) from them; the driver reveals the real hands when it learns them.
S_COMPLETED = S_KEEP + 1

# The hand's step machine (engine_nb: pending_nb says what is asked next, apply_nb takes the answer). A phase
# that asks names the decision; the others are steps the machine takes by itself.
PHASE_OFFER = 0  # the first upcard is being offered round the table: D_TAKE_UPCARD
PHASE_FORCED_STOCK = 1  # all passed: the seat left of the dealer draws from the stock (no decision)
PHASE_DRAW = 2  # a normal turn: D_DRAW
PHASE_DONE = 3  # the hand is over, its record written
PHASE_AFTER_DRAW = 4  # 11 cards: a knock is offered if one is possible, else the discard (no decision)
PHASE_KNOCK = 5  # D_KNOCK after a draw
PHASE_DISCARD = 6  # D_DISCARD
PHASE_WALL = 7  # two stock cards left and nobody knocked: the fiftieth card offered, or the hand void (no decision)
PHASE_LAST_KNOCK = 8  # D_KNOCK at the fiftieth card: take the last discard only to knock with it
PHASE_SHOWDOWN = 9  # the knocker lays its melds (no decision unless several arrangements are optimal)
PHASE_ARRANGE = 10  # D_ARRANGE
D_NONE = -1  # what pending_nb asks when the hand is over

# -- Hand outcomes ----------------------------------------------------------------------
OUT_KNOCK = 0
OUT_GIN = 1
OUT_BIG_GIN = 2
OUT_UNDERCUT = 3
OUT_VOID = 4
OUT_GUARD = 5
OUT_TIE = 6  # equal deadwood scored nothing (tie_rule no_score)
OUTCOME_NAMES = ("knock", "gin", "big_gin", "undercut", "void", "guard", "tie")

# -- Game records -----------------------------------------------------------------------
G_GAME = 0
G_WINNER = 1
G_HANDS = 2
G_VOID_HANDS = 3
G_FIRST_DEALER = 4
G_GUARD = 5  # 1 if the game hit the hand-count guard
G_SCORES = 6  # 4 slots: points from hands
G_TOTALS = 10  # 4 slots: with box, game and shutout bonuses
G_BOXES = 14  # 4 slots: hands won
N_GAME_FIELDS = G_BOXES + MAX_SEATS
MAX_HANDS_PER_GAME = 1000

assert S_COMPLETED < V_SIZE  # the hidden row is a board row: its slots must fit

# -- Status codes of the engine ---------------------------------------------------------
E_NONE = 0
E_ILLEGAL = 1  # a strategy's answer was not legal (details in the S_ERROR slots)
E_BUFFER = 2  # the output buffers are full (not an error: the caller resumes)
