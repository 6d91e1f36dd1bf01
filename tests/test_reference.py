"""Tests of the pure-Python reference (the oracle the kernels are held to).

Fixed vectors are checked by hand (reasoning in the comments); RULES.md §10
worked examples are replayed; properties and small brute forces check the
rest against independent formulations.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oklasim.game.reference import (
    FULL_DECK,
    _achievable_layoffs,  # white-box: every achievable set
    arrangements,
    best_discards,
    card_value,
    deadwood,
    deadwood_after_discard,
    hand_value,
    is_meld,
    layable,
    layoff_deadwood,
    melds_in,
    optimal_arrangements,
)

RANKS = "A23456789TJQK"
SUITS = "scdh"


def c(token: str) -> int:
    """Card index of a token like ``Td``."""
    return SUITS.index(token[1]) * 13 + RANKS.index(token[0])


def h(text: str) -> int:
    """Mask of a space-separated hand like ``"As 2c Td"`` (local test helper)."""
    mask = 0
    for token in text.split():
        bit = 1 << c(token)
        assert not mask & bit, f"duplicate card {token}"
        mask |= bit
    return mask


def ms(*texts: str) -> list[int]:
    """Knocker melds, one string per meld."""
    return [h(t) for t in texts]


def union(masks) -> int:
    out = 0
    for m in masks:
        out |= m
    return out


ALL_MELDS = melds_in(FULL_DECK)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ---------------------------------------------------------------------------
# fixed vectors
# ---------------------------------------------------------------------------


def test_helper_encoding():
    assert c("As") == 0 and c("Ks") == 12 and c("Ac") == 13 and c("Kh") == 51
    assert h("As 2s 3s") == 0b111


def test_card_values():
    assert [card_value(c(r + "d")) for r in RANKS] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]
    assert hand_value(0) == 0
    assert hand_value(FULL_DECK) == 4 * (45 + 40)
    assert hand_value(h("As Kh 7c")) == 18


def test_empty_hand():
    assert deadwood(0) == 0
    assert melds_in(0) == []
    assert list(arrangements(0)) == [()]
    assert optimal_arrangements(0) == [()]


def test_ace_low_run_and_no_wrap():
    assert melds_in(h("As 2s 3s")) == [h("As 2s 3s")]
    assert deadwood(h("As 2s 3s")) == 0
    assert is_meld(h("Js Qs Ks"))
    assert not is_meld(h("Qs Ks As"))
    assert melds_in(h("Qs Ks As")) == []
    assert deadwood(h("Qs Ks As")) == 21
    assert melds_in(h("Kh Ah 2h")) == []


def test_is_meld():
    assert is_meld(h("7s 7c 7d"))
    assert is_meld(h("7s 7c 7d 7h"))
    assert is_meld(h("2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh Ah"))
    assert not is_meld(h("7s 7c"))
    assert not is_meld(h("2h 3h 5h"))
    assert not is_meld(h("2h 3h 4d"))
    assert not is_meld(0)
    assert not is_meld(h("7s 7c 7d 8s"))


def test_full_deck_meld_count():
    # 3-sets: C(4,3)=4 per rank -> 52; 4-sets: 13; runs of length L: 14-L
    # starts per suit, L=3..13 -> 11+10+...+1 = 66 per suit -> 264.
    melds = ALL_MELDS
    assert len(melds) == 52 + 13 + 264 == 329
    assert melds == sorted(set(melds))
    sizes = [m.bit_count() for m in melds]
    sets = [m for m in melds if len({i % 13 for i in range(52) if m >> i & 1}) == 1]
    assert len([m for m in sets if m.bit_count() == 3]) == 52
    assert len([m for m in sets if m.bit_count() == 4]) == 13
    assert len(melds) - len(sets) == 264
    assert max(sizes) == 13 and sizes.count(13) == 4
    assert all(is_meld(m) for m in melds)


def test_five_card_run_submelds():
    run5 = h("3d 4d 5d 6d 7d")
    melds = melds_in(run5)
    assert len(melds) == 3 + 2 + 1
    assert melds == sorted(melds)
    assert h("4d 5d 6d") in melds and h("3d 4d 5d 6d") in melds and run5 in melds


def test_set_against_run_overlap():
    # Four 7s plus 8h 9h: 4-set leaves 8h 9h (17); 3-set 7s7c7d + 7h8h9h -> 0.
    hand = h("7s 7c 7d 7h 8h 9h")
    assert deadwood(hand) == 0
    assert optimal_arrangements(hand) == sorted([tuple(sorted([h("7s 7c 7d"), h("7h 8h 9h")]))])
    # 5s5c5d 6s 7s: set leaves 6s7s (13); run 5s6s7s leaves 5c5d (10).
    assert deadwood(h("5s 5c 5d 6s 7s")) == 10
    assert optimal_arrangements(h("5s 5c 5d 6s 7s")) == [(h("5s 6s 7s"),)]
    # Four 7s, 5s 6s, 8c 9c:
    #   4-set: 5+6+8+9 = 28; both runs 5s-7s and 7c-9c: 7d+7h = 14;
    #   7c7d7h + 5s-7s: 8+9 = 17; 7s7d7h + 7c-9c: 5+6 = 11 (best).
    hand = h("7s 7c 7d 7h 5s 6s 8c 9c")
    assert deadwood(hand) == 11
    assert optimal_arrangements(hand) == [tuple(sorted([h("7s 7d 7h"), h("7c 8c 9c")]))]


def test_long_run_arrangements():
    # 11-card straight flush: compositions of 11 into parts >= 3 are
    # 3+3+5 (3 orders), 3+4+4 (3), 3+8 (2), 4+7 (2), 5+6 (2), 11 (1) = 13.
    hand = h("As 2s 3s 4s 5s 6s 7s 8s 9s Ts Js")
    assert deadwood(hand) == 0
    assert len(optimal_arrangements(hand)) == 13
    assert deadwood_after_discard(hand) == 0
    # discarding As or Js leaves a 10-run; 4s..8s interior ones leave parts
    # >= 3 on both sides (e.g. 4s: As-3s and 5s-Js); 2s, 3s, 9s, Ts do not.
    assert best_discards(hand) == h("As 4s 5s 6s 7s 8s Js")


def test_ten_card_gin():
    hand = h("As 2s 3s 4s 7d 7c 7h 9h Th Jh")
    assert deadwood(hand) == 0
    assert optimal_arrangements(hand) == [tuple(sorted([h("As 2s 3s 4s"), h("7d 7c 7h"), h("9h Th Jh")]))]


def test_no_melds_is_face_value():
    hand = h("As 3c 5d 7h 9s Jc Kd 2h 4s 6c")
    assert deadwood(hand) == hand_value(hand) == 1 + 3 + 5 + 7 + 9 + 10 + 10 + 2 + 4 + 6


def test_deadwood_after_discard_simple():
    # As 2s 3s + Kd Qh: discard a ten-card -> 10 left.
    hand = h("As 2s 3s Kd Qh")
    assert deadwood_after_discard(hand) == 10
    assert best_discards(hand) == h("Kd Qh")
    assert deadwood_after_discard(h("5c")) == 0
    assert best_discards(h("5c")) == h("5c")


def test_subtle_layoff_set_or_run_chain():
    # 7h fits the 7-set as 4th and the 4h-6h run; only on the run does it
    # make room for 8h and then 9h.
    knocker = ms("7s 7c 7d", "4h 5h 6h")
    assert layable(knocker, h("7h 8h")) == h("7h 8h")
    assert layable(knocker, h("7h 8h 9h")) == h("7h 8h 9h")
    assert layable(knocker, h("8h 9h")) == 0  # no chain without 7h
    assert layable(knocker, h("3h 2h Ah Kh")) == h("3h 2h Ah")
    # a 4-set takes nothing, a 3-set only its missing suit
    assert layable(ms("7s 7c 7d 7h"), h("6s 8s")) == 0
    assert layable(ms("7s 7c 7d"), h("7h")) == h("7h")
    # two runs of a suit meeting: every card in the gap is laid off
    assert layable(ms("2d 3d 4d", "8d 9d Td"), h("5d 6d 7d")) == h("5d 6d 7d")
    # a knocker set card blocks the chain (6h belongs to the set, not the run)
    assert layable(ms("3h 4h 5h", "6s 6c 6h"), h("7h 6d")) == h("6d")


def test_layoff_no_knocker_melds():
    hand = h("7s 7c 7d 7h 8h 9h Kd")
    assert layoff_deadwood([], hand) == (deadwood(hand), 0) == (10, 0)


# ---------------------------------------------------------------------------
# RULES.md §10 worked examples
# ---------------------------------------------------------------------------


def test_rules_example_1():
    knocker = h("2h 3h 4h 7s 7d 7h Jc Qc Kc 5d")
    assert deadwood(knocker) == 5
    melds = ms("2h 3h 4h", "7s 7d 7h", "Jc Qc Kc")
    defender = h("4c 5c 6c Qs Qd Qh As 2s 8d 9h")
    assert deadwood(defender) == 20
    assert layoff_deadwood(melds, defender) == (20, 0)


def test_rules_example_2():
    assert deadwood(h("2h 3h 4h 7s 7d 7h Jc Qc Kc 6d")) == 6


def test_rules_example_3():
    knocker = h("3d 4d 5d 8s 8c 8h Js Qs Ks 6c")
    assert deadwood(knocker) == 6
    melds = ms("3d 4d 5d", "8s 8c 8h", "Js Qs Ks")
    defender = h("2d 6d 7d 8d Ts 9s Ac Ah As 4c")
    # The example's line: keep 6d7d8d and AsAcAh, lay off 2d, Ts then 9s.
    assert layable(melds, h("2d Ts 9s 4c")) == h("2d Ts 9s")
    # Equally good (left 4c = 4) and with more laid-off cards: also chain
    # 6d 7d 8d onto 3d-5d. The tie-break picks the most cards.
    assert layoff_deadwood(melds, defender) == (4, h("2d 6d 7d 8d Ts 9s"))


def test_rules_example_4():
    knocker = h("Ac 2c 3c 4h 5h 6h Td Jd Qd 5s")
    assert deadwood(knocker) == 5
    melds = ms("Ac 2c 3c", "4h 5h 6h", "Td Jd Qd")
    defender = h("9s 9c 9h 9d Ks Kc Kh Kd 2d 3s")
    assert deadwood(defender) == 5
    # 9d and Kd could go on Td-Qd by breaking the 4-sets into 3-sets: still 5,
    # and that is the tie-break's choice (two cards laid off).
    assert layoff_deadwood(melds, defender) == (5, h("9d Kd"))


def test_rules_example_5_gin_no_layoffs():
    assert deadwood(h("As 2s 3s 4s 7d 7c 7h 9h Th Jh")) == 0
    # 2d3d4d melded; 5+7+8+10+10+10+6 = 56
    assert deadwood(h("2d 3d 4d 5s 7s 8h Qh Kd Ks 6h")) == 56


def test_rules_example_7():
    knocker = h("5h 6h 7h Ks Kd Kc 9s 9d 9c 3d")
    assert deadwood(knocker) == 3
    melds = ms("5h 6h 7h", "Ks Kd Kc", "9s 9d 9c")
    defender = h("3h 4h 8h 9h Kh Qc Jd 2s As Ts")
    assert layoff_deadwood(melds, defender) == (33, h("4h 3h 8h 9h Kh"))


def test_rules_example_8_three_sets():
    knocker = h("5s 5c 5d 6s 6c 6d 7s 7c 7d As")
    assert deadwood(knocker) == 1
    defender = h("3s 4s 4c 4d 5h 6h 7h 8s 8c 8d")
    assert deadwood(defender) == 3
    melds = ms("5s 5c 5d", "6s 6c 6d", "7s 7c 7d")
    # 3s stays; 5h 6h 7h are melded anyway, or laid off as the 4th cards
    # (tie-break: more laid-off cards).
    assert layoff_deadwood(melds, defender) == (3, h("5h 6h 7h"))


def test_rules_example_8_three_runs():
    melds = ms("5s 6s 7s", "5c 6c 7c", "5d 6d 7d")
    defender = h("3s 4s 4c 4d 5h 6h 7h 8s 8c 8d")
    assert layoff_deadwood(melds, defender) == (0, h("4s 3s 8s 4c 8c 4d 8d"))


def test_rules_example_9():
    knocker = h("4d 5d 6d Jc Js Jh 2c 3c 4c Ah")
    assert deadwood(knocker) == 1
    melds = ms("4d 5d 6d", "Jc Js Jh", "2c 3c 4c")
    assert layoff_deadwood(melds, h("Qs Qd Qc 6h 7h 8h 9h 9d Td As")) == (20, 0)


def test_rules_example_10_big_gin_hand():
    hand = h("3c 4c 5c 6c 8s 8d 8h Js Jc Jd Jh")
    assert deadwood(hand) == 0
    assert deadwood_after_discard(hand) == 0
    # 3c or 6c leaves a 3-run; a jack leaves a 3-set; 4c/5c break the run
    # (14 left), an 8 breaks the 8-set (16 left).
    assert best_discards(hand) == h("3c 6c Js Jc Jd Jh")
    assert deadwood(hand & ~h("4c")) == 3 + 5 + 6
    assert deadwood(hand & ~h("8s")) == 16


# ---------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fn",
    [hand_value, melds_in, deadwood, optimal_arrangements, deadwood_after_discard, best_discards, is_meld],
)
def test_bad_masks(fn):
    with pytest.raises(ValueError):
        fn(-1)
    with pytest.raises(ValueError):
        fn(1 << 52)
    with pytest.raises(ValueError):
        list(arrangements(-1))


def test_bad_cards_and_empty_discard():
    with pytest.raises(ValueError):
        card_value(52)
    with pytest.raises(ValueError):
        card_value(-1)
    with pytest.raises(ValueError):
        deadwood_after_discard(0)
    with pytest.raises(ValueError):
        best_discards(0)


@pytest.mark.parametrize("fn", [layable, layoff_deadwood])
def test_bad_knocker_melds(fn):
    with pytest.raises(ValueError, match="not a valid meld"):
        fn(ms("7s 7c"), h("2d"))
    with pytest.raises(ValueError, match="overlap each other"):
        fn(ms("7s 7c 7d", "5s 6s 7s"), h("2d"))
    with pytest.raises(ValueError, match="defender"):
        fn(ms("7s 7c 7d"), h("7d 2d"))
    with pytest.raises(ValueError):
        fn([-1], h("2d"))
    with pytest.raises(ValueError):
        fn(ms("7s 7c 7d"), 1 << 52)


# ---------------------------------------------------------------------------
# strategies
# ---------------------------------------------------------------------------


def _mask(cards) -> int:
    return union(1 << x for x in cards)


@st.composite
def window_pool(draw) -> int:
    """All cards of 2-4 suits in a window of 4-7 consecutive ranks (meld-rich)."""
    width = draw(st.integers(4, 7))
    start = draw(st.integers(0, 13 - width))
    suits = draw(st.sets(st.integers(0, 3), min_size=2))
    return _mask(s * 13 + r for s in suits for r in range(start, start + width))


@st.composite
def hands(draw, max_size: int = 11) -> int:
    """Hands of up to max_size cards, mostly dense ones with many melds."""
    if draw(st.integers(0, 3)) == 0:  # a quarter of plain random hands
        return _mask(draw(st.sets(st.integers(0, 51), max_size=max_size)))
    window = draw(window_pool())
    pool = [i for i in range(52) if window >> i & 1]
    most = min(max_size, len(pool))
    size = draw(st.one_of(st.just(most), st.sampled_from(range(most + 1))))
    dense = draw(st.sets(st.sampled_from(pool), min_size=size, max_size=size))
    extra = draw(st.sets(st.integers(0, 51), max_size=2))
    cards = sorted(dense | extra)[:max_size]
    return _mask(cards)


@st.composite
def showdowns(draw):
    """(knocker melds, defender) around one window so layoffs are common."""
    pool = draw(window_pool())
    candidates = [m for m in ALL_MELDS if m & pool == m]
    picked = draw(st.lists(st.sampled_from(candidates), min_size=1, max_size=6)) if candidates else []
    melds, used = [], 0
    for m in picked:
        if not m & used and len(melds) < 4:
            melds.append(m)
            used |= m
    free = [i for i in range(52) if (pool & ~used) >> i & 1]
    defender = 0
    if free:
        size = draw(st.sampled_from(range(min(10, len(free)) + 1)))
        defender = _mask(draw(st.sets(st.sampled_from(free), min_size=size, max_size=size)))
    outside = [i for i in range(52) if not (used | defender) >> i & 1]
    extra = _mask(draw(st.sets(st.sampled_from(outside), max_size=2)))
    defender |= extra
    while defender.bit_count() > 10:
        defender &= defender - 1
    return melds, defender


# ---------------------------------------------------------------------------
# independent formulations
# ---------------------------------------------------------------------------


def brute_arrangements(mask: int) -> set[tuple[int, ...]]:
    melds = melds_in(mask)
    out = set()
    for k in range(len(melds) + 1):
        for combo in itertools.combinations(melds, k):
            if sum(m.bit_count() for m in combo) == union(combo).bit_count():
                out.add(tuple(sorted(combo)))
    return out


def closure_layable(knocker_melds, cards: int) -> int:
    """Layable cards by the characterisation, not by search: the missing 4th
    of each 3-card set, plus every card of ``cards`` joined to a knocker run
    by a same-suit straight of cards of ``cards`` (flood fill)."""
    laid = 0
    runs = 0
    for m in knocker_melds:
        idx = [i for i in range(52) if m >> i & 1]
        if len({i % 13 for i in idx}) == 1:  # a set
            if len(idx) == 3:
                rank = idx[0] % 13
                for s in range(4):
                    card = s * 13 + rank
                    if cards >> card & 1:
                        laid |= 1 << card
        else:
            runs |= m
    reached = runs
    grown = True
    while grown:
        grown = False
        for card in range(52):
            if cards >> card & 1 and not reached >> card & 1:
                r = card % 13
                if (r > 0 and reached >> (card - 1) & 1) or (r < 12 and reached >> (card + 1) & 1):
                    reached |= 1 << card
                    grown = True
    return laid | (reached & ~runs)


# ---------------------------------------------------------------------------
# properties
# ---------------------------------------------------------------------------


@SETTINGS
@given(hands())
def test_melds_in_matches_definition(mask):
    melds = melds_in(mask)
    assert melds == sorted(set(melds))
    assert all(is_meld(m) and m & mask == m for m in melds)
    assert melds == [m for m in ALL_MELDS if m & ~mask == 0]


@settings(max_examples=80, deadline=None)
@given(hands(max_size=10))
def test_arrangements_against_brute_force(mask):
    if len(melds_in(mask)) > 14:
        return  # keep the brute force small
    got = list(arrangements(mask))
    assert len(got) == len(set(got))
    assert all(list(a) == sorted(a) for a in got)
    assert set(got) == brute_arrangements(mask)


@SETTINGS
@given(hands())
def test_deadwood_is_min_over_arrangements(mask):
    values = {a: hand_value(mask & ~union(a)) for a in arrangements(mask)}
    d = deadwood(mask)
    assert d == min(values.values())
    assert 0 <= d <= hand_value(mask)
    assert optimal_arrangements(mask) == sorted(a for a, v in values.items() if v == d)


@SETTINGS
@given(hands().filter(lambda m: m != 0))
def test_deadwood_after_discard_relations(mask):
    cards = [i for i in range(52) if mask >> i & 1]
    after = {x: deadwood(mask & ~(1 << x)) for x in cards}
    dad = deadwood_after_discard(mask)
    assert dad == min(after.values())
    bd = best_discards(mask)
    assert bd != 0 and bd & ~mask == 0
    assert bd == _mask(x for x, v in after.items() if v == dad)
    d = deadwood(mask)
    # a discard can at worst cost nothing more than treating it as deadwood
    assert d - max(card_value(x) for x in cards) <= dad
    # with deadwood left, throwing an unmelded card strictly helps
    if d > 0:
        assert dad < d


@SETTINGS
@given(showdowns())
def test_layable_properties(case):
    melds, defender = case
    laid = layable(melds, defender)
    assert laid & ~defender == 0
    assert laid == closure_layable(melds, defender)
    assert layable(melds, laid) == laid
    achievable = _achievable_layoffs(tuple(melds), defender)
    assert 0 in achievable and laid in achievable
    assert all(s & ~laid == 0 for s in achievable)  # the maximum is unique
    # fewer cards available never means more laid off
    sub = defender & ~(defender & -defender) if defender else 0
    assert layable(melds, sub) & ~laid == 0


@SETTINGS
@given(showdowns())
def test_layoff_deadwood_properties(case):
    melds, defender = case
    d, laid = layoff_deadwood(melds, defender)
    assert laid & ~defender == 0
    assert d <= deadwood(defender)
    assert layable(melds, laid) == laid
    # melding what is left after the layoffs is exactly the reported deadwood
    assert deadwood(defender & ~laid) == d
    # independent formulation: min over achievable layoff sets L of deadwood(defender - L)
    achievable = _achievable_layoffs(tuple(melds), defender)
    assert d == min(deadwood(defender & ~s) for s in achievable)
    assert layoff_deadwood([], defender) == (deadwood(defender), 0)
    if melds:
        # adding a knocker meld never increases the defender's deadwood
        assert layoff_deadwood(melds[:-1], defender)[0] >= d
