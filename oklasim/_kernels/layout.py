"""The layouts of the kernels' rows, declared once: the packed rules, a seat's view, the board's hidden row, the
error record, the hand and game records; and the codes of their enumerated fields.

Each layout is a ``Record`` whose fields are declared in order with their widths; a field's offset follows from the
fields before it, so two fields never overlap and a record's size is the sum of its widths
(``tests/test_layout.py`` checks every exported offset against its record). Kernels read the rows through the
module-level names (``V_HAND``, ``S_DECK``, ``H_POINTS``...): plain ints, which numba treats as compile-time
constants. ``oklasim.game.rules`` packs the rules in ``RULES``'s order.
"""

from .cards_nb import N_CARDS
from .melds_nb import MAX_MELDS_IN_ARRANGEMENT


class Record:
    """A row layout: named fields of given widths, one after another from offset 0."""

    def __init__(self, name: str):
        self.name = name
        self.fields: dict[str, tuple[int, int]] = {}  # name: (offset, width)
        self.size = 0

    def field(self, name: str, width: int = 1) -> int:
        """Declare the next field; returns its offset."""
        if name in self.fields or width < 1:
            raise ValueError(f"{self.name}: field {name!r} declared twice or of width {width}")
        self.fields[name] = (self.size, width)
        self.size += width
        return self.fields[name][0]


MAX_SEATS = 4

RULES = Record("rules")
R_PLAYERS = RULES.field("players")
R_HAND_SIZE = RULES.field("hand_size")
R_OKLAHOMA = RULES.field("oklahoma")
R_FIXED_KNOCK_LIMIT = RULES.field("fixed_knock_limit")
R_ACE_UPCARD = RULES.field("ace_upcard")
R_SPADE_DOUBLE = RULES.field("spade_double")
R_GIN_BONUS = RULES.field("gin_bonus")
R_BIG_GIN = RULES.field("big_gin")
R_BIG_GIN_BONUS = RULES.field("big_gin_bonus")
R_UNDERCUT_BONUS = RULES.field("undercut_bonus")
R_TIE_RULE = RULES.field("tie_rule")
R_DISCARD_TAKEN_CARD = RULES.field("discard_taken_card")
R_WALL_RULE = RULES.field("wall_rule")
R_DEALER_RULE = RULES.field("dealer_rule")
R_TARGET_SCORE = RULES.field("target_score")
R_BOX_BONUS = RULES.field("box_bonus")
R_GAME_BONUS = RULES.field("game_bonus")
R_SHUTOUT_RULE = RULES.field("shutout_rule")
R_SINGLE_HAND = RULES.field("single_hand")
R_MAX_DRAWS = RULES.field("max_draws")
R_DEAL_KNOCK_LIMIT = RULES.field("deal_knock_limit")
N_RULE_FIELDS = RULES.size

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
VIEW = Record("view")
V_SEAT = VIEW.field("seat")
V_PLAYERS = VIEW.field("players")
V_DEALER = VIEW.field("dealer")
V_HAND = VIEW.field("hand")  # own cards (mask); 11 cards between drawing and discarding
V_HAND_NUMBER = VIEW.field("hand_number")  # hand of the game, from 0
V_UPCARD = VIEW.field("upcard")
V_KNOCK_LIMIT = VIEW.field("knock_limit")  # 0 = gin only
V_MULTIPLIER = VIEW.field("multiplier")  # 2 when a spade upcard doubles the hand
V_STOCK_LEFT = VIEW.field("stock_left")
V_PILE_SIZE = VIEW.field("pile_size")
V_DRAWS = VIEW.field("draws")  # draws by all players this hand (a taken upcard counts)
V_MY_DRAWS = VIEW.field("my_draws")
V_DRAWN = VIEW.field("drawn")  # card drawn this turn, NO_CARD before the draw
V_FORBIDDEN = VIEW.field("forbidden")  # card that may not be discarded now, or NO_CARD
V_KNOCK_DISCARDS = VIEW.field("knock_discards")  # mask of discards that leave a legal knock (at D_KNOCK)
V_BIG_GIN = VIEW.field("big_gin")  # 1 when big gin is on offer (at D_KNOCK)
V_LAST_CHANCE = VIEW.field("last_chance")  # 1 under the fiftieth-card rule: take the last discard only to knock
V_N_ARRANGEMENTS = VIEW.field("n_arrangements")  # at D_ARRANGE
V_RNG = VIEW.field("rng")  # the seat's own random stream state (see kit: rand_below_nb)
V_PILE_MASK = VIEW.field("pile_mask")  # cards in the discard pile
V_SCORES = VIEW.field("scores", MAX_SEATS)  # game score of each seat
V_TAKEN = VIEW.field("taken", MAX_SEATS)  # mask of cards each seat took from the pile (public)
V_DISCARDED = VIEW.field("discarded", MAX_SEATS)  # mask of cards each seat discarded (public)
V_PASSED = VIEW.field("passed", MAX_SEATS)  # 1 if the seat passed the first upcard
N_MEMORY = 12
V_MEMORY = VIEW.field("memory", N_MEMORY)  # slots the strategy may use freely; zeroed at each deal
V_RULES = VIEW.field("rules", N_RULE_FIELDS)  # the packed rules
V_PILE = VIEW.field("pile", N_CARDS)  # the discard pile, bottom first
MAX_ARRANGEMENTS = 32
# Meld masks of each arrangement on offer (at D_ARRANGE), MAX_MELDS_IN_ARRANGEMENT to an arrangement.
V_ARRANGEMENTS = VIEW.field("arrangements", MAX_ARRANGEMENTS * MAX_MELDS_IN_ARRANGEMENT)
V_ASKED = VIEW.field("asked")  # the card asked about (D_CONFIRM_DISCARD)
# The hand's public log, turn by turn in the order played (engine_nb.log_draw_nb / log_discard_nb): what any player
# at the table has seen, which the pile alone does not tell (whose discard each card was, who took which and when).
# A turn is LOG_BITS bits: the seat, how it drew (LOG_PASS, LOG_PILE: the first upcard too, LOG_STOCK) and its
# discard + 1 (0: none yet), LOG_PER_SLOT turns to a slot. V_LOG_TURNS counts on past MAX_LOG_TURNS (a hand that
# long, possible only through the draw guard, is no longer logged).
V_LOG_TURNS = VIEW.field("log_turns")
LOG_SLOTS = 20
LOG_BITS = 10
LOG_PER_SLOT = 6
MAX_LOG_TURNS = LOG_SLOTS * LOG_PER_SLOT
LOG_PASS, LOG_PILE, LOG_STOCK = 0, 1, 2
LOG_SEAT_SHIFT, LOG_DRAW_SHIFT, LOG_DISCARD_SHIFT = 0, 2, 4  # fields of a turn: 2, 2 and 6 bits
V_LOG = VIEW.field("log", LOG_SLOTS)
V_LOG_END = V_LOG + LOG_SLOTS
# Slots the strategy may use freely for the whole game (zeroed at each game, not at each deal): what it learns of
# its opponents across hands (``Family(game_memory=N)``). The slots from here to the view's end run on across hands.
N_GAME_MEMORY = 32
V_GAME_MEMORY = VIEW.field("game_memory", N_GAME_MEMORY)
# Public counts over the game so far, STYLE_FIELDS slots per seat (zeroed at each game): what each seat's showdowns
# showed of how it plays (engine_nb.reveal_nb).
STYLE_KNOCKS = 0  # hands it ended by a knock that was not gin
STYLE_HELD = 1  # showdowns it did not start where its hand allowed a knock it had declined (it had drawn)
STYLE_GINS = 2  # hands it ended by gin (big gin too)
# Those knocks short of gin and hands held one by one, in the order shown (the first SHOWN_SLOTS * SHOWN_PER_SLOT
# of the game): what an opponent model fits knock timing to. A showing is SHOWN_BITS bits: the seat's own draws that
# hand (up to SHOWN_MAX_DRAWS), its deadwood, whether it knocked, and a bit set in every showing.
STYLE_SHOWN = 3
SHOWN_SLOTS = 2
SHOWN_BITS = 10
SHOWN_PER_SLOT = 6
SHOWN_DEADWOOD_SHIFT, SHOWN_DRAWS_SHIFT, SHOWN_KNOCKED_SHIFT, SHOWN_PRESENT_SHIFT = 0, 4, 8, 9  # 4, 4, 1, 1 bits
SHOWN_FIELD_MASK = 15  # the draws and the deadwood fields
SHOWN_MAX_DRAWS = SHOWN_FIELD_MASK
STYLE_FIELDS = 3 + SHOWN_SLOTS
V_STYLE = VIEW.field("style", STYLE_FIELDS * MAX_SEATS)
V_STYLE_END = V_STYLE + STYLE_FIELDS * MAX_SEATS
V_SIZE = VIEW.size

# -- Hand records: one int64 row per hand -----------------------------------------------
HAND_RECORD = Record("hand record")
H_GAME = HAND_RECORD.field("game")
H_HAND = HAND_RECORD.field("hand")
H_DEALER = HAND_RECORD.field("dealer")
H_UPCARD = HAND_RECORD.field("upcard")
H_KNOCK_LIMIT = HAND_RECORD.field("knock_limit")
H_MULTIPLIER = HAND_RECORD.field("multiplier")
H_OUTCOME = HAND_RECORD.field("outcome")
H_KNOCKER = HAND_RECORD.field("knocker")
H_KNOCKER_DEADWOOD = HAND_RECORD.field("knocker_deadwood")
H_DEFENDER_DEADWOOD = HAND_RECORD.field("defender_deadwood")  # 2 players: the defender after layoffs; more: the lowest
H_LAID_OFF = HAND_RECORD.field("laid_off")  # cards laid off, all opponents
H_POINTS = HAND_RECORD.field("points")  # points scored by the hand's winner
H_WINNER = HAND_RECORD.field("winner")
H_DRAWS = HAND_RECORD.field("draws")
H_STOCK_LEFT = HAND_RECORD.field("stock_left")
H_FIRST_TAKER = HAND_RECORD.field("first_taker")  # seat that took the first upcard, -1 if all passed
H_PLAYERS = HAND_RECORD.field("players")
H_SEAT_POINTS = HAND_RECORD.field("seat_points", MAX_SEATS)  # points each seat scored in the hand
H_SEAT_DEADWOOD = HAND_RECORD.field("seat_deadwood", MAX_SEATS)  # each seat's deadwood at the end (after layoffs)
N_HAND_FIELDS = HAND_RECORD.size

# -- The record of an illegal answer, with the situation it was given in (engine_nb.illegal_nb) -------------------
ERROR = Record("error")
ER_CODE = ERROR.field("code")  # E_ILLEGAL
ER_SEAT = ERROR.field("seat")  # the seat whose decision it was
ER_KIND = ERROR.field("kind")
ER_ANSWER = ERROR.field("answer")
ER_HAND = ERROR.field("hand")  # the seat's cards
ER_GAME = ERROR.field("game")
ER_HAND_NUMBER = ERROR.field("hand_number")
ER_FORBIDDEN = ERROR.field("forbidden")
ER_KNOCK_DISCARDS = ERROR.field("knock_discards")
ERROR_FIELDS = ERROR.size

# -- The engine's board: rows 0..3 are the seats' views, row HIDDEN what no seat sees ----
HIDDEN = MAX_SEATS
BOARD_ROWS = MAX_SEATS + 1
BOARD = Record("hidden row")
S_DEALER = BOARD.field("dealer")
S_TURN = BOARD.field("turn")  # seat to act
S_PHASE = BOARD.field("phase")
S_OFFERS = BOARD.field("offers")  # first-upcard offers made so far
S_STOCK_POS = BOARD.field("stock_pos")  # index in S_DECK of the top of the stock
S_FIRST_TAKER = BOARD.field("first_taker")
S_GAME = BOARD.field("game")
S_TRACING = BOARD.field("tracing")  # 1 when events are written to the trace
S_HANDS = BOARD.field("hands", MAX_SEATS)  # every hand
S_DECK = BOARD.field("deck", N_CARDS)  # the deck order of this hand
S_RULES = BOARD.field("rules", N_RULE_FIELDS)
S_RECORD = BOARD.field("record", N_HAND_FIELDS)  # the hand record being filled
S_ERROR = BOARD.field("error", ERROR_FIELDS)  # the ERROR record of an illegal answer
S_TAKEN = BOARD.field("taken")  # the card the seat to act took from the pile this turn (NO_CARD: none)
S_KNOCKER = BOARD.field("knocker")  # the seat that knocked, from the knock to the end of the showdown
S_BIG_GIN = BOARD.field("big_gin")  # 1 when that knock is a big gin
S_KEEP = BOARD.field("keep")  # at the fiftieth card: the hand of the seat offered the last discard, without it
# 1 when the other hands on the board are a completion (sim.completion): a showdown then counts no style
# (V_STYLE) from them; the driver reveals the real hands when it learns them.
S_COMPLETED = BOARD.field("completed")

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
GAME_RECORD = Record("game record")
G_GAME = GAME_RECORD.field("game")
G_WINNER = GAME_RECORD.field("winner")
G_HANDS = GAME_RECORD.field("hands")
G_VOID_HANDS = GAME_RECORD.field("void_hands")
G_FIRST_DEALER = GAME_RECORD.field("first_dealer")
G_GUARD = GAME_RECORD.field("guard")  # 1 if the game hit the hand-count guard
G_SCORES = GAME_RECORD.field("scores", MAX_SEATS)  # points from hands
G_TOTALS = GAME_RECORD.field("totals", MAX_SEATS)  # with box, game and shutout bonuses
G_BOXES = GAME_RECORD.field("boxes", MAX_SEATS)  # hands won
N_GAME_FIELDS = GAME_RECORD.size
MAX_HANDS_PER_GAME = 1000

if BOARD.size > V_SIZE:  # the hidden row is a board row: its slots must fit
    raise ValueError(f"the hidden row needs {BOARD.size} slots, a board row has {V_SIZE}")

# -- Status codes of the engine ---------------------------------------------------------
E_NONE = 0
E_ILLEGAL = 1  # a strategy's answer was not legal (details in the S_ERROR slots)
E_BUFFER = 2  # the output buffers are full (not an error: the caller resumes)
