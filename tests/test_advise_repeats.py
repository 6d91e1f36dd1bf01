"""Several stock orders per weighed world: the same expectation, honest intervals, reproducible whatever the workers."""

import numpy as np
import pytest
from test_advise_roulette import POSITION

from oklasim._kernels import advise_columns_nb as C
from oklasim._kernels import advise_rollouts_nb as R
from oklasim._kernels import engine_nb as E
from oklasim._kernels import layout as L
from oklasim.advise import advise, rollouts
from oklasim.advise.request import Request
from oklasim.advise.worlds import NO_GUIDE, worlds_for
from oklasim.sim.engine import stream_key
from oklasim.strategies.registry import resolve
from oklasim.strategy_api import parameter_matrix

SHARES = (R.O_WON, R.O_LOST, R.O_UNDERCUT)


def play(repeats: int, lo: int, hi: int, scores=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(candidate columns, out, exact weights) of worlds ``lo .. hi - 1`` of POSITION against greedy, every
    candidate played ``repeats`` times per world (the game played on to the target when ``scores`` are given)."""
    worlds = worlds_for(Request(**POSITION, opponent="greedy", scores=scores))
    greedy = resolve("greedy")
    columns = np.zeros((C.MAX_COLUMNS, C.N_CAND_FIELDS), dtype=np.int64)
    n = int(C.candidates_nb(worlds.view, worlds.position.kind, 1, L.NO_CARD, columns))
    columns = np.ascontiguousarray(columns[:n])
    params = parameter_matrix([greedy.vector()])
    out, weights = np.zeros((hi - lo, n, R.N_OUT), dtype=np.int64), np.zeros(hi - lo)
    code = R.advise_batch_nb(
        R.Strategies(me_fn=greedy.decide, opp_fn=greedy.decide, forced_fn=R.forced_nb, params=params),
        R.Question(seat_view=worlds.view, kind=worlds.position.kind, cand=columns, n_cand=n,
                   active=np.ones(n, dtype=np.int64), game_mode=int(scores is not None)),
        R.Sampling(key=stream_key(5), prior=worlds.prior, evidence=worlds.evidence_for(greedy), cutoff=0.0,
                   guide=NO_GUIDE, repeats=repeats),
        R.Batch(lo=lo, hi=hi, claims=R.NO_CLAIMS, stop=np.zeros(1, dtype=np.int64)),
        R.Outputs(out=out, weights=weights, opponent_hands=np.zeros(hi - lo, dtype=np.int64),
                  status=np.zeros(E.STATUS_SIZE, dtype=np.int64)))
    assert code == L.E_NONE
    return columns, out, weights


def cluster_means(out: np.ndarray, weights: np.ndarray, repeats: int) -> tuple[np.ndarray, np.ndarray]:
    """Weighted means per column and field of the worlds' repeat means, and their standard errors (one world, one
    observation)."""
    x = out / repeats
    mean = np.einsum("s,scf->cf", weights, x) / weights.sum()
    error = np.sqrt(np.einsum("s,scf->cf", weights**2, (x - mean) ** 2)) / weights.sum()
    return mean, error


def test_a_worlds_repeats_share_its_hands_and_weight_and_differ_in_the_stock():
    """Repeats change neither a world's weight nor a knock's showdown (counted once per repeat); the first repeat
    is the world played once; the others play the hand out differently."""
    columns, once, weights = play(1, 0, 600)
    _, twice, weights_twice = play(2, 0, 600)
    _, four, weights_four = play(4, 0, 600)
    assert np.array_equal(weights, weights_twice) and np.array_equal(weights, weights_four)
    knock = columns[:, C.C_KIND] == C.SHOWDOWN
    assert knock.any() and (~knock).any()
    assert np.array_equal(four[:, knock], 4 * once[:, knock])
    second = twice - once  # the second repeat alone
    assert np.all((second >= 0)[..., list(SHARES)]) and np.all(second[..., R.O_WON] + second[..., R.O_LOST] <= 1)
    played = weights > 0
    differs = (second[played][:, ~knock, R.O_POINTS] != once[played][:, ~knock, R.O_POINTS]).mean()
    assert 0.2 < differs < 1.0  # a new stock order changes how many a hand played on ends


def test_repeats_keep_the_expectation():
    """Over separate worlds, the weighted means of points, hand outcomes and undercuts with 4 repeats per world
    agree with those of single playings within 4.5 standard errors in every column."""
    _, once, w_once = play(1, 0, 4000)
    _, four, w_four = play(4, 4000, 8000)
    m1, e1 = cluster_means(once, w_once, 1)
    m4, e4 = cluster_means(four, w_four, 4)
    fields = [R.O_POINTS, *SHARES]
    gap = np.abs(m1 - m4)[:, fields]
    error = np.hypot(e1, e4)[:, fields]
    assert np.all(gap <= 4.5 * error + 1e-12)
    # The repeats did their job: less spread per world where the hand is played on (the same worlds' weights).
    rollout = np.flatnonzero(e4[:, R.O_POINTS] > 0)
    assert np.median(e4[rollout, R.O_POINTS] / e1[rollout, R.O_POINTS]) < 0.9


def test_repeats_in_game_mode_play_the_rest_of_the_game_each_time_and_keep_the_win_chance():
    """With the scores, a knock's points are the same in every repeat but the game after it is played on anew;
    over separate worlds the chance to win the game with 3 repeats agrees with single playings (4.5 SE)."""
    scores = [60, 70]
    columns, once, w_once = play(1, 0, 1500, scores)
    _, three, w_three = play(3, 1500, 3000, scores)
    knock = columns[:, C.C_KIND] == C.SHOWDOWN
    _, same, _ = play(3, 0, 1500, scores)
    assert np.array_equal(same[:, knock, R.O_POINTS], 3 * once[:, knock, R.O_POINTS])
    wins = same[:, knock, R.O_WIN]
    assert np.any((wins > 0) & (wins < 3))  # the rest of the game differs between repeats
    m1, e1 = cluster_means(once, w_once, 1)
    m3, e3 = cluster_means(three, w_three, 3)
    assert np.all(np.abs(m1 - m3)[:, R.O_WIN] <= 4.5 * np.hypot(e1, e3)[:, R.O_WIN])
    assert np.all(e1[:, R.O_WIN] > 0)


def seed_spread_ratio(seeds: int) -> float:
    """Median over the candidates of (spread of the means over seeds) / (the standard error the advice prints),
    4 repeats per world: about 1 when the intervals are honest."""
    z = 1.959964
    request = POSITION | {"opponent": "greedy", "precision": None, "race": False, "max_samples": 1500,
                          "max_seconds": None, "discards": 1}
    runs = [advise(**request, seed=seed) for seed in range(seeds)]
    ratios = []
    for c in range(len(runs[0].candidates)):
        means = np.array([run.candidates[c].points.mean for run in runs])
        errors = np.array([run.candidates[c].points.half_width / z for run in runs])
        ratios.append(means.std(ddof=1) / np.sqrt(np.mean(errors**2)))
    return float(np.median(ratios))


def test_the_interval_stays_honest_with_repeats_and_a_broken_tally_is_caught(monkeypatch):
    """With 4 repeats per world the printed intervals match the spread of the means over 30 seeds; a tally that
    counts a world's repeats as that many worlds prints intervals about half as wide, and is caught."""
    monkeypatch.setattr(rollouts, "repeats_for", lambda *args: 4)
    assert 0.7 < seed_spread_ratio(30) < 1.4

    add = rollouts._Tally.add

    def as_many_worlds(self, out, active, weights, repeats):
        add(self, np.repeat(out, repeats, axis=0), active, np.repeat(weights, repeats), repeats)

    monkeypatch.setattr(rollouts._Tally, "add", as_many_worlds)
    assert seed_spread_ratio(30) > 1.6


def test_same_seed_same_answer_whatever_the_workers_with_repeats(monkeypatch):
    used = []
    rule = rollouts.repeats_for
    monkeypatch.setattr(rollouts, "repeats_for", lambda *args: used.append(rule(*args)) or used[-1])
    # One discard weighed: few columns to play on, so the weighed worlds are worth repeating from the first batches
    # (the race, which used to make them few, drops no action before an effective sample of 100).
    runs = [advise(**POSITION, opponent="greedy", seed=4, workers=w, max_samples=3000, max_seconds=None,
                   precision=None, discards=1).to_dict() for w in (1, 2)]
    for d in runs:
        d.pop("seconds"), d.pop("setup_seconds"), d.pop("workers")
    assert runs[0] == runs[1]
    assert used[0] == 1 and max(used) > 1


@pytest.mark.parametrize(("conditioned", "drawn", "played", "rollouts_", "expected"), [
    (False, 5000, 10, 6, 1),  # no history: nothing to spare
    (True, 0, 0, 6, 1),  # nothing known yet
    (True, 5000, 0, 6, rollouts.MAX_REPEATS),  # only weighing so far
    (True, 5000, 10, 0, 1),  # only knocks left: settled by the hands alone
    (True, 1000, 1000, 6, 1),  # every world played: repeats cost what new worlds cost
    (True, 6000, 100, 6, 3),  # sqrt(6000 / (100 x 6)) = 3.2
    (True, 10000, 200, 6, 3),  # sqrt(10000 / (200 x 6)) = 2.9
    (True, 10000, 500, 6, 2),  # sqrt(10000 / (500 x 6)) = 1.8
    (True, 10**6, 1, 1, rollouts.MAX_REPEATS),  # at most MAX_REPEATS
])
def test_the_repeats_rule(conditioned, drawn, played, rollouts_, expected):
    assert rollouts.repeats_for(conditioned, drawn, played, rollouts_) == expected
