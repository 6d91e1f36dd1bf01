"""Study: what the upcard does to a hand, and Oklahoma against plain gin.

By upcard rank: the outcome mix (knock, gin, undercut, void), hand length in
draws, points per hand, how often the first upcard is taken and by whom, and
the dealer's edge; the same under plain gin (fixed limit 10) for comparison;
by suit when spades double; and 2 against 3 and 4 players. Options
(``[options]``): ``spade_double = true`` adds the by-suit section;
``players = [3, 4]`` adds hands with more players (7 cards each, every seat
playing the first of the study's strategies).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import polars as pl

from oklasim.analysis.report import Report
from oklasim.analysis.tables import PLAYER_OUTCOMES, UPCARD_OUTCOMES, by_upcard, group_means, group_shares, rank_sorted
from oklasim.errors import OklasimError
from oklasim.runs import storage
from oklasim.runs.batch import RunSpec
from oklasim.studies.common import error_bars, fmt
from oklasim.studies.spec import Experiment, ensure_run, provenance

COLOURS = {"knock": "#4c78a8", "gin": "#54a24b", "undercut": "#e45756", "void": "#bab0ac"}


def check(experiment: Experiment) -> None:
    if experiment.mode != "hands":
        raise OklasimError(f"{experiment.source}: upcard_effects plays independent hands: use hands = N")
    if experiment.base_rules().players != 2:
        raise OklasimError(f"{experiment.source}: upcard_effects starts from two-player rules (add more with players = [3, 4])")
    if not set(experiment.options.get("players", [])) <= {3, 4}:
        raise OklasimError(f"{experiment.source}: options.players may list 3 and 4")


def configurations(experiment: Experiment) -> dict[str, RunSpec]:
    rules = experiment.base_rules()
    variants = {"oklahoma": rules.replace(oklahoma=True), "plain": rules.replace(oklahoma=False)}
    if experiment.options.get("spade_double", False):
        variants["spades"] = rules.replace(oklahoma=True, spade_double=True)
    specs = {
        name: RunSpec.create(r, list(experiment.strategies), seed=experiment.seed, **experiment.size())
        for name, r in variants.items()
    }
    for players in experiment.options.get("players", []):
        specs[f"players_{players}"] = RunSpec.create(
            rules.replace(players=players), [experiment.strategies[0]], seed=experiment.seed, **experiment.size()
        )
    return specs


def run(experiment: Experiment, run_dir: Path, workers: int) -> None:
    for name, spec in configurations(experiment).items():
        ensure_run(spec, run_dir / name, workers)


def _stacked_outcomes(ax, table: pl.DataFrame) -> np.ndarray:
    """One bar per row of ``table``: its outcome shares stacked. Returns the bars' x positions."""
    x = np.arange(table.height)
    bottom = np.zeros(table.height)
    for outcome in UPCARD_OUTCOMES:
        share = table[outcome].to_numpy()
        ax.bar(x, share, bottom=bottom, color=COLOURS[outcome], label=outcome)
        bottom += share
    return x


def _outcome_figure(tables: dict[str, pl.DataFrame]):
    fig, axes = plt.subplots(1, len(tables), figsize=(5.5 * len(tables), 3.8), sharey=True)
    for ax, (name, table) in zip(np.atleast_1d(axes), tables.items()):
        x = _stacked_outcomes(ax, table)
        ax.set_xticks(x, table["upcard_rank"].cast(pl.String).to_list())
        ax.set_title(name)
        ax.set_xlabel("upcard rank")
    np.atleast_1d(axes)[0].set_ylabel("share of hands")
    np.atleast_1d(axes)[-1].legend(loc="lower right", fontsize=8)
    return fig


def _line_figure(tables: dict[str, pl.DataFrame], column: str, ylabel: str):
    fig, ax = plt.subplots(figsize=(7, 3.8))
    for offset, (name, table) in enumerate(tables.items()):
        x = np.arange(table.height) + 0.08 * offset
        error_bars(ax, x, table, column, name)
    table = next(iter(tables.values()))
    ax.set_xticks(np.arange(table.height), table["upcard_rank"].cast(pl.String).to_list())
    ax.set_xlabel("upcard rank")
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def _summary(tables: dict[str, pl.DataFrame], plain_all: pl.DataFrame, okla_all: pl.DataFrame) -> list[str]:
    okla = tables["Oklahoma"]
    row = {r["upcard_rank"]: r for r in okla.iter_rows(named=True)}
    lines = [
        f"An ace upcard (gin only) makes {fmt(100 * row['A']['gin'])}% of hands end in gin and "
        f"{fmt(100 * row['A']['void'])}% in a void wall; a king (limit 10) {fmt(100 * row['K']['gin'])}% and "
        f"{fmt(100 * row['K']['void'])}%.",
        f"Hands last {fmt(row['A']['draws'])} draws with an ace upcard, {fmt(row['2']['draws'])} with a two and "
        f"{fmt(row['K']['draws'])} with a king; plain gin averages {fmt(plain_all['draws'][0])} draws, "
        f"Oklahoma {fmt(okla_all['draws'][0])}.",
        f"The non-dealer is offered the upcard first and takes it in {fmt(100 * okla_all['taken_by_non_dealer'][0])}% "
        f"of hands, the dealer in {fmt(100 * okla_all['taken_by_dealer'][0])}%.",
        f"The dealer's edge is {fmt(okla_all['dealer_edge'][0], 2)} points per hand "
        f"(95% interval {fmt(okla_all['dealer_edge_lo'][0], 2)} to {fmt(okla_all['dealer_edge_hi'][0], 2)}); "
        f"a negative edge favours the non-dealer, who sees the upcard first and plays first.",
    ]
    return lines


def by_players(frames: dict[int, pl.DataFrame]) -> pl.DataFrame:
    """Outcome shares, draws and points per hand for each number of players."""
    hands = pl.concat([f.select("outcome", "draws", "points").with_columns(players=pl.lit(p)) for p, f in frames.items()])
    shares = group_shares(hands, ["players"], PLAYER_OUTCOMES)
    means = group_means(hands, ["players"], {"draws": pl.col("draws"), "points": pl.col("points")})
    return shares.join(means.drop("n"), on="players").sort("players")


def _players_figure(table: pl.DataFrame):
    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    x = _stacked_outcomes(ax, table)
    ax.set_xticks(x, [f"{p} players" for p in table["players"].to_list()])
    ax.set_ylabel("share of hands")
    ax.legend(loc="lower right", fontsize=8)
    return fig


def report(experiment: Experiment, run_dir: Path, report_dir: Path) -> Path:
    specs = configurations(experiment)
    names = {"oklahoma": "Oklahoma", "plain": "plain gin", "spades": "Oklahoma, spades double"}
    frames = {names[k]: storage.read(run_dir / k, "hands") for k in specs if k in names}
    more = {int(k.split("_")[1]): storage.read(run_dir / k, "hands") for k in specs if k.startswith("players_")}
    tables = {name: rank_sorted(by_upcard(hands)) for name, hands in frames.items() if name != names["spades"]}
    overall = {name: by_upcard(hands.with_columns(pl.lit("all").alias("upcard")), "upcard") for name, hands in frames.items()}
    doc = Report(report_dir, experiment.title)
    doc.summary = _summary(tables, overall["plain gin"], overall["Oklahoma"])
    doc.provenance = provenance(experiment, specs)
    doc.figure("outcomes_by_upcard", _outcome_figure(tables), "Outcome mix by upcard rank",
               "Share of hands ending in a knock, gin, undercut or void wall. Under Oklahoma the upcard sets the "
               "knock limit; under plain gin the limit is always 10 and the upcard's rank matters little.")
    doc.figure("draws_by_upcard", _line_figure(tables, "draws", "draws per hand"), "Hand length by upcard rank",
               "Mean draws per hand (both players), with 95% intervals.")
    doc.figure("points_by_upcard", _line_figure(tables, "points", "points per hand"), "Points per hand by upcard rank",
               "Mean points scored in a hand (by its winner; 0 for a void hand), with 95% intervals.")
    doc.figure("dealer_edge_by_upcard", _line_figure(tables, "dealer_edge", "dealer minus non-dealer points"),
               "The dealer's edge by upcard rank", "Mean of the dealer's points minus the non-dealer's, per hand.")
    for name, table in tables.items():
        doc.table(f"by_upcard_{'oklahoma' if name == 'Oklahoma' else 'plain'}", table.with_columns(
            pl.col("upcard_rank").cast(pl.String)), f"By upcard rank: {name}",
            "Shares and means per upcard rank; *_lo and *_hi bound the 95% interval.")
    if names["spades"] in frames:
        by_suit = by_upcard(frames[names["spades"]], "upcard_suit").sort("upcard_suit")
        doc.table("by_suit_spades_double", by_suit, "By upcard suit when a spade doubles the hand",
                  "With spade doubling, a spade upcard doubles every score of the hand (bonuses included).")
    if more:
        players = by_players({2: frames["Oklahoma"].select("outcome", "draws", "points")} | more)
        row = {r["players"]: r for r in players.iter_rows(named=True)}
        doc.summary.append(
            "With more players the stock is shorter and more hands reach the wall: "
            + ", ".join(f"{p} players {fmt(row[p]['draws'])} draws and {fmt(100 * row[p]['void'])}% void"
                        for p in sorted(row)) + "."
        )
        doc.figure("outcomes_by_players", _players_figure(players), "Two, three and four players",
                   "Outcome mix by number of players (7 cards each for 3-4; every seat plays "
                   f"{experiment.strategies[0]}). With more players the stock is shorter and the wall comes sooner.")
        doc.table("by_players", players, "By number of players", "*_lo and *_hi bound the 95% interval.")
    doc.table("overall", pl.concat([t.with_columns(pl.lit(n).alias("rules")) for n, t in overall.items()]).drop("upcard"),
              "All hands", "The same figures over all upcards.")
    return doc.write()
