"""Without a history: the opponent's latest turn, rebuilt from the position, weighs the worlds.

The rebuilding is the engine-side kernel's (``advise_latest_nb``), which the
``mc`` and ``search`` strategies use too: one model of a position told
without its history, wherever it is asked.
"""

from __future__ import annotations

import numpy as np

from oklasim._kernels import advise_latest_nb as K
from oklasim.advise.position import Position


def last_turn_evidence(position: Position, view: np.ndarray, opponent_draws: int) -> tuple | None:
    """``(prior, turns, snapshots)`` for the opponent's latest turn (``advise_latest_nb.latest_turn_nb``): the
    prior of its hand before that turn and the turn's evidence; None when there is none to weigh."""
    turns, snapshots = K.new_latest_evidence_nb()
    if not K.latest_turn_nb(view, position.kind, opponent_draws, turns, snapshots):
        return None
    return K.latest_turn_prior_nb(view, opponent_draws), turns, snapshots
