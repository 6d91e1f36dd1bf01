"""With the hand's public log (layout ``V_LOG``): the opponent's turns, replayed from a view row, as evidence.

A seat inside the engine has its history: the log says who drew how and
threw what, in order. Replaying it from the deal gives each of the
opponent's turns (``advise_history_nb``'s rows: its draw, its discard, the
cards it may have drawn from the stock) and the views it had at them (built
by ``advise_board_nb`` as the engine showed them, its log up to that point
included), exactly as ``advise.history.replay`` does for a history typed
to the advisor. Its latest ``window`` turns then weigh the worlds, and its
stock draws before them shape its hand there as played (at most
``played_draws`` least-deadwood draws): the advisor's ``--history`` model,
with its calibrated defaults.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .advise_board_nb import mid_hand_board_nb
from .advise_history_nb import (
    N_TURN_FIELDS,
    SNAP_AFTER,
    SNAP_CHOICE,
    T_DISCARD,
    T_ELIGIBLE,
    T_FORBIDDEN,
    T_KIND,
    T_TAKEN,
    TURN_FORCED_STOCK,
    TURN_PASS,
    TURN_PILE,
    TURN_STOCK,
    TURN_UPCARD,
)
from .cards_nb import BIT, FULL_DECK, N_CARDS
from .engine_nb import close_knock_offer_nb, log_entry_nb, log_place_nb, log_turn_nb, seed_views_nb
from .layout import (
    BOARD_ROWS,
    LOG_DISCARD_SHIFT,
    LOG_PASS,
    LOG_PILE,
    LOG_STOCK,
    MAX_LOG_TURNS,
    MAX_SEATS,
    N_RULE_FIELDS,
    NO_CARD,
    PHASE_DRAW,
    PHASE_FORCED_STOCK,
    PHASE_OFFER,
    R_DISCARD_TAKEN_CARD,
    R_HAND_SIZE,
    V_ASKED,
    V_DEALER,
    V_DRAWS,
    V_HAND,
    V_HAND_NUMBER,
    V_LOG_END,
    V_LOG_TURNS,
    V_PILE_MASK,
    V_PILE_SIZE,
    V_PLAYERS,
    V_RULES,
    V_SCORES,
    V_SEAT,
    V_SIZE,
    V_STOCK_LEFT,
    V_STYLE,
    V_STYLE_END,
    V_UPCARD,
)
from .rng_nb import HISTORY_VIEWS

# The advisor's calibrated history model (``Request.window``, ``Request.played_draws``: reports/advise_calibration).
DEFAULT_WINDOW = 3
DEFAULT_PLAYED_DRAWS = 3

@njit(cache=True)
def log_prefix_nb(view, turns, with_discard):
    """The log's ``V_LOG_TURNS`` to ``V_LOG_END`` slots as they were after its first ``turns`` turns (the last of them
    without its discard unless ``with_discard``)."""
    out = np.zeros(V_LOG_END - V_LOG_TURNS, dtype=np.int64)
    out[0] = turns
    for i in range(turns):
        entry = log_entry_nb(view, i)
        if i == turns - 1 and not with_discard:
            entry &= (1 << LOG_DISCARD_SHIFT) - 1
        slot, shift = log_place_nb(i)
        out[slot - V_LOG_TURNS] |= entry << shift
    return out


@njit(cache=True)
def opponent_turns_nb(view):
    """How many turns of the log are the opponent's; -1 when the log cannot be read: not two players, a hand
    longer than the log holds, or a log out of step with the view (a board built from a position, not played)."""
    total = view[V_LOG_TURNS]
    if view[V_PLAYERS] != 2 or total > MAX_LOG_TURNS:
        return -1
    opp = 1 - view[V_SEAT]
    draws, count = 0, 0
    for i in range(total):
        seat, how, _ = log_turn_nb(view, i)
        draws += how != LOG_PASS
        count += seat == opp
    return count if draws == view[V_DRAWS] else -1


@njit(cache=True)
def log_evidence_nb(view, window, played_draws):
    """(turns, snapshots, prior, ok): the opponent's latest ``window`` turns (0: all) replayed from the log, with its
    views at each, and the ``[draws, flags, last discard]`` prior of its hand before them; ``ok`` False when the log
    cannot be read (``opponent_turns_nb``), the caller then weighs as it would without it."""
    me = view[V_SEAT]
    opp = 1 - me
    count = opponent_turns_nb(view)
    first = 0 if window == 0 or count < 0 else max(count - window, 0)
    n = max(count - first, 0)
    turns = np.zeros((n, N_TURN_FIELDS), dtype=np.int64)
    snapshots = np.zeros((n, 2, V_SIZE), dtype=np.int64)
    prior = np.array([-1, 0, NO_CARD], dtype=np.int64)  # every turn weighed: uniform, the exact posterior
    if count < 0:
        return turns, snapshots, prior, False
    rules = view[V_RULES : V_RULES + N_RULE_FIELDS]
    pile = np.zeros(N_CARDS, dtype=np.int64)
    pile[0] = view[V_UPCARD]
    size = 1
    stock = N_CARDS - 2 * rules[R_HAND_SIZE] - 1
    draws, passes, known = 0, 0, 0  # known: the cards the opponent took from the pile and holds
    stock_before = 0  # its stock draws before the window
    my_draws = np.zeros(MAX_SEATS, dtype=np.int64)
    taken = np.zeros(MAX_SEATS, dtype=np.int64)
    discarded = np.zeros(MAX_SEATS, dtype=np.int64)
    unknown = np.full(count, NO_CARD, dtype=np.int64)  # per turn of its, a discard not known to be its
    board = np.zeros((BOARD_ROWS, V_SIZE), dtype=np.int64)
    k = 0  # the opponent's turns so far
    for i in range(view[V_LOG_TURNS]):
        seat, how, discard = log_turn_nb(view, i)
        if discard == NO_CARD and how != LOG_PASS and (seat == opp or i != view[V_LOG_TURNS] - 1):
            return turns, snapshots, prior, False  # only my own turn in progress lacks its discard
        row = k - first
        if seat == opp and row >= 0:
            offer = draws == 0 and passes < 2 and how != LOG_STOCK
            phase = PHASE_OFFER if offer else PHASE_FORCED_STOCK if draws == 0 else PHASE_DRAW
            snapshot_nb(board, view, pile, size, stock, known, taken, discarded, my_draws, passes, draws, phase,
                        log_prefix_nb(view, i, True), snapshots[row, SNAP_CHOICE])
        card = NO_CARD
        kind = TURN_PASS
        if how == LOG_PASS:
            passes += 1
        elif how == LOG_PILE:
            size -= 1
            card = pile[size]
            taken[seat] |= BIT << card
            kind = TURN_UPCARD if draws == 0 else TURN_PILE
        else:
            stock -= 1
            kind = TURN_FORCED_STOCK if draws == 0 else TURN_STOCK
        if how != LOG_PASS:
            draws += 1
            my_draws[seat] += 1
        if seat == opp:
            if card >= 0:
                known |= BIT << card
            if row >= 0:
                write_turn_nb(turns[row], kind, card, discard, rules)
                if kind == TURN_PASS:
                    snapshots[row, SNAP_AFTER] = snapshots[row, SNAP_CHOICE]
                else:
                    after = snapshots[row, SNAP_AFTER]
                    snapshot_nb(board, view, pile, size, stock, known, taken, discarded, my_draws, passes, draws,
                                PHASE_DRAW, log_prefix_nb(view, i + 1, False), after)
                    close_knock_offer_nb(after)
                    after[V_ASKED] = discard  # what a family confirming its discards is asked
            elif kind == TURN_STOCK or kind == TURN_FORCED_STOCK:
                stock_before += 1
            if discard >= 0:
                if known >> discard & 1 == 0:
                    unknown[k] = discard
                known &= ~(BIT << discard)
            k += 1
        if discard >= 0:
            pile[size] = discard
            size += 1
            discarded[seat] |= BIT << discard
    if size != view[V_PILE_SIZE] or stock != view[V_STOCK_LEFT]:
        return turns, snapshots, prior, False
    # Its stock draws: an unseen card, or one it threw at that turn or later.
    unseen = FULL_DECK & ~view[V_HAND] & ~view[V_PILE_MASK] & ~known
    for j in range(count):
        if unknown[j] >= 0:
            for row in range(max(min(j - first + 1, n), 0)):
                turns[row, T_ELIGIBLE] |= BIT << unknown[j]
    for row in range(n):
        turns[row, T_ELIGIBLE] |= unseen
    if first > 0:  # the hand before the window: its stock draws there, least-deadwood ones
        prior[0] = min(stock_before, played_draws)
    return turns, snapshots, prior, True


@njit(cache=True)
def write_turn_nb(turn, kind, card, discard, rules):
    turn[T_KIND] = kind
    turn[T_TAKEN] = card
    turn[T_DISCARD] = discard
    turn[T_FORBIDDEN] = card if card >= 0 and rules[R_DISCARD_TAKEN_CARD] == 0 else NO_CARD


@njit(cache=True)
def snapshot_nb(board, view, pile, size, stock, known, taken, discarded, my_draws, passes, draws, phase, log, out):
    """The opponent's view with the hand at that point (its hidden cards stand-ins), into ``out``."""
    me = view[V_SEAT]
    hands = np.zeros(MAX_SEATS, dtype=np.int64)
    hands[1 - me] = known
    mid_hand_board_nb(board, view[V_RULES : V_RULES + N_RULE_FIELDS], view[V_DEALER], view[V_HAND_NUMBER],
                      view[V_SCORES : V_SCORES + MAX_SEATS], view[V_UPCARD], pile[:size],
                      np.zeros(stock, dtype=np.int64), hands, taken, discarded, my_draws, passes, draws, 1 - me, phase,
                      NO_CARD, view[V_STYLE:V_STYLE_END], log)
    seed_views_nb(board, HISTORY_VIEWS, 0)
    out[:] = board[1 - me]
