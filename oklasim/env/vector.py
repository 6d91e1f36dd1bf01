"""N games stepped at once in numba, one seat learning: ``VectorGin``, a ``gymnasium.vector.VectorEnv``.

One call of ``env_vector_nb.vector_step_nb`` plays every game's learner action and
then the other seats (oklasim strategies, in the kernel) until the learner is
asked again: no Python loop over games. Game slot ``j`` plays the games
``(j << 32) + e`` of the seed, ``e = 0, 1, ...`` its episodes, so a slot's
trajectory never depends on how many slots run beside it, and slot 0 plays
games ``0, 1, ...``: those of ``simulate`` with the same seed.
"""

from __future__ import annotations

import numba
import numpy as np

from oklasim._kernels import engine_nb as E
from oklasim._kernels import env_vector_nb as K
from oklasim._kernels import layout as L
from oklasim._kernels.linking import DECIDE_SIGNATURE, entry_point
from oklasim.errors import OklasimError
from oklasim.sim.engine import DECISION_NAMES, raise_illegal, resolve_all, seat_arguments, stream_key

from . import spaces
from ._deps import require
from .episodes import EpisodeRules, IllegalAction

gymnasium = require("gymnasium")
from gymnasium.vector import AutoresetMode  # noqa: E402 - after the clear message of a missing dependency
from numba.core.types.function_type import WrapperAddressProtocol  # noqa: E402

RECORD_ROOM = 8  # hand records a game may finish in one step, with room (more stop the step with an error)


class CompiledDecider(WrapperAddressProtocol):
    """A strategy's compiled decision kernel as a first-class function of known address. numba unboxes a
    dispatcher passed to a kernel by looking its compilation up on every call (about 0.1 ms each: most of a
    step of few games); this object hands over the address found once."""

    def __init__(self, dispatcher):
        self.result = dispatcher.get_compile_result(DECIDE_SIGNATURE)  # compiles (or loads) it; kept alive here
        self.address = self.result.library.get_pointer_to_function(self.result.fndesc.llvm_cfunc_wrapper_name)

    def __wrapper_address__(self) -> int:
        return self.address

    def signature(self):
        return DECIDE_SIGNATURE


def seat_strategies(opponent, players: int, seat: int):
    """Every seat's strategy: the opponents' (one spec for all, or one per other seat in table order); the
    learner's seat holds the first opponent's, never asked."""
    specs = [opponent] if isinstance(opponent, str) or not hasattr(opponent, "__len__") else list(opponent)
    others = resolve_all(specs, players - 1)
    return others[:seat] + (others[0],) + others[seat:]


class VectorGin(gymnasium.vector.VectorEnv):
    """``num_envs`` games of Oklahoma Gin, the learner in seat ``seat`` of each, the others played by
    ``opponent`` (a strategy spec, e.g. "simple", "expert", or one per other seat).

    Observations are ``int8[num_envs, OBS_SIZE]``; the legal actions are ``infos["action_mask"]`` (``int8[num_envs,
    N_ACTIONS]``, also ``action_masks()``). Rewards, episodes and the illegal-action error are the AEC env's
    (``episode="hand"`` or ``"game"``, zero-sum real points). An illegal action raises before any game moves.
    ``record_hands=True`` keeps every finished hand's engine record (``hand_records()``). ``copy=False``
    (as gymnasium's ``SyncVectorEnv``) returns the env's own observation, mask and reward buffers, overwritten by
    the next step, instead of copies. A game over before the
    learner is asked anything (an opponent took the first upcard and knocked at once) is played and recorded but
    is no episode: the slot goes on to its next game. Rewards met before the learner's first decision of an
    episode (a game episode's first hands) are paid with its first step."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, num_envs: int, rules=None, opponent="simple", players: int | None = None, seat: int = 0,
                 episode: str = "hand", win_bonus: float = 100.0, autoreset_mode=AutoresetMode.NEXT_STEP,
                 first_slot: int = 0, record_hands: bool = False, copy: bool = True):
        self.rules = EpisodeRules(rules, players, episode)
        n = self.num_envs = int(num_envs)
        if n < 1:
            raise OklasimError(f"num_envs must be at least 1, got {num_envs}")
        if not 0 <= seat < self.rules.players:
            raise OklasimError(f"seat must be 0..{self.rules.players - 1}, got {seat}")
        self.autoreset_mode = AutoresetMode(autoreset_mode)
        if self.autoreset_mode not in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
            raise OklasimError(f"autoreset_mode must be NEXT_STEP or SAME_STEP, got {autoreset_mode}")
        self.metadata = {**self.metadata, "autoreset_mode": self.autoreset_mode}
        self.seat, self.win_bonus = seat, float(win_bonus) if episode == "game" else 0.0
        self.strategies = seat_strategies(opponent, self.rules.players, seat)
        deciders, self.params = seat_arguments(self.strategies)
        if numba.config.DISABLE_JIT:  # plain Python: the functions themselves
            self.deciders = deciders
        else:
            compiled = {id(d): CompiledDecider(d) for d in deciders}
            self.deciders = tuple(compiled[id(d)] for d in deciders)
        self.kernel = entry_point(K.vector_step_nb)
        self.single_observation_space = gymnasium.spaces.Box(0, spaces.OBS_HIGH, (spaces.OBS_SIZE,), np.int8)
        self.single_action_space = gymnasium.spaces.Discrete(spaces.N_ACTIONS)
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, n)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, n)
        self.boards = np.zeros((n, L.BOARD_ROWS, L.V_SIZE), dtype=np.int64)
        self.states = np.zeros((n, K.GS_FIELDS), dtype=np.int64)
        self.game_records = np.zeros((n, L.N_GAME_FIELDS), dtype=np.int64)
        self.carry = np.zeros(n, dtype=np.float64)
        self.obs = np.zeros((n, spaces.OBS_SIZE), dtype=np.int8)
        self.masks = np.zeros((n, spaces.N_ACTIONS), dtype=np.int8)
        self.final_obs = np.zeros((n, spaces.OBS_SIZE), dtype=np.int8)
        self.rewards = np.zeros(n, dtype=np.float64)
        self.terminated = np.zeros(n, dtype=np.int8)
        self.truncated = np.zeros(n, dtype=np.int8)
        self.ended = np.zeros(n, dtype=bool)
        self.status = np.zeros(K.VS_STATUS_SIZE, dtype=np.int64)
        self.record_hands = record_hands
        self.out = np.copy if copy else (lambda array: array)
        self.hand_out = np.zeros((n * RECORD_ROOM + L.MAX_HANDS_PER_GAME if record_hands else 0, L.N_HAND_FIELDS),
                                 dtype=np.int64)
        self.records: list[np.ndarray] = []
        slots = np.arange(first_slot, first_slot + n, dtype=np.int64)
        K.setup_step(self.boards, self.rules.to_array(), slots, self.states)
        self.key = None

    # -- the VectorEnv API -------------------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options=None):
        """Every game starts an episode: episode 0 of each slot under a new ``seed``; without one, each slot's
        next (a fresh random seed the first time)."""
        if seed is not None or self.key is None:
            seed = int(np.random.SeedSequence().entropy % 2**63) if seed is None else seed
            self.key = stream_key(seed)
            self.states[:, K.GS_EPISODE] = 0
        else:
            self.states[:, K.GS_EPISODE] += self.states[:, K.GS_KIND] != L.D_NONE  # a game left unfinished
        self._run(np.zeros(self.num_envs, dtype=np.int64), np.ones(self.num_envs, dtype=np.int8))
        return self.out(self.obs), {"action_mask": self.out(self.masks)}

    def step(self, actions):
        """Play each game's action (ignored where the previous step ended an episode, under next-step autoreset)."""
        if self.key is None:
            raise OklasimError("call reset() before step()")
        actions = np.ascontiguousarray(actions, dtype=np.int64).reshape(self.num_envs)
        starting = self.ended.astype(np.int8) if self.autoreset_mode == AutoresetMode.NEXT_STEP else \
            np.zeros(self.num_envs, dtype=np.int8)
        self._run(actions, starting)
        terminated, truncated = self.terminated.astype(bool), self.truncated.astype(bool)
        self.ended = terminated | truncated
        infos = {"action_mask": self.out(self.masks)}
        if self.autoreset_mode == AutoresetMode.SAME_STEP and self.ended.any():
            infos["final_obs"], infos["_final_obs"] = self.out(self.final_obs), self.ended.copy()
        return self.out(self.obs), self.out(self.rewards), terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """The legal actions of every game now (``int8[num_envs, N_ACTIONS]``)."""
        return self.masks.copy()

    def hand_records(self) -> np.ndarray:
        """The engine's record of every hand finished so far (``record_hands=True``), in the order finished."""
        return np.concatenate(self.records) if self.records else np.zeros((0, L.N_HAND_FIELDS), dtype=np.int64)

    def view(self, game: int) -> np.ndarray:
        """The learner's view row in game ``game`` (an oklasim strategy decides on it: ``spaces.strategy_action``)."""
        return self.boards[game, self.seat]

    def decisions(self) -> np.ndarray:
        """The decision (``layout.D_*``) each game's learner is asked, D_NONE where its episode is over."""
        return self.states[:, K.GS_KIND].copy()

    # -- the kernel --------------------------------------------------------------------------------------------

    def _run(self, actions: np.ndarray, starting: np.ndarray) -> None:
        self.status[:] = 0
        code = self.kernel(*self.deciders, self.params, self.key, self.seat, self.win_bonus,
                           int(self.autoreset_mode == AutoresetMode.SAME_STEP), self.boards, self.states,
                           self.game_records, self.carry, actions, starting, self.obs, self.masks, self.rewards,
                           self.terminated, self.truncated, self.final_obs, self.hand_out, self.status)
        if self.record_hands:
            count = int(self.status[K.VS_HANDS_OUT])
            if count == self.hand_out.shape[0]:
                raise OklasimError("more hands finished in one step than the records hold")
            self.records.append(self.hand_out[:count].copy())
        if code != L.E_NONE:
            self._raise(actions)

    def _raise(self, actions: np.ndarray) -> None:
        game, seat, kind, answer = (int(v) for v in self.status[K.VS_ERROR_GAME : K.VS_ERROR_ANSWER + 1])
        if seat != self.seat:  # an opponent strategy's bug: the engine's own message
            status = np.zeros(E.STATUS_SIZE, dtype=np.int64)
            error = self.boards[game, L.HIDDEN, L.S_ERROR : L.S_ERROR + L.ERROR_FIELDS]
            status[E.ST_ERROR : E.ST_ERROR + L.ERROR_FIELDS] = error
            raise_illegal(status, self.strategies, 0)
        asked = "nothing (its episode is over: step it with the reset flag)" if kind == L.D_NONE else \
            f"'{DECISION_NAMES[kind]}'"
        legal = spaces.legal_names(self.masks[game])
        raise IllegalAction(f"game {game}: action {answer} ({spaces.action_name(answer)}) is not legal; the learner "
                            f"is asked {asked}; legal: {legal}")
