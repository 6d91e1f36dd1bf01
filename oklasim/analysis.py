"""Tables from hand and game records, every figure with its 95% interval."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from ._kernels.layout import OUTCOME_NAMES
from .stats import mean_ci, proportion


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
