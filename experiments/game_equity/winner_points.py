"""The distribution of a hand winner's points (for ``search(value=1)``), and a check of the race model on fresh games.

    python experiments/game_equity/winner_points.py [--games 3000] [--seed 5] [--check-seed 6] [--write]

Plays ``--games`` games to 100 of ``expert`` against itself under each of
the ``eaai`` and ``seeds`` presets (seed ``--seed``) and pools the points of
every hand won: the distribution ``oklasim/_kernels/winner_points.py``
holds (``--write`` rewrites it). Then, on as many fresh games (seed
``--check-seed``), it compares the chance of winning the game that the race
model (``oklasim._kernels.game_equity_nb``) gives at the start of every
hand with how often seat 0 went on to win, by tenth of the predicted
chance, and the Brier score against a model that knows only whose score is
higher.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from common import machine_load  # noqa: E402

from oklasim._kernels.game_equity_nb import race_table_nb  # noqa: E402
from oklasim.game.rules import Rules  # noqa: E402
from oklasim.sim.engine import simulate  # noqa: E402

PRESETS = ("eaai", "seeds")
MODULE = Path(__file__).resolve().parents[2] / "oklasim" / "_kernels" / "winner_points.py"
MODULE_TEXT = '''"""The distribution of a hand winner's points: WINNER_POINTS[p] is the chance the winner of a scored hand scores p.

Written by ``python experiments/game_equity/winner_points.py --games {games} --seed {seed} --write`` ({hands:,} hands
won in games of ``expert`` against itself, the ``eaai`` and ``seeds`` presets pooled); do not edit by hand.
"""

import numpy as np

WINNER_POINTS = np.array([
{rows}
], dtype=np.float64)
'''


def hands_of(preset: str, games: int, seed: int) -> pl.DataFrame:
    return simulate(Rules.preset(preset), ["expert", "expert"], games=games, seed=seed).hands


def winner_points(frames: list[pl.DataFrame]) -> tuple[np.ndarray, int]:
    points = np.concatenate([(h["points_0"] + h["points_1"]).to_numpy() for h in frames])
    won = points[points > 0]
    counts = np.bincount(won).astype(np.float64)
    return counts / counts.sum(), len(won)


def write_module(pmf: np.ndarray, games: int, seed: int, hands: int) -> None:
    values = [f"{v:.6g}" for v in pmf]
    rows = "\n".join("    " + ", ".join(values[i:i + 8]) + "," for i in range(0, len(values), 8))
    MODULE.write_text(MODULE_TEXT.format(games=games, seed=seed, hands=hands, rows=rows))
    print(f"wrote {MODULE}")


def check(pmf: np.ndarray, frames: list[pl.DataFrame], target: int = 100) -> None:
    """Predicted against realised chance that seat 0 wins the game, at the start of every hand of the fresh games."""
    table = race_table_nb(pmf, target, target)
    predicted, realised, leader = [], [], []
    for h in frames:
        h = h.sort("game", "hand").with_columns(
            pl.col("points_0").cum_sum().over("game").alias("after_0"),
            pl.col("points_1").cum_sum().over("game").alias("after_1"))
        h = h.with_columns((pl.col("after_0") - pl.col("points_0")).alias("score_0"),
                           (pl.col("after_1") - pl.col("points_1")).alias("score_1"),
                           (pl.col("after_0").max().over("game") >= target).alias("seat0_won"))
        s0, s1 = h["score_0"].to_numpy(), h["score_1"].to_numpy()
        predicted.append(table[target - s0, target - s1])
        realised.append(h["seat0_won"].to_numpy().astype(np.float64))
        leader.append(0.5 + 0.5 * np.sign(s0 - s1) * 0.5)  # 0.75 for the leader: knows only who leads
    predicted, realised, leader = map(np.concatenate, (predicted, realised, leader))
    print(f"{len(predicted):,} hand starts; Brier score: race model {np.mean((predicted - realised) ** 2):.4f}, "
          f"who leads {np.mean((leader - realised) ** 2):.4f}, a coin {np.mean((0.5 - realised) ** 2):.4f}")
    print("| predicted | hand starts | seat 0 won |\n|---|---|---|")
    tenth = np.minimum((predicted * 10).astype(int), 9)
    for k in range(10):
        chosen = tenth == k
        if chosen.any():
            p = realised[chosen].mean()
            half = 1.96 * np.sqrt(max(p * (1 - p), 1e-9) / chosen.sum())
            print(f"| {k / 10:.1f}-{(k + 1) / 10:.1f} (mean {predicted[chosen].mean():.3f}) | {chosen.sum():,} | "
                  f"{p:.3f} ± {half:.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--check-seed", type=int, default=6)
    parser.add_argument("--write", action="store_true", help="rewrite oklasim/_kernels/winner_points.py")
    args = parser.parse_args()
    print(f"winner_points: expert vs expert, {args.games} games per preset, {machine_load()}")
    pmf, hands = winner_points([hands_of(p, args.games, args.seed) for p in PRESETS])
    print(f"{hands:,} hands won; mean winner points {np.dot(np.arange(len(pmf)), pmf):.2f}")
    if args.write:
        write_module(pmf, args.games, args.seed, hands)
    check(pmf, [hands_of(p, args.games, args.check_seed) for p in PRESETS])


if __name__ == "__main__":
    main()
