"""Candidate columns of one decision, for the advisor and the ``mc`` strategy.

``candidates_nb`` lists the candidate actions of a decision as *columns*
(one int64 row each): a knock with a given discard and meld arrangement is
settled at once by the showdown (``SHOWDOWN``); anything else is played on
by the engine (``ROLLOUT``) with the seats' continuation strategies.
"""

from __future__ import annotations

import numpy as np
from numba import int64, njit

from .cards_nb import BIT, MAX_CARD_VALUE, N_CARDS, card_value_nb
from .engine_nb import knock_discards_nb
from .layout import (
    BIG_GIN,
    D_DISCARD,
    D_DRAW,
    D_KNOCK,
    D_TAKE_UPCARD,
    MAX_ARRANGEMENTS,
    NO_CARD,
    R_BIG_GIN,
    R_DISCARD_TAKEN_CARD,
    V_ARRANGEMENTS,
    V_DRAWS,
    V_FORBIDDEN,
    V_HAND,
    V_KNOCK_LIMIT,
    V_LAST_CHANCE,
    V_N_ARRANGEMENTS,
    V_PASSED,
    V_PILE,
    V_PILE_SIZE,
    V_RULES,
)
from .linking import lazy_njit
from .melds_nb import MAX_MELDS_IN_ARRANGEMENT, deadwood_nb, optimal_arrangements_nb

# -- candidate columns: one int64 row each ------------------------------------------------
C_KIND = 0  # SHOWDOWN or ROLLOUT
C_PRE = 1  # PRE_*: what happens before the after-draw decision
C_DISCARD = 2  # knock discard (BIG_GIN for big gin) / forced discard of a rollout / -1: continuation decides
C_ACTION = 3  # columns of one action (a knock in several arrangements) share this index
C_HAND = 4  # showdown: the knocker's cards after the discard
C_DEADWOOD = 5  # showdown: the knocker's deadwood
C_ARRANGEMENT = 6  # showdown: index among the optimal arrangements
C_N_MELDS = 7
C_MELDS = 8  # MAX_MELDS_IN_ARRANGEMENT slots: the knocker's melds
N_CAND_FIELDS = 12
MAX_COLUMNS = 128
MAX_ARRANGEMENTS_PER_KNOCK = 8

SHOWDOWN = 0
ROLLOUT = 1

PRE_NONE = 0  # the seat has drawn already (11 cards)
PRE_PILE = 1  # take the top of the discard pile
PRE_STOCK = 2  # draw from the stock (the continuation strategy then decides)
PRE_TAKE = 3  # first turn: take the upcard
PRE_PASS = 4  # first turn: pass the upcard
PRE_DECLINE = 5  # fiftieth card: decline the last discard, and the hand is void


# -- candidates -----------------------------------------------------------------------------


@njit(cache=True)
def add_column_nb(out, n, kind, pre, discard, action):
    if n >= out.shape[0]:
        return n
    out[n, :] = 0
    out[n, C_KIND] = kind
    out[n, C_PRE] = pre
    out[n, C_DISCARD] = discard
    out[n, C_ACTION] = action
    return n + 1


@njit(cache=True)
def add_showdown_column_nb(out, n, pre, discard, action, hand, dw, arrangement, melds):
    """Add a showdown column: ``hand`` (deadwood ``dw``) laid as ``melds`` (MAX_MELDS_IN_ARRANGEMENT masks, 0 = none), arrangement index."""
    n = add_column_nb(out, n, SHOWDOWN, pre, discard, action)
    row = out[n - 1]
    row[C_HAND] = hand
    row[C_DEADWOOD] = dw
    row[C_ARRANGEMENT] = arrangement
    count = 0
    for k in range(MAX_MELDS_IN_ARRANGEMENT):
        row[C_MELDS + k] = melds[k]
        if melds[k] != 0:
            count += 1
    row[C_N_MELDS] = count
    return n


@njit(cache=True)
def add_knock_nb(out, n, pre, discard, hand, action, arrangements, per_knock):
    """Columns of one knock: one per optimal arrangement of ``hand`` (one for gin: nothing is laid off)."""
    dw = deadwood_nb(hand)
    count = min(optimal_arrangements_nb(hand, arrangements), arrangements.shape[0])
    if dw == 0:
        count = 1
    for a in range(min(count, per_knock)):
        if n >= out.shape[0]:
            break
        n = add_showdown_column_nb(out, n, pre, discard, action, hand, dw, a, arrangements[a])
    return n


@njit(cache=True)
def sensible_discards_nb(hand, allowed, limit, out):
    """Up to ``out.shape[0]`` discards of ``allowed``, best first: least deadwood left, then highest card.

    Returns how many were written.
    """
    keys = np.empty(11, dtype=np.int64)
    cards = np.empty(11, dtype=np.int64)
    n = 0
    rest = allowed & hand
    while rest and n < 11:
        low = rest & -rest
        rest ^= low
        card = 0
        while (BIT << card) != low:
            card += 1
        keys[n] = deadwood_nb(hand ^ low) * 4096 + (MAX_CARD_VALUE - card_value_nb(card)) * 256 + (N_CARDS - 1 - card)
        cards[n] = card
        n += 1
    written = 0
    while written < min(limit, out.shape[0]) and written < n:
        best = written
        for i in range(written + 1, n):
            if keys[i] < keys[best]:
                best = i
        keys[written], keys[best] = keys[best], keys[written]
        cards[written], cards[best] = cards[best], cards[written]
        out[written] = cards[written]
        written += 1
    return written


@njit(cache=True)
def after_draw_candidates_nb(view, hand, forbidden, pre, knock_ok, continue_ok, max_continue, first, out, n, action):
    """Knocks (every legal discard, big gin) and up to ``max_continue`` continuations of an 11-card hand: ``first``
    (a discard, or NO_CARD) and then the sensible discards."""
    arrangements = np.zeros((MAX_ARRANGEMENTS, MAX_MELDS_IN_ARRANGEMENT), dtype=np.int64)
    if knock_ok:
        if view[V_RULES + R_BIG_GIN] != 0 and deadwood_nb(hand) == 0:
            n = add_knock_nb(out, n, pre, BIG_GIN, hand, action, arrangements, 1)
            action += 1
        knocks = knock_discards_nb(hand, view[V_KNOCK_LIMIT], forbidden)
        card = 0
        while knocks:
            if knocks & 1:
                rest = hand & ~(BIT << card)
                n = add_knock_nb(out, n, pre, card, rest, action, arrangements, MAX_ARRANGEMENTS_PER_KNOCK)
                action += 1
            knocks >>= 1
            card += 1
    if continue_ok and max_continue > 0:
        allowed = hand & ~(BIT << forbidden) if forbidden >= 0 else hand
        if first != NO_CARD:
            n = add_column_nb(out, n, ROLLOUT, pre, first, action)
            action += 1
            allowed &= ~(BIT << first)
            max_continue -= 1
        if max_continue > 0:
            picks = np.empty(11, dtype=np.int64)
            for i in range(sensible_discards_nb(hand, allowed, max_continue, picks)):
                n = add_column_nb(out, n, ROLLOUT, pre, picks[i], action)
                action += 1
    return n, action


@njit(cache=True)
def takeable_top_nb(view, kind):
    """The card on the pile the seat may take at draw decision ``kind``; NO_CARD when none (an empty pile, or the
    first draw after every seat passed the upcard, which must come from the stock)."""
    forced_stock = kind == D_DRAW and view[V_DRAWS] == 0 and view[V_PASSED] != 0 and view[V_PASSED + 1] != 0
    if view[V_PILE_SIZE] == 0 or forced_stock:
        return NO_CARD
    return view[V_PILE + view[V_PILE_SIZE] - 1]


@njit(cache=True, inline="always")
def draw_pres_nb(kind):
    """(taking the pile's top, the other way) of draw decision ``kind``: at the upcard's offer, take or pass."""
    return (PRE_TAKE, PRE_PASS) if kind == D_TAKE_UPCARD else (PRE_PILE, PRE_STOCK)


@lazy_njit(int64(int64[::1], int64, int64, int64, int64[:, ::1]))
def candidates_nb(view, kind, max_continue, first, out):
    """Write the candidate columns of decision ``kind`` for the seat of ``view``; returns how many.

    * ``D_KNOCK`` / ``D_DISCARD`` (11 cards, drawn): knocks with each legal discard
      (``D_KNOCK`` only), and playing on with up to ``max_continue`` discards:
      ``first`` (NO_CARD: none), then the sensible ones;
      at the fiftieth card (``V_LAST_CHANCE``) the knocks and declining, which voids the hand.
    * ``D_DRAW`` (10 cards): take the pile top, then knock or play on as above;
      or draw from the stock and let the continuation strategy go on.
    * ``D_TAKE_UPCARD``: take the upcard (as above) or pass.
    """
    n, action = 0, 0
    hand = view[V_HAND]
    if kind == D_KNOCK or kind == D_DISCARD:
        last_chance = view[V_LAST_CHANCE] != 0
        n, action = after_draw_candidates_nb(
            view, hand, view[V_FORBIDDEN], PRE_NONE, kind == D_KNOCK, not last_chance, max_continue, first, out, n,
            action
        )
        if last_chance:  # the last discard may be taken only to knock: declining voids the hand
            n = add_column_nb(out, n, ROLLOUT, PRE_DECLINE, NO_CARD, action)
        return n
    top = takeable_top_nb(view, kind)
    take, other = draw_pres_nb(kind)
    if top != NO_CARD:
        forbidden = top if view[V_RULES + R_DISCARD_TAKEN_CARD] == 0 else NO_CARD
        n, action = after_draw_candidates_nb(
            view, hand | (BIT << top), forbidden, take, True, True, max_continue, NO_CARD, out, n, action
        )
    return add_column_nb(out, n, ROLLOUT, other, -1, action)


@njit(cache=True)
def draw_columns_nb(view, kind, out):
    """The two columns of draw decision ``kind`` (``D_DRAW``, ``D_TAKE_UPCARD``) where the continuation strategy
    plays every decision after the draw: take the pile's top (when it may be taken), then draw from the stock (or
    pass). Returns how many."""
    n = 0
    take, other = draw_pres_nb(kind)
    if takeable_top_nb(view, kind) != NO_CARD:
        n = add_column_nb(out, n, ROLLOUT, take, -1, 0)
    return add_column_nb(out, n, ROLLOUT, other, -1, n)


@njit(cache=True)
def arrangement_columns_nb(view, out):
    """One showdown column per arrangement the knocker is offered (decision D_ARRANGE)."""
    hand = view[V_HAND]
    dw = deadwood_nb(hand)
    n = 0
    for a in range(min(view[V_N_ARRANGEMENTS], out.shape[0])):
        melds = view[V_ARRANGEMENTS + MAX_MELDS_IN_ARRANGEMENT * a : V_ARRANGEMENTS + MAX_MELDS_IN_ARRANGEMENT * (a + 1)]
        n = add_showdown_column_nb(out, n, PRE_NONE, NO_CARD, a, hand, dw, a, melds)
    return n
