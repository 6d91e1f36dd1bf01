"""The Bradley-Terry ladder: it recovers known strengths within its intervals, and names what it cannot place."""

import numpy as np
import pytest

from oklasim.analysis.ladder import ELO, bradley_terry
from oklasim.errors import OklasimError

NAMES = ["weak", "fair", "good", "best"]
TRUE = np.array([-300.0, -50.0, 100.0, 250.0])  # Elo points, mean 0


def games_between(rng, strengths, games: int, scale: float = 1.0):
    """Every pairing plays ``games`` games; with ``scale`` > 1 the pairings' strengths wobble beyond one scale."""
    results = []
    for i in range(len(strengths)):
        for j in range(i + 1, len(strengths)):
            gap = (strengths[i] - strengths[j]) / ELO + rng.normal(0, 0.3 * (scale - 1))
            results.append((NAMES[i], NAMES[j], int(rng.binomial(games, 1 / (1 + np.exp(-gap)))), games))
    return results


def test_known_strengths_are_recovered_inside_the_intervals():
    rng = np.random.default_rng(1)
    covered = 0
    for _ in range(40):
        ladder = bradley_terry(NAMES, games_between(rng, TRUE, 2000))
        assert [r.name for r in ladder.ratings] == NAMES[::-1]
        covered += sum(ladder[name].rating.low <= t <= ladder[name].rating.high for name, t in zip(NAMES, TRUE))
    assert covered >= 0.9 * 40 * len(NAMES)  # 95% intervals, 160 of them


def test_pairings_that_disagree_with_one_scale_widen_the_intervals():
    rng = np.random.default_rng(2)
    fitting = bradley_terry(NAMES, games_between(rng, TRUE, 2000))
    wobbly = bradley_terry(NAMES, games_between(np.random.default_rng(2), TRUE, 2000, scale=3.0))
    assert wobbly.misfit > 3 * max(fitting.misfit, 1)
    assert wobbly["good"].rating.half_width > 1.5 * fitting["good"].rating.half_width


def test_equal_entrants_and_the_chance_to_win():
    ladder = bradley_terry(["a", "b"], [("a", "b", 500, 1000)])
    assert ladder["a"].rating.mean == pytest.approx(0, abs=1e-9) and ladder["a"].beats(ladder["b"]) == 0.5
    stronger = bradley_terry(["a", "b"], [("a", "b", 760, 1000)])
    assert stronger["a"].beats(stronger["b"]) == pytest.approx(760.5 / 1001, abs=1e-6)  # half a game each way added
    assert stronger["a"].games == 1000


def test_a_clean_sweep_still_gets_a_finite_rating():
    ladder = bradley_terry(["a", "b", "c"], [("a", "b", 100, 100), ("b", "c", 60, 100), ("a", "c", 100, 100)])
    assert [r.name for r in ladder.ratings] == ["a", "b", "c"]
    assert all(np.isfinite([r.rating.low, r.rating.high]).all() for r in ladder.ratings)


@pytest.mark.parametrize("results, words", [
    ([("a", "b", 5, 10)], "no pairing links c"),
    ([("a", "b", 5, 10), ("a", "x", 1, 2)], "different entrants"),
    ([("a", "b", 11, 10), ("b", "c", 1, 2)], "is not a result"),
])
def test_what_cannot_be_placed_is_named(results, words):
    with pytest.raises(OklasimError, match=words):
        bradley_terry(["a", "b", "c"], results)


def test_the_gap_between_two_entrants_covers_the_true_gap_and_is_narrower():
    rng = np.random.default_rng(3)
    covered = 0
    for _ in range(40):
        ladder = bradley_terry(NAMES, games_between(rng, TRUE, 2000))
        gap = ladder.gap("good", "fair")
        covered += gap.low <= TRUE[2] - TRUE[1] <= gap.high
        assert gap.mean == pytest.approx(ladder["good"].rating.mean - ladder["fair"].rating.mean)
        assert gap.half_width < ladder["good"].rating.half_width + ladder["fair"].rating.half_width
    assert covered >= 36
