"""The action ids and the observation of one seat, from Python (the kernels are in ``_kernels/env_nb.py``).

Shared by every environment of the package: the AEC env and the strategies-as-policies bridge call these on a
``GameBoard``'s rows; the batched env calls the same kernels in numba.
"""

from __future__ import annotations

import numpy as np

from oklasim._kernels import env_nb as K
from oklasim._kernels import layout as L
from oklasim._kernels.linking import entry_point
from oklasim.game.cards import format_card, format_hand
from oklasim.strategies.registry import Strategy

N_ACTIONS = K.N_ACTIONS
ENCODING_VERSION = K.ENCODING_VERSION
OBS_SIZE = K.OBS_SIZE
OBS_HIGH = K.OBS_HIGH


def observe(view: np.ndarray, kind: int) -> tuple[np.ndarray, np.ndarray]:
    """(observation int8[OBS_SIZE], action mask int8[N_ACTIONS]) of the seat whose row is ``view``, asked ``kind``
    (``layout.D_*``; ``D_NONE`` for a seat not asked: its mask is all 0)."""
    obs = np.empty(OBS_SIZE, dtype=np.int8)  # the kernel writes every byte
    mask = np.empty(N_ACTIONS, dtype=np.int8)
    entry_point(K.observe_step)(np.ascontiguousarray(view, dtype=np.int64), int(kind), obs, mask)
    return obs, mask


def answer_of(kind: int, action: int) -> int | None:
    """The step machine's answer to decision ``kind`` that ``action`` stands for; None if it answers another."""
    answer = entry_point(K.answer_step)(int(kind), int(action))
    return None if answer == K.NO_ANSWER else answer


def action_of(kind: int, answer: int) -> int:
    """The action id of the step machine's ``answer`` to decision ``kind`` (what a strategy's decide returned)."""
    action = entry_point(K.action_step)(int(kind), int(answer))
    if action < 0:
        raise ValueError(f"{answer} answers no decision {kind}")
    return action


def strategy_action(strategy: Strategy, view: np.ndarray, kind: int) -> int:
    """The action an oklasim strategy takes, deciding on the seat's own row (its memory and random stream live
    there, as in the engine)."""
    return action_of(kind, strategy.decide(int(kind), view, strategy.vector()))


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of ``masks`` (``int8[n, N_ACTIONS]``, 1 legal), 0 for a row with
    none (a game whose episode ended: its action is ignored). Vectorised: one pass to find the legal actions, so
    that a random baseline costs little beside a batched env's step."""
    masks = np.asarray(masks, dtype=np.int8).reshape(-1, N_ACTIONS)
    legal = np.flatnonzero(masks.view(np.bool_))  # (row, action) pairs in row order, as flat indices
    counts = np.bincount(legal // N_ACTIONS, minlength=len(masks))
    pick = np.cumsum(counts) - counts + (rng.random(len(masks)) * counts).astype(np.int64)
    has = counts > 0
    actions = np.zeros(len(masks), dtype=np.int64)
    actions[has] = legal[pick[has]] % N_ACTIONS
    return actions


def action_name(action: int) -> str:
    """``action`` in words: "pass", "take", "stock", "pile", "discard 7h", "knock 7h", "big gin", "play on",
    "arrangement 2", "wait"."""
    action = int(action)
    fixed = {K.A_PASS: "pass", K.A_TAKE: "take", K.A_STOCK: "stock", K.A_PILE: "pile", K.A_BIG_GIN: "big gin",
             K.A_PLAY_ON: "play on", K.A_WAIT: "wait"}
    if action in fixed:
        return fixed[action]
    if K.A_DISCARD <= action < K.A_DISCARD + 52:
        return f"discard {format_card(action - K.A_DISCARD)}"
    if K.A_KNOCK <= action < K.A_KNOCK + 52:
        return f"knock {format_card(action - K.A_KNOCK)}"
    if K.A_ARRANGE <= action < K.A_WAIT:
        return f"arrangement {action - K.A_ARRANGE}"
    return f"{action} (no action)"


def legal_names(mask: np.ndarray) -> str:
    """The legal set of a mask, in words and ids, for error messages."""
    ids = np.flatnonzero(mask)
    return ", ".join(f"{a} ({action_name(a)})" for a in ids) or "none"


def card_plane(obs: np.ndarray, plane: int) -> str:
    """A card plane of an observation as cards (for reading and tests)."""
    return format_hand(int(sum(1 << int(c) for c in np.flatnonzero(obs[plane * 52 : plane * 52 + 52]))))


DECISION_OF_ACTION = np.full(N_ACTIONS, -1, dtype=np.int64)  # the decision each action answers
DECISION_OF_ACTION[[K.A_PASS, K.A_TAKE]] = L.D_TAKE_UPCARD
DECISION_OF_ACTION[[K.A_STOCK, K.A_PILE]] = L.D_DRAW
DECISION_OF_ACTION[K.A_DISCARD : K.A_DISCARD + 52] = L.D_DISCARD
DECISION_OF_ACTION[K.A_KNOCK : K.A_PLAY_ON + 1] = L.D_KNOCK
DECISION_OF_ACTION[K.A_ARRANGE : K.A_WAIT] = L.D_ARRANGE
