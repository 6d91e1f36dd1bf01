"""Without a history: the opponent's latest turn, rebuilt from a view row, as evidence (``advise_history_nb``).

A seat that has no history (a player who does not type one, the ``mc``
and ``search`` strategies inside the engine) still sees the opponent's
latest turn: the card on top of the pile (or the one just taken from it) is
its discard, it did not knock, and the stock says when that was. Its views
at that turn (before its draw, and after it) are rebuilt from the view by
taking back its discard, its stock draw and, after the seat's own draw,
that one. The worlds are then weighted by how likely the named opponent was
to play that turn so: a gin-holder's hand may be close to gin, a knocker's
cannot be, and its discard was one it would make.

Its draw is taken to be from the stock: which of its pile takes came last
is not in the view. The turns before cannot be read from the pile either
(whose discard each card is depends on the takes): they shape its hand as
played, one least-deadwood draw each (``latest_turn_prior_nb``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .advise_board_nb import NO_LOG, draws_by_seat_nb, mid_hand_board_nb
from .advise_history_nb import (
    N_TURN_FIELDS,
    SNAP_AFTER,
    SNAP_CHOICE,
    T_DISCARD,
    T_ELIGIBLE,
    T_FORBIDDEN,
    T_KIND,
    T_TAKEN,
    TURN_STOCK,
)
from .cards_nb import BIT, FULL_DECK, count_cards_nb
from .engine_nb import close_knock_offer_nb, seed_views_nb
from .layout import (
    BOARD_ROWS,
    D_DISCARD,
    D_DRAW,
    D_KNOCK,
    MAX_SEATS,
    N_RULE_FIELDS,
    NO_CARD,
    PHASE_DRAW,
    R_HAND_SIZE,
    V_ASKED,
    V_DEALER,
    V_DISCARDED,
    V_DRAWN,
    V_DRAWS,
    V_HAND,
    V_MY_DRAWS,
    V_PASSED,
    V_PILE,
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
    V_TAKEN,
    V_UPCARD,
)
from .rng_nb import HISTORY_VIEWS

# The opponent's turns before its latest, each a least-deadwood draw, count at most this many. Chosen on
# advise_calibration.py's seed 32 (600 positions per opponent, 4,096 worlds) among 3, 5, 6, 7, 8 and all: more make
# a gin-holder's hand too strong late in the hand, fewer leave expert's too weak early; 6 is the one within 0.2 of
# the targets for both (|bias| <= 2 points, undercut gap <= 5 pp). Confirmed on seeds 33 and 34
# (reports/advise_calibration, window_choice.md there).
LATEST_TURN_DRAWS = 6
# The chance the opponent strays from its strategy at a decision, where its play weighs the worlds: the advisor's
# default (``Request.slip``, kept apart so that the command line loads no kernel), chosen by calibration.
DEFAULT_SLIP = 0.003


@njit(cache=True)
def opponent_known_nb(view):
    """The cards the seat's one opponent must hold: those it took from the pile and did not throw back."""
    opp = 1 - view[V_SEAT]
    return view[V_TAKEN + opp] & ~view[V_PILE_MASK] & ~view[V_HAND]


@njit(cache=True)
def latest_turn_nb(view, kind, opponent_draws, turns, snapshots):
    """Write the opponent's latest turn into ``turns[0]`` and its views into ``snapshots[0]``; returns 1, or 0 when
    there is none to weigh (more than two players, not at a draw or after one, no stock draw of its yet, or every
    card it holds came from the pile)."""
    me = view[V_SEAT]
    opp = 1 - me
    after = kind == D_KNOCK or kind == D_DISCARD
    if view[V_PLAYERS] != 2 or not (after or kind == D_DRAW) or opponent_draws < 1:
        return 0
    known = opponent_known_nb(view)
    if count_cards_nb(known) >= view[V_RULES + R_HAND_SIZE]:
        return 0
    took = NO_CARD
    drawn = view[V_DRAWN]
    if after and drawn >= 0 and view[V_TAKEN + me] >> drawn & 1:
        took = drawn
    size = view[V_PILE_SIZE]
    if took < 0 and size == 0:
        return 0
    discard = took if took >= 0 else view[V_PILE + size - 1]
    pile = view[V_PILE : V_PILE + (size if took >= 0 else size - 1)].copy()  # before its discard
    stock = view[V_STOCK_LEFT] + (1 if after and took < 0 else 0)  # before my draw of this turn
    mine = 1 if after else 0
    draws = view[V_DRAWS] - mine
    my_draws = view[V_MY_DRAWS] - mine
    taken = view[V_TAKEN : V_TAKEN + MAX_SEATS].copy()
    discarded = view[V_DISCARDED : V_DISCARDED + MAX_SEATS].copy()
    if took >= 0:
        taken[me] &= ~(BIT << took)
    discarded[opp] &= ~(BIT << discard)
    passes = 0
    for seat in range(2):
        passes += view[V_PASSED + seat]
    board = np.zeros((BOARD_ROWS, V_SIZE), dtype=np.int64)
    hands = np.zeros(MAX_SEATS, dtype=np.int64)
    hands[opp] = known
    for snap in range(2):
        before_draw = 1 if snap == SNAP_CHOICE else 0
        mid_hand_board_nb(board, view[V_RULES : V_RULES + N_RULE_FIELDS], view[V_DEALER], 0,
                          view[V_SCORES : V_SCORES + MAX_SEATS], view[V_UPCARD], pile,
                          np.zeros(stock + before_draw, dtype=np.int64), hands, taken, discarded,
                          draws_by_seat_nb(2, me, draws - before_draw, my_draws), passes, draws - before_draw, opp,
                          PHASE_DRAW, NO_CARD, view[V_STYLE:V_STYLE_END], NO_LOG)
        seed_views_nb(board, HISTORY_VIEWS, 0)
        snapshots[0, snap, :] = board[opp]
    close_knock_offer_nb(snapshots[0, SNAP_AFTER])  # the kernel offers the knock from the hand it tries
    snapshots[0, SNAP_AFTER, V_ASKED] = discard  # what a family confirming its discards is asked
    turns[0, T_KIND] = TURN_STOCK
    turns[0, T_TAKEN] = NO_CARD
    turns[0, T_DISCARD] = discard
    turns[0, T_FORBIDDEN] = NO_CARD
    turns[0, T_ELIGIBLE] = FULL_DECK & ~view[V_HAND] & ~view[V_PILE_MASK] & ~known  # its stock draw: an unseen card
    return 1


@njit(cache=True)
def latest_turn_prior_nb(view, opponent_draws):
    """``[draws, flags, last discard]`` of the hand before the latest turn: one least-deadwood draw per turn before
    it (its pile takes too), at most LATEST_TURN_DRAWS, no repairs (the turn weighs the worlds)."""
    turns = opponent_draws - 1 + count_cards_nb(opponent_known_nb(view))
    return np.array([min(turns, LATEST_TURN_DRAWS), 0, NO_CARD], dtype=np.int64)


@njit(cache=True)
def new_latest_evidence_nb():
    """Room for one turn of evidence: (turns, snapshots)."""
    return np.zeros((1, N_TURN_FIELDS), dtype=np.int64), np.zeros((1, 2, V_SIZE), dtype=np.int64)
