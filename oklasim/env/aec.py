"""The PettingZoo AEC environment: every seat an agent, the game refereed by the engine's step machine.

``raw_env`` drives a ``GameBoard`` (game ``g`` of a seed, dealt as ``simulate``
deals it) and shows each agent its own view row through ``spaces.observe``.
Two turn orders:

* natural (default): the agent selected is the seat the step machine asks; a
  turn is several steps (draw, then knock or discard);
* ``cycles=True``: the agents step in a fixed round, each once per cycle, and
  a cycle holds one decision, of the seat asked when it began; every other
  agent has one legal action, ``A_WAIT``, and an episode ends when its cycle
  closes. This is the order PettingZoo's parallel API needs
  (``parallel_env``), at the cost of the waiting steps.
"""

from __future__ import annotations

import numpy as np

from oklasim._kernels import env_nb as K
from oklasim._kernels import layout as L
from oklasim.errors import OklasimError
from oklasim.game.cards import format_card, format_hand
from oklasim.sim.board import GameBoard

from . import spaces
from ._deps import require
from .episodes import EpisodeRules, IllegalAction, check_illegal, zero_sum

gymnasium = require("gymnasium")
pettingzoo = require("pettingzoo")
from pettingzoo.utils import wrappers  # noqa: E402 - after the clear message of a missing dependency
from pettingzoo.utils.conversions import aec_to_parallel  # noqa: E402

def open_episode(env: pettingzoo.AECEnv) -> None:
    """PettingZoo's bookkeeping of a fresh episode: every agent in play, no reward, no end, no info."""
    env.agents = env.possible_agents[:]
    env.rewards = dict.fromkeys(env.agents, 0.0)
    env._cumulative_rewards = dict.fromkeys(env.agents, 0.0)
    env.terminations = dict.fromkeys(env.agents, False)
    env.truncations = dict.fromkeys(env.agents, False)
    env.infos = {agent: {} for agent in env.agents}


class raw_env(pettingzoo.AECEnv):  # noqa: N801 - PettingZoo's name for the unwrapped env
    """Oklahoma Gin for 2-4 agents ``player_0..``. Rewards are real points, zero-sum: each hand's points less
    the mean of the others' (``episode="hand"``: one hand; ``"game"``: every hand of a game to the target, then
    the rules' box, game and shutout bonuses and ``win_bonus`` to the winner, shared the same way).

    ``illegal``: "raise" (``IllegalAction`` naming the action and the legal set; the board unchanged), "lose"
    (the episode ends: the offender gets ``illegal_reward``, the others share its opposite) or "retry" (refused
    with ``illegal_reward``, the same decision asked again). ``max_cycles`` truncates the episode after that many
    steps (cycles of every agent in the cycle order). ``board`` is the ``GameBoard``: ``board.asked`` the
    pending (seat, decision), ``board.view(seat)`` a seat's row, ``board.records`` the hands' engine records."""

    metadata = {"name": "oklahoma_gin_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, rules=None, players: int | None = None, episode: str = "hand", illegal: str = "raise",
                 illegal_reward: float = -1.0, win_bonus: float = 100.0, cycles: bool = False,
                 max_cycles: int | None = None, render_mode: str | None = None):
        super().__init__()
        check_illegal(illegal)
        if render_mode not in (None, "ansi"):
            raise OklasimError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.rules = EpisodeRules(rules, players, episode)
        self.episode, self.illegal, self.illegal_reward = episode, illegal, float(illegal_reward)
        self.win_bonus = float(win_bonus) if episode == "game" else 0.0
        self.cycles, self.max_cycles, self.render_mode = cycles, max_cycles, render_mode
        self.metadata = {**self.metadata, "is_parallelizable": bool(cycles)}
        self.possible_agents = [f"player_{s}" for s in range(self.rules.players)]
        self.seat_of = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self.shown: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # each agent's (observation, mask) of the board now
        obs_space = gymnasium.spaces.Dict({
            "observation": gymnasium.spaces.Box(0, spaces.OBS_HIGH, (spaces.OBS_SIZE,), np.int8),
            "action_mask": gymnasium.spaces.Box(0, 1, (spaces.N_ACTIONS,), np.int8),
        })
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = {a: gymnasium.spaces.Discrete(spaces.N_ACTIONS) for a in self.possible_agents}
        self.seed, self.game = None, -1
        self.board: GameBoard | None = None

    def observation_space(self, agent):  # noqa: D102
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # -- what each agent sees ----------------------------------------------------------------------------------

    def observe(self, agent):
        obs, mask = self._shown(agent)
        return {"observation": obs.copy(), "action_mask": mask.copy()}

    def _shown(self, agent) -> tuple[np.ndarray, np.ndarray]:
        """The agent's observation and mask, encoded once per state of the game (``step`` and ``reset`` forget
        them): an agent loop reads the mask of the agent selected twice a step."""
        shown = self.shown.get(agent)
        if shown is None:
            seat = self.seat_of[agent]
            asked = self._pending()
            kind = asked[1] if asked is not None and asked[0] == seat else L.D_NONE
            shown = spaces.observe(self.board.view(seat), kind)
            if self.cycles and kind == L.D_NONE:  # not asked, or the game over and the cycle not yet closed
                shown[1][K.A_WAIT] = 1
            self.shown[agent] = shown
        return shown

    # -- playing -----------------------------------------------------------------------------------------------

    def reset(self, seed=None, options=None):
        """A new episode: game 0 of ``seed``, or the next game of the seed already given (a fresh random seed at
        first), so that episodes ``0, 1, ...`` of a seed are games ``0, 1, ...`` of ``simulate`` with that seed."""
        if seed is not None:
            self.seed, self.game = int(seed), 0
        else:
            if self.seed is None:
                self.seed = int(np.random.SeedSequence().entropy % 2**63)
            self.game += 1
        self.board = GameBoard(self.rules, self.seed, self.game, events=False)
        self.shown = {}
        open_episode(self)
        self.steps = 0
        self.ending = None  # the cycle order ends an episode when its cycle closes: "terminations" or "truncations"
        self._advance()
        self.decider = self.board.asked[0] if self.board.asked else None  # the seat deciding in this cycle
        self.agent_selection = self.agents[0] if self.cycles else self._asked_agent()

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        seat = self.seat_of[agent]
        asked = self._pending()
        if asked is not None and seat == asked[0]:
            if self._legal(agent, action):
                self.board.apply(seat, asked[1], spaces.answer_of(asked[1], action))
                self._advance()
            else:
                self._illegal(agent, action)
        elif action != K.A_WAIT:  # only in the cycle order is a seat not asked selected
            self._illegal(agent, action)
        self.steps += 1
        self.shown = {}
        self._next_agent(seat)
        self._accumulate_rewards()

    def _legal(self, agent, action) -> bool:
        return isinstance(action, (int, np.integer)) and 0 <= action < spaces.N_ACTIONS and \
            bool(self._shown(agent)[1][action])

    def _illegal(self, agent, action) -> None:
        legal = spaces.legal_names(self._shown(agent)[1])
        named = "None" if action is None else f"{action} ({spaces.action_name(action)})"
        message = f"{agent}: action {named} is not legal now; legal: {legal}"
        if self.illegal == "raise":
            raise IllegalAction(message)
        self.infos[agent] = {"illegal": message}
        if self.illegal == "retry":  # refused: the board as it was, the same decision pending
            self.rewards[agent] = self.illegal_reward
            return
        share = -self.illegal_reward / (len(self.agents) - 1)
        self.rewards = {a: (self.illegal_reward if a == agent else share) for a in self.agents}
        self._end("terminations")

    def _advance(self) -> None:
        """Ask the board what is next, paying the rewards of the hands (and the game) it ends on the way."""
        hands = len(self.board.records)
        self.board.next_decision()
        if len(self.board.records) == hands and not self.board.over:  # most steps: the hand goes on
            return
        players = self.rules.players
        total = np.zeros(players)
        for record in self.board.records[hands:]:
            total += zero_sum(record[L.H_SEAT_POINTS : L.H_SEAT_POINTS + players], players)
        if self.board.over:
            result = self.board.game_record
            bonus = result[L.G_TOTALS : L.G_TOTALS + players] - result[L.G_SCORES : L.G_SCORES + players]
            bonus = bonus.astype(np.float64)
            if result[L.G_WINNER] >= 0:
                bonus[result[L.G_WINNER]] += self.win_bonus
            total += zero_sum(bonus, players)
            self._end("truncations" if result[L.G_GUARD] else "terminations")
        for seat, points in enumerate(total):
            self.rewards[self.possible_agents[seat]] += float(points)

    def _pending(self):
        """(seat, decision) asked, None when nothing is: the game over, or its end waiting for the cycle to close;
        in the cycle order, any seat but the one asked when the cycle began (one decision a cycle, so that every
        agent answers what it saw at the start of the cycle)."""
        asked = None if getattr(self, "ending", None) else self.board.asked
        if self.cycles and asked is not None and asked[0] != self.decider:
            return None
        return asked

    def _end(self, how: str) -> None:
        """End the episode for every agent (``how``: "terminations" or "truncations"); in the cycle order once the
        cycle closes, as PettingZoo's parallel API requires."""
        if self.cycles:
            self.ending = self.ending or how
        else:
            getattr(self, how).update(dict.fromkeys(self.agents, True))

    def _asked_agent(self) -> str:
        asked = self._pending()
        return self.possible_agents[asked[0]] if asked is not None else self.agent_selection

    def _next_agent(self, seat: int) -> None:
        if self.cycles:
            nxt = (seat + 1) % len(self.possible_agents)
            if nxt == 0 and self.max_cycles is not None and self.steps >= self.max_cycles * len(self.agents):
                self.ending = self.ending or "truncations"
            if seat == self.decider:
                self.decider = None  # its one decision of the cycle is made (or refused)
            if nxt == 0 and self.ending:
                getattr(self, self.ending).update(dict.fromkeys(self.agents, True))
            if nxt == 0:
                self.decider = self.board.asked[0] if self.board.asked else None
            self.agent_selection = self.possible_agents[nxt]
            return
        if self.max_cycles is not None and self.steps >= self.max_cycles:
            self.truncations = dict.fromkeys(self.agents, True)
        self.agent_selection = self._asked_agent()

    # -- showing -----------------------------------------------------------------------------------------------

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        lines = []
        for seat, agent in enumerate(self.possible_agents):
            view = self.board.view(seat)
            lines.append(f"{agent}: {format_hand(int(view[L.V_HAND]), by_rank=True)}  score {int(view[L.V_SCORES + seat])}")
        view = self.board.view(0)
        top = format_card(int(view[L.V_PILE + view[L.V_PILE_SIZE] - 1])) if view[L.V_PILE_SIZE] else "-"
        lines.append(f"pile top {top}, stock {int(view[L.V_STOCK_LEFT])}, knock limit {int(view[L.V_KNOCK_LIMIT])}")
        if self.board.asked is not None:
            seat, kind = self.board.asked
            lines.append(f"{self.possible_agents[seat]} to {('take the upcard', 'draw', 'knock', 'discard', 'arrange')[kind]}")
        return "\n".join(lines)

    def close(self):
        pass


def _forwarded(name: str) -> property:
    """An attribute of the wrapped env, read directly, with PettingZoo's check that ``reset`` came first."""

    def read(self):
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.env, name)

    return property(read)


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` with the same checks, the attributes an agent loop reads at every
    step forwarded directly: through the wrapper's ``__getattr__`` they cost more than a step of the game
    (``benchmarks/bench_env_rlcard.py``)."""

    agents = _forwarded("agents")
    agent_selection = _forwarded("agent_selection")
    rewards = _forwarded("rewards")
    terminations = _forwarded("terminations")
    truncations = _forwarded("truncations")
    infos = _forwarded("infos")
    _cumulative_rewards = _forwarded("_cumulative_rewards")

    def last(self, observe: bool = True):
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)


def env(**kwargs):
    """The AEC env with PettingZoo's order checks (the classic envs' ``env``)."""
    return OrderEnforcing(raw_env(**kwargs))


def parallel_env(**kwargs):
    """The parallel API on the cycle order: each step, every agent answers; only the asked one's answer plays."""
    return aec_to_parallel(raw_env(cycles=True, **kwargs))


OklahomaGinAEC = raw_env
