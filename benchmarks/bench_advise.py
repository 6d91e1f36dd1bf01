"""How fast does `oklasim advise` answer, and how strong and fast is the `mc` strategy?

    python benchmarks/bench_advise.py [--situations 10] [--seed 2026[,2027...]] [--repeats 3] [--opponent expert]
                                      [--mc-hands 4000] [--profile 20000] [--split 100000] [--without-history]

Situations are typical knock decisions: seat 0's decisions after a draw,
with a knock legal, taken from hands of simple against ``--opponent`` (so
the hand, the history, the pile and the stock are realistic), spread over
the hand. For each it runs ``advise`` with the history (worlds weighted by
the opponent's play), both seats playing on as the opponent's strategy,
stopping when the best action is ahead with confidence or the open actions
are within +-0.5 points (every action still open then has a 95% interval
of +-0.5 or better), on all
cores and on one, ``--repeats`` seeds each, and prints medians. Each advice
may draw up to ``--samples`` worlds (20 million), so only the advisor's 10 s
time budget stops the hardest before +-0.5; where it does, the time to
+-0.5 is projected (its widest open interval shrinking as 1/sqrt(time)).
Then the
throughput on a fixed workload, on one core and on all. Then the
``mc`` strategy: hands per second on one core and its result against
greedy and against simple, paired over the same deals (each deal played
twice, seats swapped). ``--profile N`` first shows, per situation, where
the time goes over N worlds on one core: sampling and weighing them by the
history, against playing the candidates out, and how many of the worlds
sampled are effective (the proposal's efficiency). ``--split N`` shows, per
situation over N worlds on one core, how each action's points vary between
the opponent's hands and within one hand, and what several stock orders per
world (the advisor's repeats) would gain in precision per second.
``--without-history`` tells the same situations without their history
(the pile, the opponent's pickups, the stock), as most players would.

The situations differ far more than runs do: the medians of sets of 10
from seeds 2026-2040 range from 0.24 to 2.5 s (2026, the default, is the
hardest seen). A median to judge a target takes many seeds (``--seed
2031,2032,...`` with ``--repeats 1``: 100 situations in about 8 minutes).
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import time

import numpy as np
from common import machine_load

from oklasim._kernels import advise_columns_nb as C
from oklasim._kernels import advise_rollouts_nb as R
from oklasim._kernels import engine_nb as E
from oklasim._kernels import layout as L
from oklasim.advise import advise
from oklasim.advise.played import positions_from_play, without_history
from oklasim.advise.request import Request
from oklasim.advise.rollouts import ROULETTE_SHARE
from oklasim.advise.worlds import NO_GUIDE, worlds_for
from oklasim.game.rules import Rules
from oklasim.sim.engine import simulate, stream_key
from oklasim.strategies.registry import resolve
from oklasim.strategy_api import parameter_matrix


def typical_situations(count: int, seed: int, opponent: str) -> list[dict]:
    """``count`` knock decisions from real play, spread evenly over the stock."""
    found = list(positions_from_play(Rules(), ["simple", opponent], 400, seed, with_history=True))
    found.sort(key=lambda item: -item[0]["stock"])
    picks = np.linspace(0, len(found) - 1, count).round().astype(int)
    return [found[i][0] for i in picks]


def run_advice(request: dict, workers: int, seeds: range) -> list:
    return [advise(**request, seed=s, workers=workers) for s in seeds]


PRECISION = 0.5  # points: the half-width every open action's 95% interval must reach


def widest_open(advice) -> float:
    """The widest 95% half-width among the actions still open (inf: one has no interval yet)."""
    return max(c.points.half_width for c in advice.candidates if c.status != "beaten")


def stopped_by_budget(advice) -> bool:
    """The sample or time budget stopped the advisor before +-PRECISION (never sooner than a run that reached it)."""
    return advice.stop_reason in ("samples", "time")


def projected_seconds(advice) -> float:
    """Seconds to +-PRECISION: as taken when the precision or the separation stopped the advisor, else projected from
    where a budget stopped it, a half-width shrinking as 1 / sqrt(time) (inf: an action had no interval yet)."""
    if not stopped_by_budget(advice):
        return advice.seconds
    return advice.seconds * (widest_open(advice) / PRECISION) ** 2


PILOT = 2048  # about the worlds advise has weighed when its batches reach full size


def effective_worlds_in(situations: list[dict], seconds: float, cores: int) -> None:
    """The effective sample of the leading action after ``seconds`` of sampling every action, per situation."""
    budget = {"precision": None, "race": False, "max_samples": 50_000_000, "max_seconds": seconds}
    print(f"\neffective worlds within {seconds:g} s on {cores} cores (every action sampled to the end):")
    print(f"{'stock':>5} {'turns':>5} {'worlds':>9} {'ESS':>7}")
    reached = []
    for request in situations:
        advice = advise(**(request | budget), seed=1, workers=cores)
        reached.append(advice.ess)
        turns = len(request["history"].split(";")) if "history" in request else 0
        print(f"{request['stock']:>5} {turns:>5} {advice.samples:>9,} {advice.ess:>7,.0f}")
    print(f"median effective worlds within {seconds:g} s: {statistics.median(reached):,.0f} "
          f"(lowest {min(reached):,.0f}); {machine_load()}")


def kernel_runner(request: dict):
    """(columns, worlds, run): ``run(lo, hi, cutoff, active, repeats=1)`` plays worlds ``lo .. hi - 1`` of the
    request on one core (every candidate when ``active``, none otherwise), with no guide; returns (out, weights,
    seconds)."""
    r = Request(**request, seed=1)
    worlds = worlds_for(r)
    me, opponent = resolve(r.continuation()), resolve(r.opponent)
    columns = np.zeros((C.MAX_COLUMNS, C.N_CAND_FIELDS), dtype=np.int64)
    n_cols = int(C.candidates_nb(worlds.view, worlds.position.kind, r.discards, L.NO_CARD, columns))
    columns = np.ascontiguousarray(columns[:n_cols])
    params = parameter_matrix([me.vector()] + [opponent.vector()] * (L.MAX_SEATS - 1))
    strategies = R.Strategies(me_fn=me.decide, opp_fn=opponent.decide, forced_fn=R.forced_nb, params=params)

    def run(lo: int, hi: int, cutoff: float, active: int, repeats: int = 1) -> tuple[np.ndarray, np.ndarray, float]:
        out = np.zeros((hi - lo, n_cols, R.N_OUT), dtype=np.int64)
        weights = np.zeros(hi - lo)
        started = time.perf_counter()
        code = R.advise_batch_nb(
            strategies,
            R.Question(seat_view=worlds.view, kind=worlds.position.kind, cand=columns, n_cand=n_cols,
                       active=np.full(n_cols, active, dtype=np.int64), game_mode=0),
            R.Sampling(key=stream_key(r.seed), prior=worlds.prior, evidence=worlds.evidence_for(opponent),
                       cutoff=cutoff, guide=NO_GUIDE, repeats=repeats),
            R.Batch(lo=lo, hi=hi, claims=R.NO_CLAIMS, stop=np.zeros(1, dtype=np.int64)),
            R.Outputs(out=out, weights=weights, opponent_hands=np.zeros(hi - lo, dtype=np.int64),
                      status=np.zeros(E.STATUS_SIZE, dtype=np.int64)))
        assert code == L.E_NONE, code
        return out, weights, time.perf_counter() - started

    return columns, worlds, run


def profile(request: dict, count: int) -> dict:
    """Where the time of ``count`` worlds goes on one core, weighed as ``advise`` weighs them after its first
    batches (by Russian roulette below its share of the heaviest world, here of a pilot of ``PILOT`` worlds weighed
    exactly): the same worlds are run with no candidate active (sampling and weighing only), then with every
    candidate. Rollouts cheaper than the timing noise show as 0."""
    columns, worlds, play = kernel_runner(request)
    n_cols = len(columns)

    def run(lo: int, hi: int, cutoff: float, active: int) -> tuple[np.ndarray, float]:
        _, weights, seconds = play(lo, hi, cutoff, active)
        return weights, seconds

    pilot, _ = run(0, PILOT, 0.0, 0)
    cutoff = ROULETTE_SHARE * pilot.max()
    # Each timed twice, alternately, keeping the faster: a loaded machine makes single timings differ by tens of %.
    weights, weighing = run(PILOT, PILOT + count, cutoff, 0)
    _, everything = run(PILOT, PILOT + count, cutoff, 1)
    weighing = min(weighing, run(PILOT, PILOT + count, cutoff, 0)[1])
    everything = max(min(everything, run(PILOT, PILOT + count, cutoff, 1)[1]), weighing)
    played = int(np.count_nonzero(weights))
    ess = weights.sum() ** 2 / (weights**2).sum() if weights.any() else 0.0
    return {"weigh_us": 1e6 * weighing / count, "rollout_us": 1e6 * (everything - weighing) / max(played, 1),
            "weigh_share": weighing / everything, "played": played / count, "ess_share": ess / count,
            "candidates": n_cols, "turns": worlds.opponent_turns}


SPLIT_REPEATS = (1, 2, 4, 8, 16)
MEASURED_REPEATS = 8


def variance_split(request: dict, count: int) -> dict:
    """How each action's points vary between the opponent's hands and within one hand (over the stock orders and
    the seats' draws), and the effective precision per second that ``K`` repeats per world would give.

    ``count`` worlds weighed as ``profile`` weighs them are played once and ``MEASURED_REPEATS`` (= m) times (the
    first repeat is the single playing): with x0 the single playing and xr the mean of the m - 1 others,
    sum(w^2 (x0 - xr)^2) / sum(w^2) / (1 + 1 / (m - 1)) estimates the within-hand variance W and
    sum(w^2 (x0 - mean)^2) / sum(w^2) the total B + W, both weighted as the advisor's interval weighs them.
    K repeats make a world's variance B + W / K at the time t(K) per world, linear in K through the timings of
    1 and m repeats (fastest of two each); the precision per second then gains (B + W) t(1) / ((B + W / K) t(K)),
    taken for the action whose variance is the largest (the last to reach a precision), each action represented
    by its best column. Also the rollout cost of a played world per column played out relative to the cost of
    weighing a world drawn (what ``REPEAT_SCALE`` of ``oklasim.advise.rollouts`` was set from)."""
    columns, _, play = kernel_runner(request)
    _, pilot, _ = play(0, PILOT, 0.0, 0)
    cutoff = ROULETTE_SHARE * pilot.max()
    lo, hi, m = PILOT, PILOT + count, MEASURED_REPEATS
    once, weights, one = play(lo, hi, cutoff, 1)
    many, _, more = play(lo, hi, cutoff, 1, m)
    weighing = min(play(lo, hi, cutoff, 0)[2] for _ in range(2))
    one = min(one, play(lo, hi, cutoff, 1)[2])
    more = min(more, play(lo, hi, cutoff, 1, m)[2])
    first = once[:, :, R.O_POINTS].astype(float)
    rest = (many[:, :, R.O_POINTS] - first) / (m - 1)
    w2 = weights**2
    mean = weights @ first / weights.sum()
    total = w2 @ (first - mean) ** 2 / w2.sum()
    within = w2 @ (first - rest) ** 2 / w2.sum() / (1 + 1 / (m - 1))
    between = total - within
    actions = columns[:, C.C_ACTION]
    reps = [max(np.flatnonzero(actions == a), key=lambda c: mean[c]) for a in range(actions.max() + 1)]

    def seconds(k: int) -> float:
        return one + (k - 1) * (more - one) / (m - 1)

    gains = {k: max(total[reps]) * seconds(1) / (max(between[reps] + within[reps] / k) * seconds(k))
             for k in SPLIT_REPEATS}
    played = int(np.count_nonzero(weights))
    rollouts = int(np.count_nonzero(columns[:, C.C_KIND] != C.SHOWDOWN))
    column_cost = (more - one) / (m - 1) / max(played * rollouts, 1) / (weighing / count)
    return {"played": played, "weigh_share": weighing / one, "column_cost": column_cost, "gains": gains,
            "actions": [("knock" if columns[c, C.C_KIND] == C.SHOWDOWN else "continue", between[c], within[c])
                        for c in reps]}


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
    parser.add_argument("--seed", default="2026",
                        help="seed of the games the situations come from; several, comma-separated, take "
                             "--situations from each (a fresh sample to confirm a figure chosen on another)")
    parser.add_argument("--opponent", default="expert")
    parser.add_argument("--throughput", type=int, default=40_000,
                        help="worlds of the fixed-workload timing (0: skip it)")
    parser.add_argument("--mc-hands", type=int, default=4000, help="deals per mc match (0: skip the mc part)")
    parser.add_argument("--profile", type=int, default=0,
                        help="worlds per situation of the time profile (0: no profile)")
    parser.add_argument("--split", type=int, default=0,
                        help="worlds per situation of the variance split between and within hands (0: none)")
    parser.add_argument("--samples", type=int, default=20_000_000,
                        help="most worlds per advice: enough for +-0.5 within the advisor's 10 s budget (its own "
                             "default, 200,000, stops the hard situations sooner, and a time projected from there "
                             "takes the rate of its first worlds, before the guide has learnt)")
    parser.add_argument("--ess-seconds", type=float, default=0,
                        help="only measure the effective worlds each situation reaches in this many seconds (every "
                             "action sampled to the end, no other stop), and their median (0: the usual timings)")
    parser.add_argument("--without-history", action="store_true",
                        help="tell the situations without their history, as most players would")
    args = parser.parse_args()
    try:
        situation_seeds = [int(seed) for seed in args.seed.split(",")]
    except ValueError:
        parser.error(f"--seed {args.seed!r}: whole numbers, comma-separated")
    cores = os.cpu_count() or 1
    print(f"bench_advise: {args.situations} typical knock decisions from the games of seed {args.seed} x "
          f"{args.repeats} seeds; {machine_load()}")

    situations = [s | {"opponent": args.opponent, "me": args.opponent, "precision": PRECISION,
                       "max_samples": args.samples}
                  for seed in situation_seeds for s in typical_situations(args.situations, seed, args.opponent)]
    if args.without_history:
        situations = [without_history(s) for s in situations]
        print("the situations told without their history: worlds as played, its latest turn weighed")
    advise(**(situations[0] | {"max_samples": 1024}))  # load the compiled kernels once
    if args.ess_seconds:
        effective_worlds_in(situations, args.ess_seconds, cores)
        return
    if args.profile:
        print(f"\nwhere the time goes, {args.profile:,} worlds per situation on one core:")
        print(f"{'stock':>5} {'turns':>5} {'columns':>7} {'weigh us/world':>14} {'rollouts us/played':>18} "
              f"{'weighing share':>14} {'played':>7} {'effective/sampled':>17}")
        for request in situations:
            p = profile(request, args.profile)
            print(f"{request['stock']:>5} {p['turns']:>5} {p['candidates']:>7} {p['weigh_us']:>14.1f} "
                  f"{p['rollout_us']:>18.0f} {p['weigh_share']:>14.0%} {p['played']:>7.4f} {p['ess_share']:>17.5f}")
    if args.split:
        print(f"\nvariance of the points between hands (B) and within a hand (W), {args.split:,} worlds per "
              f"situation on one core; precision per second with K repeats per world, relative to K = 1:")
        print(f"{'stock':>5} {'played':>6} {'weighing':>8} {'column/weigh':>12}  "
              + " ".join(f"{'K=' + str(k):>5}" for k in SPLIT_REPEATS) + "  per action: B / W")
        for request in situations:
            split = variance_split(request, args.split)
            print(f"{request['stock']:>5} {split['played']:>6} {split['weigh_share']:>8.0%} "
                  f"{split['column_cost']:>12.2f}  "
                  + " ".join(f"{split['gains'][k]:>5.2f}" for k in SPLIT_REPEATS) + "  "
                  + ", ".join(f"{kind} {b:.1f} / {w:.1f}" for kind, b, w in split["actions"]))
    seeds = range(args.repeats)
    print(f"\n{'stock':>5} {'hand':<34} {'s (all cores)':>13} {'s (1 core)':>10} {'worlds':>7} {'ESS':>6} "
          f"{'worlds/s':>8} {'ESS/s':>6} {'stop':>10} {'best +-':>8} {'max open +-':>11} "
          f"{'s to +-' + str(PRECISION):>10}  recommendation")
    medians_all, medians_one, best_hw, open_hw, stops, to_precision, projected = [], [], [], [], [], [], []
    for request in situations:
        many = run_advice(request, cores, seeds)
        one = run_advice(request, 1, seeds)
        t_all = statistics.median(a.seconds for a in many)
        t_one = statistics.median(a.seconds for a in one)
        first = many[0]
        medians_all.append(t_all)
        medians_one.append(t_one)
        leader = first.recommendation or first.candidates[0]  # no recommendation: too little evidence, say so below
        best_hw.append(leader.points.half_width)
        open_hw.append(widest_open(first))
        projected.append(statistics.median(projected_seconds(a) for a in many))
        stops += [a.stop_reason for a in many]
        reached_it = not any(stopped_by_budget(a) for a in many)
        to_precision.append(t_all if reached_it else math.inf)
        print(f"{request['stock']:>5} {request['hand']:<34} {t_all:>13.3f} {t_one:>10.3f} "
              f"{int(statistics.median(a.samples for a in many)):>7} {first.ess:>6.0f} "
              f"{first.samples / first.seconds:>8,.0f} {first.ess / first.seconds:>6,.0f} {first.stop_reason:>10} "
              f"{best_hw[-1]:>8.2f} {open_hw[-1]:>11.2f} {projected[-1]:>9.2f}{'' if reached_it else '*'}  "
              f"{first.recommendation.label if first.recommendation else 'none: ' + first.no_recommendation}")
    print(f"\nmedian over situations: {statistics.median(medians_all):.3f} s on {cores} cores, "
          f"{statistics.median(medians_one):.3f} s on 1 core "
          f"(slowest: {max(medians_all):.3f} s / {max(medians_one):.3f} s)")
    print(f"95% half-width of the recommended action: median {statistics.median(best_hw):.2f}, "
          f"max {max(best_hw):.2f} points; of any action still open: max {max(open_hw):.2f}")
    print("stop reasons: " + ", ".join(f"{r} {stops.count(r)}" for r in sorted(set(stops))))
    reached = [t for t in to_precision if t < math.inf]
    median = statistics.median(to_precision)
    print(f"+-{PRECISION} reached in {len(reached)} of {len(to_precision)} situations; median time to it on {cores} "
          "cores: " + (f"{median:.3f} s" if median < math.inf else "not reached (a budget stopped half or more)"))
    print(f"median time to +-{PRECISION} on {cores} cores, * projected where a budget stopped the advisor "
          f"(a half-width shrinking as 1/sqrt(time)): {statistics.median(projected):.2f} s")

    # Throughput on a fixed workload: every candidate sampled to the end.
    fixed = {"max_samples": args.throughput, "precision": None, "max_seconds": None, "race": False}
    rates = {}
    for workers in sorted({1, cores}) if args.throughput else ():
        seconds = statistics.median(advise(**(situations[0] | fixed), seed=s, workers=workers).seconds for s in seeds)
        rates[workers] = args.throughput / seconds
        print(f"throughput, {args.throughput:,} worlds x every candidate: {rates[workers]:>9,.0f} worlds/s "
              f"on {workers} core{'s' if workers > 1 else ''}")
    if cores > 1 and args.throughput:
        print(f"speed-up on {cores} cores: {rates[cores] / rates[1]:.2f}x")

    if args.mc_hands:
        print(f"\nmc strategy, {args.mc_hands} deals per match, each played twice with seats swapped:")
        for spec, opponent in (("simple", "greedy"), ("mc", "greedy"), ("mc", "simple"), ("mc(samples=64)", "simple")):
            mean, half, rate = paired(spec, opponent, args.mc_hands, situation_seeds[0])
            print(f"  {spec:>10} vs {opponent:<7} {mean:+.3f} +- {half:.3f} points per hand   {rate:>8,.0f} hands/s")


if __name__ == "__main__":
    main()
