"""How fast does `oklasim advise` answer, and how strong and fast is the `mc` strategy?

    python benchmarks/bench_advise.py [--situations 10] [--repeats 3] [--opponent expert] [--mc-hands 4000]

Situations are typical knock decisions: seat 0's decisions after a draw,
with a knock legal, taken from hands of simple against ``--opponent`` (so
the hand, the history, the pile and the stock are realistic), spread over
the hand. For each it runs ``advise`` with the history (worlds weighted by
the opponent's play), both seats playing on as the opponent's strategy,
stopping when the best action is ahead with confidence or the open actions
are within +-0.5 points (every action still open then has a 95% interval
of +-0.5 or better), on all
cores and on one, ``--repeats`` seeds each, and prints medians; then the
throughput on a fixed workload, on one core and on all. Then the
``mc`` strategy: hands per second on one core and its result against
greedy and against simple, paired over the same deals (each deal played
twice, seats swapped).
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import time

import numpy as np
from common import machine_load

from oklasim.advise import advise
from oklasim.advise.played import positions_from_play
from oklasim.engine import simulate
from oklasim.rules import Rules
from oklasim.strategy import resolve


def typical_situations(count: int, seed: int, opponent: str) -> list[dict]:
    """``count`` knock decisions from real play, spread evenly over the stock."""
    found = list(positions_from_play(Rules(), ["simple", opponent], 400, seed, with_history=True))
    found.sort(key=lambda item: -item[0]["stock"])
    picks = np.linspace(0, len(found) - 1, count).round().astype(int)
    return [found[i][0] for i in picks]


def run_advice(request: dict, workers: int, seeds: range) -> list:
    return [advise(**request, seed=s, workers=workers) for s in seeds]


def paired(spec: str, opponent: str, deals: int, seed: int) -> tuple[float, float, float]:
    """(points per hand of ``spec`` minus ``opponent``, 95% half-width, hands/s), over the same deals."""
    resolve(spec)
    started = time.perf_counter()
    a = simulate(strategies=[spec, opponent], hands=deals, seed=seed).hands
    b = simulate(strategies=[opponent, spec], hands=deals, seed=seed).hands
    seconds = time.perf_counter() - started
    diff = ((a["points_0"] - a["points_1"]).to_numpy() + (b["points_1"] - b["points_0"]).to_numpy()) / 2
    return float(diff.mean()), float(1.96 * diff.std(ddof=1) / len(diff) ** 0.5), 2 * deals / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--situations", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--opponent", default="expert")
    parser.add_argument("--throughput", type=int, default=40_000, help="worlds of the fixed-workload timing")
    parser.add_argument("--mc-hands", type=int, default=4000, help="deals per mc match (0: skip the mc part)")
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    print(f"bench_advise: {args.situations} typical knock decisions x {args.repeats} seeds; {machine_load()}")

    situations = [s | {"opponent": args.opponent, "me": args.opponent, "precision": 0.5}
                  for s in typical_situations(args.situations, args.seed, args.opponent)]
    advise(**situations[0], max_samples=1024)  # load the compiled kernels once
    seeds = range(args.repeats)
    print(f"\n{'stock':>5} {'hand':<34} {'s (all cores)':>13} {'s (1 core)':>10} {'worlds':>7} {'ESS':>6} "
          f"{'worlds/s':>8} {'ESS/s':>6} {'stop':>10} {'best +-':>8} {'max open +-':>11}  recommendation")
    medians_all, medians_one, best_hw, open_hw, stops, to_precision = [], [], [], [], [], []
    for request in situations:
        many = run_advice(request, cores, seeds)
        one = run_advice(request, 1, seeds)
        t_all = statistics.median(a.seconds for a in many)
        t_one = statistics.median(a.seconds for a in one)
        first = many[0]
        open_ = [c.points.half_width for c in first.candidates if c.status != "beaten"]
        medians_all.append(t_all)
        medians_one.append(t_one)
        best_hw.append(first.recommendation.points.half_width)
        open_hw.append(max(open_))
        stops += [a.stop_reason for a in many]
        # Stopped by a budget: +-0.5 not reached (never sooner than any time that reached it).
        to_precision.append(t_all if all(a.stop_reason not in ("samples", "time") for a in many) else math.inf)
        print(f"{request['stock']:>5} {request['hand']:<34} {t_all:>13.3f} {t_one:>10.3f} "
              f"{int(statistics.median(a.samples for a in many)):>7} {first.ess:>6.0f} "
              f"{first.samples / first.seconds:>8,.0f} {first.ess / first.seconds:>6,.0f} {first.stop_reason:>10} "
              f"{best_hw[-1]:>8.2f} {open_hw[-1]:>11.2f}  {first.recommendation.label}")
    print(f"\nmedian over situations: {statistics.median(medians_all):.3f} s on {cores} cores, "
          f"{statistics.median(medians_one):.3f} s on 1 core "
          f"(slowest: {max(medians_all):.3f} s / {max(medians_one):.3f} s)")
    print(f"95% half-width of the recommended action: median {statistics.median(best_hw):.2f}, "
          f"max {max(best_hw):.2f} points; of any action still open: max {max(open_hw):.2f}")
    print("stop reasons: " + ", ".join(f"{r} {stops.count(r)}" for r in sorted(set(stops))))
    reached = [t for t in to_precision if t < math.inf]
    median = statistics.median(to_precision)
    print(f"+-0.5 reached in {len(reached)} of {len(to_precision)} situations; median time to it on {cores} cores: "
          + (f"{median:.3f} s" if median < math.inf else "not reached (a budget stopped half or more)"))

    # Throughput on a fixed workload: every candidate sampled to the end.
    fixed = {"max_samples": args.throughput, "precision": None, "max_seconds": None, "race": False}
    rates = {}
    for workers in sorted({1, cores}):
        seconds = statistics.median(advise(**(situations[0] | fixed), seed=s, workers=workers).seconds for s in seeds)
        rates[workers] = args.throughput / seconds
        print(f"throughput, {args.throughput:,} worlds x every candidate: {rates[workers]:>9,.0f} worlds/s "
              f"on {workers} core{'s' if workers > 1 else ''}")
    if cores > 1:
        print(f"speed-up on {cores} cores: {rates[cores] / rates[1]:.2f}x")

    if args.mc_hands:
        print(f"\nmc strategy, {args.mc_hands} deals per match, each played twice with seats swapped:")
        for spec, opponent in (("simple", "greedy"), ("mc", "greedy"), ("mc", "simple"), ("mc(samples=64)", "simple")):
            mean, half, rate = paired(spec, opponent, args.mc_hands, args.seed)
            print(f"  {spec:>10} vs {opponent:<7} {mean:+.3f} +- {half:.3f} points per hand   {rate:>8,.0f} hands/s")


if __name__ == "__main__":
    main()
