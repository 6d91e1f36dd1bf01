"""The Gymnasium single-seat environment ``oklasim/OklahomaGin-v0``: ``VectorGin`` with one game.

The same kernel as the batched env, so the two play alike: episode ``e`` after
``reset(seed=s)`` is game ``e`` of seed ``s`` (as in ``simulate``).
"""

from __future__ import annotations

import numpy as np

from ._deps import require
from .episodes import IllegalAction, check_illegal
from .vector import VectorGin

gymnasium = require("gymnasium")


class OklahomaGinEnv(gymnasium.Env):
    """One seat learns (``seat``); the others are played by ``opponent`` (an oklasim strategy spec) in numba.
    Observation ``int8[OBS_SIZE]``; the legal actions in ``info["action_mask"]`` and ``action_masks()``.
    ``illegal``: "raise" (default), "lose" (the episode ends, ``illegal_reward``) or "retry" (refused,
    ``illegal_reward``, the same decision asked again)."""

    metadata = {"render_modes": []}

    def __init__(self, rules=None, opponent="simple", players: int | None = None, seat: int = 0,
                 episode: str = "hand", win_bonus: float = 100.0, illegal: str = "raise",
                 illegal_reward: float = -1.0):
        check_illegal(illegal)
        self.games = VectorGin(1, rules, opponent, players, seat, episode, win_bonus)
        self.illegal, self.illegal_reward = illegal, float(illegal_reward)
        self.observation_space = self.games.single_observation_space
        self.action_space = self.games.single_action_space
        self.over = True

    def reset(self, *, seed: int | None = None, options=None):
        super().reset(seed=seed)
        obs, info = self.games.reset(seed=seed)
        self.over = False
        return obs[0], {"action_mask": info["action_mask"][0]}

    def step(self, action):
        if self.over:
            raise gymnasium.error.ResetNeeded("the episode is over: call reset()")
        mask = self.games.masks[0]
        if not (0 <= int(action) < len(mask) and mask[int(action)]) and self.illegal != "raise":
            info = {"action_mask": mask.copy(), "illegal": int(action)}
            if self.illegal == "retry":
                return self.games.obs[0].copy(), self.illegal_reward, False, False, info
            self.over = True  # "lose": the game is abandoned; the next reset() deals the slot's next one
            return self.games.obs[0].copy(), self.illegal_reward, True, False, info
        obs, rewards, terminated, truncated, info = self.games.step(np.array([action]))
        self.over = bool(terminated[0] or truncated[0])
        return obs[0], float(rewards[0]), bool(terminated[0]), bool(truncated[0]), {"action_mask": info["action_mask"][0]}

    def action_masks(self) -> np.ndarray:
        return self.games.masks[0].copy()

    @property
    def board(self) -> np.ndarray:
        """The game's board (its learner's view row: ``board[seat]``), for oklasim strategies as policies."""
        return self.games.boards[0]


__all__ = ["OklahomaGinEnv", "IllegalAction"]
