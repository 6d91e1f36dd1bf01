"""Review a played game: each decision of one seat judged by the advisor against the opponent actually played.

>>> from oklasim.review import bot_game, review                                   # doctest: +SKIP
>>> reviewed = review(bot_game(Rules(), ["expert", "simple"], seed=3, game=0, seat=0))  # doctest: +SKIP
>>> print("\\n".join(reviewed.lines()))                                           # doctest: +SKIP

The package: ``game`` (a saved game or a run's game replayed, its decisions), ``judge`` (the advisor's verdict on
each), ``report`` (the summary and the review file), ``stats`` (a player's statistics over saved games).
"""

from oklasim import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {
    "PlayedGame": "game", "bot_game": "game", "run_game": "game", "saved_game": "game",
    "Judgement": "judge", "REVIEW_SAMPLES": "judge",
    "Review": "report", "review": "reviewing",
})

__all__ = ["REVIEW_SAMPLES", "Judgement", "PlayedGame", "Review", "bot_game", "review", "run_game", "saved_game"]
