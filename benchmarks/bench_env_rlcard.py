"""The AEC env against RLCard's gin-rummy env: steps per second of a uniformly random legal policy, in one run.

    .venv/bin/python benchmarks/bench_env_rlcard.py --rlcard-python /tmp/rlcard-venv/bin/python \
        [--seconds 3] [--repeats 5]

RLCard (``pip install rlcard==1.2.0`` in a virtualenv of its own: it is no
dependency of oklasim) runs in that interpreter, in one worker process started
once and kept warm; each repeat times oklasim's AEC env (``oklasim.env.env``,
PettingZoo's order-checking wrapper included, and the bare ``raw_env``) and
RLCard's env for ``--seconds`` each, the order alternating between repeats, so
the machine's load falls on both alike. Figures are medians of the repeats
(after a warm-up of each); the ratio is oklasim's median over RLCard's. The
issue's target: the AEC env at least 20x RLCard's decision steps/s.

What one step is:

* oklasim (natural turn order, ``episode="hand"``, default rules, two
  players): one decision of the seat the step machine asks: take the upcard or
  pass, draw from the stock or the pile, knock or play on (asked only when the
  hand can knock), discard, and the knocker's arrangement. Every step offers a
  choice; the dead steps PettingZoo asks after a hand ends (``step(None)``) are
  timed but not counted.
* RLCard: one ``env.step`` of the player to act: draw, pick up the discard or
  declare a dead hand, then discard, knock or gin, and two scoring steps at the
  end of every hand (one legal action each), all counted as RLCard counts them.

"choices" are the steps offering more than one legal action: counted in both,
they compare the same thing (a decision a policy really makes).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from common import machine_load  # noqa: E402

import pettingzoo  # noqa: E402
from pettingzoo.utils import wrappers  # noqa: E402

from oklasim.env import aec, spaces  # noqa: E402

TARGET = 20.0

# Runs in RLCard's interpreter: answers each line "SECONDS" on stdin with one JSON line of counts. A random legal
# action per step, drawn by numpy's Generator as oklasim's side draws it.
RLCARD_WORKER = r"""
import json, sys, time
from importlib.metadata import version
import numpy as np
import rlcard

env = rlcard.make("gin-rummy", config={"seed": 0})
rng = np.random.default_rng(0)
print(json.dumps({"rlcard": version("rlcard"), "numpy": np.__version__}), flush=True)
for line in sys.stdin:
    seconds = float(line)
    steps = choices = hands = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        state, _ = env.reset()
        while not env.is_over():
            legal = list(state["legal_actions"])
            choices += len(legal) > 1
            state, _ = env.step(legal[rng.integers(len(legal))])
            steps += 1
        hands += 1
    elapsed = time.perf_counter() - started
    print(json.dumps({"steps": steps, "choices": choices, "hands": hands, "seconds": elapsed}), flush=True)
"""


@dataclass
class Tally:
    """What one timed stretch of random play counted."""

    steps: int
    choices: int
    hands: int
    seconds: float

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.seconds


class NullAEC(pettingzoo.AECEnv):
    """An AEC env that does no work: two agents, always the same 11 legal actions among oklasim's, a hand of
    ``HAND_STEPS`` steps. Timed in the same loop it shows the most any AEC env can reach here: what the loop's
    policy and PettingZoo's bookkeeping cost."""

    HAND_STEPS = 114  # oklasim's random hands
    metadata = {"name": "null_v0"}

    def __init__(self):
        super().__init__()
        self.possible_agents = ["player_0", "player_1"]
        self.mask = np.zeros(spaces.N_ACTIONS, dtype=np.int8)
        self.mask[4:15] = 1
        self.obs = np.zeros(spaces.OBS_SIZE, dtype=np.int8)

    def observe(self, agent):
        return {"observation": self.obs.copy(), "action_mask": self.mask.copy()}

    def reset(self, seed=None, options=None):
        aec.open_episode(self)
        self.agent_selection, self.steps = "player_0", 0

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent]:
            return self._was_dead_step(action)
        if not self.mask[action]:
            raise ValueError(f"illegal action {action}")
        self._cumulative_rewards[agent] = 0.0
        self.steps += 1
        if self.steps == self.HAND_STEPS:
            self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = "player_1" if agent == "player_0" else "player_0"
        self._accumulate_rewards()


class AECPlayer:
    """An AEC env played by a uniformly random legal policy, hand after hand of one seed."""

    def __init__(self, env):
        self.env = env
        self.rng = np.random.default_rng(0)
        self.seeded = False

    def play(self, seconds: float) -> Tally:
        env, rng = self.env, self.rng
        steps = choices = hands = 0
        started = time.perf_counter()
        while time.perf_counter() - started < seconds:
            env.reset(seed=None if self.seeded else 0)  # hand 0, 1, ... of seed 0
            self.seeded = True
            for _ in env.agent_iter():
                obs, _, terminated, truncated, _ = env.last()
                if terminated or truncated:
                    env.step(None)
                    continue
                legal = np.flatnonzero(obs["action_mask"])
                choices += len(legal) > 1
                env.step(int(legal[rng.integers(len(legal))]))
                steps += 1
            hands += 1
        return Tally(steps, choices, hands, time.perf_counter() - started)


class RLCardPlayer:
    """RLCard's gin-rummy env in its own interpreter (one worker process), timed there."""

    def __init__(self, python: str):
        self.process = subprocess.Popen([python, "-c", RLCARD_WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True)
        hello = self.process.stdout.readline()
        if not hello:
            error = self.process.stderr.read().strip().splitlines()
            self.process.wait()
            raise RuntimeError(error[-1] if error else "the worker printed nothing")
        self.versions = json.loads(hello)

    def play(self, seconds: float) -> Tally:
        self.process.stdin.write(f"{seconds}\n")
        self.process.stdin.flush()
        return Tally(**json.loads(self.process.stdout.readline()))

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=30)


def start_rlcard(python: str | None) -> RLCardPlayer | None:
    """The RLCard worker, or None (with the reason printed) when no usable interpreter was given."""
    if python is None:
        print("RLCard: skipped (no --rlcard-python given)")
        return None
    try:
        player = RLCardPlayer(python)
    except (OSError, RuntimeError) as error:
        print(f"RLCard: skipped ({python}: {error})")
        return None
    print(f"RLCard {player.versions['rlcard']} (numpy {player.versions['numpy']}) in {python}")
    return player


def measure(players: dict, seconds: float, repeats: int) -> dict[str, list[Tally]]:
    """``repeats`` timed stretches of each player, interleaved, the order reversed every other repeat."""
    for player in players.values():
        player.play(min(seconds, 1.0))  # warm-up: kernels compiled or loaded, caches filled
    tallies = {name: [] for name in players}
    for repeat in range(repeats):
        order = list(players) if repeat % 2 == 0 else list(reversed(players))
        for name in order:
            tallies[name].append(players[name].play(seconds))
    return tallies


def summary(name: str, tallies: list[Tally]) -> str:
    rate = statistics.median(t.steps_per_second for t in tallies)
    hands = sum(t.hands for t in tallies)
    steps_per_hand = sum(t.steps for t in tallies) / hands
    choices_per_hand = sum(t.choices for t in tallies) / hands
    hands_per_second = statistics.median(t.hands / t.seconds for t in tallies)
    return (f"{name:<34}{rate:>12,.0f}{hands_per_second:>10,.1f}{steps_per_hand:>12.1f}{choices_per_hand:>14.1f}"
            f"  (spread {min(t.steps_per_second for t in tallies):,.0f}-"
            f"{max(t.steps_per_second for t in tallies):,.0f})")


def ratios(tallies: dict[str, list[Tally]], ours: str, peer: str) -> str:
    """The ratio of the medians, in steps, choices and hands per second, and the spread of the paired ratios."""
    def median(name, count):
        return statistics.median(getattr(t, count) / t.seconds for t in tallies[name])

    per_step, per_choice, per_hand = (median(ours, c) / median(peer, c) for c in ("steps", "choices", "hands"))
    paired = [a.steps_per_second / b.steps_per_second for a, b in zip(tallies[ours], tallies[peer])]
    verdict = "met" if per_step >= TARGET else "NOT met"
    return (f"{ours} / {peer}: {per_step:.1f}x steps/s (paired repeats: median {statistics.median(paired):.1f}x, "
            f"{min(paired):.1f}-{max(paired):.1f}x), "
            f"{per_choice:.1f}x choices/s, {per_hand:.1f}x hands/s; target >= {TARGET:.0f}x steps/s {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rlcard-python", help="a Python with rlcard 1.2.0 installed (without it: oklasim only)")
    parser.add_argument("--seconds", type=float, default=3.0, help="length of one timed stretch")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"bench_env_rlcard: random legal policy, {args.repeats} repeats of {args.seconds:g} s, {machine_load()}")
    players = {"oklasim AEC env (oklasim.env.env)": AECPlayer(aec.env(episode="hand")),
               "oklasim AEC raw_env (no wrapper)": AECPlayer(aec.raw_env(episode="hand")),
               "null AEC env, PettingZoo's wrapper": AECPlayer(wrappers.OrderEnforcingWrapper(NullAEC())),
               "null AEC env, no wrapper": AECPlayer(NullAEC())}
    rlcard = start_rlcard(args.rlcard_python)
    if rlcard is not None:
        players["RLCard gin-rummy"] = rlcard
    try:
        tallies = measure(players, args.seconds, args.repeats)
    finally:
        if rlcard is not None:
            rlcard.close()
    print(f"{'env':<34}{'steps/s':>12}{'hands/s':>10}{'steps/hand':>12}{'choices/hand':>14}")
    for name, runs in tallies.items():
        print(summary(name, runs))
    if rlcard is not None:
        for ours in list(tallies)[:4]:
            print(ratios(tallies, ours, "RLCard gin-rummy"))
        print("(the null env's ratios are the ceiling of any AEC env in this loop on this machine now)")
    print(f"after: {machine_load()}")


if __name__ == "__main__":
    main()
