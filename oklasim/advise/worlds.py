"""Which worlds are sampled: the prior over the opponent's hand, as the kernel's ``[draws, flags, last discard]``."""

from __future__ import annotations

import numpy as np

from .._kernels import advise_worlds_nb as W
from .._kernels import layout as L
from .position import FIRST_STOCK, Position

PRIORS = ("played", "uniform")


def world_prior(position: Position, prior: str, opponent_draws: int | None = None) -> np.ndarray:
    """The kernel's ``[draws, flags, last discard]`` for a prior (see ``advise_worlds_nb.sample_world_nb``)."""
    if prior == "uniform":
        return np.array([-1, 0, -1], dtype=np.int64)
    draws = estimated_opponent_draws(position) if opponent_draws is None else int(opponent_draws)
    last = L.NO_CARD
    if draws > 0 or position.opponent_known:  # the opponent has played a turn: its discard is the last card
        if position.took is not None:
            last = position.took
        elif position.pile:
            last = position.pile[-1]
    return np.array([draws, W.PRIOR_PLAYED, last], dtype=np.int64)


def estimated_opponent_draws(position: Position) -> int:
    """The opponent's stock draws this hand, if the turns so far alternated (your own pile takes unknown)."""
    stock_draws = FIRST_STOCK - position.stock
    if position.moment == "after_draw" and position.took is None:
        stock_draws -= 1  # your draw of this turn
    turns = stock_draws + position.opponent_known.bit_count()
    return max((turns + 1) // 2 - position.opponent_known.bit_count(), 0)
