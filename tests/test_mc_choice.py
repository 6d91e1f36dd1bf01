"""The candidates after a draw with a first discard (mc's: its continuation's own, always weighed), the two of a
draw, and mc's choice among them: another way to play on, or the other draw, taken only when it beats the
continuation's own by the margin; with a knock margin, the same for a knock against the continuation's choice; and
too few effective worlds leave the continuation's choice standing."""

import numpy as np
import pytest

from oklasim._kernels import advise_columns_nb as C
from oklasim._kernels import layout as L
from oklasim._kernels.advise_rollouts_nb import N_OUT, O_POINTS
from oklasim._kernels.mc_nb import best_column_nb, effective_worlds_nb, first_rollout_nb, own_knock_column_nb
from oklasim.game.rules import Rules
from oklasim.strategies.registry import resolve

from test_advise_log import seat_zero_decisions


def after_draw_views(limit=40):
    seen = 0
    for view, kind, _ in seat_zero_decisions(Rules.preset("eaai"), 8, games=3):
        if kind in (L.D_KNOCK, L.D_DISCARD) and seen < limit:
            seen += 1
            yield view, kind


@pytest.mark.parametrize("others", [0, 2, 10])
def test_the_continuations_discard_is_the_first_way_to_play_on(others):
    expert = resolve("expert")
    checked = 0
    for view, kind in after_draw_views():
        own = int(expert.decide(L.D_DISCARD, view.copy(), expert.vector()))
        cand = np.zeros((C.MAX_COLUMNS, C.N_CAND_FIELDS), dtype=np.int64)
        n = C.candidates_nb(view, kind, others + 1, own, cand)
        play_on = [int(c[C.C_DISCARD]) for c in cand[:n] if c[C.C_KIND] == C.ROLLOUT]
        knocks = [c for c in cand[:n] if c[C.C_KIND] == C.SHOWDOWN]
        hand = int(view[L.V_HAND])
        legal = [card for card in range(52) if hand >> card & 1 and card != view[L.V_FORBIDDEN]]
        assert play_on[0] == own
        assert first_rollout_nb(cand, n) == len(knocks)
        assert len(set(play_on)) == len(play_on) == min(others + 1, len(legal))
        assert set(play_on) <= set(legal)
        assert (len(knocks) > 0) == (kind == L.D_KNOCK and int(view[L.V_KNOCK_DISCARDS]) != 0)
        checked += 1
    assert checked >= 20


def test_at_the_fiftieth_card_the_choice_is_to_knock_or_decline():
    for view, kind in after_draw_views(limit=10**6):
        if kind != L.D_KNOCK:
            continue
        last = view.copy()
        last[L.V_LAST_CHANCE] = 1
        cand = np.zeros((C.MAX_COLUMNS, C.N_CAND_FIELDS), dtype=np.int64)
        n = C.candidates_nb(last, kind, 4, 0, cand)
        assert cand[n - 1, C.C_PRE] == C.PRE_DECLINE
        assert all(c[C.C_KIND] == C.SHOWDOWN for c in cand[: n - 1])
        return
    pytest.fail("no knock offer in the sample")


def columns(*kinds):
    cand = np.zeros((len(kinds), C.N_CAND_FIELDS), dtype=np.int64)
    for c, kind in enumerate(kinds):
        cand[c, C.C_KIND] = kind
        cand[c, C.C_PRE] = C.PRE_NONE
    return cand


def outcomes(*per_column):
    """Points of each column in each world, one list per column."""
    out = np.zeros((len(per_column[0]), len(per_column), N_OUT), dtype=np.int64)
    for c, points in enumerate(per_column):
        out[:, c, O_POINTS] = points
    return out


def test_a_noisy_better_way_to_play_on_needs_the_margin():
    rng = np.random.default_rng(3)
    own = rng.integers(-20, 30, 200)
    noisy = own + rng.integers(-15, 17, 200)  # half a point better on average, its noise much wider
    out = outcomes(np.full(200, -1), own, noisy)
    cand = columns(C.SHOWDOWN, C.ROLLOUT, C.ROLLOUT)
    weights = np.ones(200)
    assert noisy.mean() > own.mean() > -1
    assert best_column_nb(out, weights, cand, 3, 1, (0.0, 0.0)) == 2  # no margin: the most points on average
    assert best_column_nb(out, weights, cand, 3, 1, (2.0, 0.0)) == 1
    steady = own + 1  # a point better in every world
    assert best_column_nb(outcomes(np.full(200, -1), own, steady), weights, cand, 3, 1, (2.0, 0.0)) == 2


def test_the_margin_leaves_the_knocks_and_weighs_by_the_worlds():
    cand = columns(C.SHOWDOWN, C.ROLLOUT, C.ROLLOUT)
    out = outcomes([0, 20, 0, 20], [9, 9, 9, 9], [0, 30, 0, 18])
    assert best_column_nb(out, np.ones(4), cand, 3, 1, (0.0, 0.0)) == 2
    # without a knock margin, a noisy knock still beats the own way on average
    assert best_column_nb(out, np.ones(4), cand, 3, 1, (10.0, 0.0)) == 0
    ruled_out = np.array([1.0, 1.0, 1.0, 0.0])  # the fourth world: its weight 0, its points not counted
    assert best_column_nb(out, ruled_out, cand, 3, 1, (0.0, 0.0)) == 2
    assert best_column_nb(out, ruled_out, cand, 3, 1, (2.0, 0.0)) == 1


def test_a_draw_is_taking_the_top_or_not_the_continuation_after_either():
    seen = set()
    for view, kind, _ in seat_zero_decisions(Rules.preset("eaai"), 8, games=3):
        if kind not in (L.D_DRAW, L.D_TAKE_UPCARD):
            continue
        cand = np.zeros((C.MAX_COLUMNS, C.N_CAND_FIELDS), dtype=np.int64)
        n = C.draw_columns_nb(view, kind, cand)
        pres = [int(c[C.C_PRE]) for c in cand[:n]]
        takeable = int(view[L.V_PILE_SIZE]) > 0 and not (
            kind == L.D_DRAW and view[L.V_DRAWS] == 0 and view[L.V_PASSED] and view[L.V_PASSED + 1])
        take, other = (C.PRE_TAKE, C.PRE_PASS) if kind == L.D_TAKE_UPCARD else (C.PRE_PILE, C.PRE_STOCK)
        assert pres == ([take] if takeable else []) + [other]
        assert all(c[C.C_KIND] == C.ROLLOUT and c[C.C_DISCARD] == -1 for c in cand[:n])
        assert [int(c[C.C_ACTION]) for c in cand[:n]] == list(range(n))
        seen.add((kind, takeable))
    assert {(L.D_TAKE_UPCARD, True), (L.D_DRAW, True)} <= seen


def test_the_margin_guards_the_continuations_draw_wherever_it_stands():
    cand = columns(C.ROLLOUT, C.ROLLOUT)  # take, then draw from the stock
    out = outcomes([0, 30, 0, 18], [9, 9, 9, 9])
    assert best_column_nb(out, np.ones(4), cand, 2, 1, (0.0, 0.0)) == 0  # more points on average
    # not by the margin: the continuation's stock draw
    assert best_column_nb(out, np.ones(4), cand, 2, 1, (2.0, 0.0)) == 1
    assert best_column_nb(out[:, ::-1], np.ones(4), cand, 2, 0, (2.0, 0.0)) == 0  # the same with its take first
    assert best_column_nb(out, np.ones(4), cand, 2, -1, (2.0, 0.0)) == 0  # no reference: the plain maximum


def test_the_knock_margin_guards_the_continuations_choice_at_a_knock_either_way():
    cand = columns(C.SHOWDOWN, C.ROLLOUT)
    out = outcomes([0, 20, 0, 20], [9, 9, 9, 9])  # the knock a point better on average, its noise wide
    assert best_column_nb(out, np.ones(4), cand, 2, 1, (2.0, 0.0)) == 0
    assert best_column_nb(out, np.ones(4), cand, 2, 1, (2.0, 2.0)) == 1  # not by the knock margin: playing on
    assert best_column_nb(out[:, ::-1], np.ones(4), cand[::-1], 2, 1, (2.0, 2.0)) == 1  # the continuation knocks
    steady = outcomes([10, 10, 10, 10], [9, 9, 9, 9])  # a point better in every world
    assert best_column_nb(steady, np.ones(4), cand, 2, 1, (2.0, 2.0)) == 0
    assert best_column_nb(steady[:, ::-1], np.ones(4), cand[::-1], 2, 0, (2.0, 2.0)) == 1


def test_the_continuations_knock_answer_names_its_column():
    cand = columns(C.SHOWDOWN, C.SHOWDOWN, C.ROLLOUT)
    cand[:, C.C_DISCARD] = [5, 9, -1]
    assert own_knock_column_nb(cand, 3, 9) == 1
    assert own_knock_column_nb(cand, 3, L.NO_CARD) == 2
    assert own_knock_column_nb(cand, 3, 7) == -1
    assert own_knock_column_nb(cand, 2, L.NO_CARD) == -1


def knock_answers(*specs):
    """At each knock decision of the sample, expert's answer and those of the strategies ``specs`` (copies of the
    view each)."""
    expert, strategies = resolve("expert"), [resolve(spec) for spec in specs]
    for view, kind in after_draw_views(limit=10**6):
        if kind == L.D_KNOCK:
            yield (int(expert.decide(kind, view.copy(), expert.vector())),
                   [int(s.decide(kind, view.copy(), s.vector())) for s in strategies])


def test_search_with_a_knock_margin_strays_from_expert_only_where_it_does_without():
    strays = np.zeros(2, dtype=np.int64)
    for own, (plain, guarded) in knock_answers("search(samples=256,knock_margin=0)",
                                               "search(samples=256,knock_margin=2)"):
        assert plain != own or guarded == own  # the same worlds: a clear gain is a gain
        strays += [plain != own, guarded != own]
    assert strays[0] > strays[1]


def test_the_effective_worlds_count_equal_weights_and_discount_uneven_ones():
    assert effective_worlds_nb(np.ones(8)) == pytest.approx(8)
    assert effective_worlds_nb(np.array([2.0, 0.0, 2.0, -1.0])) == pytest.approx(2)  # 0: ruled out; -1: unfinished
    assert effective_worlds_nb(np.array([1.0, 1e-6, 1e-6])) == pytest.approx(1, abs=1e-5)
    assert effective_worlds_nb(np.array([3.0, 1.0])) == pytest.approx(16 / 10)
    assert effective_worlds_nb(np.zeros(4)) == 0


def test_search_with_too_few_effective_worlds_keeps_experts_knock_answer():
    strays = 0
    for own, (free, some, every) in knock_answers(
            "search(samples=256,knock_margin=0)", "search(samples=256,knock_margin=0,min_effective_worlds=30)",
            "search(samples=256,knock_margin=0,min_effective_worlds=4096)"):  # more than the worlds drawn: never enough
        assert free != own or some == own  # the same worlds: the guard only takes strays away
        assert every == own
        strays += free != own
    assert strays > 0
