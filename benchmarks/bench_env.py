"""Speed of the research environment: the AEC env with a random masked policy, and VectorGin on one core.

    .venv/bin/python benchmarks/bench_env.py [--num-envs 4096] [--steps 200] [--repeats 5]

Figures are medians of the repeats (after a warm-up). VectorGin's steps/s count the learner's decisions
including the policy's time (``spaces.random_legal``: a uniformly random legal action per game, numpy), and
without it ("the env alone"); with ``copy=True`` (the default: each step returns fresh arrays) and ``copy=False``
(the env's own buffers). Hands/s count the hands finished (skipped deal-and-knock hands included). The engine's own
rate on like hands ("random" against "simple", no observation encoded) is printed last: about the most any
environment can reach on this machine at this load.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("NUMBA_NUM_THREADS", "1")  # one core
sys.path.insert(0, str(Path(__file__).parent))
from common import machine_load  # noqa: E402

from oklasim.env import aec, spaces  # noqa: E402
from oklasim._kernels.env_vector_nb import GS_EPISODE  # noqa: E402
from oklasim.env.vector import AutoresetMode, VectorGin  # noqa: E402
from oklasim._kernels import env_dataset_nb as D  # noqa: E402
from oklasim._kernels import layout as L  # noqa: E402
from oklasim.env.dataset import play_chunks  # noqa: E402
from oklasim.game.rules import Rules  # noqa: E402
from oklasim.sim.engine import kernel_rules, resolve_all, simulate  # noqa: E402

ENGINE_SEATS = ["random", "simple"]


def aec_steps_per_second(seconds: float) -> float:
    env = aec.env(episode="game")
    rng = np.random.default_rng(0)
    steps, started, game = 0, time.perf_counter(), 0
    while time.perf_counter() - started < seconds:
        env.reset(seed=game)
        game += 1
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
    return steps / (time.perf_counter() - started)


def vector_rates(num_envs: int, steps: int, mode=AutoresetMode.NEXT_STEP, copy: bool = True) -> tuple[float, ...]:
    """(decision steps/s with the policy, complete hands/s, steps/s of the env alone, learner decisions per hand)."""
    env = VectorGin(num_envs, opponent="simple", autoreset_mode=mode, copy=copy)
    _, info = env.reset(seed=0)
    masks = info["action_mask"]
    rng = np.random.default_rng(0)
    episode0 = env.states[:, GS_EPISODE].sum()
    resets, ended, in_env = 0, 0, 0.0
    started = time.perf_counter()
    for _ in range(steps):
        actions = spaces.random_legal(masks, rng)
        stepped = time.perf_counter()
        _, _, terminated, truncated, info = env.step(actions)
        in_env += time.perf_counter() - stepped
        resets += ended  # under next-step autoreset a game ended last step is reset, not asked, this step
        ended = int(np.count_nonzero(terminated | truncated)) if mode == AutoresetMode.NEXT_STEP else 0
        masks = info["action_mask"]
    elapsed = time.perf_counter() - started
    decisions = steps * num_envs - resets
    hands = env.states[:, GS_EPISODE].sum() - episode0  # one hand per episode (episode="hand")
    return decisions / elapsed, hands / elapsed, decisions / in_env, decisions / hands


def engine_hands_per_second() -> float:
    """The engine alone on like hands ("random" against "simple", both in numba, no observation): the bound of
    any env on this machine now."""
    simulate(strategies=ENGINE_SEATS, hands=2000, seed=0)
    started = time.perf_counter()
    simulate(strategies=ENGINE_SEATS, hands=50_000, seed=0)
    return 50_000 / (time.perf_counter() - started)


def engine_decisions_per_hand(hands: int = 3000) -> float:
    """The decisions of the "random" seat per hand in those games (the dataset kernel counts them)."""
    records = np.empty((hands, L.N_GAME_FIELDS), dtype=np.int64)
    chunks = play_chunks(kernel_rules(Rules(), True), resolve_all(ENGINE_SEATS, 2), 0, 0, hands, records)
    return sum(int(np.count_nonzero(chunk.rows[:, D.R_SEAT] == 0)) for chunk in chunks) / hands


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--num-envs", type=int, default=4096)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--aec-seconds", type=float, default=3.0)
    args = parser.parse_args()
    print(machine_load())
    vector_rates(64, 10)  # compile / warm up
    aec_rates = [aec_steps_per_second(args.aec_seconds) for _ in range(args.repeats)]
    print(f"AEC env, random masked policy: {statistics.median(aec_rates):,.0f} decision steps/s (median of "
          f"{args.repeats})")
    for mode, copy in ((AutoresetMode.NEXT_STEP, True), (AutoresetMode.NEXT_STEP, False),
                       (AutoresetMode.SAME_STEP, True)):
        rates = [vector_rates(args.num_envs, args.steps, mode, copy) for _ in range(args.repeats)]
        print(f"VectorGin N={args.num_envs} ({mode.value}, copy={copy}), one core, numpy random masked policy vs "
              f"'simple': {statistics.median(r[0] for r in rates):,.0f} decision steps/s, "
              f"{statistics.median(r[1] for r in rates):,.0f} complete hands/s; the env alone "
              f"{statistics.median(r[2] for r in rates):,.0f} steps/s; {statistics.median(r[3] for r in rates):.1f} "
              f"learner decisions per hand (median of {args.repeats})")
    engine, per_hand = statistics.median(engine_hands_per_second() for _ in range(args.repeats)), \
        engine_decisions_per_hand()
    print(f"the engine alone, 'random' vs 'simple': {engine:,.0f} hands/s; with the random seat's {per_hand:.1f} "
          f"decisions per hand, {engine * per_hand:,.0f} of its decisions/s: about the most any env could do here "
          f"with no observation, mask or policy")
    print(machine_load())


if __name__ == "__main__":
    main()
