"""Study: a round robin of strategies on paired deals.

Every two strategies listed in ``[study] strategies`` play a paired match
(``oklasim.match.match``: each deal twice, seats swapped, so the luck of the
cards largely cancels). The report ranks them by their head-to-head record
(``TournamentResult.ranking``), gives their average paired edge beside it,
shows who beats whom (a matrix of paired differences with significance
marks) and why: how each strategy's hands end (knocks, gins and undercuts
made, the same suffered, void walls).

The matches run through the batch runner in memory; each match's aggregated
result is kept as JSON in ``matches/`` of the run folder under a key made of
the two seatings' run ids (rules, canonical strategies and their source
files, size, seed), so a repeated ``oklasim run`` with the same spec plays
nothing again, and adding a strategy plays only its new matches.
``tournament.json`` lists the matches of the current spec, in order.
"""

from __future__ import annotations

import itertools
import json
import os
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import polars as pl
from matplotlib.colors import SymLogNorm

from oklasim._kernels import SOURCE_HASH
from oklasim.analysis.match import MatchResult, TournamentResult, match
from oklasim.analysis.report import Report
from oklasim.analysis.stats import Estimate, proportion
from oklasim.errors import OklasimError
from oklasim.runs import storage
from oklasim.runs.batch import RunSpec
from oklasim.strategies.registry import resolve
from oklasim.studies.common import fmt, fmt_interval
from oklasim.studies.spec import Experiment, provenance, result_key

INDEX_FILE = "tournament.json"
MATCH_DIR = "matches"
POOL_FROM = 20_000  # deals per match from which the matches use every core (below, a pool does not pay)
OUTCOMES = {
    "knock": "won by knocking",
    "gin": "won by gin",
    "undercut_made": "won by undercutting",
    "undercut_suffered": "lost: undercut",
    "lost_to_knock": "lost to a knock",
    "lost_to_gin": "lost to a gin",
    "void": "void wall",
}
COLOURS = {
    "knock": "#4c78a8", "gin": "#54a24b", "undercut_made": "#72b7b2", "undercut_suffered": "#e45756",
    "lost_to_knock": "#f58518", "lost_to_gin": "#b279a2", "void": "#bab0ac",
}


def check(experiment: Experiment) -> None:
    if experiment.mode != "hands":
        raise OklasimError(f"{experiment.source}: tournament plays paired independent hands: use hands = N")
    check_entrants(experiment)


def check_entrants(experiment: Experiment, options: tuple[str, ...] = ()) -> None:
    """The round robin's entrants and its ``deals`` option (and ``options`` of a study built on it)."""
    source = experiment.source
    if experiment.base_rules().players != 2:
        raise OklasimError(f"{source}: {experiment.kind} compares two-player strategies")
    names = list(experiment.strategies)
    if len(set(names)) < 2:
        raise OklasimError(f"{source}: a tournament needs at least two different strategies in [study] strategies")
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise OklasimError(f"{source}: strategies listed twice: {', '.join(repeated)}")
    unknown = sorted(set(experiment.options) - {"deals", *options})
    if unknown:
        known = ("deals (fewer deals for slow entrants)", *options)
        taken = f"one option, {known[0]}" if len(known) == 1 else f"the options {', '.join(known)}"
        raise OklasimError(f"{source}: {experiment.kind} takes {taken}; not {', '.join(unknown)}")
    caps = experiment.options.get("deals", {})
    if not isinstance(caps, dict):
        raise OklasimError(f"{source}: [options] deals is a table of strategy = deals per pairing, "
                           'e.g. deals = { "search" = 4000 }')
    for name, count in caps.items():
        if name not in names:
            raise OklasimError(f"{source}: [options] deals names {name!r}, which is not in [study] strategies")
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise OklasimError(f"{source}: [options] deals: {name!r} needs a whole number of deals >= 1, "
                               f"got {count!r}")
    canonical = {}
    for name in names:
        try:
            canonical.setdefault(resolve(name).canonical(), []).append(name)
        except ValueError as exc:
            raise OklasimError(f"{source}: strategy {name!r}: {exc}") from None
    same = [" = ".join(group) for group in canonical.values() if len(group) > 1]
    if same:
        raise OklasimError(f"{source}: these names are the same strategy: {'; '.join(same)}")


def pairs(experiment: Experiment) -> list[tuple[str, str]]:
    return list(itertools.combinations(experiment.strategies, 2))


def deals(experiment: Experiment, a: str, b: str) -> int:
    """Deals A and B play: the study's size, or fewer where ``[options] deals`` caps a slow entrant's pairings
    (the first deals of the same seed: every pairing still shares its deals with the others)."""
    caps = experiment.options.get("deals", {})
    return min([experiment.count] + [caps[name] for name in (a, b) if name in caps])


def seatings(experiment: Experiment, a: str, b: str) -> tuple[RunSpec, RunSpec]:
    """The two runs ``match`` plays for A against B (A in seat 0, then in seat 1): independent hands, or games."""
    rules = experiment.base_rules()
    return tuple(RunSpec.create(rules, seats, **{experiment.mode: deals(experiment, a, b)}, seed=experiment.seed)
                 for seats in ([a, b], [b, a]))


def match_key(experiment: Experiment, a: str, b: str) -> tuple[str, dict[str, str]]:
    """The match's key, and the canonical spelling (every parameter) of both strategies."""
    first, second = seatings(experiment, a, b)
    key = result_key({"seatings": [first.run_id, second.run_id]})
    return key, {a: first.strategies[0], b: first.strategies[1]}


def run(experiment: Experiment, run_dir: Path, workers: int | None) -> None:
    folder = run_dir / MATCH_DIR
    folder.mkdir(parents=True, exist_ok=True)
    if workers is None:
        workers = (os.cpu_count() or 1) if experiment.count >= POOL_FROM else 1
    entries, canonical = [], {}
    for a, b in pairs(experiment):
        key, spelled = match_key(experiment, a, b)
        canonical |= spelled
        path = folder / f"{key}.json"
        if not path.is_file():  # a finished match with the same key is reused as is
            result = match(a, b, experiment.base_rules(), **{experiment.mode: deals(experiment, a, b)},
                           seed=experiment.seed, workers=workers, progress=False)
            record = {"key": key, "a": a, "b": b, "kernels": SOURCE_HASH, "result": result.as_dict()}
            storage.atomic_write_bytes(path, json.dumps(record, indent=1).encode())
        entries.append({"a": a, "b": b, "file": f"{MATCH_DIR}/{key}.json"})
    kept = {e["file"] for e in entries}
    for stale in folder.glob("*.json"):  # matches of an earlier spec
        if f"{MATCH_DIR}/{stale.name}" not in kept:
            stale.unlink()
    index = {"strategies": list(experiment.strategies), "deals_per_match": experiment.count,
             "deals_for": {name: deals(experiment, name, name) for name in experiment.options.get("deals", {})},
             "seed": experiment.seed, "canonical": canonical, "matches": entries}
    storage.atomic_write_bytes(run_dir / INDEX_FILE, json.dumps(index, indent=1).encode())


# -- reading the stored matches back -----------------------------------------------------------


def load(run_dir: Path) -> tuple[TournamentResult, dict]:
    """The stored tournament, and its index (strategies, their canonical spelling, the match files)."""
    index_file = run_dir / INDEX_FILE
    if not index_file.is_file():
        raise OklasimError(f"{run_dir} holds no finished tournament; run the study first")
    index = json.loads(index_file.read_text())
    matches, kernels = {}, set()
    for entry in index["matches"]:
        record = json.loads((run_dir / entry["file"]).read_text())
        matches[(entry["a"], entry["b"])] = MatchResult.from_dict(record["result"])
        kernels.add(record.get("kernels", "unknown"))
    index = index | {"kernels": sorted(kernels)}
    return TournamentResult(list(index["strategies"]), matches), index


# -- tables ------------------------------------------------------------------------------------


def _significant(d: Estimate) -> bool:
    return d.low > 0 or d.high < 0


def ranking_table(result: TournamentResult) -> pl.DataFrame:
    """The standings (``TournamentResult.ranking``: head-to-head record, ties by the edge among the tied);
    ``edge_place`` is the rank by average edge alone, which rewards large wins over weak entrants."""
    return pl.DataFrame([
        {"place": place, "strategy": s.name, "significant_wins": s.wins, "significant_losses": s.losses,
         "undecided": s.undecided, "edge_among_tied": s.tied_edge.mean if s.tied_edge else None,
         "edge": s.edge.mean, "edge_lo": s.edge.low, "edge_hi": s.edge.high, "edge_place": s.edge_place}
        for place, s in enumerate(result.ranking(), 1)
    ], schema_overrides={"edge_among_tied": pl.Float64})


def pairwise_table(result: TournamentResult) -> pl.DataFrame:
    rows = []
    for (a, b), m in result.matches.items():
        d = m.diff_points_per_hand
        verdict = f"{a} better" if d.low > 0 else f"{b} better" if d.high < 0 else "no significant difference"
        rows.append({
            "a": a, "b": b, "a_minus_b": d.mean, "a_minus_b_lo": d.low, "a_minus_b_hi": d.high, "verdict": verdict,
            "a_points_per_hand": m.a.points_per_hand.mean, "a_points_lo": m.a.points_per_hand.low,
            "a_points_hi": m.a.points_per_hand.high, "b_points_per_hand": m.b.points_per_hand.mean,
            "b_points_lo": m.b.points_per_hand.low, "b_points_hi": m.b.points_per_hand.high,
            "void": m.void_share.mean, "void_lo": m.void_share.low, "void_hi": m.void_share.high,
            "variance_reduction": m.variance_reduction, "deals": m.deals, "hands": m.hands,
        })
    return pl.DataFrame(rows)


def matrix_table(result: TournamentResult, order: list[str]) -> pl.DataFrame:
    """Row minus column as text, 'mean ±half-width', '*' when the 95% interval excludes 0."""
    rows = []
    for row in order:
        cells = {"strategy": row}
        for col in order:
            if row == col:
                cells[col] = ""
                continue
            d = result.diff(row, col)
            cells[col] = f"{d.mean:+.2f} ±{d.half_width:.2f}{'*' if _significant(d) else ''}"
        rows.append(cells)
    return pl.DataFrame(rows)


def outcome_counts(result: TournamentResult) -> dict[str, dict[str, int]]:
    """How each strategy's hands ended, pooled over its matches (counts of hands)."""
    counts = {name: dict.fromkeys(OUTCOMES, 0) | {"hands": 0} for name in result.names}
    for (a, b), m in result.matches.items():
        for name, me, other in ((a, m.a, m.b), (b, m.b, m.a)):
            c = counts[name]
            share = {
                "knock": me.outcomes["knock"], "gin": me.outcomes["gin"],
                "undercut_made": me.outcomes["undercut_made"], "undercut_suffered": me.outcomes["undercut_suffered"],
                "lost_to_knock": other.outcomes["knock"], "lost_to_gin": other.outcomes["gin"], "void": m.void_share,
            }
            for key, est in share.items():
                c[key] += round(est.mean * est.n)
            c["hands"] += m.hands
    return counts


def outcome_table(result: TournamentResult, order: list[str]) -> pl.DataFrame:
    counts = outcome_counts(result)
    rows = []
    for name in order:
        c = counts[name]
        row = {"strategy": name, "hands": c["hands"]}
        won = c["knock"] + c["gin"] + c["undercut_made"]
        for key, count in [(key, c[key]) for key in OUTCOMES] + [("won", won)]:
            est = proportion(count, c["hands"])
            row |= {key: est.mean, f"{key}_lo": est.low, f"{key}_hi": est.high}
        rows.append(row)
    return pl.DataFrame(rows)


# -- figures -----------------------------------------------------------------------------------


def _matrix_figure(result: TournamentResult, order: list[str]):
    k = len(order)
    values = np.full((k, k), np.nan)
    marks = np.zeros((k, k), dtype=bool)
    for i, row in enumerate(order):
        for j, col in enumerate(order):
            if i != j:
                d = result.diff(row, col)
                values[i, j], marks[i, j] = d.mean, _significant(d)
    limit = max(1.0, float(np.nanmax(np.abs(values))))
    size = max(5.0, 0.62 * k + 2.5)
    fig, ax = plt.subplots(figsize=(size + 1.5, size))
    image = ax.imshow(values, cmap="RdBu", norm=SymLogNorm(linthresh=1.0, vmin=-limit, vmax=limit, base=10))
    for i in range(k):
        for j in range(k):
            if i != j:
                text = f"{values[i, j]:+.1f}" + ("*" if marks[i, j] else "")
                dark = abs(values[i, j]) > 0.5 * limit
                ax.text(j, i, text, ha="center", va="center", fontsize=7, color="white" if dark else "black")
    ax.set_xticks(range(k), order, rotation=45, ha="right", fontsize=8)
    ax.set_yticks(range(k), order, fontsize=8)
    ax.set_xlabel("column strategy")
    ax.set_ylabel("row strategy")
    fig.colorbar(image, ax=ax, shrink=0.8, label="row minus column, points per hand (symmetric log scale)")
    return fig


def _ranking_figure(ranking: pl.DataFrame):
    """Edges with intervals on a linear axis; a strategy far outside the rest (random, typically) is drawn
    as an arrow at the edge of the axis with its value, so it does not squash the others."""
    k = ranking.height
    fig, ax = plt.subplots(figsize=(7, 0.35 * k + 1.5))
    y = np.arange(k)[::-1]
    mean = ranking["edge"].to_numpy()
    low, high = ranking["edge_lo"].to_numpy(), ranking["edge_hi"].to_numpy()
    centre = float(np.median(mean))
    spread = max(float(np.median(np.abs(mean - centre))), 0.1)
    inside = np.abs(mean - centre) <= 12 * spread
    left, right = float(low[inside].min()), float(high[inside].max())
    pad = 0.08 * (right - left or 1.0)
    left, right = min(left - pad, -pad), max(right + pad, pad)
    ax.errorbar(mean[inside], y[inside], xerr=np.vstack([mean - low, high - mean])[:, inside], fmt="o", capsize=3)
    for value, row in zip(mean[~inside], y[~inside]):
        edge = right if value > right else left
        ax.plot([edge], [row], marker=">" if value > right else "<", color="#e45756", markersize=9)
        ax.annotate(f"{value:+.1f}", (edge, row), xytext=(-8 if value > right else 8, 6), textcoords="offset points",
                    ha="right" if value > right else "left", fontsize=8, color="#e45756")
    ax.set_xlim(left, right)
    ax.axvline(0, color="grey", linewidth=0.8)
    ax.set_yticks(y, ranking["strategy"].to_list(), fontsize=8)
    ax.set_xlabel("average paired edge over the other strategies, points per hand")
    ax.grid(alpha=0.3, axis="x")
    return fig


def _outcome_figure(outcomes: pl.DataFrame):
    k = outcomes.height
    fig, ax = plt.subplots(figsize=(8, 0.35 * k + 1.8))
    y = np.arange(k)[::-1]
    left = np.zeros(k)
    for key, label in OUTCOMES.items():
        share = outcomes[key].to_numpy()
        ax.barh(y, share, left=left, color=COLOURS[key], label=label)
        left += share
    ax.set_yticks(y, outcomes["strategy"].to_list(), fontsize=8)
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of the strategy's hands")
    ax.legend(fontsize=7, ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.1 - 1.2 / (0.35 * k + 1.8)))
    return fig


# -- the report --------------------------------------------------------------------------------


def _summary(result: TournamentResult, ranking: pl.DataFrame, outcomes: pl.DataFrame) -> list[str]:
    ranked = ranking.to_dicts()
    first, second, last = ranked[0], ranked[1], ranked[-1]
    by_edge = sorted(ranked, key=lambda r: r["edge_place"])
    n_pairs = len(result.matches)
    others = len(result.names) - 1
    significant = [(pair, m) for pair, m in result.matches.items() if _significant(m.diff_points_per_hand)]
    lines = [
        f"Head to head, {first['strategy']} has the best record: it beats {first['significant_wins']} of the other "
        f"{others} strategies significantly and loses to {first['significant_losses']}; {last['strategy']} has the "
        f"worst ({last['significant_wins']} wins, {last['significant_losses']} losses).",
    ]
    leader = by_edge[0]
    lines.append(
        f"By average paired edge over all the others, {leader['strategy']} comes first with "
        f"{fmt_interval(leader['edge'], leader['edge_lo'], leader['edge_hi'], 2)} points per hand and "
        f"{by_edge[-1]['strategy']} last with "
        f"{fmt_interval(by_edge[-1]['edge'], by_edge[-1]['edge_lo'], by_edge[-1]['edge_hi'], 2)}."
    )
    if leader["strategy"] != first["strategy"]:
        weakest = by_edge[-1]["strategy"]
        a_gain, b_gain = result.diff(leader["strategy"], weakest), result.diff(first["strategy"], weakest)
        lines.append(
            f"The two orders differ because an average rewards crushing the weakest entrant: {leader['strategy']} "
            f"gains {fmt_interval(a_gain.mean, a_gain.low, a_gain.high, 1)} points per hand against {weakest}, "
            f"{first['strategy']} {fmt_interval(b_gain.mean, b_gain.low, b_gain.high, 1)}."
        )
    top = result.diff(first["strategy"], second["strategy"])
    if top.low > 0:
        lines.append(f"{first['strategy']} beats the second by record, {second['strategy']}, by "
                     f"{fmt_interval(top.mean, top.low, top.high, 2)} points per hand.")
    else:
        lines.append(f"{first['strategy']} and the second by record, {second['strategy']}, are not "
                     f"distinguishable: {fmt_interval(top.mean, top.low, top.high, 2)} points per hand.")
    biggest = max(result.matches.items(), key=lambda item: abs(item[1].diff_points_per_hand.mean))
    (a, b), m = biggest
    d = m.diff_points_per_hand
    winner, loser, sign = (a, b, 1) if d.mean > 0 else (b, a, -1)
    lo, hi = sorted((sign * d.low, sign * d.high))
    lines.append(f"The widest gap: {winner} beats {loser} by {fmt_interval(sign * d.mean, lo, hi, 1)} points per hand.")
    if significant:
        (ca, cb), closest = min(significant, key=lambda item: abs(item[1].diff_points_per_hand.mean))
        cd = closest.diff_points_per_hand
        w, l_, s = (ca, cb, 1) if cd.mean > 0 else (cb, ca, -1)
        lo, hi = sorted((s * cd.low, s * cd.high))
        lines.append(
            f"{len(significant)} of {n_pairs} pairings differ significantly at 95%; the smallest significant edge "
            f"is {w} over {l_}, {fmt_interval(s * cd.mean, lo, hi, 2)} points per hand."
        )
    else:
        lines.append(f"None of the {n_pairs} pairings differs significantly at 95%.")
    identical = [f"{a} and {b}" for (a, b), m in result.matches.items()
                 if m.diff_points_per_hand.mean == 0 and m.diff_points_per_hand.half_width == 0]
    if identical:
        lines.append(f"Played every deal identically (difference exactly 0): {'; '.join(identical)}.")
    rows = {r["strategy"]: r for r in outcomes.to_dicts()}

    def share(row: dict, key: str) -> str:
        return fmt_interval(row[key], row[f"{key}_lo"], row[f"{key}_hi"], 1, True)

    def pm(row: dict, key: str) -> str:  # compact: mean ±95% half-width
        return f"{fmt(100 * row[key])} ±{fmt(50 * (row[f'{key}_hi'] - row[f'{key}_lo']), 2)}%"

    gin = max(rows.values(), key=lambda r: r["gin"])
    knock = max(rows.values(), key=lambda r: r["knock"])
    undercut = max(rows.values(), key=lambda r: r["undercut_suffered"])
    best = rows[first["strategy"]]
    lines.append(
        f"Why {first['strategy']} leads: it wins {share(best, 'won')} of its hands ({pm(best, 'knock')} by "
        f"knocking, {pm(best, 'gin')} by gin, {pm(best, 'undercut_made')} by undercutting) and is undercut in "
        f"{share(best, 'undercut_suffered')}."
    )
    lines.append(
        f"Across the field: {gin['strategy']} wins the most hands by gin, {share(gin, 'gin')} of its hands; "
        f"{knock['strategy']} the most by knocking, {share(knock, 'knock')}; {undercut['strategy']} is undercut "
        f"most often, in {share(undercut, 'undercut_suffered')} of its hands."
    )
    gains = sorted(m.variance_reduction for m in result.matches.values() if np.isfinite(m.variance_reduction))
    if gains:
        lines.append(f"Pairing the deals cut the variance of the differences {fmt(float(np.median(gains)))}-fold "
                     f"(median over matches): unpaired, each match would need that many times more deals.")
    return lines


def _fewer(index: dict) -> str:
    """The slow entrants' smaller number of deals per pairing, as the provenance says it."""
    caps = index.get("deals_for", {})
    if not caps:
        return ""
    listed = ", ".join(f"{name} {count:,}" for name, count in caps.items())
    return f", fewer where an entrant is slow (its pairings play its number, their intervals wider): {listed}"


def report(experiment: Experiment, run_dir: Path, report_dir: Path) -> Path:
    result, index = load(run_dir)
    ranking = ranking_table(result)
    order = ranking["strategy"].to_list()
    outcomes = outcome_table(result, order)
    doc = Report(report_dir, experiment.title)
    doc.summary = _summary(result, ranking, outcomes)
    n_pairs = len(result.matches)
    canonical = index.get("canonical", {})
    extra = {"strategy_parameters": "; ".join(f"{n} = {canonical[n]}" for n in result.names if n in canonical),
             "kernel_sources": ", ".join(k[:16] for k in index["kernels"]) + " (matches are reused while the "
             "rules, strategies, their files, size and seed are unchanged)"}
    doc.provenance = provenance(
        experiment, {}, size=f"{experiment.count:,} deals per pairing, each played in both seatings "
        f"({2 * experiment.count:,} hands){_fewer(index)}; {n_pairs} pairings of {len(result.names)} strategies; "
        "every pairing plays the same deals (same seed)", **extra)
    doc.figure("paired_differences", _matrix_figure(result, order), "Who beats whom",
               "Row strategy minus column strategy, points per hand on paired deals; * marks a 95% interval that "
               "excludes 0. Blue: the row wins. Rows and columns in ranking order.")
    doc.figure("ranking", _ranking_figure(ranking), "Average paired edge",
               "Average paired edge over all opponents, points per hand, with 95% intervals (the matches' "
               "intervals combined as if independent; they share deals, so read them as approximate). Strategies "
               "in the order of their head-to-head record.")
    doc.figure("outcomes", _outcome_figure(outcomes), "How each strategy's hands end",
               "Pooled over all its matches: hands won by knocking, by gin, by undercutting the opponent's knock; "
               "hands lost by being undercut, to the opponent's knock or gin; void walls.")
    doc.table("ranking", ranking, "Ranking",
              "place: by head-to-head record (significant wins minus significant losses: pairings whose 95% "
              "interval excludes 0), ties broken by edge_among_tied: the average paired difference against the "
              "others of the same record alone (empty: no other has it), then by edge. edge: average paired "
              "difference against all the others, points per hand, with its 95% interval (edge_lo, edge_hi); "
              "edge_place: the order by edge alone.")
    doc.table("matrix", matrix_table(result, order), "Paired differences (row minus column)",
              "Points per hand, mean ±95% half-width; * = significant.")
    doc.table("pairings", pairwise_table(result), "Every pairing",
              "a_minus_b: A's paired edge over B in points per hand with its 95% interval; each side's points per "
              "hand; void: share of void hands; variance_reduction: how many times fewer deals pairing needs.")
    doc.table("outcomes", outcomes, "Outcome mix per strategy",
              "Shares of each strategy's hands over all its matches, with 95% Wilson intervals (*_lo, *_hi); won = "
              "knock + gin + undercut_made. The two seatings of a deal are counted as two hands.")
    return doc.write()

