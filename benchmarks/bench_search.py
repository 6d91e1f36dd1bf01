"""Speed of the search strategy on one core: seconds per game to 100 and its own turns per second.

    python benchmarks/bench_search.py [--spec search] [--games 40] [--repeats 3]

``--spec`` plays ``--games`` whole games against ``expert`` in this
process (one core), under the ``eaai`` and ``seeds`` presets, ``--repeats``
times on other seeds; the figures are medians over the repeats. A turn of
its own is a draw decision, a discard and, where legal, a knock decision:
searched where a knock is legal, played as ``expert`` elsewhere.
"""

from __future__ import annotations

import argparse
import statistics
import time

from common import machine_load

from oklasim.game.rules import Rules
from oklasim.sim.engine import simulate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", default="search")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if args.games < 1 or args.repeats < 1:
        parser.error("--games and --repeats must be at least 1")
    print(f"bench_search: {args.spec} vs expert, {args.games} games x {args.repeats}, one core, {machine_load()}")
    for preset in ("eaai", "seeds"):
        rules = Rules.preset(preset)
        simulate(rules, [args.spec, "expert"], games=1, seed=0)  # warm-up: kernels loaded
        per_game, hands_rate, turns_rate = [], [], []
        for repeat in range(args.repeats):
            started = time.perf_counter()
            hands = simulate(rules, [args.spec, "expert"], games=args.games, seed=1 + repeat).hands
            seconds = time.perf_counter() - started
            per_game.append(seconds / args.games)
            hands_rate.append(len(hands) / seconds)
            turns_rate.append(hands["draws"].sum() / 2 / seconds)  # the two seats take turns
        print(f"{preset:<6} {statistics.median(per_game):6.3f} s/game ({min(per_game):.3f}-{max(per_game):.3f})  "
              f"{statistics.median(hands_rate):6.1f} hands/s  {statistics.median(turns_rate):6.0f} own turns/s")


if __name__ == "__main__":
    main()
