"""The Gymnasium envs: check_env, registration, the batched env's determinism across splits, its autoreset
modes, its illegal-action error, and its games equal to the engine's with strategies choosing the actions."""

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from gymnasium.vector import AutoresetMode  # noqa: E402

import oklasim.env  # noqa: E402,F401 - registers the env
from oklasim._kernels import layout as L  # noqa: E402
from oklasim.env import spaces  # noqa: E402
from oklasim.env.episodes import IllegalAction  # noqa: E402
from oklasim.env.single import OklahomaGinEnv  # noqa: E402
from oklasim.env.vector import VectorGin  # noqa: E402
from oklasim.game.rules import Rules  # noqa: E402
from oklasim.sim.engine import kernel_rules, resolve_all, run_kernel  # noqa: E402


@pytest.mark.parametrize("illegal", ["retry", "lose"])
def test_gymnasium_check_env(illegal):
    check_env(OklahomaGinEnv(opponent="expert", illegal=illegal), skip_render_check=True)
    check_env(gymnasium.make("oklasim/OklahomaGin-v0", rules="pagat", players=3, episode="game",
                             illegal=illegal).unwrapped, skip_render_check=True)


def test_reset_seed_is_reproducible():
    runs = []
    for _ in range(2):
        env = OklahomaGinEnv(opponent="simple")
        obs, info = env.reset(seed=9)
        rng, seen = np.random.default_rng(1), [obs]
        for _ in range(60):
            obs, reward, term, trunc, info = env.step(spaces.random_legal(info["action_mask"][None], rng)[0])
            seen += [obs, np.array([reward])]
            if term or trunc:
                obs, info = env.reset()
        runs.append(np.concatenate(seen))
    assert np.array_equal(*runs)


def trajectories(env, steps, seed, first=0):
    obs, info = env.reset(seed=seed)
    out = [obs]
    for _ in range(steps):
        actions = np.concatenate([spaces.random_legal(info["action_mask"][i : i + 1], np.random.default_rng(
            [seed, first + i, len(out)])) for i in range(env.num_envs)])
        obs, rewards, term, trunc, info = env.step(actions)
        out.append(np.column_stack([obs, rewards, term, trunc]))
    return np.stack(out[1:], 1)  # games x steps x fields


def test_the_same_seed_gives_the_same_games_whatever_the_split():
    whole = trajectories(VectorGin(6, opponent="simple"), 80, seed=4)
    parts = [trajectories(VectorGin(k, opponent="simple", first_slot=first), 80, seed=4, first=first)
             for first, k in ((0, 2), (2, 3), (5, 1))]
    # Each game's actions come from its own stream (seed, game, step), so the policy does not depend on the split.
    assert np.array_equal(whole, np.concatenate(parts))


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_autoreset_modes(mode):
    env = VectorGin(8, opponent="simple", autoreset_mode=mode)
    assert env.metadata["autoreset_mode"] == mode
    obs, info = env.reset(seed=2)
    rng = np.random.default_rng(0)
    ended_before = np.zeros(8, bool)
    episodes = 0
    for _ in range(300):
        actions = spaces.random_legal(info["action_mask"], rng)
        obs, rewards, term, trunc, info = env.step(actions)
        ended = term | trunc
        if mode == AutoresetMode.NEXT_STEP:
            assert (rewards[ended_before] == 0).all() and not ended[ended_before].any()  # the reset step
            assert not info["action_mask"][ended].any()  # the episode's last observation: nothing asked
            assert info["action_mask"][~ended].any(1).all()
        else:
            assert info["action_mask"].any(1).all()  # already the next episode's first decision
            if ended.any():
                final = info["final_obs"][ended]
                assert not final[:, 520:525].any() and info["_final_obs"].tolist() == ended.tolist()
        episodes += ended.sum()
        ended_before = ended
    assert episodes > 20


def test_an_illegal_action_raises_and_moves_no_game():
    env = VectorGin(3, opponent="simple")
    obs, info = env.reset(seed=1)
    boards = env.boards.copy()
    actions = spaces.random_legal(info["action_mask"], np.random.default_rng(0))
    actions[1] = spaces.N_ACTIONS - 1
    with pytest.raises(IllegalAction, match=r"game 1: action 142 \(wait\) is not legal; the learner is asked"):
        env.step(actions)
    assert np.array_equal(boards, env.boards)


@pytest.mark.parametrize("preset,players,seat", [("seeds", 2, 0), ("eaai", 2, 1), ("pagat", 3, 2),
                                                 ("north_american", 4, 1)])
def test_batched_games_equal_the_engines(preset, players, seat):
    """The learner's actions chosen by an oklasim strategy on its view row; every hand recorded equals simulate's."""
    rules = Rules.preset(preset).replace(players=players)
    learner, opponent = resolve_all(["random", "simple"], 2)
    env = VectorGin(3, rules, opponent="simple", seat=seat, record_hands=True)
    env.reset(seed=21)
    for _ in range(400):
        kinds = env.decisions()
        env.step(np.array([spaces.strategy_action(learner, env.view(i), kinds[i]) if kinds[i] != L.D_NONE else 0
                           for i in range(3)]))
    records = env.hand_records()
    seats = tuple(learner if s == seat else opponent for s in range(players))
    for slot in range(3):
        mine = records[records[:, L.H_GAME] >> 32 == slot]
        expected, _, _ = run_kernel(kernel_rules(rules, True), seats, 21, slot << 32, len(mine))
        assert len(mine) > 10 and np.array_equal(mine, expected)


def test_without_the_rl_extra(tmp_path):
    """The core never imports gymnasium or pettingzoo; the env says what to install when they are missing."""
    import subprocess
    import sys

    code = """
import sys
sys.modules["gymnasium"] = None
sys.modules["pettingzoo"] = None
import oklasim, oklasim.sim.engine, oklasim.env
from oklasim.errors import OklasimError
try:
    oklasim.env.VectorGin
except OklasimError as error:
    print(error)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "oklasim.env needs gymnasium: pip install 'oklasim[rl]'" in out
    core = subprocess.run([sys.executable, "-c", "import sys, oklasim, oklasim.sim.engine, oklasim.cli; "
                           "print('gymnasium' in sys.modules, 'pettingzoo' in sys.modules)"],
                          capture_output=True, text=True, check=True).stdout
    assert core.split() == ["False", "False"]


def test_the_batched_env_shows_the_learner_what_the_aec_env_shows_it():
    """Seat 0 played by "random", seat 1 by "simple": the AEC env (both through the env) and VectorGin (seat 1 in
    the kernel) give seat 0 the same observations and masks at each of its decisions, and the same rewards."""
    pytest.importorskip("pettingzoo")
    from oklasim.env import aec

    learner, opponent = resolve_all(["random", "simple"], 2)
    env = aec.env()
    seen, rewards = [], []
    for episode in range(10):
        env.reset(seed=3 if episode == 0 else None)
        total, asked = 0.0, False
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            if agent == "player_0":
                total += reward
            if term or trunc:
                env.step(None)
                continue
            seat, kind = env.unwrapped.board.asked
            if seat == 0:
                seen.append(np.concatenate([obs["observation"], obs["action_mask"]]))
                asked = True
            strategy = learner if seat == 0 else opponent
            env.step(spaces.strategy_action(strategy, env.unwrapped.board.view(seat), kind))
        if asked:  # VectorGin skips a game its learner is never asked in
            rewards.append(total)
    vector = VectorGin(1, opponent="simple")
    obs, info = vector.reset(seed=3)
    batched, batched_rewards, total = [], [], 0.0
    while len(batched_rewards) < 8:
        kind = vector.decisions()[0]
        if kind == L.D_NONE:
            batched_rewards.append(total)
            total = 0.0
            action = 0
        else:
            batched.append(np.concatenate([obs[0], info["action_mask"][0]]))
            action = spaces.strategy_action(learner, vector.view(0), kind)
        obs, reward, _, _, info = vector.step(np.array([action]))
        total += reward[0]
    assert len(batched) > 50 and np.array_equal(np.array(seen[: len(batched)]), np.array(batched))
    assert batched_rewards == pytest.approx(rewards[: len(batched_rewards)])


def test_without_copies_the_env_returns_its_own_buffers():
    copied, shared = VectorGin(4, opponent="simple"), VectorGin(4, opponent="simple", copy=False)
    (obs_a, info_a), (obs_b, info_b) = copied.reset(seed=3), shared.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(30):
        actions = spaces.random_legal(info_a["action_mask"], rng)
        step_a, step_b = copied.step(actions), shared.step(actions)
        for a, b in zip(step_a[:4], step_b[:4]):
            assert np.array_equal(a, b)
        assert np.array_equal(step_a[4]["action_mask"], step_b[4]["action_mask"])
        assert np.shares_memory(step_b[0], obs_b) and not np.shares_memory(step_a[0], obs_a)
        info_a = step_a[4]
