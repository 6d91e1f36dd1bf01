"""Speed of the expert strategy on one core, with simple vs simple measured in the same run for the ratio.

    python benchmarks/bench_expert.py [--hands 20000] [--repeats 5]

Hands per second, single process, median of the repeats, for expert vs
expert (the opponent studies use), expert vs eaai and simple vs simple, under
the ``seeds`` and ``eaai`` presets. Hands between two experts are longer
(both hold for gin after their first draws), so the per-hand rate also
reports the draws per hand.
"""

from __future__ import annotations

import argparse

from common import machine_load, median_seconds

from oklasim.engine import simulate
from oklasim.rules import Rules

PAIRINGS = (["simple", "simple"], ["expert", "expert"], ["expert", "eaai"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"bench_expert: median of {args.repeats} runs, one core, {machine_load()}")
    for preset in ("seeds", "eaai"):
        rules = Rules.preset(preset)
        base = None
        for seats in PAIRINGS:
            seconds = median_seconds(lambda: simulate(rules, seats, hands=args.hands, seed=1), args.repeats)
            draws = simulate(rules, seats, hands=2000, seed=2).hands["draws"].mean()
            rate = args.hands / seconds
            base = base or rate
            print(
                f"{preset:<6} {' vs '.join(seats):<18} {rate:>10,.0f} hands/s  {draws:5.1f} draws/hand"
                f"  ({base / rate:4.1f}x the time of simple vs simple)"
            )


if __name__ == "__main__":
    main()
