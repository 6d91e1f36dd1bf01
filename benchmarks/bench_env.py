"""Speed of the research environment: the AEC env with a random masked policy, and VectorGin on one core.

    .venv/bin/python benchmarks/bench_env.py [--num-envs 4096] [--steps 200] [--repeats 5]

Figures are medians of the repeats (after a warm-up). VectorGin's steps/s count the learner's decisions
including the policy's time (numpy: a uniformly random legal action per game), and without it ("the env
alone"); hands/s count the hands finished (skipped deal-and-knock hands included). The engine's own rate on
like hands is printed as the bound any environment has on this machine at this load.
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

from oklasim.env import aec  # noqa: E402
from oklasim._kernels.env_vector_nb import GS_EPISODE  # noqa: E402
from oklasim.env.vector import AutoresetMode, VectorGin  # noqa: E402
from oklasim.sim.engine import simulate  # noqa: E402


def random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row (0 where nothing is asked)."""
    counts = masks.sum(1, dtype=np.int16)
    pick = (rng.random(len(masks)) * np.maximum(counts, 1)).astype(np.int16)
    return np.argmax(np.cumsum(masks, 1, dtype=np.int16) > pick[:, None], 1)


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
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
    return steps / (time.perf_counter() - started)


def vector_rates(num_envs: int, steps: int, mode=AutoresetMode.NEXT_STEP) -> tuple[float, float, float]:
    """(decision steps/s with the policy, complete hands/s, steps/s of the env alone)."""
    env = VectorGin(num_envs, opponent="simple", autoreset_mode=mode)
    _, info = env.reset(seed=0)
    masks = info["action_mask"]
    rng = np.random.default_rng(0)
    episode0 = env.states[:, GS_EPISODE].sum()
    decisions, in_env = 0, 0.0
    started = time.perf_counter()
    for _ in range(steps):
        actions = random_actions(masks, rng)
        stepped = time.perf_counter()
        _, _, _, _, info = env.step(actions)
        in_env += time.perf_counter() - stepped
        decisions += int(masks.any(1).sum())  # the games asked something (not a next-step reset)
        masks = info["action_mask"]
    elapsed = time.perf_counter() - started
    hands = env.states[:, GS_EPISODE].sum() - episode0  # one hand per episode (episode="hand")
    return decisions / elapsed, hands / elapsed, decisions / in_env


def engine_hands_per_second() -> float:
    """The engine alone on like hands ("random" against "simple"): the bound of any env on this machine now."""
    simulate(strategies=["random", "simple"], hands=2000, seed=0)
    started = time.perf_counter()
    simulate(strategies=["random", "simple"], hands=50_000, seed=0)
    return 50_000 / (time.perf_counter() - started)


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
    for mode in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
        rates = [vector_rates(args.num_envs, args.steps, mode) for _ in range(args.repeats)]
        print(f"VectorGin N={args.num_envs} ({mode.value}), one core, numpy random masked policy vs 'simple': "
              f"{statistics.median(r[0] for r in rates):,.0f} decision steps/s, "
              f"{statistics.median(r[1] for r in rates):,.0f} complete hands/s; the env alone "
              f"{statistics.median(r[2] for r in rates):,.0f} steps/s (median of {args.repeats})")
    print(f"the engine alone, 'random' vs 'simple': {engine_hands_per_second():,.0f} hands/s")
    print(machine_load())


if __name__ == "__main__":
    main()
