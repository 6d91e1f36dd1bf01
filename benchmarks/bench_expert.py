"""Speed of the expert strategy on one core, with simple vs simple measured in the same run for the ratio.

    python benchmarks/bench_expert.py [--hands 20000] [--repeats 5] [--chunk 500] [--also FAMILY]

Hands per second, single process, for expert vs expert (the opponent
studies use), expert vs eaai and simple vs simple, under the ``seeds`` and
``eaai`` presets. On a shared machine the load changes from one second to
the next, so the pairings take turns in chunks of ``--chunk`` hands within
each repeat and every ratio compares times taken side by side; the rates
and ratios shown are medians over the repeats. Hands between two experts
are longer (both hold for gin after their first draws), so the table also
reports the draws per hand. ``--also FAMILY`` adds FAMILY vs FAMILY to the
turns: to compare two versions of expert side by side, copy the other
version's ``oklasim/strategies/families/expert.py`` into a folder, rename its family (say
``expert_before``) and put the folder on ``OKLASIM_STRATEGY_PATH``; its
ratio to expert vs expert is printed too.
"""

from __future__ import annotations

import argparse
import statistics
import time

from common import machine_load

from oklasim.game.rules import Rules
from oklasim.sim.engine import kernel_rules, resolve_all, run_kernel, simulate

PAIRINGS = (["simple", "simple"], ["expert", "expert"], ["expert", "eaai"])


def interleaved_seconds(rules: Rules, pairings: list[list[str]], hands: int, chunk: int) -> list[float]:
    """Seconds each pairing takes for ``hands`` hands, the pairings taking turns chunk by chunk."""
    rules_array = kernel_rules(rules, True)
    seats = [resolve_all(pairing, rules.players) for pairing in pairings]
    seconds = [0.0] * len(pairings)
    for first in range(0, hands, chunk):
        count = min(chunk, hands - first)
        for k, pairing in enumerate(seats):
            started = time.perf_counter()
            run_kernel(rules_array, pairing, 1, first, count)
            seconds[k] += time.perf_counter() - started
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--chunk", type=int, default=500, help="hands per turn of a pairing")
    parser.add_argument("--also", metavar="FAMILY", help="another strategy (e.g. an older expert, renamed) measured "
                                                         "against itself in the same turns")
    args = parser.parse_args()
    if args.hands < 1 or args.repeats < 1 or args.chunk < 1:
        parser.error("--hands, --repeats and --chunk must be at least 1")
    pairings = list(PAIRINGS)
    if args.also:
        pairings.append([args.also, args.also])
        try:
            resolve_all(pairings[-1], 2)
        except ValueError as error:
            parser.error(f"--also {args.also}: {error}")
    width = max(len(" vs ".join(pairing)) for pairing in pairings)
    print(f"bench_expert: median of {args.repeats} runs, one core, {machine_load()} at the start")
    for preset in ("seeds", "eaai"):
        rules = Rules.preset(preset)
        interleaved_seconds(rules, pairings, min(args.hands, args.chunk), args.chunk)  # warm-up: kernels loaded
        runs = [interleaved_seconds(rules, pairings, args.hands, args.chunk) for _ in range(args.repeats)]
        for k, seats in enumerate(pairings):
            rate = statistics.median(args.hands / run[k] for run in runs)
            ratio = statistics.median(run[k] / run[0] for run in runs)
            draws = simulate(rules, seats, hands=2000, seed=2).hands["draws"].mean()
            print(
                f"{preset:<6} {' vs '.join(seats):<{width}} {rate:>10,.0f} hands/s  {draws:5.1f} draws/hand"
                f"  ({ratio:4.1f}x the time of simple vs simple)"
            )
        if args.also:
            speedup = statistics.median(run[-1] / run[1] for run in runs)
            print(f"{preset:<6} expert vs expert is {speedup:.2f}x as fast as {args.also} vs {args.also} (median)")
    print(f"bench_expert: {machine_load()} at the end")


if __name__ == "__main__":
    main()
