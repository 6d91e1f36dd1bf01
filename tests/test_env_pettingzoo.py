"""The PettingZoo AEC env: PettingZoo's own API, seed and max-cycles tests, illegal actions, rewards, and games
equal to the engine's when oklasim strategies choose every action through the env."""

import functools
import types

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, max_cycles_test, parallel_api_test, seed_test  # noqa: E402

from oklasim._kernels import layout as L  # noqa: E402
from oklasim.env import aec, spaces  # noqa: E402
from oklasim.env.episodes import IllegalAction  # noqa: E402
from oklasim.game.rules import Rules  # noqa: E402
from oklasim.sim.engine import kernel_rules, resolve_all, run_kernel  # noqa: E402


@pytest.mark.parametrize("kwargs", [{}, {"players": 3, "episode": "game"}, {"rules": "pagat", "players": 4},
                                    {"cycles": True}])
def test_pettingzoo_api(kwargs):
    api_test(aec.env(**kwargs), num_cycles=300)


def test_pettingzoo_seed():
    seed_test(aec.env, num_cycles=200)
    seed_test(functools.partial(aec.env, episode="game", players=3), num_cycles=200)


def test_pettingzoo_max_cycles_and_parallel():
    # Unmasked random actions: only the refusal that leaves the decision pending keeps the game going.
    mod = types.SimpleNamespace(env=functools.partial(aec.env, cycles=True, illegal="retry"),
                                parallel_env=functools.partial(aec.parallel_env, illegal="retry"))
    max_cycles_test(mod)
    parallel_api_test(aec.parallel_env(illegal="retry"), num_cycles=100)


def test_illegal_action_names_the_action_and_the_legal_set():
    env = aec.env()
    env.reset(seed=3)
    with pytest.raises(IllegalAction, match=r"action 4 \(discard As\) is not legal now; legal: 0 \(pass\), 1 \(take\)"):
        env.step(4)


def test_illegal_lose_ends_the_episode_zero_sum():
    env = aec.env(illegal="lose", illegal_reward=-5.0)
    env.reset(seed=3)
    offender = env.agent_selection
    env.step(4)
    assert all(env.terminations.values())
    rewards = {a: env._cumulative_rewards[a] for a in env.agents}
    assert rewards[offender] == -5.0 and sum(rewards.values()) == 0


def play_strategies(env, strategies, episodes, seed):
    """Every agent's action chosen by its oklasim strategy on its own view row; returns the boards' records and the
    rewards per episode."""
    raw = env.unwrapped
    records, totals = [], []
    for episode in range(episodes):
        env.reset(seed=seed if episode == 0 else None)
        total = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            _, reward, term, trunc, _ = env.last()
            total[agent] += reward
            if term or trunc:
                env.step(None)
                continue
            seat, kind = raw.board.asked
            assert agent == f"player_{seat}"
            env.step(spaces.strategy_action(strategies[seat], raw.board.view(seat), kind))
        records += raw.board.records
        totals.append(total)
    return np.array(records), totals


@pytest.mark.parametrize("preset,players,names", [("seeds", 2, ["random", "simple"]), ("openspiel", 2, ["greedy", "random"]),
                                                  ("pagat", 3, ["simple", "random", "greedy"]),
                                                  ("north_american", 4, ["random", "simple", "greedy", "random"])])
def test_hands_through_the_env_equal_the_engines(preset, players, names):
    rules = Rules.preset(preset).replace(players=players)
    strategies = resolve_all(names, players)
    records, totals = play_strategies(aec.env(rules=rules), strategies, 12, seed=11)
    expected, _, _ = run_kernel(kernel_rules(rules, True), strategies, 11, 0, 12)
    assert np.array_equal(records, expected)
    for record, total in zip(records, totals):  # zero-sum real points: the two-player reward is the difference
        points = record[L.H_SEAT_POINTS : L.H_SEAT_POINTS + players].astype(float)
        assert sum(total.values()) == pytest.approx(0)
        assert total["player_0"] == pytest.approx(points[0] - (points.sum() - points[0]) / (players - 1))


def test_games_through_the_env_equal_the_engines():
    rules = Rules.preset("north_american")
    strategies = resolve_all(["simple", "random"], 2)
    env = aec.env(rules=rules, episode="game", win_bonus=50)
    records, totals = play_strategies(env, strategies, 2, seed=5)
    hands, games, _ = run_kernel(rules.to_array(), strategies, 5, 0, 2)
    assert np.array_equal(records, hands)
    for game, total in zip(games, totals):
        final = game[L.G_TOTALS : L.G_TOTALS + 2].astype(float)
        final[game[L.G_WINNER]] += 50
        assert total["player_0"] == pytest.approx(final[0] - final[1])


@pytest.mark.parametrize("players", [2, 3])
def test_parallel_games_end_when_a_cycle_closes(players):
    """Masked random play through the parallel API: games end (mid-cycle knocks too) with every agent at once,
    and the rewards of a hand sum to zero."""
    env = aec.parallel_env(players=players)
    rng = np.random.default_rng(players)
    ended = 0
    for episode in range(6):
        obs, _ = env.reset(seed=episode)
        total = dict.fromkeys(env.possible_agents, 0.0)
        while env.agents:
            actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
            obs, rewards, terms, truncs, _ = env.step(actions)
            for a, r in rewards.items():
                total[a] += r
            assert len(set(terms.values())) == 1 and len(set(truncs.values())) == 1
        ended += 1
        assert sum(total.values()) == pytest.approx(0)
    assert ended == 6


def test_the_order_checks_hold_before_reset():
    env = aec.env()
    for read in (lambda: env.agent_selection, lambda: env.terminations, lambda: env.last()):
        with pytest.raises(AttributeError, match="cannot be accessed before reset"):
            read()
    env.reset(seed=1)
    assert env.agent_selection in env.possible_agents and env.last()[2] is False
