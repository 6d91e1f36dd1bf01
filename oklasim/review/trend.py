"""The reviewed points lost over a player's games: what each saved game's review file says, game after game."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from oklasim.review.game import PlayedGame
from oklasim.review.report import KINDS, fingerprint

REVIEW_SUFFIX = ".review.json"  # a game's review, written beside it by ``oklasim review``


@dataclass(frozen=True)
class ReviewedGame:
    """The points one game's review found lost, per decision, by kind of decision."""

    file: str
    saved: str  # when the game was last saved (UTC, to the minute): the order of the games over time
    decisions: dict[str, int]  # per kind (``report.KINDS``)
    lost: dict[str, float]

    def per_decision(self, kind: str | None = None) -> float | None:
        kinds = KINDS if kind is None else (kind,)
        made = sum(self.decisions[k] for k in kinds)
        return sum(self.lost[k] for k in kinds) / made if made else None

    def as_dict(self) -> dict:
        return {"file": self.file, "saved": self.saved, "decisions": self.decisions, "points_lost": self.lost,
                "lost_per_decision": self.per_decision()}


def review_of(game_path: Path, played: PlayedGame) -> ReviewedGame | None:
    """The complete review written beside ``game_path`` for this very game (None if there is none, it is
    unfinished, unreadable or was written for another game)."""
    path = game_path.with_name(game_path.stem + REVIEW_SUFFIX)
    try:
        kept = json.loads(path.read_text())
        if not kept.get("complete") or kept.get("fingerprint") != fingerprint(played):
            return None
        by_kind = kept["summary"]["by_kind"]
        decisions = {k: int(by_kind[k]["decisions"]) for k in KINDS}
        lost = {k: float(by_kind[k]["points_lost"]) for k in KINDS}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    saved = datetime.fromtimestamp(game_path.stat().st_mtime, timezone.utc).strftime("%Y-%m-%d %H:%M")
    return ReviewedGame(game_path.name, saved, decisions, lost)
