"""``review``: judge a game's decisions, keeping each in the review file as it ends (an interrupted review goes on
from there)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from oklasim.review.game import PlayedGame
from oklasim.review.judge import REVIEW_SAMPLES, Judgement, judge_all
from oklasim.review.report import Review, judged_before, write_review


def review(game: PlayedGame, samples: int = REVIEW_SAMPLES, seed: int = 0, workers: int | None = None,
           out: str | Path | None = None, progress: Callable[[int, int], None] | None = None) -> Review:
    """Every decision of ``game`` judged (``judge``); with ``out``, the review file kept there after each decision
    and the decisions it holds from an earlier run with the same settings not judged again. ``progress`` is told
    (decisions judged, decisions in all) at the start and after each decision."""
    path = Path(out) if out is not None else None
    done = judged_before(path, game, samples, seed) if path is not None else {}
    judged = dict(done)

    def keep(judgement: Judgement) -> None:
        judged[judgement.number] = judgement
        if path is not None:
            write_review(path, Review(game, tuple(judged[n] for n in sorted(judged)), samples, seed), complete=False)
        if progress is not None:
            progress(len(judged), len(game.decisions))

    if progress is not None:
        progress(len(judged), len(game.decisions))
    result = Review(game, tuple(judge_all(game, samples, seed, workers, done, keep)), samples, seed)
    if path is not None:
        write_review(path, result, complete=True)
    return result
