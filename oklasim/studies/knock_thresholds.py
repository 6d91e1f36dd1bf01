"""Study: when to knock, by knock limit and by how far the hand has gone.

Every cell of a grid of knock rules (``threshold`` strategy: knock with
deadwood <= T, and only gin after the player's G-th draw) plays the same
deals against a fixed opponent, each deal in both seatings. Two comparisons
come out of it:

* points per hand against the opponent (paired seatings), by knock limit;
* the gain over knocking as soon as legal (the ``asap`` cell), measured on
  the very same deals (common random numbers): hands where both rules act
  alike cancel exactly, so small differences show.

The best cell per knock limit is the policy (``oklasim policy`` prints it).
The grid runs under each undercut bonus listed, to show what the bonus
changes. Options: ``opponent``, ``thresholds``, ``gin_after_draws``,
``undercut_bonuses``, ``games`` / ``quick_games`` (game win rates of the
named presets).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import polars as pl

from ..batch import RunSpec, run as run_batch
from ..experiment import Experiment, provenance
from ..match import match
from ..report import Report
from ..stats import Z95
from .common import fmt

NEVER = 99
DEFAULTS = {
    "opponent": "greedy",
    "thresholds": list(range(11)),
    "gin_after_draws": [NEVER, 3, 5, 7, 9],
    "undercut_bonuses": [10, 25],
    "games": 20_000,
    "quick_games": 400,
    "presets": ["threshold:asap", "threshold:gin_only", "threshold:early_then_gin", "threshold:knock_le_5",
                "threshold:knock_le_3", "threshold:limit_minus_2"],
}
GRID_FILE = "grid.parquet"
GAMES_FILE = "games.csv"
LIMIT_NAMES = {0: "A (gin only)"}


def options(experiment: Experiment) -> dict:
    unknown = set(experiment.options) - set(DEFAULTS)
    if unknown:
        raise ValueError(f"{experiment.source}: unknown option(s) {', '.join(sorted(unknown))}")
    return DEFAULTS | experiment.options


def check(experiment: Experiment) -> None:
    opts = options(experiment)
    if experiment.mode != "hands":
        raise ValueError(f"{experiment.source}: knock_thresholds measures hands: use hands = N")
    if 10 not in opts["thresholds"] or NEVER not in opts["gin_after_draws"]:
        raise ValueError(f"{experiment.source}: the grid must hold the asap cell (threshold 10, gin_after_draws 99)")
    if experiment.base_rules().players != 2:
        raise ValueError(f"{experiment.source}: knock_thresholds is a two-player study")


def cell_strategy(threshold: int, gin_after: int) -> str:
    return f"threshold(threshold={threshold}, gin_after_draws={gin_after})"


def _paired_nets(strategy: str, opponent: str, rules, experiment: Experiment, workers) -> tuple[np.ndarray, np.ndarray]:
    """Per deal: the strategy's net points averaged over both seatings, and the deal's knock limit."""
    nets, limits = [], None
    for seat, seats in enumerate(([strategy, opponent], [opponent, strategy])):
        spec = RunSpec.create(rules, seats, hands=experiment.count, seed=experiment.seed)
        hands = run_batch(spec, None, workers=workers, progress=False).hands
        mine, theirs = (hands["points_0"], hands["points_1"]) if seat == 0 else (hands["points_1"], hands["points_0"])
        nets.append((mine - theirs).to_numpy().astype(np.float64))
        limits = hands["knock_limit"].to_numpy()
    return (nets[0] + nets[1]) / 2, limits


def _aggregate(values: np.ndarray, limits: np.ndarray, prefix: str) -> pl.DataFrame:
    frame = pl.DataFrame({"knock_limit": limits.astype(np.int64), "v": values})
    both = pl.concat([frame, frame.with_columns(pl.lit(-1, dtype=pl.Int64).alias("knock_limit"))])  # -1: all limits
    return both.group_by("knock_limit").agg(
        pl.len().alias("n"), pl.col("v").mean().alias(f"{prefix}"), pl.col("v").std().alias(f"{prefix}_sd")
    )


def _fingerprint(experiment: Experiment) -> str:
    data = asdict(experiment) | {"options": options(experiment)}
    data.pop("source")
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


def run(experiment: Experiment, run_dir: Path, workers) -> None:
    opts = options(experiment)
    fingerprint = _fingerprint(experiment)
    marker = run_dir / "fingerprint.txt"
    if marker.is_file() and marker.read_text() == fingerprint and (run_dir / GRID_FILE).is_file():
        return  # the same grid was measured already
    base = experiment.base_rules()
    parts = []
    for bonus in opts["undercut_bonuses"]:
        rules = base.replace(undercut_bonus=bonus)
        baseline, limits = _paired_nets(cell_strategy(10, NEVER), opts["opponent"], rules, experiment, workers)
        for threshold in opts["thresholds"]:
            for gin_after in opts["gin_after_draws"]:
                if (threshold, gin_after) == (10, NEVER):
                    nets = baseline
                else:
                    nets, _ = _paired_nets(cell_strategy(threshold, gin_after), opts["opponent"], rules, experiment, workers)
                cell = _aggregate(nets, limits, "points").join(
                    _aggregate(nets - baseline, limits, "gain").drop("n"), on="knock_limit"
                )
                parts.append(cell.with_columns(
                    undercut_bonus=pl.lit(bonus), threshold=pl.lit(threshold), gin_after_draws=pl.lit(gin_after)
                ))
    grid = pl.concat(parts).sort("undercut_bonus", "knock_limit", "threshold", "gin_after_draws")
    grid = _with_intervals(grid)
    grid.write_parquet(run_dir / GRID_FILE)
    games = []
    count = opts["quick_games"] if experiment.quick else opts["games"]
    for bonus in opts["undercut_bonuses"]:
        rules = base.replace(undercut_bonus=bonus)
        for preset in opts["presets"]:
            result = match(preset, opts["opponent"], rules, games=count, seed=experiment.seed, workers=workers)
            won = result.a.games_won
            games.append({"undercut_bonus": bonus, "strategy": preset, "games": 2 * count, "win_rate": won.mean,
                          "win_rate_lo": won.low, "win_rate_hi": won.high,
                          "points_per_hand_diff": result.diff_points_per_hand.mean,
                          "diff_lo": result.diff_points_per_hand.low, "diff_hi": result.diff_points_per_hand.high})
    pl.DataFrame(games).write_csv(run_dir / GAMES_FILE)
    marker.write_text(fingerprint)


def _with_intervals(grid: pl.DataFrame) -> pl.DataFrame:
    half = lambda name: Z95 * pl.col(f"{name}_sd").fill_null(0) / pl.col("n").cast(pl.Float64).sqrt()  # noqa: E731
    return grid.with_columns(
        points_lo=pl.col("points") - half("points"), points_hi=pl.col("points") + half("points"),
        gain_lo=pl.col("gain") - half("gain"), gain_hi=pl.col("gain") + half("gain"),
    ).drop("points_sd", "gain_sd")


def advice(threshold: int, gin_after: int, limit: int) -> str:
    """The policy of a cell in words."""
    if limit == 0:
        return "only gin is allowed: hold for gin"
    if threshold == 0:
        return "hold for gin"
    knock = "knock as soon as you can" if threshold >= limit else f"knock with {threshold} or less"
    if gin_after >= NEVER:
        return knock
    return f"{knock} up to your {_ordinal(gin_after)} draw; after that hold for gin"


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def policy_table(grid: pl.DataFrame) -> pl.DataFrame:
    """The recommended cell per undercut bonus and knock limit.

    Knocking at once is the default; another rule replaces it only when its
    gain on the same deals is significant (95% interval above 0), and then
    the one with the largest gain. The best of many noisy cells would
    otherwise chase noise.
    """
    rows = []
    for (bonus, limit), cells in grid.filter(pl.col("knock_limit") >= 0).group_by(
        ["undercut_bonus", "knock_limit"], maintain_order=True
    ):
        significant = cells.filter(pl.col("gain_lo") > 0)
        if significant.height:
            # Thresholds at or above the limit all mean "any legal knock": keep the plainest spelling.
            best = significant.sort(["gain", "gin_after_draws", "threshold"], descending=True).row(0, named=True)
        else:
            best = cells.filter((pl.col("threshold") == 10) & (pl.col("gin_after_draws") == NEVER)).row(0, named=True)
        threshold = min(best["threshold"], limit)
        rows.append({
            "undercut_bonus": bonus, "knock_limit": limit, "threshold": threshold,
            "gin_after_draws": best["gin_after_draws"], "gain_vs_asap": best["gain"], "gain_lo": best["gain_lo"],
            "gain_hi": best["gain_hi"], "points_per_hand": best["points"], "points_lo": best["points_lo"],
            "points_hi": best["points_hi"], "hands": best["n"],
            "advice": advice(threshold, best["gin_after_draws"], limit),
        })
    return pl.DataFrame(rows).sort("undercut_bonus", "knock_limit")


def _heatmap(grid: pl.DataFrame, bonuses: list[int], column: str, title: str):
    fig, axes = plt.subplots(1, len(bonuses), figsize=(6.6 * len(bonuses), 4.4), squeeze=False, layout="constrained")
    for ax, bonus in zip(axes[0], bonuses):
        cells = grid.filter((pl.col("undercut_bonus") == bonus) & (pl.col("gin_after_draws") == NEVER)
                            & (pl.col("knock_limit") >= 0))
        limits = sorted(cells["knock_limit"].unique().to_list())
        thresholds = sorted(cells["threshold"].unique().to_list())
        values = np.full((len(limits), len(thresholds)), np.nan)
        for row in cells.iter_rows(named=True):
            values[limits.index(row["knock_limit"]), thresholds.index(row["threshold"])] = row[column]
        bound = np.nanmax(np.abs(values)) or 1.0
        image = ax.imshow(values, cmap="RdBu", vmin=-bound, vmax=bound, aspect="auto", origin="lower")
        ax.set_xticks(range(len(thresholds)), thresholds)
        ax.set_yticks(range(len(limits)), [LIMIT_NAMES.get(x, str(x)) for x in limits])
        ax.set_xlabel("knock with deadwood <= T")
        ax.set_ylabel("knock limit (upcard)")
        ax.set_title(f"undercut bonus {bonus}")
        fig.colorbar(image, ax=ax, label=title)
    return fig


def _stage_figure(grid: pl.DataFrame, policy: pl.DataFrame, bonus: int):
    fig, ax = plt.subplots(figsize=(7.5, 4))
    for row in policy.filter(pl.col("undercut_bonus") == bonus).iter_rows(named=True):
        limit = row["knock_limit"]
        if limit not in (0, 3, 6, 10):
            continue
        cells = grid.filter((pl.col("undercut_bonus") == bonus) & (pl.col("knock_limit") == limit)
                            & (pl.col("threshold") == max(row["threshold"], 0))).sort("gin_after_draws")
        x = np.arange(cells.height)
        mean = cells["gain"].to_numpy()
        err = np.vstack([mean - cells["gain_lo"].to_numpy(), cells["gain_hi"].to_numpy() - mean])
        ax.errorbar(x + 0.05 * limit, mean, yerr=err, capsize=3, marker="o",
                    label=f"limit {LIMIT_NAMES.get(limit, limit)}, T={row['threshold']}")
        ax.set_xticks(x, ["never" if g >= NEVER else str(g) for g in cells["gin_after_draws"].to_list()])
    ax.axhline(0, color="#888", lw=0.8)
    ax.set_xlabel("only gin after this many own draws")
    ax.set_ylabel("gain over knocking at once (points/hand)")
    ax.set_title(f"Holding for gin late in the hand (undercut bonus {bonus})")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def _summary(policy: pl.DataFrame, bonuses: list[int]) -> list[str]:
    lines = []
    first = bonuses[0]
    for row in policy.filter(pl.col("undercut_bonus") == first).iter_rows(named=True):
        if row["knock_limit"] not in (0, 2, 4, 6, 8, 10):
            continue
        limit = row["knock_limit"]
        upcard = {0: "an ace", 8: "an 8", 10: "a ten or face card"}.get(limit, f"a {limit}")
        if limit == 0:
            lines.append(f"With {upcard} upcard, {row['advice']}.")
            continue
        if row["gain_lo"] > 0:
            tail = (f"+{fmt(row['gain_vs_asap'], 2)} points per hand over knocking at once, "
                    f"95% interval {fmt(row['gain_lo'], 2)} to {fmt(row['gain_hi'], 2)}")
        else:
            tail = "no rule measured beats it by more than chance"
        lines.append(f"With {upcard} upcard: {row['advice']} ({tail}).")
    if len(bonuses) > 1:
        a, b = (policy.filter(pl.col("undercut_bonus") == x).sort("knock_limit") for x in bonuses[:2])
        changed = [str(x) for x, t1, t2, g1, g2 in zip(a["knock_limit"], a["threshold"], b["threshold"],
                                                       a["gin_after_draws"], b["gin_after_draws"]) if (t1, g1) != (t2, g2)]
        lines.append(
            f"With an undercut bonus of {bonuses[1]} instead of {bonuses[0]}, the best rule changes at knock limits "
            f"{', '.join(changed)}." if changed else
            f"With an undercut bonus of {bonuses[1]} instead of {bonuses[0]}, the best rule is the same at every limit."
        )
    return lines


def report(experiment: Experiment, run_dir: Path, report_dir: Path) -> Path:
    opts = options(experiment)
    grid = pl.read_parquet(run_dir / GRID_FILE)
    policy = policy_table(grid)
    games = pl.read_csv(run_dir / GAMES_FILE)
    bonuses = opts["undercut_bonuses"]
    doc = Report(report_dir, experiment.title)
    doc.summary = _summary(policy, bonuses)
    doc.summary.append(f"Measured against {opts['opponent']} on {experiment.count:,} deals per rule, each deal "
                       "played in both seatings; gains are on the very same deals as knocking at once.")
    doc.provenance = provenance(experiment, {}) | {
        "grid": f"thresholds {opts['thresholds']} x gin after draws {opts['gin_after_draws']} "
                f"x undercut bonus {bonuses}, opponent {opts['opponent']}",
    }
    doc.figure("gain_heatmap", _heatmap(grid, bonuses, "gain", "gain over asap (points/hand)"),
               "Gain over knocking at once, by knock limit and threshold",
               "Blue: the rule 'knock with deadwood <= T' scores more per hand than knocking as soon as legal, on the "
               "same deals; red: less. Thresholds at or above the limit are the same rule as knocking at once.")
    doc.figure("points_heatmap", _heatmap(grid, bonuses, "points", "points per hand vs opponent"),
               "Points per hand against the opponent", "Net points per hand of each rule against the fixed opponent.")
    for bonus in bonuses:
        doc.figure(f"stages_{bonus}", _stage_figure(grid, policy, bonus), f"Late in the hand (undercut bonus {bonus})",
                   "At each limit's best threshold: the gain when the player holds for gin after a given draw.")
    for bonus in bonuses:
        doc.table(f"policy_{bonus}", policy.filter(pl.col("undercut_bonus") == bonus),
                  f"Policy table, undercut bonus {bonus}",
                  "The best rule measured per knock limit; gain_* against knocking at once on the same deals, "
                  "points_* against the opponent; *_lo and *_hi bound the 95% interval.")
    doc.table("presets_games", games, "Game win rates of named rules",
              f"Whole games to {experiment.base_rules().target_score} against {opts['opponent']}, both seatings; "
              "Wilson 95% intervals.")
    doc.table("grid", grid, "Every cell of the grid", "knock_limit -1 is all limits together.")
    return doc.write()


def latest_policy(runs_root: Path = Path("runs")) -> tuple[pl.DataFrame, str]:
    """The policy table of the latest full (else quick) knock_thresholds run, else the one shipped."""
    for name in ("knock_thresholds", "knock_thresholds-quick"):
        grid = Path(runs_root) / name / GRID_FILE
        if grid.is_file():
            return policy_table(pl.read_parquet(grid)), str(grid.parent)
    shipped = Path(__file__).resolve().parent.parent / "data" / "knock_policy.csv"
    if not shipped.is_file():
        raise ValueError("no knock_thresholds run found: run 'oklasim run experiments/knock_thresholds.toml' first")
    return pl.read_csv(shipped), f"shipped table ({shipped.name})"
