"""Masked PPO (sb3-contrib's ``MaskablePPO``) on ``oklasim/OklahomaGin-v0`` against ``simple``, then evaluated.

    python experiments/ppo_masked/ppo.py [--timesteps 200000] [--envs 8] [--eval-hands 4000] [--seed 0]
        [--out experiments/ppo_masked] [--readme experiments/ppo_masked/README.md]

Needs the ``ppo`` extra (``pip install 'oklasim[ppo]'``: sb3-contrib, torch,
and matplotlib for the curve). One hand per episode, the learner in seat 0,
its reward its points less the opponent's. Observations and rewards are
normalised by ``VecNormalize`` (the observation's counts run to 127, its card
planes are 0/1). The learning curve (mean reward of the last 100 episodes at
each rollout) goes to ``OUT/learning_curve.png``; the trained policy (argmax
over the legal actions) then plays ``--eval-hands`` hands through ``VectorGin``
against ``simple``, beside a uniformly random legal policy (the floor), with
the helpers of the behaviour-cloning example.
"""

from __future__ import annotations

import argparse
import datetime
import os
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import gymnasium
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import VecNormalize

import oklasim.env  # noqa: F401 - registers oklasim/OklahomaGin-v0

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bc_expert"))
from bc import Match, machine_load, play, uniform_random, wrap  # noqa: E402 - the BC example's helpers

ENV_ID = "oklasim/OklahomaGin-v0"
OPPONENT = "simple"


class LearningCurve(BaseCallback):
    """(timesteps, mean reward of the last 100 finished episodes) at the end of every rollout."""

    def __init__(self):
        super().__init__()
        self.points: list[tuple[int, float]] = []

    def _on_step(self) -> bool:
        return True

    def _on_rollout_end(self) -> None:
        episodes = self.model.ep_info_buffer  # Monitor's raw rewards, before VecNormalize scales them
        if episodes:
            self.points.append((self.num_timesteps, float(np.mean([e["r"] for e in episodes]))))


def train(timesteps: int, envs: int, seed: int) -> tuple[MaskablePPO, VecNormalize, LearningCurve, float]:
    """A ``MaskablePPO`` trained for ``timesteps`` learner decisions on ``envs`` single-seat envs."""
    venv = VecNormalize(make_vec_env(ENV_ID, n_envs=envs, seed=seed, env_kwargs={"opponent": OPPONENT}),
                        gamma=0.995)
    model = MaskablePPO("MlpPolicy", venv, gamma=0.995, n_steps=512, batch_size=256, seed=seed, verbose=0)
    curve = LearningCurve()
    started = time.perf_counter()
    model.learn(total_timesteps=timesteps, callback=curve)
    return model, venv, curve, time.perf_counter() - started


def trained_policy(model: MaskablePPO, venv: VecNormalize):
    """The trained policy as the BC example's ``act``: the most likely legal action of each normalised row."""
    venv.training = False  # freeze the observation statistics

    def act(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        actions, _ = model.predict(venv.normalize_obs(obs.astype(np.float32)), action_masks=mask.astype(bool),
                                   deterministic=True)
        return np.asarray(actions, dtype=np.int64)

    return act


def plot_curve(curve: LearningCurve, path: Path, floor: float) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps, rewards = zip(*curve.points)
    figure, axes = plt.subplots(figsize=(7, 4))
    axes.plot(steps, rewards, label="MaskablePPO: mean of the last 100 hands")
    axes.axhline(floor, color="grey", linestyle="--", label="random legal policy")
    axes.axhline(0, color="black", linewidth=0.5)
    axes.set_xlabel("learner decisions (timesteps)")
    axes.set_ylabel(f"net points per hand against {OPPONENT}")
    axes.legend(loc="best")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def write_readme(path: Path, command: str, matches: list[Match], curve: LearningCurve, seconds: float,
                 timesteps: int, loads: tuple[str, str]) -> None:
    learner, floor = matches
    about = ("`ppo.py` trains sb3-contrib's `MaskablePPO` (its default MLP policy, illegal actions masked) on the "
             f"Gymnasium env `{ENV_ID}`, one hand per episode, the learner in seat 0 against `{OPPONENT}`, then plays "
             f"the trained policy (argmax over the legal actions) through `VectorGin` against `{OPPONENT}`, beside a "
             "uniformly random legal policy. Net points per hand are the learner's points less the opponent's.")
    measured = (f"Measured {datetime.date.today().isoformat()} on {os.cpu_count()} cores (torch on one thread); "
                f"{loads[0]} before, {loads[1]} after. Training: {timesteps:,} timesteps in {seconds:.0f} s; "
                f"{time.process_time():.0f} CPU seconds in all.")
    lines = ["# Masked PPO against `simple`", "", wrap(about), "",
             "Install (a virtualenv of its own; torch's CPU build first, else pip brings the CUDA one, gigabytes):", "",
             "```", "pip install torch  # the CPU build, from PyTorch's CPU wheel index", "pip install -e '.[ppo]'",
             "```", "", "## Run", "", "```", command, "```", "", wrap(measured), "", "## Results", "",
             "![learning curve](learning_curve.png)", "",
             "| player | opponent | hands | net points per hand (95% CI) | hands won (95% CI) |",
             "|---|---|---:|---|---|"]
    lines += [f"| {m.player} | {m.opponent} | {m.points.n:,} | {m.points.bracketed('+.2f')} | "
              f"{m.wins.bracketed('.1f', 100, '%')} |" for m in matches]
    lines += ["", "## How strong it gets", "", wrap(verdict(learner, floor, curve, timesteps)), ""]
    path.write_text("\n".join(lines))


def verdict(learner: Match, floor: Match, curve: LearningCurve, timesteps: int) -> str:
    """An honest sentence: how far the trained policy got from random play, and from breaking even."""
    first, last = curve.points[0][1], curve.points[-1][1]
    gain = learner.points.mean - floor.points.mean
    if learner.points.low > floor.points.high:
        standing = f"better than random legal play by {gain:.1f} points a hand"
    else:
        standing = "no better than random legal play (the intervals overlap)"
    return (f"After {timesteps:,} timesteps the curve has gone from {first:+.1f} to {last:+.1f} points per hand, "
            f"and the trained policy nets {learner.points.mean:+.2f} per hand against `{OPPONENT}`: {standing}, "
            "and far from breaking even. One score per hand, after some fifty decisions of the learner's, is a sparse "
            "reward: PPO from scratch, with default settings and a few CPU minutes, learns little of it.")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timesteps", type=int, default=200_000, help="learner decisions to train on")
    parser.add_argument("--envs", type=int, default=8, help="single-seat envs stepped side by side")
    parser.add_argument("--eval-hands", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent, help="folder of the curve's PNG")
    parser.add_argument("--readme", type=Path, help="write the command, numbers and load to this file")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)  # small networks: threads cost more than they give on a shared machine
    load_before = machine_load()
    print(f"ppo.py: {load_before}")
    model, venv, curve, seconds = train(args.timesteps, args.envs, args.seed)
    print(f"trained {args.timesteps:,} timesteps in {seconds:.0f} s; curve: " +
          ", ".join(f"{s:,}: {r:+.1f}" for s, r in curve.points[:: max(1, len(curve.points) // 8)]))
    seed = args.seed + 100
    matches = [Match.of("MaskablePPO", OPPONENT, play(trained_policy(model, venv), OPPONENT, args.eval_hands, seed)),
               Match.of("random legal", OPPONENT, play(uniform_random(seed), OPPONENT, args.eval_hands, seed))]
    for m in matches:
        print(f"{m.player} vs {m.opponent}: {m.points.bracketed('+.2f')} net points per hand, "
              f"{m.wins.bracketed('.1f', 100, '%')} hands won ({m.points.n:,} hands)")
    args.out.mkdir(parents=True, exist_ok=True)
    plot_curve(curve, args.out / "learning_curve.png", matches[1].points.mean)
    load_after = machine_load()
    print(f"after: {load_after}")
    if args.readme is not None:
        command = shlex.join(["python", "experiments/ppo_masked/ppo.py", *(sys.argv[1:] if argv is None else argv)])
        write_readme(args.readme, command, matches, curve, seconds, args.timesteps, (load_before, load_after))


if __name__ == "__main__":
    gymnasium.logger.min_level = 40  # the passive env checker's warnings on int8 boxes are not ours to act on
    main()
