"""Building blocks for strategy kernels: random draws from the seat's stream, card picks, meld tests.

Strategies read their ``view`` row (layout ``V_*``) and call these; all are
numba functions taking ints and arrays. The second half holds the rules the
strategy library shares (greedy's and simple's take, discard and knock
rules, a knock threshold, meld outs), so that families differing in one rule
share the others exactly. What a seat knows and fears of its opponents is in
``opponents_nb``.
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint64

from .cards_nb import (
    BIT,
    N_CARDS,
    N_RANKS,
    N_SUITS,
    RANK_COLUMN,
    RANK_MASK,
    TOP_RANK,
    card_index_nb,
    card_value_nb,
    count_cards_nb,
    high_card_key_nb,
    rank_of_nb,
    suit_of_nb,
    suit_pattern_nb,
)
from .layout import (
    BIG_GIN,
    NO_CARD,
    V_BIG_GIN,
    V_FORBIDDEN,
    V_HAND,
    V_KNOCK_DISCARDS,
    V_KNOCK_LIMIT,
    V_PILE,
    V_PILE_SIZE,
    V_RNG,
)
from .linking import stack_array_nb
from .melds_nb import (
    deadwood_after_discard_nb,
    deadwood_after_each_discard_nb,
    deadwood_nb,
    hand_value_nb,
)
from .rng_nb import below_nb, next_state_nb


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
            key = high_card_key_nb(card)
            if key > best_key:
                best, best_key = card, key
        rest >>= 1
        card += 1
    return best


ONE_PASS_FROM = 6  # more discards than this: one deadwood-after-each pass (~60 ns) beats a call each (~8 ns)


@njit(cache=True)
def min_deadwood_discards_nb(hand, allowed):
    """(least deadwood after discarding one of ``allowed``, mask of the discards reaching it)."""
    best, found = np.int64(1 << 30), np.int64(0)
    rest = allowed & hand
    # Beyond a few discards, one kernel pass for all of them is cheaper than a deadwood call each.
    several = count_cards_nb(rest) > ONE_PASS_FROM
    deadwood_of = stack_array_nb(1, N_CARDS, np.int64)[0]
    if several:
        deadwood_after_each_discard_nb(hand, deadwood_of)
    while rest:
        card = rest & -rest
        rest ^= card
        dw = deadwood_of[count_cards_nb(card - 1)] if several else deadwood_nb(hand ^ card)
        if dw < best:
            best, found = dw, card
        elif dw == best:
            found |= card
    return best, found


@njit(cache=True)
def highest_deadwood_card_nb(hand, allowed):
    """Highest-ranked card of ``allowed`` that is deadwood in some optimal arrangement of ``hand``.

    A card is deadwood in some optimal arrangement exactly when removing it
    lowers the deadwood by its value; a card in no meld at all always is.
    Returns NO_CARD if there is none. Ranks are tried from the top, so the
    usual answer costs a bit test or a few evaluations.
    """
    total = -1  # the hand's deadwood, counted when a card in some meld is first tried
    for rank in range(TOP_RANK, -1, -1):
        for suit in range(N_SUITS - 1, -1, -1):
            card = card_index_nb(rank, suit)
            bit = BIT << card
            if not allowed & hand & bit:
                continue
            if not in_any_meld_nb(hand, card):
                return card
            if total < 0:
                total = deadwood_nb(hand)
            if deadwood_nb(hand ^ bit) + card_value_nb(card) == total:
                return card
    return NO_CARD


@njit(cache=True)
def loose_cards_nb(hand, allowed):
    """The cards of ``allowed`` that are deadwood in some optimal arrangement of ``hand``: the discards that lower its
    deadwood by their own value, the candidates of a discard rule that keeps its melds."""
    total = deadwood_nb(hand)
    loose = np.int64(0)
    rest = allowed & hand
    while rest:
        low = rest & -rest
        rest ^= low
        if deadwood_nb(hand ^ low) + card_value_nb(count_cards_nb(low - 1)) == total:
            loose |= low
    return loose


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


# -- Shared by the strategy library (oklasim/strategies/families/*.py) ------------------------------------
# Everything below reads only the seat's view and its own random stream.


@njit(cache=True)
def pile_top_nb(view):
    """Top card of the discard pile (the upcard at the first offer), NO_CARD when the pile is empty."""
    size = view[V_PILE_SIZE]
    return view[V_PILE + size - 1] if size > 0 else NO_CARD


@njit(cache=True)
def take_lowers_deadwood_nb(view):
    """1 when taking the pile top lowers the hand's best deadwood (greedy's take rule), else 0.

    The hand after taking is scored at its best discard other than the taken
    card, which may not go straight back under the default rules.
    """
    hand = view[V_HAND]
    top = pile_top_nb(view)
    if top < 0:
        return 0
    after, _ = min_deadwood_discards_nb(hand | (BIT << top), hand)
    return 1 if after < deadwood_nb(hand) else 0


@njit(cache=True)
def least_deadwood_discard_nb(view):
    """Greedy's discard: the allowed card leaving the least deadwood; ties go to the highest card."""
    return best_discard_nb(view[V_HAND], allowed_discards_nb(view))


@njit(cache=True)
def knock_if_at_most_nb(view, threshold):
    """The answer to D_KNOCK of a player who knocks when it can reach deadwood <= ``threshold``.

    Big gin when on offer; else the legal knock discard leaving the least
    deadwood (ties: the highest card) when that deadwood is 0 (gin is always
    taken) or at most ``threshold``; otherwise NO_CARD (play on, or under the
    fiftieth-card rule decline the last discard and let the hand be void).
    """
    if view[V_BIG_GIN]:
        return BIG_GIN
    best, found = min_deadwood_discards_nb(view[V_HAND], view[V_KNOCK_DISCARDS])
    if best == 0 or best <= threshold:
        return highest_card_nb(found)
    return NO_CARD


@njit(cache=True)
def best_knock_nb(view):
    """Greedy's knock: big gin when on offer, else the least-deadwood legal knock discard."""
    return knock_if_at_most_nb(view, 1 << 30)


@njit(cache=True)
def knock_deadwood_nb(view):
    """At D_KNOCK: the least deadwood a knock leaves now (0 for big gin)."""
    if view[V_BIG_GIN]:
        return 0
    best, _ = min_deadwood_discards_nb(view[V_HAND], view[V_KNOCK_DISCARDS])
    return best


@njit(cache=True)
def rank_count_nb(mask, rank):
    """How many cards of ``rank`` the mask holds."""
    count = 0
    for suit in range(N_SUITS):
        count += (mask >> card_index_nb(rank, suit)) & 1
    return count


@njit(cache=True)
def in_any_meld_nb(hand, card):
    """True when ``card`` is part of some meld (set or run) of ``hand | card``: the EAAI simple player's take test."""
    rank, suit = rank_of_nb(card), suit_of_nb(card)
    hand = hand | (BIT << card)
    if rank_count_nb(hand, rank) >= 3:
        return True
    pattern = suit_pattern_nb(hand, suit)
    starts = pattern & (pattern >> 1) & (pattern >> 2)  # bit b: ranks b, b+1, b+2 held
    window = (np.int64(7) << max(rank - 2, 0)) >> (2 - min(rank, 2))  # starts rank-2 .. rank
    return (starts & window) != 0


@njit(cache=True)
def deadwood_with_card_melded_nb(hand, card):
    """Least deadwood of ``hand`` (which holds ``card``) over arrangements that put ``card`` in a meld.

    Returns 1 << 30 when no meld of the hand contains the card. Tries every
    set and every run of the hand that contains the card (a handful).
    """
    best = np.int64(1 << 30)
    rank, suit = rank_of_nb(card), suit_of_nb(card)
    same_rank = np.int64(0)
    for s in range(N_SUITS):
        if (hand >> card_index_nb(rank, s)) & 1:
            same_rank |= BIT << card_index_nb(rank, s)
    n_rank = count_cards_nb(same_rank)
    if n_rank >= 3:
        if n_rank == N_SUITS:
            best = min(best, deadwood_nb(hand & ~same_rank))
        others = same_rank & ~(BIT << card)
        rest = others
        while rest:  # 3-card sets: the card plus all others but one (or all others when 3 held)
            drop = rest & -rest
            rest ^= drop
            meld = same_rank & ~drop if n_rank == N_SUITS else same_rank
            best = min(best, deadwood_nb(hand & ~meld))
            if n_rank == 3:
                break
    pattern = suit_pattern_nb(hand, suit)
    low = rank
    while low > 0 and (pattern >> (low - 1)) & 1:
        low -= 1
    high = rank
    while high < TOP_RANK and (pattern >> (high + 1)) & 1:
        high += 1
    for a in range(low, rank + 1):
        for b in range(max(rank, a + 2), high + 1):
            run = ((BIT << (b - a + 1)) - 1) << card_index_nb(a, suit)
            best = min(best, deadwood_nb(hand & ~run))
    return best


@njit(cache=True)
def melded_in_some_optimal_nb(hand, card):
    """True when ``card`` (held in ``hand``) sits in a meld of at least one optimal arrangement of ``hand``."""
    return deadwood_with_card_melded_nb(hand, card) == deadwood_nb(hand)


@njit(cache=True)
def mask_value_nb(mask):
    """Total card value (A = 1 ... T J Q K = 10) of a mask."""
    return hand_value_nb(mask)


@njit(cache=True)
def meld_outs_nb(hand):
    """Cards outside ``hand`` that would sit in a meld with two or more of its cards.

    That is every card completing a set (a rank held twice) or a run (two of
    three consecutive ranks of a suit held), or extending a meld already held.
    Bit-parallel over the four suits: a few nanoseconds.
    """
    s0 = suit_pattern_nb(hand, 0)
    s1 = suit_pattern_nb(hand, 1)
    s2 = suit_pattern_nb(hand, 2)
    s3 = suit_pattern_nb(hand, 3)
    twice = (s0 & s1) | (s0 & s2) | (s0 & s3) | (s1 & s2) | (s1 & s3) | (s2 & s3)
    outs = np.int64(0)
    for suit in range(N_SUITS):
        p = suit_pattern_nb(hand, suit)
        run = ((p >> 1) & (p >> 2)) | ((p << 1) & (p >> 1)) | ((p << 1) & (p << 2))
        outs |= ((run | twice) & ~p & RANK_MASK) << (N_RANKS * suit)
    return outs


@njit(cache=True)
def neighbours_nb(mask):
    """Cards of the same rank as a card of ``mask``, or of its suit within two ranks (the mask excluded)."""
    ranks = suit_pattern_nb(mask, 0) | suit_pattern_nb(mask, 1) | suit_pattern_nb(mask, 2) | suit_pattern_nb(mask, 3)
    near = np.int64(0)
    for suit in range(N_SUITS):
        p = suit_pattern_nb(mask, suit)
        near |= ((ranks | (p << 1) | (p >> 1) | (p << 2) | (p >> 2)) & RANK_MASK) << (N_RANKS * suit)
    return near & ~mask


@njit(cache=True)
def beside_nb(mask, card):
    """The cards of ``mask`` of ``card``'s rank (``card`` too, when in ``mask``) or of its suit one rank away."""
    rank = rank_of_nb(card)
    step = (((np.int64(0b101) << rank) >> 1) & RANK_MASK) << (N_RANKS * suit_of_nb(card))
    return mask & ((RANK_COLUMN << rank) | step)


@njit(cache=True)
def meld_or_knock_take_nb(view):
    """1 when the pile top would sit in a meld of every optimal arrangement, or lets the hand knock at once; else 0.

    ``simple``'s take rule (close to OpenSpiel's simple bot).
    """
    hand = view[V_HAND]
    top = pile_top_nb(view)
    if top < 0:
        return 0
    with_top = hand | (BIT << top)
    if always_melded_nb(with_top, top):
        return 1
    if deadwood_after_discard_nb(with_top) > view[V_KNOCK_LIMIT]:  # cheap test first
        return 0
    after, _ = min_deadwood_discards_nb(with_top, hand)  # the taken card may not go straight back
    return 1 if after <= view[V_KNOCK_LIMIT] else 0
