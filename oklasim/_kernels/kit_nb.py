"""Building blocks for strategy kernels: random draws from the seat's stream, card picks, meld tests.

Strategies read their ``view`` row (layout ``V_*``) and call these; all are
numba functions taking ints and arrays.
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint64

from .layout import NO_CARD, V_FORBIDDEN, V_HAND, V_RNG
from .melds_nb import deadwood_nb
from .rng_nb import below_nb, next_state_nb

BIT = np.int64(1)


@njit(cache=True)
def rand_below_nb(view, n):
    """A uniform draw in ``0..n-1`` from the seat's own stream (advances it)."""
    state = next_state_nb(uint64(view[V_RNG]))
    view[V_RNG] = np.int64(state)
    return below_nb(state, n)


@njit(cache=True)
def rand_unit_nb(view):
    """A uniform float in [0, 1) from the seat's own stream."""
    return rand_below_nb(view, 1 << 30) / float(1 << 30)


@njit(cache=True, inline="always")
def card_value_nb(card):
    return min(card % 13 + 1, 10)


@njit(cache=True)
def count_cards_nb(mask):
    count = 0
    while mask:
        mask &= mask - 1
        count += 1
    return count


@njit(cache=True)
def nth_card_nb(mask, n):
    """Index of the ``n``-th card (from 0, lowest index first) of ``mask``."""
    for _ in range(n):
        mask &= mask - 1
    low = mask & -mask
    card = 0
    while low > 1:
        low >>= 1
        card += 1
    return card


@njit(cache=True)
def random_card_nb(view, mask):
    return nth_card_nb(mask, rand_below_nb(view, count_cards_nb(mask)))


@njit(cache=True)
def highest_card_nb(mask):
    """Highest-ranked card of a non-empty mask (ties: the higher suit index)."""
    best, best_key = -1, -1
    rest = mask
    card = 0
    while rest:
        if rest & 1:
            key = (card % 13) * 4 + card // 13
            if key > best_key:
                best, best_key = card, key
        rest >>= 1
        card += 1
    return best


@njit(cache=True)
def min_deadwood_discards_nb(hand, allowed):
    """(least deadwood after discarding one of ``allowed``, mask of the discards reaching it)."""
    best, found = np.int64(1 << 30), np.int64(0)
    rest = allowed & hand
    while rest:
        card = rest & -rest
        rest ^= card
        dw = deadwood_nb(hand ^ card)
        if dw < best:
            best, found = dw, card
        elif dw == best:
            found |= card
    return best, found


@njit(cache=True)
def highest_deadwood_card_nb(hand, allowed):
    """Highest-ranked card of ``allowed`` that is deadwood in some optimal arrangement of ``hand``.

    A card is deadwood in some optimal arrangement exactly when removing it
    lowers the deadwood by its value. Returns NO_CARD if there is none.
    Ranks are tried from the top, so the usual answer costs a few evaluations.
    """
    total = deadwood_nb(hand)
    for rank in range(12, -1, -1):
        for suit in range(3, -1, -1):
            card = suit * 13 + rank
            bit = BIT << card
            if allowed & hand & bit and deadwood_nb(hand ^ bit) + card_value_nb(card) == total:
                return card
    return NO_CARD


@njit(cache=True)
def always_melded_nb(hand, card):
    """True when ``card`` is in a meld in every optimal arrangement of ``hand``."""
    return deadwood_nb(hand) < deadwood_nb(hand & ~(BIT << card)) + card_value_nb(card)


@njit(cache=True)
def best_discard_nb(hand, allowed):
    """The discard among ``allowed`` leaving the least deadwood; ties go to the highest card."""
    _, found = min_deadwood_discards_nb(hand, allowed)
    return highest_card_nb(found)


@njit(cache=True)
def allowed_discards_nb(view):
    """Cards the seat may discard now: its hand less the forbidden card."""
    hand = view[V_HAND]
    forbidden = view[V_FORBIDDEN]
    return hand & ~(BIT << forbidden) if forbidden >= 0 else hand
