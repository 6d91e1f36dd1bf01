"""Speed of the search strategy on one core: seconds per game to 100 and its own turns per second.

    python benchmarks/bench_search.py [--spec search] [--spec "search(model=3)" ...] [--games 40] [--repeats 3]

Each ``--spec`` (``search`` when none is given) plays ``--games`` whole
games against ``expert`` in this process (one core), under the ``eaai`` and
``seeds`` presets, ``--repeats`` times on other seeds, the specs taking
turns within each repeat so that they share the machine's load; the
figures are medians over the repeats, and each spec after the first is
also given as the median ratio of its time to the first's on the same
games. A turn of its own is a draw decision, a discard and, where legal, a
knock decision: searched where a knock is legal, played as ``expert``
elsewhere.
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
    parser.add_argument("--spec", action="append", help="a search spec timed (repeatable; default search)")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    specs = args.spec or ["search"]
    if args.games < 1 or args.repeats < 1:
        parser.error("--games and --repeats must be at least 1")
    print(f"bench_search: {', '.join(specs)} vs expert, {args.games} games x {args.repeats}, one core, "
          f"{machine_load()}")
    for preset in ("eaai", "seeds"):
        rules = Rules.preset(preset)
        per_game = {spec: [] for spec in specs}
        hands_rate = {spec: [] for spec in specs}
        turns_rate = {spec: [] for spec in specs}
        for spec in specs:
            simulate(rules, [spec, "expert"], games=1, seed=0)  # warm-up: kernels loaded
        for repeat in range(args.repeats):
            for spec in specs:
                started = time.perf_counter()
                hands = simulate(rules, [spec, "expert"], games=args.games, seed=1 + repeat).hands
                seconds = time.perf_counter() - started
                per_game[spec].append(seconds / args.games)
                hands_rate[spec].append(len(hands) / seconds)
                turns_rate[spec].append(hands["draws"].sum() / 2 / seconds)  # the two seats take turns
        first = per_game[specs[0]]
        for spec in specs:
            times = per_game[spec]
            ratio = "" if spec == specs[0] else \
                f"  x{statistics.median(t / f for t, f in zip(times, first)):.2f} the first's time"
            print(f"{preset:<6} {spec:<24} {statistics.median(times):6.3f} s/game ({min(times):.3f}-{max(times):.3f})  "
                  f"{statistics.median(hands_rate[spec]):6.1f} hands/s  {statistics.median(turns_rate[spec]):6.0f} "
                  f"own turns/s{ratio}")


if __name__ == "__main__":
    main()
