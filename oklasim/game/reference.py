"""Slow, plainly correct pure-Python reference for melds, deadwood and layoffs.

This module is the oracle the fast kernels are tested against, so every
function favours obviousness over speed. Standard library only.

Encoding (see RULES.md §1): card index = ``suit * 13 + rank`` with suits
``s=0 c=1 d=2 h=3`` and ranks ``A=0 … K=12``. A hand is a Python ``int`` used
as a bit mask (bit ``i`` set means card ``i`` is held). Ace is low only.

Melds: a *set* is 3 or 4 cards of one rank; a *run* is 3 or more consecutive
ranks of one suit. A card belongs to at most one meld.

Example (``As 2s 3s`` is cards 0, 1, 2; ``Kd`` is card 38):

>>> deadwood(0b111)
0
>>> deadwood(0b111 | 1 << 38)
10
"""

from __future__ import annotations

import operator
from collections.abc import Iterator, Sequence

from oklasim.errors import OklasimError

__all__ = [
    "N_CARDS",
    "FULL_DECK",
    "card_value",
    "hand_value",
    "is_meld",
    "melds_in",
    "arrangements",
    "deadwood",
    "optimal_arrangements",
    "deadwood_after_discard",
    "best_discards",
    "layable",
    "layoff_deadwood",
    "settle",
]

N_CARDS = 52
N_RANKS = 13
N_SUITS = 4
FULL_DECK = (1 << N_CARDS) - 1


# ---------------------------------------------------------------------------
# small helpers
# ---------------------------------------------------------------------------


def _check_mask(mask: int) -> int:
    """Return ``mask`` as a plain int; ValueError unless it is a 52-bit mask."""
    mask = operator.index(mask)  # accepts int and integer-like (numpy) values
    if mask < 0:
        raise OklasimError(f"card mask must be non-negative, got {mask}")
    if mask > FULL_DECK:
        raise OklasimError(f"card mask has bits beyond the 52 cards: {mask:#x}")
    return mask


def _cards(mask: int) -> list[int]:
    """Card indices held in ``mask``, ascending."""
    return [c for c in range(N_CARDS) if mask >> c & 1]


def _rank(card: int) -> int:
    return card % N_RANKS


def _suit(card: int) -> int:
    return card // N_RANKS


def _bit(suit: int, rank: int) -> int:
    return 1 << (suit * N_RANKS + rank)


# ---------------------------------------------------------------------------
# values
# ---------------------------------------------------------------------------


def card_value(card: int) -> int:
    """Deadwood value of one card: A=1, 2..9 face value, T J Q K = 10."""
    card = operator.index(card)
    if not 0 <= card < N_CARDS:
        raise OklasimError(f"card index must be in 0..51, got {card}")
    return min(_rank(card) + 1, 10)


def hand_value(mask: int) -> int:
    """Sum of the card values of every card in ``mask``."""
    mask = _check_mask(mask)
    return sum(card_value(c) for c in _cards(mask))


# ---------------------------------------------------------------------------
# melds
# ---------------------------------------------------------------------------


def _meld_kind(mask: int) -> str | None:
    """'set', 'run' or None for a (validated) mask."""
    cards = _cards(mask)
    if len(cards) < 3:
        return None
    ranks = [_rank(c) for c in cards]
    suits = [_suit(c) for c in cards]
    if len(cards) <= 4 and len(set(ranks)) == 1:
        return "set"  # distinct cards of one rank necessarily differ in suit
    if len(set(suits)) == 1:
        # cards are ascending, so within one suit the ranks are ascending too
        if all(b == a + 1 for a, b in zip(ranks, ranks[1:])):
            return "run"
    return None


def is_meld(mask: int) -> bool:
    """True if ``mask`` is exactly one meld: a 3/4-card set or a 3+-card run."""
    return _meld_kind(_check_mask(mask)) is not None


def _enumerate_all_melds() -> tuple[int, ...]:
    melds: set[int] = set()
    # sets: every 3-subset and the 4-subset of the four suits, for each rank
    for rank in range(N_RANKS):
        for left_out in range(N_SUITS):
            melds.add(sum(_bit(s, rank) for s in range(N_SUITS) if s != left_out))
        melds.add(sum(_bit(s, rank) for s in range(N_SUITS)))
    # runs: every suit, every start, every length >= 3 that fits (ace low)
    for suit in range(N_SUITS):
        for start in range(N_RANKS):
            for end in range(start + 2, N_RANKS):  # end rank inclusive
                melds.add(sum(_bit(suit, r) for r in range(start, end + 1)))
    return tuple(sorted(melds))


_ALL_MELDS: tuple[int, ...] = _enumerate_all_melds()


def melds_in(mask: int) -> list[int]:
    """Every meld whose cards are all in ``mask``, ascending, no duplicates.

    All 3-sets and 4-sets, and every run of every length >= 3 (a 5-card run
    also yields its three 3-runs and two 4-runs).
    """
    mask = _check_mask(mask)
    return [m for m in _ALL_MELDS if m & mask == m]


def arrangements(mask: int) -> Iterator[tuple[int, ...]]:
    """Every collection of pairwise-disjoint melds from ``melds_in(mask)``.

    The empty collection is included. Each collection is yielded exactly once,
    as a tuple of meld masks sorted ascending.
    """
    melds = melds_in(mask)

    def extend(start: int, used: int, chosen: list[int]) -> Iterator[tuple[int, ...]]:
        yield tuple(chosen)
        # only melds after the last chosen one: each subset is built once,
        # always in ascending order
        for i in range(start, len(melds)):
            m = melds[i]
            if m & used == 0:
                chosen.append(m)
                yield from extend(i + 1, used | m, chosen)
                chosen.pop()

    return extend(0, 0, [])


def _union(melds: Sequence[int]) -> int:
    out = 0
    for m in melds:
        out |= m
    return out


# ---------------------------------------------------------------------------
# deadwood
# ---------------------------------------------------------------------------


def _deadwood(mask: int) -> int:
    """Minimum deadwood of a validated mask.

    Equivalent to ``min(hand_value(mask & ~union(A)) for A in arrangements)``
    (the tests check this), computed by the usual case split on the lowest
    held card: in any arrangement it is either unmelded, or it lies in
    exactly one meld, which consists of held cards. Memoised per call.
    """
    memo: dict[int, int] = {0: 0}

    def best(rest: int) -> int:
        if rest in memo:
            return memo[rest]
        low = rest & -rest
        low_card = low.bit_length() - 1
        result = card_value(low_card) + best(rest & ~low)
        for m in _ALL_MELDS:
            if m & low and m & rest == m:
                result = min(result, best(rest & ~m))
        memo[rest] = result
        return result

    return best(mask)


def deadwood(mask: int) -> int:
    """Minimum, over all arrangements, of the value of the unmelded cards.

    Works for any number of cards (0..11 is the usual case).
    """
    return _deadwood(_check_mask(mask))


def optimal_arrangements(mask: int) -> list[tuple[int, ...]]:
    """All arrangements of ``mask`` reaching ``deadwood(mask)``; sorted, unique."""
    mask = _check_mask(mask)
    target = _deadwood(mask)
    found = {a for a in arrangements(mask) if hand_value(mask & ~_union(a)) == target}
    return sorted(found)


def deadwood_after_discard(mask: int) -> int:
    """Minimum over each held card ``c`` of ``deadwood(mask without c)``.

    This is the deadwood of an 11-card hand after its best discard (RULES §1).
    Raises ValueError on an empty hand.
    """
    mask = _check_mask(mask)
    if mask == 0:
        raise OklasimError("deadwood_after_discard needs at least one card")
    return min(_deadwood(mask & ~(1 << c)) for c in _cards(mask))


def best_discards(mask: int) -> int:
    """Mask of every held card whose discard reaches ``deadwood_after_discard``."""
    mask = _check_mask(mask)
    if mask == 0:
        raise OklasimError("best_discards needs at least one card")
    after = {c: _deadwood(mask & ~(1 << c)) for c in _cards(mask)}
    target = min(after.values())
    return sum(1 << c for c, d in after.items() if d == target)


# ---------------------------------------------------------------------------
# layoffs
# ---------------------------------------------------------------------------


def _check_knocker_melds(knocker_melds: Sequence[int], other: int) -> tuple[int, ...]:
    """Validate the knocker's melds against each other and ``other`` cards."""
    melds = tuple(_check_mask(m) for m in knocker_melds)
    used = 0
    for m in melds:
        if _meld_kind(m) is None:
            raise OklasimError(f"knocker meld {m:#x} is not a valid meld")
        if m & used:
            raise OklasimError("knocker melds overlap each other")
        used |= m
    if used & other:
        raise OklasimError("knocker melds overlap the defender's cards")
    return melds


def _fits(card: int, original: int, current: int) -> bool:
    """Can ``card`` be laid off on a knocker meld (as it is now ``current``)?

    ``original`` is the meld as the knocker laid it, ``current`` the meld with
    the cards already laid off on it. A 3-card set takes its 4th card; a run
    takes a card of its suit next to either end of its current extent.
    """
    if current >> card & 1:
        return False
    if _meld_kind(original) == "set":
        if original.bit_count() != 3 or current != original:
            return False  # a set holds at most four cards
        return _rank(card) == _rank(_cards(original)[0])
    cards = _cards(current)
    if _suit(card) != _suit(cards[0]):
        return False
    low, high = _rank(cards[0]), _rank(cards[-1])
    return _rank(card) in (low - 1, high + 1)


def _achievable_layoffs(knocker_melds: tuple[int, ...], cards: int) -> set[int]:
    """Every set of cards (a mask) that can be laid off, exhaustively.

    A state is the tuple of the knocker's melds as currently extended. From a
    state, each remaining card that fits some meld gives a successor state.
    Every state reachable from the start is visited once; the laid-off mask
    of each is collected (the empty mask included).
    """
    start = tuple(knocker_melds)
    base = _union(start)
    seen = {start}
    stack = [start]
    laid_sets: set[int] = set()
    while stack:
        state = stack.pop()
        laid = _union(state) & ~base
        laid_sets.add(laid)
        for card in _cards(cards & ~laid):
            for j, original in enumerate(start):
                if _fits(card, original, state[j]):
                    nxt = state[:j] + (state[j] | 1 << card,) + state[j + 1 :]
                    if nxt not in seen:
                        seen.add(nxt)
                        stack.append(nxt)
    return laid_sets


def layable(knocker_melds: Sequence[int], cards: int) -> int:
    """Largest mask of ``cards`` that can all be laid off on ``knocker_melds``.

    Rule (RULES §5): a 4th card on a 3-card set, or a card of the run's suit
    next to either end of the run's current extent; chains are allowed (a
    laid-off card makes room for the next) and a card goes on one meld only.
    Found by exhaustive search over sequences of single-card layoffs.

    The largest achievable set is unique (and contains every other
    achievable set): a set S of cards is achievable iff every card of S is
    either the missing 4th of a knocker 3-card set, or joined to an end of a
    knocker run by a straight of same-suit cards that are all in S (lay the
    run-joined cards first, nearest first, then the 4ths). That condition is
    preserved by taking unions, so the union of all achievable sets is
    achievable. The function checks this on every call.

    Raises ValueError if a knocker meld is invalid, the melds overlap, or
    they overlap ``cards``.
    """
    cards = _check_mask(cards)
    melds = _check_knocker_melds(knocker_melds, cards)
    achievable = _achievable_layoffs(melds, cards)
    best = max(achievable, key=lambda m: (m.bit_count(), hand_value(m), -m))
    for s in achievable:  # the uniqueness argument above, checked
        assert s & ~best == 0, "largest layoff set is not unique"
    return best


def layoff_deadwood(knocker_melds: Sequence[int], defender: int) -> tuple[int, int]:
    """Defender's minimum deadwood choosing its melds and layoffs together.

    The minimum over every arrangement ``A`` of ``defender`` (so the defender
    may break its own melds) of ``hand_value(rest & ~layable(knocker_melds,
    rest))`` with ``rest = defender`` minus the cards of ``A``.

    Returns ``(min_deadwood, laid_off_mask)``: among the arrangements reaching
    the minimum, the laid-off mask with the most cards, then the lowest mask.
    With no knocker melds this is ``(deadwood(defender), 0)``.
    """
    defender = _check_mask(defender)
    melds = _check_knocker_melds(knocker_melds, defender)
    layable_of: dict[int, int] = {}
    best_key: tuple[int, int, int] | None = None
    for arrangement in arrangements(defender):
        rest = defender & ~_union(arrangement)
        if rest not in layable_of:
            layable_of[rest] = layable(melds, rest)
        laid = layable_of[rest]
        key = (hand_value(rest & ~laid), -laid.bit_count(), laid)
        if best_key is None or key < best_key:
            best_key = key
    assert best_key is not None  # the empty arrangement always exists
    return best_key[0], best_key[2]


def settle(knocker_deadwood: int, defender_deadwood: int, gin: bool, big_gin: bool, rules) -> tuple[str, int, int]:
    """Score one knocker against one defender by RULES.md §6, before any spade doubling.

    ``defender_deadwood`` is after layoffs (there are none on gin); ``rules``
    is anything with the ``Rules`` attributes. Returns ``(outcome, knocker's
    points, defender's points)`` with outcome ``gin``, ``big_gin``, ``knock``,
    ``undercut`` or ``tie`` (a tie scoring nothing).
    """
    if big_gin:
        return "big_gin", rules.big_gin_bonus + defender_deadwood, 0
    if gin:
        return "gin", rules.gin_bonus + defender_deadwood, 0
    if knocker_deadwood < defender_deadwood:
        return "knock", defender_deadwood - knocker_deadwood, 0
    if knocker_deadwood == defender_deadwood and rules.tie_rule == "no_score":
        return "tie", 0, 0
    if knocker_deadwood == defender_deadwood and rules.tie_rule == "knocker_zero":
        return "knock", 0, 0
    return "undercut", 0, knocker_deadwood - defender_deadwood + rules.undercut_bonus
