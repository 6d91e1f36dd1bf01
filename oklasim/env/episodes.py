"""What every environment of the package shares: the rules of an episode, zero-sum rewards, illegal actions."""

from __future__ import annotations

import numpy as np

from oklasim.errors import OklasimError
from oklasim.game.rules import Rules
from oklasim.sim.engine import kernel_rules

EPISODES = ("hand", "game")
ILLEGAL = ("raise", "lose", "retry")


class IllegalAction(OklasimError):
    """An action the step machine does not accept from this agent now."""


def check_illegal(illegal: str) -> None:
    if illegal not in ILLEGAL:
        raise OklasimError(f"illegal must be one of {ILLEGAL}, got {illegal!r}")


class EpisodeRules:
    """The rules as an episode plays them: a hand episode is a game of one hand, as ``simulate(hands=...)`` plays
    it (``kernel_rules``: the bonuses are never read). What ``GameBoard`` needs of a ``Rules``."""

    def __init__(self, rules, players: int | None, episode: str):
        if episode not in EPISODES:
            raise OklasimError(f"episode must be one of {EPISODES}, got {episode!r}")
        rules = Rules.of(rules)
        if players is not None and players != rules.players:
            rules = rules.replace(players=players)
        self.rules, self.players = rules, rules.players
        self.packed = kernel_rules(rules, episode == "hand")

    def to_array(self) -> np.ndarray:
        return self.packed.copy()


def zero_sum(points, players: int) -> np.ndarray:
    """Each seat's points less the mean of the others' (the kernels' ``zero_sum_nb``)."""
    points = np.asarray(points[:players], dtype=np.float64)
    return points - (points.sum() - points) / (players - 1)
