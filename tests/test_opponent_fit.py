"""benchmarks/opponent_fit.py: how often search's rulebook mixture ends a game with the opponent's own habits the
likeliest, against players of its grid."""

import subprocess
import sys

import numpy as np
from benchmark_scripts import BENCHMARKS, load_benchmark

from oklasim.game.rules import Rules
from oklasim.strategies.families import search as S
from oklasim.strategies.registry import resolve


def test_each_grid_player_is_its_row_of_the_mixture():
    script = load_benchmark("opponent_fit")
    for row, habits in enumerate(np.ndindex(S.N_TIMINGS, len(S.PICKUPS), len(S.DISCARD_HABITS))):
        played = resolve(script.grid_player(habits)).vector()
        assert (played == S.RULEBOOK_GRID[row]).all(), habits
    assert script.parse_opponents("0,1,0;2,1,1") == [(0, 1, 0), (2, 1, 1)]
    assert script.parse_opponents("3,0,0") is None and script.parse_opponents("0,1") is None
    assert script.parse_opponents("a,b,c") is None


def test_the_chances_at_a_games_end_are_the_next_hands_and_replay_from_the_seed():
    script = load_benchmark("opponent_fit")
    spec = "search(samples=64,model=4,carry=1,discards=3,fit_timing=1)"
    rules = Rules.preset("eaai")
    cube = script.chances_at_the_end(spec, script.grid_player((0, 1, 0)), rules, 31, 0)
    assert cube.shape == (S.N_TIMINGS, len(S.PICKUPS), len(S.DISCARD_HABITS)) and np.isclose(cube.sum(), 1)
    assert (cube == script.chances_at_the_end(spec, script.grid_player((0, 1, 0)), rules, 31, 0)).all()
    # with fit_timing and carry, the habits' evidence is the same under every timing: the timings' ratios are the
    # showdowns' (the prior's) alone
    ratios = cube / cube[0]
    assert np.allclose(ratios, ratios[:, :1, :1])


def test_the_benchmark_prints_a_row_per_habit_and_refuses_what_it_cannot_measure():
    run = [sys.executable, str(BENCHMARKS / "opponent_fit.py")]
    done = subprocess.run(run + ["--spec", "search(samples=32,model=4,carry=1)", "--games", "1", "--opponents",
                                 "0,1,0"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    rows = [line.split() for line in done.stdout.splitlines() if "likeliest right" in line]
    assert [row[0] for row in rows] == ["timing", "pickup", "discard"] and all(row[5] == "1:" for row in rows)
    for bad, says in ((["--spec", "search(model=1)"], "model=4"), (["--opponents", "0,5,0"], "--opponents")):
        refused = subprocess.run(run + bad, capture_output=True, text=True, timeout=300)
        assert refused.returncode == 2 and says in refused.stderr, refused.stderr
