"""The hand and game state machine of Oklahoma Gin (RULES.md §2-§8).

All state of a hand lives in one int64 ``board``: rows 0..3 are the seats'
views (layout ``V_*``: everything that seat may know), row ``HIDDEN`` what
no seat sees (``S_*``: the deck order, every hand, the rules, the record
being filled). One array keeps calls cheap: numba pays two atomic
reference-count updates per array argument of every call, which measured at
most of the engine's time when state was spread over several arrays.

Strategies are first-class numba functions of one fixed signature
(``linking.DECIDE_SIGNATURE``), one per seat, so a new strategy or new parameters
never recompile the engine. Every answer is checked; an illegal one stops
the run with the situation in the ``S_ERROR`` slots.

Why one module of some 900 lines: it is one state machine. Each phase of a
hand is a small function of its own, but all read and write the same board
slots in a fixed order, and reading them side by side is how a rule is
checked against RULES.md.
"""

from __future__ import annotations

import numpy as np
from numba import float64, int64, njit, uint64

from .cards_nb import BIT, N_CARDS, card_value_nb, count_cards_nb, is_spade_nb
from .layout import (
    ACE_GIN_ONLY,
    BIG_GIN,
    BOARD_ROWS,
    LOG_BITS,
    LOG_DISCARD_SHIFT,
    LOG_DRAW_SHIFT,
    LOG_PASS,
    LOG_PER_SLOT,
    LOG_PILE,
    LOG_SEAT_SHIFT,
    LOG_STOCK,
    MAX_LOG_TURNS,
    D_ARRANGE,
    D_DISCARD,
    D_DRAW,
    D_KNOCK,
    D_NONE,
    D_TAKE_UPCARD,
    DEALER_ALTERNATE,
    DEALER_LOSER,
    E_BUFFER,
    E_ILLEGAL,
    E_NONE,
    ER_ANSWER,
    ER_CODE,
    ER_FORBIDDEN,
    ER_GAME,
    ER_HAND,
    ER_HAND_NUMBER,
    ER_KIND,
    ER_KNOCK_DISCARDS,
    ER_SEAT,
    ERROR_FIELDS,
    G_BOXES,
    G_FIRST_DEALER,
    G_GAME,
    G_GUARD,
    G_HANDS,
    G_SCORES,
    G_TOTALS,
    G_VOID_HANDS,
    G_WINNER,
    H_DEALER,
    H_DEFENDER_DEADWOOD,
    H_DRAWS,
    H_FIRST_TAKER,
    H_GAME,
    H_HAND,
    H_KNOCK_LIMIT,
    H_KNOCKER,
    H_KNOCKER_DEADWOOD,
    H_LAID_OFF,
    H_MULTIPLIER,
    H_OUTCOME,
    H_PLAYERS,
    H_POINTS,
    H_SEAT_DEADWOOD,
    H_SEAT_POINTS,
    H_STOCK_LEFT,
    H_UPCARD,
    H_WINNER,
    HIDDEN,
    MAX_ARRANGEMENTS,
    MAX_HANDS_PER_GAME,
    MAX_SEATS,
    N_HAND_FIELDS,
    N_RULE_FIELDS,
    NO_CARD,
    OUT_BIG_GIN,
    OUT_GIN,
    OUT_GUARD,
    OUT_KNOCK,
    OUT_TIE,
    OUT_UNDERCUT,
    OUT_VOID,
    PHASE_AFTER_DRAW,
    PHASE_ARRANGE,
    PHASE_DISCARD,
    PHASE_DONE,
    PHASE_DRAW,
    PHASE_FORCED_STOCK,
    PHASE_KNOCK,
    PHASE_LAST_KNOCK,
    PHASE_OFFER,
    PHASE_SHOWDOWN,
    PHASE_WALL,
    R_ACE_UPCARD,
    R_BIG_GIN,
    R_BIG_GIN_BONUS,
    R_BOX_BONUS,
    R_DEAL_KNOCK_LIMIT,
    R_DEALER_RULE,
    R_DISCARD_TAKEN_CARD,
    R_FIXED_KNOCK_LIMIT,
    R_GAME_BONUS,
    R_GIN_BONUS,
    R_HAND_SIZE,
    R_MAX_DRAWS,
    R_OKLAHOMA,
    R_PLAYERS,
    R_SHUTOUT_RULE,
    R_SINGLE_HAND,
    R_SPADE_DOUBLE,
    R_TARGET_SCORE,
    R_TIE_RULE,
    R_UNDERCUT_BONUS,
    R_WALL_RULE,
    S_BIG_GIN,
    S_COMPLETED,
    S_DEALER,
    S_DECK,
    S_ERROR,
    S_FIRST_TAKER,
    S_GAME,
    S_HANDS,
    S_KEEP,
    S_KNOCKER,
    S_OFFERS,
    S_PHASE,
    S_RECORD,
    S_RULES,
    S_STOCK_POS,
    S_TAKEN,
    S_TRACING,
    S_TURN,
    SHUTOUT_DOUBLE_BONUS,
    SHUTOUT_DOUBLE_TOTAL,
    SHOWN_BITS,
    SHOWN_DEADWOOD_SHIFT,
    SHOWN_DRAWS_SHIFT,
    SHOWN_KNOCKED_SHIFT,
    SHOWN_MAX_DRAWS,
    SHOWN_PER_SLOT,
    SHOWN_PRESENT_SHIFT,
    SHOWN_SLOTS,
    STYLE_FIELDS,
    STYLE_GINS,
    STYLE_HELD,
    STYLE_KNOCKS,
    STYLE_SHOWN,
    TIE_KNOCKER_ZERO,
    TIE_NO_SCORE,
    V_ARRANGEMENTS,
    V_BIG_GIN,
    V_DEALER,
    V_DISCARDED,
    V_DRAWN,
    V_DRAWS,
    V_FORBIDDEN,
    V_GAME_MEMORY,
    V_HAND,
    V_HAND_NUMBER,
    V_KNOCK_DISCARDS,
    V_KNOCK_LIMIT,
    V_LAST_CHANCE,
    V_LOG,
    V_LOG_TURNS,
    V_MULTIPLIER,
    V_MY_DRAWS,
    V_N_ARRANGEMENTS,
    V_PASSED,
    V_PILE,
    V_PILE_MASK,
    V_PILE_SIZE,
    V_PLAYERS,
    V_RNG,
    V_RULES,
    V_SCORES,
    V_SEAT,
    V_SIZE,
    V_STOCK_LEFT,
    V_STYLE,
    V_STYLE_END,
    V_TAKEN,
    V_UPCARD,
    WALL_FIFTIETH_CARD,
)
from .linking import DECIDE_TYPE, lazy_njit, stack_array_nb, unmanaged_nb
from .melds_nb import (
    MAX_MELDS_IN_ARRANGEMENT,
    deadwood_after_discard_fast_nb,
    deadwood_after_each_discard_nb,
    deadwood_nb,
    layoff_deadwood_nb,
    optimal_arrangements_nb,
)
from .rng_nb import SEAT_STREAMS, below_nb, next_state_nb, shuffle_deck_nb, stream_state_nb

# -- status array of a batch ---------------------------------------------------------------
ST_GAMES = 0  # games finished
ST_HANDS = 1  # hand records written
ST_TRACE = 2  # trace rows written
ST_ERROR = 3  # E_* code, then the error fields
STATUS_SIZE = ST_ERROR + ERROR_FIELDS

# -- trace rows: [game, hand, seat, event, a, b] -------------------------------------------
EV_DEAL = 0  # a = hand mask
EV_UPCARD = 1  # a = card, b = knock limit
EV_PASS = 2
EV_TAKE_UPCARD = 3  # a = card
EV_DRAW_STOCK = 4  # a = card
EV_DRAW_PILE = 5  # a = card
EV_DISCARD = 6  # a = card
EV_KNOCK = 7  # a = discard (BIG_GIN for none), b = deadwood
EV_MELDS = 8  # a = one meld of the knocker's arrangement
EV_LAYOFF = 9  # a = laid-off mask, b = deadwood after layoffs
EV_SCORE = 10  # a = points, b = outcome
EV_VOID = 11  # a = outcome (void or guard)
TRACE_FIELDS = 6


def new_board() -> np.ndarray:
    return np.zeros((BOARD_ROWS, V_SIZE), dtype=np.int64)


@njit(cache=True, inline="always")
def rule_nb(board, field):
    return board[HIDDEN, S_RULES + field]


@njit(cache=True, inline="always")
def record_nb(board, field, value):
    board[HIDDEN, S_RECORD + field] = value


@njit(cache=True)
def knock_limit_nb(board, upcard):
    if rule_nb(board, R_OKLAHOMA) == 0:
        return rule_nb(board, R_FIXED_KNOCK_LIMIT)
    value = card_value_nb(upcard)
    if value == 1 and rule_nb(board, R_ACE_UPCARD) == ACE_GIN_ONLY:
        return 0
    return value


@njit(cache=True, inline="always")
def publish_nb(board, slot, value):
    """Write a public fact into every seat's view."""
    for seat in range(board[0, V_PLAYERS]):
        board[seat, slot] = value


@njit(cache=True)
def trace_nb(trace, status, board, seat, event, a, b):
    """Append an event to the trace (callers check S_TRACING first: tracing is rare)."""
    row = status[ST_TRACE]
    if row < trace.shape[0]:
        trace[row, 0] = board[HIDDEN, S_GAME]
        trace[row, 1] = board[0, V_HAND_NUMBER]
        trace[row, 2] = seat
        trace[row, 3] = event
        trace[row, 4] = a
        trace[row, 5] = b
        status[ST_TRACE] = row + 1


@njit(cache=True)
def illegal_nb(board, seat, kind, answer):
    """Record an illegal answer with the situation it was given in; returns E_ILLEGAL."""
    error = board[HIDDEN, S_ERROR : S_ERROR + ERROR_FIELDS]
    error[ER_CODE] = E_ILLEGAL
    error[ER_SEAT] = seat
    error[ER_KIND] = kind
    error[ER_ANSWER] = answer
    error[ER_HAND] = board[seat, V_HAND]
    error[ER_GAME] = board[HIDDEN, S_GAME]
    error[ER_HAND_NUMBER] = board[seat, V_HAND_NUMBER]
    error[ER_FORBIDDEN] = board[seat, V_FORBIDDEN]
    error[ER_KNOCK_DISCARDS] = board[seat, V_KNOCK_DISCARDS]
    return E_ILLEGAL


@njit(cache=True)
def load_rules_nb(board, rules):
    for k in range(N_RULE_FIELDS):
        board[HIDDEN, S_RULES + k] = rules[k]


@njit(cache=True)
def deal_nb(board, dealer, hand_number, scores, deck_rng):
    """Shuffle, deal one card at a time from the dealer's left, then ``start_hand_nb``.

    Returns the advanced deck stream.
    """
    players = rule_nb(board, R_PLAYERS)
    deck = board[HIDDEN, S_DECK : S_DECK + N_CARDS]
    for card in range(N_CARDS):
        deck[card] = card
    deck_rng = shuffle_deck_nb(deck_rng, deck)
    for seat in range(MAX_SEATS):
        board[HIDDEN, S_HANDS + seat] = 0
    pos = 0
    for _ in range(rule_nb(board, R_HAND_SIZE)):
        for offset in range(players):
            seat = (dealer + 1 + offset) % players
            board[HIDDEN, S_HANDS + seat] |= BIT << deck[pos]
            pos += 1
    board[HIDDEN, S_STOCK_POS] = pos
    if rule_nb(board, R_DEAL_KNOCK_LIMIT) >= 0:
        deck_rng = force_upcard_nb(board, deck, pos, deck_rng)
    start_hand_nb(board, dealer, hand_number, scores)
    return deck_rng


@njit(cache=True)
def force_upcard_nb(board, deck, pos, deck_rng):
    """Swap a uniform card among those giving the wanted knock limit into the upcard's place ``pos``.

    Exact: every order with a given card at ``pos`` comes from the same number of shuffles (the swap of
    ``pos`` with that card's place), so the rest of the deal stays uniform given the upcard. The card may
    have been dealt, so the hands are set again. Returns the advanced deck stream.
    """
    wanted = rule_nb(board, R_DEAL_KNOCK_LIMIT)
    count = 0
    for card in range(N_CARDS):
        count += knock_limit_nb(board, card) == wanted
    deck_rng = next_state_nb(deck_rng)
    pick = below_nb(deck_rng, count)
    for where in range(N_CARDS):
        if knock_limit_nb(board, deck[where]) == wanted:
            if pick == 0:
                break
            pick -= 1
    deck[where], deck[pos] = deck[pos], deck[where]
    if where < pos:
        seat_of = 0
        for seat in range(MAX_SEATS):
            if (board[HIDDEN, S_HANDS + seat] >> deck[pos]) & 1:
                seat_of = seat
        board[HIDDEN, S_HANDS + seat_of] ^= (BIT << deck[pos]) | (BIT << deck[where])
    return deck_rng


@njit(cache=True)
def start_hand_nb(board, dealer, hand_number, scores):
    """Turn the next stock card up and set every view for a fresh hand (hands already dealt)."""
    players = rule_nb(board, R_PLAYERS)
    upcard = board[HIDDEN, S_DECK + board[HIDDEN, S_STOCK_POS]]
    board[HIDDEN, S_STOCK_POS] += 1
    board[HIDDEN, S_DEALER] = dealer
    board[HIDDEN, S_TURN] = (dealer + 1) % players
    board[HIDDEN, S_PHASE] = PHASE_OFFER
    board[HIDDEN, S_OFFERS] = 0
    board[HIDDEN, S_FIRST_TAKER] = -1
    board[HIDDEN, S_RECORD : S_RECORD + N_HAND_FIELDS] = 0
    limit = knock_limit_nb(board, upcard)
    for seat in range(players):
        view = board[seat]
        rng = view[V_RNG]  # the seat's random stream runs on across hands
        view[: V_GAME_MEMORY] = 0  # the game memory and the style counts (the last slots) run on across hands
        view[V_RNG] = rng
        view[V_SEAT] = seat
        view[V_PLAYERS] = players
        view[V_DEALER] = dealer
        view[V_HAND] = board[HIDDEN, S_HANDS + seat]
        view[V_HAND_NUMBER] = hand_number
        view[V_UPCARD] = upcard
        view[V_KNOCK_LIMIT] = limit
        view[V_MULTIPLIER] = 2 if rule_nb(board, R_SPADE_DOUBLE) and is_spade_nb(upcard) else 1
        view[V_STOCK_LEFT] = N_CARDS - board[HIDDEN, S_STOCK_POS]
        view[V_DRAWN] = NO_CARD
        view[V_FORBIDDEN] = NO_CARD
        for other in range(players):
            view[V_SCORES + other] = scores[other]
        for k in range(N_RULE_FIELDS):
            view[V_RULES + k] = board[HIDDEN, S_RULES + k]
        view[V_PILE] = upcard
        view[V_PILE_SIZE] = 1
        view[V_PILE_MASK] = BIT << upcard


@njit(cache=True, inline="always")
def board_pile_top_nb(board):
    return board[0, V_PILE + board[0, V_PILE_SIZE] - 1]


# The pile and the log are written at every turn: inlined, so that their callers pay no call or reference counts.
@njit(cache=True, inline="always")
def pile_push_nb(board, card):
    size = board[0, V_PILE_SIZE]
    for seat in range(board[0, V_PLAYERS]):
        board[seat, V_PILE + size] = card
        board[seat, V_PILE_SIZE] = size + 1
        board[seat, V_PILE_MASK] |= BIT << card


@njit(cache=True, inline="always")
def pile_pop_nb(board):
    size = board[0, V_PILE_SIZE] - 1
    card = board[0, V_PILE + size]
    for seat in range(board[0, V_PLAYERS]):
        board[seat, V_PILE_SIZE] = size
        board[seat, V_PILE_MASK] &= ~(BIT << card)
    return card


@njit(cache=True, inline="always")
def set_hand_nb(board, seat, hand):
    board[HIDDEN, S_HANDS + seat] = hand
    board[seat, V_HAND] = hand


LOG_MASK = (1 << LOG_BITS) - 1
LOG_FIELD_MASK = 3  # the seat and the draw fields are two bits each


@njit(cache=True, inline="always")
def log_place_nb(i):
    """(view slot, bit shift) of the log's turn ``i``."""
    return V_LOG + i // LOG_PER_SLOT, LOG_BITS * (i % LOG_PER_SLOT)


@njit(cache=True, inline="always")
def log_entry_nb(view, i):
    """The log's turn ``i``, packed (``LOG_BITS`` bits)."""
    slot, shift = log_place_nb(i)
    return view[slot] >> shift & LOG_MASK


@njit(cache=True, inline="always")
def log_turn_nb(view, i):
    """(seat, how it drew ``LOG_*``, its discard or NO_CARD) of the log's turn ``i``."""
    entry = log_entry_nb(view, i)
    return (entry >> LOG_SEAT_SHIFT & LOG_FIELD_MASK, entry >> LOG_DRAW_SHIFT & LOG_FIELD_MASK,
            (entry >> LOG_DISCARD_SHIFT) - 1)


@njit(cache=True, inline="always")
def log_draw_nb(board, seat, how):
    """Open ``seat``'s turn in the hand's public log: it passed the first upcard or drew (``LOG_*``)."""
    n = board[0, V_LOG_TURNS]
    if n < MAX_LOG_TURNS:
        slot, shift = log_place_nb(n)
        publish_nb(board, slot, board[0, slot] | (seat << LOG_SEAT_SHIFT | how << LOG_DRAW_SHIFT) << shift)
    publish_nb(board, V_LOG_TURNS, n + 1)


@njit(cache=True, inline="always")
def log_discard_nb(board, card):
    """Close the log's latest turn with its discard."""
    n = board[0, V_LOG_TURNS] - 1
    if 0 <= n < MAX_LOG_TURNS:
        slot, shift = log_place_nb(n)
        publish_nb(board, slot, board[0, slot] | (card + 1) << LOG_DISCARD_SHIFT << shift)


@njit(cache=True)
def draw_nb(board, seat, from_pile):
    """Move a card into ``seat``'s hand from the pile or the stock; returns it."""
    log_draw_nb(board, seat, LOG_PILE if from_pile else LOG_STOCK)
    if from_pile:
        card = pile_pop_nb(board)
        publish_nb(board, V_TAKEN + seat, board[0, V_TAKEN + seat] | (BIT << card))
    else:
        card = board[HIDDEN, S_DECK + board[HIDDEN, S_STOCK_POS]]
        board[HIDDEN, S_STOCK_POS] += 1
        publish_nb(board, V_STOCK_LEFT, N_CARDS - board[HIDDEN, S_STOCK_POS])
    set_hand_nb(board, seat, board[HIDDEN, S_HANDS + seat] | (BIT << card))
    publish_nb(board, V_DRAWS, board[0, V_DRAWS] + 1)
    board[seat, V_MY_DRAWS] += 1
    board[seat, V_DRAWN] = card
    return card


@njit(cache=True)
def discard_nb(board, seat, card):
    set_hand_nb(board, seat, board[HIDDEN, S_HANDS + seat] & ~(BIT << card))
    pile_push_nb(board, card)
    publish_nb(board, V_DISCARDED + seat, board[0, V_DISCARDED + seat] | (BIT << card))
    log_discard_nb(board, card)
    board[seat, V_DRAWN] = NO_CARD
    board[seat, V_FORBIDDEN] = NO_CARD


@njit(cache=True)
def knock_discards_nb(hand, limit, forbidden):
    """Mask of the discards after which ``hand`` may knock (deadwood <= limit).

    Asked after every draw; players holding for gin keep hands that could
    knock for many turns, so every discard is tried in one kernel pass.
    """
    if deadwood_after_discard_fast_nb(hand) > limit:
        return np.int64(0)
    deadwood_of = stack_array_nb(1, N_CARDS, np.int64)[0]
    deadwood_after_each_discard_nb(hand, deadwood_of)
    found = np.int64(0)
    rest = hand & ~(BIT << forbidden) if forbidden >= 0 else hand
    while rest:
        card = rest & -rest
        rest ^= card
        if deadwood_of[count_cards_nb(card - 1)] <= limit:
            found |= card
    return found


@njit(cache=True)
def score_pair_nb(board, knocker_dw, defender_dw, gin, big_gin, multiplier):
    """Settle a knocker against one defender by RULES.md §6.

    Returns (outcome, knocker's points, defender's points).
    """
    if gin:
        bonus = rule_nb(board, R_BIG_GIN_BONUS) if big_gin else rule_nb(board, R_GIN_BONUS)
        return (OUT_BIG_GIN if big_gin else OUT_GIN), (bonus + defender_dw) * multiplier, 0
    if knocker_dw < defender_dw:
        return OUT_KNOCK, (defender_dw - knocker_dw) * multiplier, 0
    if knocker_dw == defender_dw and rule_nb(board, R_TIE_RULE) == TIE_NO_SCORE:
        return OUT_TIE, 0, 0
    if knocker_dw == defender_dw and rule_nb(board, R_TIE_RULE) == TIE_KNOCKER_ZERO:
        return OUT_KNOCK, 0, 0
    return OUT_UNDERCUT, 0, (knocker_dw - defender_dw + rule_nb(board, R_UNDERCUT_BONUS)) * multiplier


@njit(cache=True)
def lay_and_score_nb(board, knocker, big_gin, melds, trace, status):
    """Lay the knocker's ``melds``, let every opponent lay off, score the hand into the record."""
    players = rule_nb(board, R_PLAYERS)
    tracing = board[HIDDEN, S_TRACING]
    knocker_dw = deadwood_nb(board[HIDDEN, S_HANDS + knocker])
    gin = knocker_dw == 0
    n_melds = 0
    while n_melds < MAX_MELDS_IN_ARRANGEMENT and melds[n_melds] != 0:
        if tracing:
            trace_nb(trace, status, board, knocker, EV_MELDS, melds[n_melds], 0)
        n_melds += 1
    multiplier = board[0, V_MULTIPLIER]
    record = board[HIDDEN, S_RECORD : S_RECORD + N_HAND_FIELDS]
    outcome = OUT_TIE
    lowest_opponent = np.int64(1 << 30)
    laid_total = 0
    for offset in range(1, players):
        seat = (knocker + offset) % players
        if gin:
            dw, laid = deadwood_nb(board[HIDDEN, S_HANDS + seat]), np.int64(0)
        else:
            dw, laid = layoff_deadwood_nb(melds, n_melds, board[HIDDEN, S_HANDS + seat])
        if tracing:
            trace_nb(trace, status, board, seat, EV_LAYOFF, laid, dw)
        laid_total += count_cards_nb(laid)
        pair_outcome, knocker_points, seat_points = score_pair_nb(board, knocker_dw, dw, gin, big_gin, multiplier)
        # An undercut by anyone marks the hand; otherwise the knocker's result does.
        if pair_outcome == OUT_UNDERCUT or outcome == OUT_TIE:
            outcome = pair_outcome
        record[H_SEAT_POINTS + knocker] += knocker_points
        record[H_SEAT_POINTS + seat] += seat_points
        record[H_SEAT_DEADWOOD + seat] = dw
        lowest_opponent = min(lowest_opponent, dw)
    record[H_SEAT_DEADWOOD + knocker] = knocker_dw
    if not board[HIDDEN, S_COMPLETED]:  # a completion's hands are guesses: its driver reveals the real ones
        for seat in range(players):
            reveal_nb(board, seat, board[HIDDEN, S_HANDS + seat], knocker)
    # The winner scored most from the hand; ties go to the knocker, then round the table.
    winner, best_points = -1, 0
    if outcome != OUT_TIE:
        winner, best_points = knocker, record[H_SEAT_POINTS + knocker]
        for offset in range(1, players):
            seat = (knocker + offset) % players
            if record[H_SEAT_POINTS + seat] > best_points:
                winner, best_points = seat, record[H_SEAT_POINTS + seat]
    record[H_OUTCOME] = outcome
    record[H_KNOCKER] = knocker
    record[H_KNOCKER_DEADWOOD] = knocker_dw
    record[H_DEFENDER_DEADWOOD] = lowest_opponent
    record[H_LAID_OFF] = laid_total
    record[H_WINNER] = winner
    record[H_POINTS] = best_points
    if tracing:
        trace_nb(trace, status, board, winner, EV_SCORE, best_points, outcome)


@njit(cache=True)
def reveal_nb(board, seat, hand, knocker):
    """``seat`` shows ``hand`` at the showdown ``knocker`` started: counted into every view's public style counts.

    The knocker's knock counts as a knock or a gin. Another seat that has drawn
    and shows deadwood within the knock limit held a hand it could have
    knocked with at its last discard (the cards it shows are the ones it kept
    then), and did not. Each of both is shown with the seat's draws that hand and its deadwood.
    """
    slot = V_STYLE + STYLE_FIELDS * seat
    limit = board[0, V_KNOCK_LIMIT]
    draws = board[seat, V_MY_DRAWS]
    deadwood = deadwood_nb(hand)
    if seat == knocker:
        field = STYLE_KNOCKS if deadwood > 0 else STYLE_GINS
        publish_nb(board, slot + field, board[0, slot + field] + 1)
        if deadwood > 0:
            show_nb(board, slot, draws, deadwood, 1)
    elif draws > 0 and limit > 0 and deadwood <= limit:
        publish_nb(board, slot + STYLE_HELD, board[0, slot + STYLE_HELD] + 1)
        show_nb(board, slot, draws, deadwood, 0)


@njit(cache=True, inline="always")
def show_nb(board, slot, draws, deadwood, knocked):
    """Add a knock short of gin or a hand held to the showings of the seat whose style counts start at ``slot``
    (none once its SHOWN_SLOTS are full)."""
    showing = ((min(draws, SHOWN_MAX_DRAWS) << SHOWN_DRAWS_SHIFT) | (deadwood << SHOWN_DEADWOOD_SHIFT)
               | (knocked << SHOWN_KNOCKED_SHIFT) | (1 << SHOWN_PRESENT_SHIFT))
    for k in range(SHOWN_SLOTS):
        packed = board[0, slot + STYLE_SHOWN + k]
        for position in range(SHOWN_PER_SLOT):
            shift = SHOWN_BITS * position
            if (packed >> (shift + SHOWN_PRESENT_SHIFT)) & 1 == 0:
                publish_nb(board, slot + STYLE_SHOWN + k, packed | (showing << shift))
                return


@njit(cache=True)
def clear_game_nb(board):
    """A new game: no showdown seen yet, nothing in the strategies' game memory."""
    for row in range(MAX_SEATS):
        board[row, V_GAME_MEMORY:V_STYLE_END] = 0


@njit(cache=True)
def end_void_nb(board, outcome, trace, status):
    record_nb(board, H_OUTCOME, outcome)
    record_nb(board, H_WINNER, -1)
    record_nb(board, H_KNOCKER, -1)
    record_nb(board, H_KNOCKER_DEADWOOD, -1)
    record_nb(board, H_DEFENDER_DEADWOOD, -1)
    if board[HIDDEN, S_TRACING]:
        trace_nb(trace, status, board, -1, EV_VOID, outcome, 0)


# -- The hand as a step machine: pending_nb says what is asked next, apply_nb takes the answer --------------
# Every referee drives these two: the engine's hand loop (play_hand_nb), the advisor's rollouts, and from Python
# the table people play at, the agent's view and the advisor's history replay. The phases are in layout.


@njit(cache=True)
def finish_hand_nb(board):
    """The hand is over: the record's fields that every outcome shares."""
    board[HIDDEN, S_PHASE] = PHASE_DONE
    record = board[HIDDEN, S_RECORD : S_RECORD + N_HAND_FIELDS]
    record[H_GAME] = board[HIDDEN, S_GAME]
    record[H_HAND] = board[0, V_HAND_NUMBER]
    record[H_DEALER] = board[HIDDEN, S_DEALER]
    record[H_UPCARD] = board[0, V_UPCARD]
    record[H_KNOCK_LIMIT] = board[0, V_KNOCK_LIMIT]
    record[H_MULTIPLIER] = board[0, V_MULTIPLIER]
    record[H_DRAWS] = board[0, V_DRAWS]
    record[H_STOCK_LEFT] = N_CARDS - board[HIDDEN, S_STOCK_POS]
    record[H_FIRST_TAKER] = board[HIDDEN, S_FIRST_TAKER]
    record[H_PLAYERS] = rule_nb(board, R_PLAYERS)


@njit(cache=True)
def void_hand_nb(board, outcome, trace, status):
    end_void_nb(board, outcome, trace, status)
    finish_hand_nb(board)


@njit(cache=True)
def take_card_nb(board, seat, from_pile, trace, status):
    """``seat`` draws from the pile or the stock; its 11 cards then face the knock offer or the discard."""
    card = draw_nb(board, seat, from_pile)
    if board[HIDDEN, S_TRACING]:
        trace_nb(trace, status, board, seat, EV_DRAW_PILE if from_pile else EV_DRAW_STOCK, card, 0)
    board[HIDDEN, S_TAKEN] = card if from_pile else NO_CARD  # only a card from the pile is barred from the discard
    board[HIDDEN, S_TURN] = seat
    board[HIDDEN, S_PHASE] = PHASE_AFTER_DRAW
    return card


@njit(cache=True)
def offer_knock_nb(board, seat, forbidden, last_chance):
    """Put the knock offer in ``seat``'s view if its 11 cards allow a knock; returns whether they do."""
    hand = board[HIDDEN, S_HANDS + seat]
    view = board[seat]
    options = knock_discards_nb(hand, view[V_KNOCK_LIMIT], forbidden)
    big_gin = rule_nb(board, R_BIG_GIN) != 0 and deadwood_nb(hand) == 0
    if options == 0 and not big_gin:
        return False
    view[V_KNOCK_DISCARDS] = options
    view[V_BIG_GIN] = 1 if big_gin else 0
    view[V_LAST_CHANCE] = 1 if last_chance else 0
    view[V_FORBIDDEN] = forbidden
    return True


@njit(cache=True, inline="always")
def knock_answer_legal_nb(view, answer):
    """NO_CARD plays on (at the fiftieth card: declines the last discard), else a knock the view offers."""
    if answer == NO_CARD or (answer == BIG_GIN and view[V_BIG_GIN] != 0):
        return True
    return 0 <= answer < N_CARDS and view[V_KNOCK_DISCARDS] & (BIT << answer) != 0


@njit(cache=True)
def close_knock_offer_nb(view):
    view[V_KNOCK_DISCARDS] = 0
    view[V_BIG_GIN] = 0
    view[V_LAST_CHANCE] = 0


@njit(cache=True)
def knock_nb(board, seat, knock, trace, status):
    """Discard (unless big gin) and go to the showdown."""
    if knock != BIG_GIN:
        discard_nb(board, seat, knock)
    if board[HIDDEN, S_TRACING]:
        trace_nb(trace, status, board, seat, EV_KNOCK, knock, deadwood_nb(board[HIDDEN, S_HANDS + seat]))
    board[HIDDEN, S_KNOCKER] = seat
    board[HIDDEN, S_BIG_GIN] = 1 if knock == BIG_GIN else 0
    board[HIDDEN, S_PHASE] = PHASE_SHOWDOWN


@njit(cache=True)
def pending_nb(board, arrangements, trace, status):
    """Take the steps that need no decision; return (seat, decision) of what is asked next, (-1, D_NONE) when the
    hand is over. The decision's view is then ready in the board's row of that seat (its knock offer, its
    forbidden discard, its arrangements)."""
    return pending_in_line_nb(board, arrangements, trace, status)


# The engine's hand loop inlines the step machine (``pending_in_line_nb``, ``apply_in_line_nb``): a call passing the
# board and its companions cost more than a simple decision's steps (measured, 7% of simple vs simple). Every other
# referee calls ``pending_nb`` and ``apply_nb``, one compiled copy each.
@njit(cache=True, inline="always")
def pending_in_line_nb(board, arrangements, trace, status):
    """``pending_nb``, inlined where it is called."""
    while True:
        phase = board[HIDDEN, S_PHASE]
        seat = board[HIDDEN, S_TURN]
        if phase == PHASE_OFFER:
            return seat, D_TAKE_UPCARD
        if phase == PHASE_DRAW or phase == PHASE_FORCED_STOCK:
            if board[0, V_DRAWS] >= rule_nb(board, R_MAX_DRAWS):
                void_hand_nb(board, OUT_GUARD, trace, status)
            elif phase == PHASE_DRAW:
                return seat, D_DRAW
            else:
                take_card_nb(board, seat, False, trace, status)
        elif phase == PHASE_AFTER_DRAW:
            taken = board[HIDDEN, S_TAKEN]
            forbidden = taken if taken >= 0 and rule_nb(board, R_DISCARD_TAKEN_CARD) == 0 else NO_CARD
            if offer_knock_nb(board, seat, forbidden, False):
                board[HIDDEN, S_PHASE] = PHASE_KNOCK
                return seat, D_KNOCK
            board[seat, V_FORBIDDEN] = forbidden
            board[HIDDEN, S_PHASE] = PHASE_DISCARD
            return seat, D_DISCARD
        elif phase == PHASE_KNOCK or phase == PHASE_LAST_KNOCK:
            return seat, D_KNOCK
        elif phase == PHASE_DISCARD:
            return seat, D_DISCARD
        elif phase == PHASE_WALL:
            top = board_pile_top_nb(board)
            keep = board[HIDDEN, S_HANDS + seat]
            board[HIDDEN, S_KEEP] = keep
            set_hand_nb(board, seat, keep | (BIT << top))  # show the seat the hand it would have
            forbidden = top if rule_nb(board, R_DISCARD_TAKEN_CARD) == 0 else NO_CARD
            if offer_knock_nb(board, seat, forbidden, True):
                board[HIDDEN, S_PHASE] = PHASE_LAST_KNOCK
                return seat, D_KNOCK
            set_hand_nb(board, seat, keep)
            void_hand_nb(board, OUT_VOID, trace, status)
        elif phase == PHASE_SHOWDOWN:
            knocker = board[HIDDEN, S_KNOCKER]
            hand = board[HIDDEN, S_HANDS + knocker]
            count = min(optimal_arrangements_nb(hand, arrangements), MAX_ARRANGEMENTS)
            if count > 1 and deadwood_nb(hand) != 0:  # on gin nothing is laid off: the arrangement cannot matter
                view = board[knocker]
                view[V_N_ARRANGEMENTS] = count
                for row in range(count):
                    for k in range(MAX_MELDS_IN_ARRANGEMENT):
                        view[V_ARRANGEMENTS + MAX_MELDS_IN_ARRANGEMENT * row + k] = arrangements[row, k]
                board[HIDDEN, S_TURN] = knocker
                board[HIDDEN, S_PHASE] = PHASE_ARRANGE
                return knocker, D_ARRANGE
            lay_and_score_nb(board, knocker, board[HIDDEN, S_BIG_GIN] != 0, arrangements[0], trace, status)
            finish_hand_nb(board)
        elif phase == PHASE_ARRANGE:
            return board[HIDDEN, S_KNOCKER], D_ARRANGE
        else:
            return -1, D_NONE


@njit(cache=True)
def apply_nb(board, seat, kind, answer, arrangements, trace, status):
    """Check ``seat``'s ``answer`` to decision ``kind`` against what is pending, then play it: change the board,
    publish it to every view, record the event. Returns E_NONE, or E_ILLEGAL (the situation in S_ERROR, the
    board unchanged but for that) for an answer out of turn or against the rules."""
    return apply_in_line_nb(board, seat, kind, answer, arrangements, trace, status)


@njit(cache=True, inline="always")
def apply_in_line_nb(board, seat, kind, answer, arrangements, trace, status):
    """``apply_nb``, inlined where it is called."""
    phase = board[HIDDEN, S_PHASE]
    expected = -1
    if phase == PHASE_OFFER:
        expected = D_TAKE_UPCARD
    elif phase == PHASE_DRAW:
        expected = D_DRAW
    elif phase == PHASE_KNOCK or phase == PHASE_LAST_KNOCK:
        expected = D_KNOCK
    elif phase == PHASE_DISCARD:
        expected = D_DISCARD
    elif phase == PHASE_ARRANGE:
        expected = D_ARRANGE
    actor = board[HIDDEN, S_KNOCKER] if phase == PHASE_ARRANGE else board[HIDDEN, S_TURN]
    if kind != expected or seat != actor:  # out of turn: recorded against the seat whose decision it is
        return illegal_nb(board, actor, kind, answer)
    players = rule_nb(board, R_PLAYERS)
    tracing = board[HIDDEN, S_TRACING]
    view = board[seat]
    if phase == PHASE_OFFER:
        if answer != 0 and answer != 1:
            return illegal_nb(board, seat, kind, answer)
        if answer == 1:
            board[HIDDEN, S_FIRST_TAKER] = seat
            card = draw_nb(board, seat, True)
            if tracing:
                trace_nb(trace, status, board, seat, EV_TAKE_UPCARD, card, 0)
            board[HIDDEN, S_TAKEN] = card
            board[HIDDEN, S_PHASE] = PHASE_AFTER_DRAW
            return E_NONE
        publish_nb(board, V_PASSED + seat, 1)
        log_draw_nb(board, seat, LOG_PASS)
        if tracing:
            trace_nb(trace, status, board, seat, EV_PASS, 0, 0)
        board[HIDDEN, S_OFFERS] += 1
        if board[HIDDEN, S_OFFERS] == players:
            board[HIDDEN, S_PHASE] = PHASE_FORCED_STOCK
            board[HIDDEN, S_TURN] = (board[HIDDEN, S_DEALER] + 1) % players
        else:
            board[HIDDEN, S_TURN] = (seat + 1) % players
        return E_NONE
    if phase == PHASE_DRAW:
        if answer != 0 and answer != 1:
            return illegal_nb(board, seat, kind, answer)
        take_card_nb(board, seat, answer == 1, trace, status)
        return E_NONE
    if phase == PHASE_KNOCK:
        if not knock_answer_legal_nb(view, answer):
            return illegal_nb(board, seat, kind, answer)
        close_knock_offer_nb(view)
        if answer == NO_CARD:
            board[HIDDEN, S_PHASE] = PHASE_DISCARD
        else:
            knock_nb(board, seat, answer, trace, status)
        return E_NONE
    if phase == PHASE_LAST_KNOCK:
        if not knock_answer_legal_nb(view, answer):  # the offer stands, the last discard shown in hand
            return illegal_nb(board, seat, kind, answer)
        close_knock_offer_nb(view)
        set_hand_nb(board, seat, board[HIDDEN, S_KEEP])
        if answer == NO_CARD:
            void_hand_nb(board, OUT_VOID, trace, status)
            return E_NONE
        take_card_nb(board, seat, True, trace, status)
        knock_nb(board, seat, answer, trace, status)
        return E_NONE
    if phase == PHASE_DISCARD:
        if answer < 0 or answer >= N_CARDS or view[V_HAND] & (BIT << answer) == 0 or answer == view[V_FORBIDDEN]:
            return illegal_nb(board, seat, kind, answer)
        discard_nb(board, seat, answer)
        if tracing:
            trace_nb(trace, status, board, seat, EV_DISCARD, answer, 0)
        board[HIDDEN, S_TURN] = (seat + 1) % players
        if N_CARDS - board[HIDDEN, S_STOCK_POS] > 2:
            board[HIDDEN, S_PHASE] = PHASE_DRAW
        elif rule_nb(board, R_WALL_RULE) == WALL_FIFTIETH_CARD:
            board[HIDDEN, S_PHASE] = PHASE_WALL  # the last discard is offered to the next seat
        else:
            void_hand_nb(board, OUT_VOID, trace, status)  # the wall: two cards left and nobody knocked
        return E_NONE
    # PHASE_ARRANGE
    if answer < 0 or answer >= view[V_N_ARRANGEMENTS]:
        return illegal_nb(board, seat, kind, answer)
    lay_and_score_nb(board, seat, board[HIDDEN, S_BIG_GIN] != 0, arrangements[answer], trace, status)
    finish_hand_nb(board)
    return E_NONE


@njit(cache=True)
def play_until_nb(board, deciders, params, arrangements, trace, status, until):
    """Ask what is pending, apply the seat's answer, until the hand is over or reaches phase ``until``.
    Returns a status."""
    # Each seat's view and parameters sliced once, and each call written out: a slice per decision, or a tuple
    # indexed by seat, costs reference counts that weighed as much as simple's decision (measured).
    view0, view1, view2, view3 = board[0], board[1], board[2], board[3]
    params0, params1, params2, params3 = params[0], params[1], params[2], params[3]
    while board[HIDDEN, S_PHASE] != until:
        seat, kind = pending_in_line_nb(board, arrangements, trace, status)
        if kind == D_NONE:
            return E_NONE
        if seat == 0:
            answer = deciders[0](kind, view0, params0)
        elif seat == 1:
            answer = deciders[1](kind, view1, params1)
        elif seat == 2:
            answer = deciders[2](kind, view2, params2)
        else:
            answer = deciders[3](kind, view3, params3)
        error = apply_in_line_nb(board, seat, kind, answer, arrangements, trace, status)
        if error:
            return error
    return E_NONE


@njit(cache=True)
def play_hand_nb(board, deciders, params, arrangements, trace, status):
    """Play the current hand from the board to its end, filling the record. Returns a status."""
    return play_until_nb(board, deciders, params, arrangements, trace, status, PHASE_DONE)


@njit(cache=True)
def play_turn_nb(board, deciders, params, arrangements, trace, status):
    """Play on until the next seat is to draw or the hand is over (a turn of decisions the advisor prescribes)."""
    return play_until_nb(board, deciders, params, arrangements, trace, status, PHASE_DRAW)


@njit(cache=True)
def next_dealer_nb(board, record, dealer):
    """RULES.md §2: void and tied hands are redealt by the same dealer; otherwise the rule chosen."""
    players = rule_nb(board, R_PLAYERS)
    winner = record[H_WINNER]
    if winner < 0:
        return dealer
    rule = rule_nb(board, R_DEALER_RULE)
    if rule == DEALER_ALTERNATE:
        return (dealer + 1) % players
    if rule == DEALER_LOSER:
        loser, worst = -1, np.int64(1 << 40)
        for offset in range(1, players):  # round the table from the winner
            seat = (winner + offset) % players
            if record[H_SEAT_POINTS + seat] < worst:
                loser, worst = seat, record[H_SEAT_POINTS + seat]
        return loser
    return winner


@njit(cache=True)
def game_tie_nb(board, scores, winner):
    """Several players on the top score (3-4 players: the knocker and an undercutter can both
    pass the target in the last hand): whoever scored more in that hand, then its knocker,
    then round the table from the knocker."""
    players = rule_nb(board, R_PLAYERS)
    knocker = board[HIDDEN, S_RECORD + H_KNOCKER]  # of the game's last hand
    if knocker < 0 or rule_nb(board, R_SINGLE_HAND):
        return winner
    best = -1
    for offset in range(players):
        seat = (knocker + offset) % players
        points = board[HIDDEN, S_RECORD + H_SEAT_POINTS + seat]
        if scores[seat] == scores[winner] and (best < 0 or points > board[HIDDEN, S_RECORD + H_SEAT_POINTS + best]):
            best = seat
    return best


@njit(cache=True)
def settle_game_nb(board, scores, boxes, game_record):
    """Winner, box, game and shutout bonuses (RULES.md §7). The highest score wins (ties: ``game_tie_nb``)."""
    players = rule_nb(board, R_PLAYERS)
    # The game is its one hand (no winner if it was void or tied), or the hand-count guard stopped it
    # unfinished (no winner): no bonuses either way.
    if rule_nb(board, R_SINGLE_HAND) or game_record[G_GUARD]:
        for seat in range(players):
            game_record[G_SCORES + seat] = scores[seat]
            game_record[G_BOXES + seat] = boxes[seat]
            game_record[G_TOTALS + seat] = scores[seat]
        game_record[G_WINNER] = -1 if game_record[G_GUARD] else board[HIDDEN, S_RECORD + H_WINNER]
        return
    winner, tied = 0, False
    for seat in range(1, players):
        if scores[seat] > scores[winner]:
            winner, tied = seat, False
        elif scores[seat] == scores[winner]:
            tied = True
    if tied:
        winner = game_tie_nb(board, scores, winner)
    shutout = True
    for seat in range(players):
        if seat != winner and scores[seat] > 0:
            shutout = False
    for seat in range(players):
        game_record[G_SCORES + seat] = scores[seat]
        game_record[G_BOXES + seat] = boxes[seat]
        game_record[G_TOTALS + seat] = scores[seat] + boxes[seat] * rule_nb(board, R_BOX_BONUS)
    bonus = rule_nb(board, R_GAME_BONUS)
    if shutout and rule_nb(board, R_SHUTOUT_RULE) == SHUTOUT_DOUBLE_BONUS:
        bonus *= 2
    game_record[G_TOTALS + winner] += bonus
    if shutout and rule_nb(board, R_SHUTOUT_RULE) == SHUTOUT_DOUBLE_TOTAL:
        game_record[G_TOTALS + winner] *= 2
    game_record[G_WINNER] = winner


@njit(cache=True)
def seed_views_nb(board, seed, game):
    """Each seat's private random stream for one game, independent of the deck's."""
    for seat in range(MAX_SEATS):
        board[seat, V_RNG] = np.int64(stream_state_nb(uint64(seed) ^ uint64(SEAT_STREAMS), game * MAX_SEATS + seat))


@njit(cache=True)
def open_game_nb(board, seed, game, game_record):
    """Start game ``game`` of ``seed``: the seats' streams, the first dealer drawn by lot (in the game record).
    Returns the deck's stream."""
    deck_rng = next_state_nb(stream_state_nb(seed, game))
    board[HIDDEN, S_GAME] = game
    seed_views_nb(board, seed, game)
    clear_game_nb(board)
    game_record[:] = 0
    game_record[G_GAME] = game
    game_record[G_FIRST_DEALER] = below_nb(deck_rng, rule_nb(board, R_PLAYERS))
    return deck_rng


@njit(cache=True)
def open_hand_nb(board, dealer, hands, scores, deck_rng, trace, status):
    """Deal hand number ``hands`` of the game at ``scores`` and trace the deal. Returns the deck's stream."""
    deck_rng = deal_nb(board, dealer, hands, scores, deck_rng)
    if board[HIDDEN, S_TRACING]:
        for seat in range(rule_nb(board, R_PLAYERS)):
            trace_nb(trace, status, board, seat, EV_DEAL, board[HIDDEN, S_HANDS + seat], 0)
        trace_nb(trace, status, board, dealer, EV_UPCARD, board[0, V_UPCARD], board[0, V_KNOCK_LIMIT])
    return deck_rng


@njit(cache=True)
def close_hand_nb(board, record, scores, boxes, game_record):
    """Count the hand just recorded into the game: its void, its box, the scores. Returns whether the game is over."""
    if record[H_OUTCOME] == OUT_VOID or record[H_OUTCOME] == OUT_GUARD:
        game_record[G_VOID_HANDS] += 1
    if record[H_WINNER] >= 0:
        boxes[record[H_WINNER]] += 1
    top = 0
    for seat in range(rule_nb(board, R_PLAYERS)):
        scores[seat] += record[H_SEAT_POINTS + seat]
        top = max(top, scores[seat])
    return rule_nb(board, R_SINGLE_HAND) != 0 or top >= rule_nb(board, R_TARGET_SCORE)


@njit(cache=True)
def play_game_nb(board, deciders, params, seed, game, arrangements, hand_out, game_record, trace, status):
    """One game to the target (one hand under ``single_hand``). Returns a status.

    Its hand records go to ``hand_out`` from row ``status[ST_HANDS]``; returns
    E_BUFFER, having done nothing, when fewer than MAX_HANDS_PER_GAME rows are left.
    """
    if hand_out.shape[0] - status[ST_HANDS] < MAX_HANDS_PER_GAME:
        return E_BUFFER
    deck_rng = open_game_nb(board, seed, game, game_record)
    scores = np.zeros(MAX_SEATS, dtype=np.int64)
    boxes = np.zeros(MAX_SEATS, dtype=np.int64)
    return play_hands_nb(board, deciders, params, game_record[G_FIRST_DEALER], 0, scores, boxes, deck_rng,
                         arrangements, hand_out, game_record, trace, status)


@njit(cache=True)
def play_hands_nb(board, deciders, params, dealer, hands, scores, boxes, deck_rng, arrangements, hand_out,
                  game_record, trace, status):
    """Deal and play hand ``hands``, ``hands + 1``, ... of a game at ``scores`` until it ends, then settle it.

    The game loop of ``play_game_nb``; the advisor plays a game on from its
    middle with it. Returns a status.
    """
    while True:
        if hands == MAX_HANDS_PER_GAME:
            game_record[G_GUARD] = 1
            break
        deck_rng = open_hand_nb(board, dealer, hands, scores, deck_rng, trace, status)
        error = play_hand_nb(board, deciders, params, arrangements, trace, status)
        if error:
            return error
        record = hand_out[status[ST_HANDS]]
        record[:] = board[HIDDEN, S_RECORD : S_RECORD + N_HAND_FIELDS]
        status[ST_HANDS] += 1
        hands += 1
        if close_hand_nb(board, record, scores, boxes, game_record):
            break
        dealer = next_dealer_nb(board, record, dealer)
    game_record[G_HANDS] = hands
    settle_game_nb(board, scores, boxes, game_record)
    return E_NONE


PLAY_GAMES_SIGNATURE = int64(
    DECIDE_TYPE,
    DECIDE_TYPE,
    DECIDE_TYPE,
    DECIDE_TYPE,
    float64[:, ::1],
    int64[::1],
    int64,
    int64,
    int64,
    int64[:, ::1],
    int64[:, ::1],
    int64[:, ::1],
    int64[::1],
)


@lazy_njit(PLAY_GAMES_SIGNATURE)
def play_games_nb(decide0, decide1, decide2, decide3, params, rules, seed, first_game, n_games, hand_out, game_out, trace, status):
    """Play games ``first_game + status[ST_GAMES]`` ... until ``n_games`` are done or a buffer fills.

    Game ``g`` depends only on ``(seed, g)``, the rules and the strategies,
    never on the batch it runs in. Returns a status (E_BUFFER: call again
    with fresh buffers to go on; E_ILLEGAL: details in status[ST_ERROR:]).
    """
    deciders = (decide0, decide1, decide2, decide3)
    owner = np.zeros((BOARD_ROWS, V_SIZE), dtype=np.int64)
    board = unmanaged_nb(owner)
    load_rules_nb(board, rules)
    board[HIDDEN, S_TRACING] = 1 if trace.shape[0] > 0 else 0
    arrangements_owner = np.zeros((MAX_ARRANGEMENTS, MAX_MELDS_IN_ARRANGEMENT), dtype=np.int64)
    arrangements = unmanaged_nb(arrangements_owner)
    params = unmanaged_nb(params)
    hand_out = unmanaged_nb(hand_out)
    trace = unmanaged_nb(trace)
    status = unmanaged_nb(status)
    code = E_NONE
    while status[ST_GAMES] < n_games:
        if status[ST_GAMES] >= game_out.shape[0]:
            code = E_BUFFER
            break
        game = first_game + status[ST_GAMES]
        code = play_game_nb(board, deciders, params, seed, game, arrangements, hand_out, game_out[status[ST_GAMES]], trace, status)
        if code:
            break
        status[ST_GAMES] += 1
    # Read through the owners: their last uses keep the unmanaged views' memory alive to here.
    status[ST_ERROR : ST_ERROR + ERROR_FIELDS] = owner[HIDDEN, S_ERROR : S_ERROR + ERROR_FIELDS]
    arrangements_owner[0, 0] = 0
    return code


PLAY_SITUATION_SIGNATURE = int64(
    DECIDE_TYPE,
    DECIDE_TYPE,
    DECIDE_TYPE,
    DECIDE_TYPE,
    float64[:, ::1],
    int64[:, ::1],
    int64[:, ::1],
    int64[::1],
)


@lazy_njit(PLAY_SITUATION_SIGNATURE)
def play_situation_nb(decide0, decide1, decide2, decide3, params, board, trace, status):
    """Play one hand on from a prepared board (scripted deals, replays, the advisor).

    The hand record is left in the board's S_RECORD slots.
    """
    deciders = (decide0, decide1, decide2, decide3)
    arrangements = np.zeros((MAX_ARRANGEMENTS, MAX_MELDS_IN_ARRANGEMENT), dtype=np.int64)
    error = play_hand_nb(board, deciders, params, arrangements, trace, status)
    status[ST_ERROR : ST_ERROR + ERROR_FIELDS] = board[HIDDEN, S_ERROR : S_ERROR + ERROR_FIELDS]
    return error
