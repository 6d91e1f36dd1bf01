"""Tables from hand and game records, every figure with its 95% interval: for the terminal, the reports of
plain runs and the studies."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from oklasim._kernels.layout import OUTCOME_NAMES
from oklasim.analysis.stats import Z95, mean_ci, proportion, wilson

RANK_ORDER = list("A23456789TJQK")
UPCARD_OUTCOMES = ("knock", "gin", "undercut", "void")  # from the players' side: big gin counts as gin, guard as void


def outcome_mix(hands: pl.DataFrame) -> dict[str, object]:
    """Share of hands ending in each outcome, as Estimates (Wilson intervals)."""
    n = hands.height
    counts = dict(hands.group_by("outcome").len().iter_rows())
    return {name: proportion(int(counts.get(name, 0)), n) for name in OUTCOME_NAMES if counts.get(name)}


def seat_table(hands: pl.DataFrame, games: pl.DataFrame | None, labels: Sequence[str]) -> list[dict[str, object]]:
    """Per seat: points per hand, hands won, knocks, gins, undercuts suffered/made, games won."""
    rows = []
    n = hands.height
    for seat, label in enumerate(labels):
        knocked = hands.filter(pl.col("knocker") == seat)
        row = {
            "seat": seat,
            "strategy": label,
            "points_per_hand": mean_ci(hands[f"points_{seat}"].to_numpy()),
            "hands_won": proportion(int((hands["winner"] == seat).sum()), n),
            "knocks": proportion(knocked.height, n),
            "gins": proportion(int(knocked["outcome"].is_in(["gin", "big_gin"]).sum()), n),
            "undercut_when_knocking": proportion(int((knocked["outcome"] == "undercut").sum()), knocked.height),
        }
        if games is not None:
            row["games_won"] = proportion(int((games["winner"] == seat).sum()), games.height)
        rows.append(row)
    return rows


def run_summary(hands: pl.DataFrame, games: pl.DataFrame | None, labels: Sequence[str]) -> str:
    """A plain-text summary of a run for the terminal."""
    lines = [f"{hands.height:,} hands" + (f" in {games.height:,} games" if games is not None else "")]
    mix = ", ".join(f"{name} {est.text(1, percent=True)}" for name, est in outcome_mix(hands).items())
    lines.append(f"outcomes: {mix}")
    lines.append(f"draws per hand: {mean_ci(hands['draws'].to_numpy()).text(2)}")
    header = f"{'seat':<5}{'strategy':<28}{'points/hand':>16}{'hands won':>18}{'undercut when knocking':>26}"
    if games is not None:
        header += f"{'games won':>18}"
    lines.append(header)
    for row in seat_table(hands, games, labels):
        text = (
            f"{row['seat']:<5}{row['strategy'][:27]:<28}{row['points_per_hand'].text(2):>16}"
            f"{row['hands_won'].text(1, True):>18}{row['undercut_when_knocking'].text(1, True):>26}"
        )
        if games is not None:
            text += f"{row['games_won'].text(1, True):>18}"
        lines.append(text)
    return "\n".join(lines)


def with_rank(hands: pl.DataFrame) -> pl.DataFrame:
    """Add the upcard's rank (A..K) and suit as columns."""
    return hands.with_columns(
        upcard_rank=pl.col("upcard").str.slice(0, 1),
        upcard_suit=pl.col("upcard").str.slice(1, 1),
    )


def group_means(frame: pl.DataFrame, by: list[str], values: dict[str, pl.Expr]) -> pl.DataFrame:
    """Mean of each expression per group with 95% normal intervals: NAME, NAME_lo, NAME_hi."""
    aggs = [pl.len().alias("n")]
    for name, expr in values.items():
        aggs += [expr.cast(pl.Float64).mean().alias(name), expr.cast(pl.Float64).std().alias(f"_{name}_sd")]
    out = frame.group_by(by).agg(aggs)
    for name in values:
        half = Z95 * pl.col(f"_{name}_sd") / pl.col("n").cast(pl.Float64).sqrt()
        out = out.with_columns((pl.col(name) - half).alias(f"{name}_lo"), (pl.col(name) + half).alias(f"{name}_hi"))
        out = out.drop(f"_{name}_sd")
    return out


def group_shares(frame: pl.DataFrame, by: list[str], conditions: dict[str, pl.Expr]) -> pl.DataFrame:
    """Share of rows meeting each condition per group, with Wilson intervals: NAME, NAME_lo, NAME_hi."""
    counts = frame.group_by(by).agg([pl.len().alias("n")] + [c.sum().alias(name) for name, c in conditions.items()])
    rows = []
    for row in counts.iter_rows(named=True):
        out = {key: row[key] for key in by} | {"n": row["n"]}
        for name in conditions:
            low, high = wilson(int(row[name]), int(row["n"]))
            out |= {name: row[name] / row["n"], f"{name}_lo": low, f"{name}_hi": high}
        rows.append(out)
    return pl.DataFrame(rows)


def rank_sorted(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.with_columns(pl.col("upcard_rank").cast(pl.Enum(RANK_ORDER))).sort("upcard_rank")


DEALER_EDGE = (
    pl.when(pl.col("dealer") == 0)
    .then(pl.col("points_0") - pl.col("points_1"))
    .otherwise(pl.col("points_1") - pl.col("points_0"))
)
PLAYER_OUTCOMES = {o: pl.col("outcome").is_in([o, "big_gin"] if o == "gin" else [o, "guard"] if o == "void" else [o])
                   for o in UPCARD_OUTCOMES}


def by_upcard(hands: pl.DataFrame, key: str = "upcard_rank") -> pl.DataFrame:
    """One row per upcard rank (or suit): outcome shares, draws, points, pick-ups, dealer edge."""
    hands = with_rank(hands)
    shares = group_shares(
        hands,
        [key],
        PLAYER_OUTCOMES
        | {
            "taken_by_non_dealer": pl.col("first_taker") == 1 - pl.col("dealer"),
            "taken_by_dealer": pl.col("first_taker") == pl.col("dealer"),
        },
    )
    means = group_means(hands, [key], {"draws": pl.col("draws"), "points": pl.col("points"), "dealer_edge": DEALER_EDGE})
    return shares.join(means.drop("n"), on=key)
