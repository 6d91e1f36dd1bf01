"""The opponents people choose by level (beginner to champion): each a shipped strategy, placed by a measured rating.

The levels and their ratings come from the ladder study (``oklasim run ladder``: games to 100 on paired deals, a
Bradley-Terry rating with intervals); its ``levels.csv`` ships as ``oklasim/studies/data/levels.csv``. Any
strategy's own name stays a valid opponent.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import oklasim.studies

SHIPPED = Path(oklasim.studies.__file__).resolve().parent / "data" / "levels.csv"


@dataclass(frozen=True)
class Level:
    name: str
    strategy: str
    rating: float  # Elo points, the ladder's entrants averaging 0
    low: float
    high: float

    @property
    def label(self) -> str:
        """'club (simple, rating -36 [-47, -26])'."""
        return f"{self.name} ({self.strategy}, rating {self.shown})"

    @property
    def shown(self) -> str:
        """The rating and its interval in whole Elo points: '-36 [-47, -26]' (no '-0')."""
        return f"{round(self.rating):+d} [{round(self.low):+d}, {round(self.high):+d}]"


@cache
def levels() -> tuple[Level, ...]:
    """The shipped levels, weakest first."""
    with SHIPPED.open(newline="", encoding="utf-8") as rows:
        return tuple(Level(r["level"], r["strategy"], float(r["rating"]), float(r["rating_lo"]),
                           float(r["rating_hi"])) for r in csv.DictReader(rows))


def level_names() -> list[str]:
    return [level.name for level in levels()]


def opponent(name: str) -> tuple[str, str]:
    """The strategy a level (or a strategy's own name) stands for, and how to name that opponent at the table."""
    for level in levels():
        if level.name == name:
            return level.strategy, f"{level.name} ({level.strategy})"
    return name, name
