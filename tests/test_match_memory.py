"""benchmarks/match_memory.py: a match's games with the opponent's style counts carried over, against the same games
each started afresh (what ``oklasim agent --remember-opponents`` is worth)."""

import subprocess
import sys

import numpy as np
from benchmark_scripts import BENCHMARKS, load_benchmark

from oklasim._kernels import layout as L
from oklasim.game.rules import Rules
from oklasim.strategies.registry import resolve


def test_a_remembered_game_starts_from_the_counts_the_last_one_ended_with():
    script = load_benchmark("match_memory")
    rules = Rules.preset("eaai")
    seats = [resolve("expert"), resolve("threshold:gin_only")]
    first_winner, after_first = script.play_game(rules, seats, 5, 0, None)
    fresh_winner, fresh_counts = script.play_game(rules, seats, 5, 1, None)
    _, carried_counts = script.play_game(rules, seats, 5, 1, after_first)
    counts = [L.STYLE_FIELDS * seat + field for seat in range(2) for field in (L.STYLE_KNOCKS, L.STYLE_HELD,
                                                                                 L.STYLE_GINS)]
    assert (carried_counts[counts] == after_first[counts] + fresh_counts[counts]).all()
    assert after_first[counts].any() and fresh_winner in (0, 1) and first_winner in (0, 1)
    forgetting = [script.play_game(rules, seats, 5, game, None)[0] == 0 for game in range(3)]
    assert script.match_wins(rules, seats, 0, 5, 0, 3, remember=False) == np.mean(forgetting)


def test_the_benchmark_prints_a_row_per_pairing():
    done = subprocess.run([sys.executable, str(BENCHMARKS / "match_memory.py"), "--members", "hunter,eaai",
                           "--matches", "2", "--length", "2"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    rows = [line.split() for line in done.stdout.splitlines() if line.startswith("expert ")]
    assert [row[1] for row in rows] == ["hunter", "eaai"] and all(row[2] == "8" for row in rows)
    bad = subprocess.run([sys.executable, str(BENCHMARKS / "match_memory.py"), "--members", "nosuch"],
                         capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "unknown strategy" in bad.stderr
