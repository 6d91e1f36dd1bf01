"""Exact melds, deadwood and layoffs on 52-bit hand masks.

Deadwood splits cleanly: once the sets are chosen, runs live inside one
suit, so the rest of the hand costs the sum of four lookups of the run-only
table (``tables.suit_tables``). Only ranks held in three or more suits offer
set choices (none, one of the 3-card sets, or the 4-card set), and a hand of
up to 11 cards has at most three such ranks, so a short recursion over them
is exact and fast; a rank none of whose cards a run could use keeps its set
without a choice. The best discard of an 11-card hand uses the same
recursion with a second table: the best run-only deadwood of a suit after
removing one of its cards.

Arrangements and layoffs enumerate collections of disjoint melds taken from
the melds the hand contains; they run once per showdown, not per turn.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .cards_nb import MAX_CARD_VALUE, N_RANKS, N_SUITS, RANK_COLUMN, RANK_MASK, count_cards_nb
from .linking import stack_array_nb
from .tables import NO_DISCARD, ROW_RUN_DEADWOOD, ROW_RUN_DEADWOOD_DROP, ROW_VALUE, all_melds, suit_tables

# Module-level tables are frozen into the compiled code as constants. Passed
# as arguments instead, every call would pay two atomic reference-count
# updates, which measured at more than half the cost of a 10-card hand.
_SUIT_TABLES = suit_tables()
RUN_DEADWOOD = _SUIT_TABLES[ROW_RUN_DEADWOOD].copy()
RUN_DEADWOOD_DROP = _SUIT_TABLES[ROW_RUN_DEADWOOD_DROP].copy()
SUIT_VALUE = _SUIT_TABLES[ROW_VALUE].copy()
ALL_MELDS = all_melds()
N_MELDS = ALL_MELDS.shape[0]  # a global int: the size of a stack array of candidate melds

MAX_MELDS_IN_ARRANGEMENT = 4  # 4 * 3 = 12 cards: more than any hand holds


@njit(cache=True, inline="always")
def suits_nb(mask):
    return (
        mask & RANK_MASK,
        (mask >> N_RANKS) & RANK_MASK,
        (mask >> 2 * N_RANKS) & RANK_MASK,
        (mask >> 3 * N_RANKS) & RANK_MASK,
    )


@njit(cache=True, inline="always")
def set_ranks_nb(s0, s1, s2, s3):
    """Ranks held in at least three suits, as a 13-bit pattern."""
    return (s0 & s1 & (s2 | s3)) | (s2 & s3 & (s0 | s1))


@njit(cache=True, inline="always")
def hand_value_nb(mask):
    s0, s1, s2, s3 = suits_nb(mask)
    return SUIT_VALUE[s0] + SUIT_VALUE[s1] + SUIT_VALUE[s2] + SUIT_VALUE[s3]


@njit(cache=True, inline="always")
def _suit_discard_parts_nb(pattern):
    """(run-only deadwood of a suit, the most one discard from it saves; -NO_DISCARD for an empty suit)."""
    runs = RUN_DEADWOOD[pattern]
    return runs, runs - RUN_DEADWOOD_DROP[pattern] if pattern else -NO_DISCARD


@njit(cache=True, inline="always")
def _runs_nb(s0, s1, s2, s3, discard, least_gain):
    """Run-only deadwood of four suit patterns; with ``discard``, after the best discard: from them, or one
    elsewhere that takes ``least_gain`` off (``-NO_DISCARD``: none). No call, no loop."""
    t0, g0 = _suit_discard_parts_nb(s0)
    t1, g1 = _suit_discard_parts_nb(s1)
    t2, g2 = _suit_discard_parts_nb(s2)
    t3, g3 = _suit_discard_parts_nb(s3)
    total = t0 + t1 + t2 + t3
    if not discard:
        return total
    # The discard changes one suit only: take the suit where it helps most.
    gain = max(max(max(g0, g1), max(g2, g3)), least_gain)
    return NO_DISCARD if gain == -NO_DISCARD else total - gain  # no card outside sets: another choice covers it


@njit(cache=True, inline="always")
def _suits_holding_nb(s0, s1, s2, s3, rank_bit):
    """4-bit pattern of the suits holding the rank ``rank_bit`` (0 for no rank)."""
    return (
        (1 if s0 & rank_bit else 0)
        | (2 if s1 & rank_bit else 0)
        | (4 if s2 & rank_bit else 0)
        | (8 if s3 & rank_bit else 0)
    )


@njit(cache=True, inline="always")
def _take_set_nb(s0, s1, s2, s3, rank_bit, chosen):
    return (
        s0 & ~rank_bit if chosen & 1 else s0,
        s1 & ~rank_bit if chosen & 2 else s1,
        s2 & ~rank_bit if chosen & 4 else s2,
        s3 & ~rank_bit if chosen & 8 else s3,
    )


@njit(cache=True, inline="always")
def _set_choice_count_nb(held):
    """Set choices at a rank held in the suits ``held``: none, plus the sets it holds."""
    if held == 15:
        return 6  # none, the 4-card set, four 3-card sets
    return 1 if held == 0 else 2  # held is empty or holds exactly three suits


@njit(cache=True, inline="always")
def _set_choice_nb(held, k):
    """Choice ``k`` as a 4-bit suit pattern: 0 = no set, 1 = all held, k >= 2 drops one suit."""
    if k == 0:
        return 0
    if k == 1:
        return held
    return held ^ (1 << (k - 2))


@njit(cache=True, inline="always")
def _set_ranks_held_nb(s0, s1, s2, s3, pending):
    """The three lowest ranks of ``pending`` (0 where absent) and, for each, the suits holding it."""
    rank_a = pending & -pending
    pending ^= rank_a
    rank_b = pending & -pending
    rank_c = pending ^ rank_b
    return (
        rank_a,
        rank_b,
        rank_c,
        _suits_holding_nb(s0, s1, s2, s3, rank_a),
        _suits_holding_nb(s0, s1, s2, s3, rank_b),
        _suits_holding_nb(s0, s1, s2, s3, rank_c),
    )


@njit(cache=True, inline="always")
def _in_runs_nb(pattern):
    """Cards of a suit pattern that some run of the pattern holds: two neighbours in a row below, around or above."""
    return ((pattern >> 1 & pattern >> 2) | (pattern << 1 & pattern >> 1) | (pattern << 1 & pattern << 2)) & pattern


@njit(cache=True, inline="always")
def _ranks_in_runs_nb(s0, s1, s2, s3):
    """The ranks with a card that some run of the hand (suit patterns ``s0..s3``) could use."""
    return _in_runs_nb(s0) | _in_runs_nb(s1) | _in_runs_nb(s2) | _in_runs_nb(s3)


@njit(cache=True, inline="always")
def _isolated_set_gain_nb(s0, s1, s2, s3, isolated):
    """What the discard can take off when it comes from the isolated set ranks ``isolated`` (none: -NO_DISCARD).

    Their cards are in no run, so their sets are kept, but for at most one
    rank (one discard): 4 cards leave 3 in a set and the 4th discarded, a
    gain of 0; 3 cards, no set and one discarded, two left as deadwood.
    """
    if not isolated:
        return -NO_DISCARD
    if isolated & s0 & s1 & s2 & s3:
        return 0
    return -2 * min(count_cards_nb((isolated & -isolated) - 1) + 1, MAX_CARD_VALUE)  # the lowest rank: least left


@njit(cache=True, inline="always")
def _one_set_rank_nb(s0, s1, s2, s3, rank_bit, discard, least_gain):
    """Best deadwood over the set choices at the rank ``rank_bit`` (0: no rank), the rest in runs (``_runs_nb``)."""
    best = _runs_nb(s0, s1, s2, s3, discard, least_gain)
    held = _suits_holding_nb(s0, s1, s2, s3, rank_bit)
    for k in range(1, _set_choice_count_nb(held)):
        c0, c1, c2, c3 = _take_set_nb(s0, s1, s2, s3, rank_bit, _set_choice_nb(held, k))
        best = min(best, _runs_nb(c0, c1, c2, c3, discard, least_gain))
    return best


@njit(cache=True)
def _with_sets_nb(s0, s1, s2, s3, pending, discard):
    """Best deadwood over the set choices at the ranks in ``pending``.

    A rank none of whose cards is in a run of the hand (most of them) needs
    no choice: its set is kept, and its discard option is one number
    (``_isolated_set_gain_nb``). The other ranks, usually one or none, are
    tried choice by choice. Loops, not recursion: numba's on-disk cache
    mishandles recursive functions (numba issue 6713). Eleven cards hold at
    most three ranks in three or more suits; an absent rank (bit 0) offers
    only "no set".
    """
    in_runs = _ranks_in_runs_nb(s0, s1, s2, s3)
    isolated = pending & ~in_runs
    least_gain = _isolated_set_gain_nb(s0, s1, s2, s3, isolated) if discard else -NO_DISCARD
    s0, s1, s2, s3 = s0 & ~isolated, s1 & ~isolated, s2 & ~isolated, s3 & ~isolated
    pending &= in_runs
    if not pending & (pending - 1):
        return _one_set_rank_nb(s0, s1, s2, s3, pending, discard, least_gain)
    rank_a, rank_b, rank_c, held_a, held_b, held_c = _set_ranks_held_nb(s0, s1, s2, s3, pending)
    best = NO_DISCARD
    for ka in range(_set_choice_count_nb(held_a)):
        a0, a1, a2, a3 = _take_set_nb(s0, s1, s2, s3, rank_a, _set_choice_nb(held_a, ka))
        for kb in range(_set_choice_count_nb(held_b)):
            b0, b1, b2, b3 = _take_set_nb(a0, a1, a2, a3, rank_b, _set_choice_nb(held_b, kb))
            for kc in range(_set_choice_count_nb(held_c)):
                c0, c1, c2, c3 = _take_set_nb(b0, b1, b2, b3, rank_c, _set_choice_nb(held_c, kc))
                best = min(best, _runs_nb(c0, c1, c2, c3, discard, least_gain))
    return best


@njit(cache=True, inline="always")
def deadwood_nb(mask):
    """Least deadwood of a hand of up to 11 cards (no discard)."""
    s0, s1, s2, s3 = suits_nb(mask)
    pending = set_ranks_nb(s0, s1, s2, s3)
    # One exit, set choices as an override: measured 2x faster than two returns.
    best = RUN_DEADWOOD[s0] + RUN_DEADWOOD[s1] + RUN_DEADWOOD[s2] + RUN_DEADWOOD[s3]
    if pending:
        best = _with_sets_nb(s0, s1, s2, s3, pending, False)
    return best


@njit(cache=True, inline="always")
def deadwood_after_discard_nb(mask):
    """Least deadwood left after discarding the best card of a non-empty hand of up to 11 cards."""
    s0, s1, s2, s3 = suits_nb(mask)
    return _with_sets_nb(s0, s1, s2, s3, set_ranks_nb(s0, s1, s2, s3), True)


@njit(cache=True)
def best_discards_nb(mask):
    """Mask of the cards whose discard leaves the least deadwood."""
    target = deadwood_after_discard_nb(mask)
    found = np.int64(0)
    rest = mask
    while rest:
        card = rest & -rest
        rest ^= card
        if deadwood_nb(mask ^ card) == target:
            found |= card
    return found


@njit(cache=True)
def deadwood_many_nb(masks, out):
    for i in range(masks.shape[0]):
        out[i] = deadwood_nb(masks[i])


@njit(cache=True)
def deadwood_after_discard_many_nb(masks, out):
    for i in range(masks.shape[0]):
        out[i] = deadwood_after_discard_nb(masks[i])


@njit(cache=True)
def best_discards_many_nb(masks, out):
    for i in range(masks.shape[0]):
        out[i] = best_discards_nb(masks[i])


@njit(cache=True)
def melds_in_nb(mask, out):
    """Write the melds contained in ``mask`` to ``out``; return how many."""
    count = 0
    for i in range(ALL_MELDS.shape[0]):
        if ALL_MELDS[i] & mask == ALL_MELDS[i]:
            out[count] = ALL_MELDS[i]
            count += 1
    return count


@njit(cache=True, inline="always")
def next_combination_nb(found, n_found, chosen, state):
    """Step to the next collection of disjoint melds, in depth-first order.

    ``found[:n_found]`` are candidate melds; ``chosen`` holds the indices of
    the current collection (its length caps the depth) and ``state`` is
    ``[depth, used_cards, next_index]``, all zero for the empty collection,
    which the caller visits first. Returns False when all were visited. Each
    collection comes once, its melds in increasing index order.
    """
    depth, used, nxt = state[0], state[1], state[2]
    while True:
        while nxt < n_found and found[nxt] & used:
            nxt += 1
        if nxt < n_found and depth < chosen.shape[0]:
            chosen[depth] = nxt
            state[0], state[1], state[2] = depth + 1, used | found[nxt], nxt + 1
            return True
        if depth == 0:
            return False
        depth -= 1
        used ^= found[chosen[depth]]
        nxt = chosen[depth] + 1


@njit(cache=True, inline="always")
def combination_scratch_nb():
    """(candidate melds, chosen indices, state) for ``next_combination_nb``, in the caller's stack frame: the
    engine asks at every showdown, where three heap arrays cost more than the search (measured)."""
    found = stack_array_nb(1, N_MELDS, np.int64)[0]
    chosen = stack_array_nb(1, MAX_MELDS_IN_ARRANGEMENT, np.int64)[0]
    state = stack_array_nb(1, 3, np.int64)[0]
    chosen[:] = 0
    state[:] = 0
    return found, chosen, state


@njit(cache=True)
def optimal_arrangements_nb(mask, out):
    """Fill rows of ``out`` (n x 4, zero-padded) with every optimal arrangement.

    Returns the number of optimal arrangements, which may exceed the rows of
    ``out``; the caller then retries with a larger buffer.
    """
    found, chosen, state = combination_scratch_nb()
    n_found = melds_in_nb(mask, found)
    target = deadwood_nb(mask)
    count = 0
    more = True
    while more:
        if hand_value_nb(mask & ~state[1]) == target:
            if count < out.shape[0]:
                for k in range(out.shape[1]):
                    out[count, k] = found[chosen[k]] if k < state[0] else 0
            count += 1
        more = next_combination_nb(found, n_found, chosen, state)
    return count


@njit(cache=True, inline="always")
def run_suit_nb(meld):
    """Suit of a run, or -1 for a set."""
    for suit in range(N_SUITS):
        if meld == ((meld >> (N_RANKS * suit)) & RANK_MASK) << (N_RANKS * suit):
            return suit
    return -1


@njit(cache=True)
def layable_nb(knocker_melds, n_knocker, cards):
    """Cards of ``cards`` that can all be laid off onto the knocker's melds.

    Runs first: a card that fits both a set and a run end is worth more on
    the run, where it may carry a chain; a set can take only its one missing
    card anyway, so this order reaches the largest layable set.
    """
    laid = np.int64(0)
    for k in range(n_knocker):
        meld = knocker_melds[k]
        suit = run_suit_nb(meld)
        if suit < 0:
            continue
        shift = N_RANKS * suit
        pattern = meld >> shift
        low = pattern & -pattern
        step = low >> 1
        while step and cards & (step << shift):
            laid |= step << shift
            step >>= 1
        step = pattern + low  # the rank just above the run
        while step & RANK_MASK and cards & (step << shift):
            laid |= step << shift
            step <<= 1
    for k in range(n_knocker):
        meld = knocker_melds[k]
        if run_suit_nb(meld) >= 0:
            continue
        s0, s1, s2, s3 = suits_nb(meld)
        rank_bit = s0 | s1 | s2 | s3
        missing = (RANK_COLUMN << count_cards_nb(rank_bit - 1)) & ~meld
        laid |= missing & cards
    return laid


@njit(cache=True)
def layoff_deadwood_nb(knocker_melds, n_knocker, defender):
    """Defender's least deadwood choosing its melds and layoffs together.

    Returns ``(deadwood, laid_off_mask)``. Every collection of the defender's
    own melds is tried, breaking melds included, since a card may be worth
    more laid off than melded.
    """
    found, chosen, state = combination_scratch_nb()
    n_found = melds_in_nb(defender, found)
    best, best_laid = NO_DISCARD, np.int64(0)
    more = True
    while more:
        rest = defender & ~state[1]
        laid = layable_nb(knocker_melds, n_knocker, rest)
        left = hand_value_nb(rest & ~laid)
        if left < best:
            best, best_laid = left, laid
        more = next_combination_nb(found, n_found, chosen, state)
    return best, best_laid


@njit(cache=True, inline="always")
def _drop_each_of_suit_nb(pattern, suit, others, out):
    """Lower ``out[card]`` to ``others`` plus the run-only deadwood of ``pattern`` without ``card``, for each card."""
    rest = pattern
    while rest:
        rank_bit = rest & -rest
        rest ^= rank_bit
        card = suit * N_RANKS + count_cards_nb(rank_bit - 1)
        out[card] = min(out[card], others + RUN_DEADWOOD[pattern ^ rank_bit])


@njit(cache=True)
def deadwood_after_each_discard_nb(mask, out):
    """``out[card] = deadwood_nb(mask`` less ``card)`` for every card of a hand of up to 11 cards, in one pass.

    The set choices of the hand less a card are the set choices of the hand
    that leave the card out, so each choice (as in ``_with_sets_nb``) is
    visited once, and every card outside its sets takes the run-only
    deadwood of its suit without it, the other suits unchanged: about the
    cost of one ``deadwood_nb`` call for all the discards. The sets of ranks
    no run can use are kept in every choice; without one of their cards, a
    4-card set keeps 3, a 3-card set leaves 2 cards of deadwood.
    """
    rest = mask
    while rest:
        bit = rest & -rest
        rest ^= bit
        out[count_cards_nb(bit - 1)] = NO_DISCARD
    s0, s1, s2, s3 = suits_nb(mask)
    pending = set_ranks_nb(s0, s1, s2, s3)
    in_runs = _ranks_in_runs_nb(s0, s1, s2, s3)
    isolated = pending & ~in_runs
    s0, s1, s2, s3 = s0 & ~isolated, s1 & ~isolated, s2 & ~isolated, s3 & ~isolated
    rank_a, rank_b, rank_c, held_a, held_b, held_c = _set_ranks_held_nb(s0, s1, s2, s3, pending & in_runs)
    least = NO_DISCARD
    for ka in range(_set_choice_count_nb(held_a)):
        a0, a1, a2, a3 = _take_set_nb(s0, s1, s2, s3, rank_a, _set_choice_nb(held_a, ka))
        for kb in range(_set_choice_count_nb(held_b)):
            b0, b1, b2, b3 = _take_set_nb(a0, a1, a2, a3, rank_b, _set_choice_nb(held_b, kb))
            for kc in range(_set_choice_count_nb(held_c)):
                c0, c1, c2, c3 = _take_set_nb(b0, b1, b2, b3, rank_c, _set_choice_nb(held_c, kc))
                t0, t1, t2, t3 = RUN_DEADWOOD[c0], RUN_DEADWOOD[c1], RUN_DEADWOOD[c2], RUN_DEADWOOD[c3]
                least = min(least, t0 + t1 + t2 + t3)
                _drop_each_of_suit_nb(c0, 0, t1 + t2 + t3, out)
                _drop_each_of_suit_nb(c1, 1, t0 + t2 + t3, out)
                _drop_each_of_suit_nb(c2, 2, t0 + t1 + t3, out)
                _drop_each_of_suit_nb(c3, 3, t0 + t1 + t2, out)
    while isolated:
        rank_bit = isolated & -isolated
        isolated ^= rank_bit
        rank = count_cards_nb(rank_bit - 1)
        cards = mask & (RANK_COLUMN << rank)
        left = least if count_cards_nb(cards) == N_SUITS else least + 2 * min(rank + 1, MAX_CARD_VALUE)
        while cards:
            bit = cards & -cards
            cards ^= bit
            out[count_cards_nb(bit - 1)] = left


@njit(cache=True, inline="always")
def deadwood_after_discard_fast_nb(mask):
    """``deadwood_after_discard_nb``, inlined for the hands with at most one rank held in three or more suits.

    Those are nearly all the hands a search meets (a hand and a card it
    could draw), and so are those whose set ranks no run can use (as in
    ``_with_sets_nb``): they take no call and no nested loop. Other hands go
    to ``_with_sets_nb``.
    """
    s0, s1, s2, s3 = suits_nb(mask)
    pending = set_ranks_nb(s0, s1, s2, s3)
    if not pending:
        return _runs_nb(s0, s1, s2, s3, True, -NO_DISCARD)
    in_runs = _ranks_in_runs_nb(s0, s1, s2, s3)
    if pending & in_runs:
        if pending & (pending - 1):
            return _with_sets_nb(s0, s1, s2, s3, pending, True)
        return _one_set_rank_nb(s0, s1, s2, s3, pending, True, -NO_DISCARD)
    least_gain = _isolated_set_gain_nb(s0, s1, s2, s3, pending)
    return _runs_nb(s0 & ~pending, s1 & ~pending, s2 & ~pending, s3 & ~pending, True, least_gain)
