"""Behaviour cloning of ``expert``: a small masked softmax policy in numpy, fitted to expert's decisions and played.

    .venv/bin/python experiments/bc_expert/bc.py [--hands 6000] [--play-hands 4000] [--hidden 256] [--epochs 8]
        [--seed 0] [--data DIR] [--readme experiments/bc_expert/README.md]

1. A decision dataset (``oklasim.env.dataset.export``): ``expert`` in seat 0
   against each of ``greedy`` and ``simple``, ``--hands`` hands in all; only
   expert's own decisions are kept.
2. A policy over the observation vector and the action mask: one hidden ReLU
   layer (``--hidden 0``: linear), its logits masked by the action mask, fitted
   by Adam on the cross-entropy of expert's action; accuracy on a held-out
   fifth of the hands.
3. The policy (argmax over the legal actions) plays ``--play-hands`` hands
   through ``VectorGin`` against ``simple`` and ``expert``, beside a uniformly
   random legal policy (the floor) and expert itself (``simulate``: the
   ceiling the imitation aims at).
4. The numbers are printed, and written with the command, the date and the
   machine's load to ``--readme`` when given.

Only numpy beyond oklasim and its ``rl`` extra. The pieces are functions, so
the tests run them on a few dozen hands.
"""

from __future__ import annotations

import argparse
import datetime
import os
import shlex
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from oklasim.analysis.stats import Estimate, mean_ci, proportion
from oklasim.env.dataset import export, load
from oklasim.env.spaces import N_ACTIONS, action_name
from oklasim.env.vector import VectorGin
from oklasim.sim.engine import DECISION_NAMES, simulate

DATA_OPPONENTS = ("greedy", "simple")  # whom expert plays in the dataset
PLAY_OPPONENTS = ("simple", "expert")  # whom the learner plays
EXPERT_SEAT = 0  # the strategies' order is the seats'
HELD_OUT = 0.2  # the fraction of hands kept out of the fit
GROUP_STRIDE = 1 << 40  # a hand's id across datasets: dataset index * stride + game
KNOCK = DECISION_NAMES.index("knock")
PLAY_ON = next(a for a in range(N_ACTIONS) if action_name(a) == "play on")  # the knock decision's "no knock"

Act = Callable[[np.ndarray, np.ndarray], np.ndarray]  # (obs int8[n, 938], mask int8[n, 143]) -> actions int64[n]


# -- the data ------------------------------------------------------------------------------------------------------


@dataclass
class Decisions:
    """Expert's decisions: what it saw, what it could do, what it did, which decision, and which hand."""

    obs: np.ndarray
    mask: np.ndarray
    action: np.ndarray
    kind: np.ndarray
    hand: np.ndarray

    def __len__(self) -> int:
        return len(self.action)

    def take(self, rows: np.ndarray) -> Decisions:
        return Decisions(self.obs[rows], self.mask[rows], self.action[rows], self.kind[rows], self.hand[rows])


def write_datasets(folder: Path, hands: int, seed: int, opponents: Sequence[str] = DATA_OPPONENTS) -> list[Path]:
    """Expert against each opponent, ``hands`` hands split evenly, a seed of its own each (other deals)."""
    folders = []
    for index, opponent in enumerate(opponents):
        out = folder / f"expert-{opponent}"
        export(out, strategies=f"expert,{opponent}", hands=max(1, hands // len(opponents)), seed=seed + index,
               overwrite=True)
        folders.append(out)
    return folders


def load_expert_decisions(folders: Sequence[Path]) -> Decisions:
    """Expert's rows of every dataset (the opponents' decisions are not what we imitate)."""
    parts = []
    for index, folder in enumerate(folders):
        data = load(folder)
        mine = data["seat"] == EXPERT_SEAT
        parts.append(Decisions(np.ascontiguousarray(data["obs"][mine]), np.ascontiguousarray(data["mask"][mine]),
                               data["action"][mine].astype(np.int64), data["kind"][mine],
                               index * GROUP_STRIDE + data["game"][mine]))
    return Decisions(*(np.concatenate([getattr(p, f) for p in parts]) for f in Decisions.__dataclass_fields__))


def split_by_hand(decisions: Decisions, held_out: float, seed: int) -> tuple[Decisions, Decisions]:
    """(fit, held out): whole hands on either side, so no hand's later decisions leak its earlier ones."""
    hands = np.unique(decisions.hand)
    rng = np.random.default_rng(seed)
    test_hands = rng.choice(hands, size=max(1, int(len(hands) * held_out)), replace=False)
    test = np.isin(decisions.hand, test_hands)
    return decisions.take(np.flatnonzero(~test)), decisions.take(np.flatnonzero(test))


# -- the policy ----------------------------------------------------------------------------------------------------


def masked_log_softmax(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Log-probabilities over the legal actions; -inf elsewhere."""
    logits = np.where(mask.astype(bool), logits, -np.inf)
    top = logits.max(axis=1, keepdims=True)
    top[~np.isfinite(top)] = 0.0  # a row with nothing legal: all -inf, no NaN
    shifted = logits - top
    return shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))


class MaskedPolicy:
    """A softmax policy over the legal actions: logits of one hidden ReLU layer (or linear when ``hidden`` is 0)
    of the observation, each value scaled by the largest it took in the fit, and of the action mask (an input too:
    which discards would knock says much of the hand's deadwood, which the observation does not hold)."""

    def __init__(self, n_obs: int, n_actions: int, hidden: int, scale: np.ndarray, seed: int):
        rng = np.random.default_rng(seed)
        self.scale = scale.astype(np.float32)
        sizes = [n_obs + n_actions, hidden, n_actions] if hidden else [n_obs + n_actions, n_actions]
        self.params: list[np.ndarray] = []
        for fan_in, fan_out in zip(sizes, sizes[1:]):  # He initialisation, zero biases
            self.params += [(rng.standard_normal((fan_in, fan_out)) * np.sqrt(2 / fan_in)).astype(np.float32),
                            np.zeros(fan_out, dtype=np.float32)]

    def features(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.concatenate([obs.astype(np.float32) * self.scale, mask.astype(np.float32)], axis=1)

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
        """(logits, the inputs of each layer, kept for the gradient)."""
        inputs = []
        for layer in range(0, len(self.params), 2):
            if layer:
                x = np.maximum(x, 0.0)
            inputs.append(x)
            x = x @ self.params[layer] + self.params[layer + 1]
        return x, inputs

    def gradients(self, x: np.ndarray, mask: np.ndarray, action: np.ndarray) -> tuple[float, list[np.ndarray]]:
        """(mean cross-entropy of the taken actions, its gradient for every parameter)."""
        logits, inputs = self.forward(x)
        log_p = masked_log_softmax(logits, mask)
        rows = np.arange(len(action))
        loss = -float(log_p[rows, action].mean())
        upstream = np.exp(log_p)  # softmax - one-hot: the gradient of the cross-entropy in the logits
        upstream[rows, action] -= 1.0
        upstream /= len(action)
        grads: list[np.ndarray] = [None] * len(self.params)
        for layer in reversed(range(0, len(self.params), 2)):
            grads[layer], grads[layer + 1] = inputs[layer // 2].T @ upstream, upstream.sum(axis=0)
            if layer:
                upstream = (upstream @ self.params[layer].T) * (inputs[layer // 2] > 0)
        return loss, grads

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The most likely legal action of each row (what the learner plays)."""
        logits, _ = self.forward(self.features(obs, mask))
        return np.where(mask.astype(bool), logits, -np.inf).argmax(axis=1)


def feature_scale(obs: np.ndarray) -> np.ndarray:
    """1 / the largest value of each feature (1 for a feature never set): every input in [0, 1]."""
    return 1.0 / np.maximum(obs.max(axis=0).astype(np.float32), 1.0)


def fit(train: Decisions, hidden: int = 256, epochs: int = 8, batch: int = 256, rate: float = 1e-3,
        decay: float = 1e-5, seed: int = 0, log: Callable[[str], None] | None = print) -> MaskedPolicy:
    """Fit a ``MaskedPolicy`` to the decisions' actions by Adam on minibatches (with a small L2 decay)."""
    policy = MaskedPolicy(train.obs.shape[1], train.mask.shape[1], hidden, feature_scale(train.obs), seed)
    first = [np.zeros_like(p) for p in policy.params]
    second = [np.zeros_like(p) for p in policy.params]
    rng = np.random.default_rng(seed)
    beta1, beta2, steps = 0.9, 0.999, 0
    for epoch in range(epochs):
        order = rng.permutation(len(train))
        losses = []
        for start in range(0, len(order), batch):
            rows = order[start : start + batch]
            mask = train.mask[rows]
            loss, grads = policy.gradients(policy.features(train.obs[rows], mask), mask, train.action[rows])
            losses.append(loss)
            steps += 1
            for p, g, m, v in zip(policy.params, grads, first, second):
                g = g + decay * p
                m *= beta1
                m += (1 - beta1) * g
                v *= beta2
                v += (1 - beta2) * g * g
                p -= rate * (m / (1 - beta1**steps)) / (np.sqrt(v / (1 - beta2**steps)) + 1e-8)
        if log:
            log(f"  epoch {epoch + 1}/{epochs}: mean cross-entropy {np.mean(losses):.3f}")
    return policy


def accuracy(policy: MaskedPolicy, decisions: Decisions, chunk: int = 8192) -> np.ndarray:
    """Per row, 1 where the policy's choice is the expert's."""
    return np.concatenate([policy.act(decisions.obs[s : s + chunk], decisions.mask[s : s + chunk])
                           == decisions.action[s : s + chunk] for s in range(0, len(decisions), chunk)])


def random_choice_accuracy(decisions: Decisions) -> np.ndarray:
    """Per row, the chance a uniformly random legal choice is the expert's: 1 / the number of legal actions."""
    return 1.0 / decisions.mask.sum(axis=1)


def knock_rates(policy: MaskedPolicy, decisions: Decisions) -> tuple[float, float]:
    """(expert's, the policy's) share of the knock offers answered with a knock, not "play on"."""
    offers = decisions.take(np.flatnonzero(decisions.kind == KNOCK))
    if not len(offers):
        return float("nan"), float("nan")
    return float((offers.action != PLAY_ON).mean()), float((policy.act(offers.obs, offers.mask) != PLAY_ON).mean())


# -- playing -------------------------------------------------------------------------------------------------------


def uniform_random(seed: int) -> Act:
    """A uniformly random legal action per row (the floor)."""
    rng = np.random.default_rng(seed)

    def act(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        counts = mask.sum(axis=1)
        pick = (rng.random(len(mask)) * np.maximum(counts, 1)).astype(np.int64)
        return np.argmax(np.cumsum(mask, axis=1) > pick[:, None], axis=1)

    return act


def play(act: Act, opponent: str, hands: int, seed: int, slots: int = 256, rules=None) -> np.ndarray:
    """The learner's net points (its points less the opponent's) of each of ``hands`` hand episodes through
    ``VectorGin``. Every slot plays the same number of hands (stopping at the first ``hands`` finished would favour
    the short ones): at most ``slots`` slots, as many as divide ``hands``."""
    slots = max(d for d in range(1, min(slots, hands) + 1) if hands % d == 0)
    per_slot = hands // slots
    env = VectorGin(slots, rules, opponent=opponent)
    obs, info = env.reset(seed=seed)
    mask = info["action_mask"]
    running = np.zeros(slots)
    finished = [[] for _ in range(slots)]
    while min(len(f) for f in finished) < per_slot:
        obs, rewards, terminated, truncated, info = env.step(act(obs, mask))
        mask = info["action_mask"]
        running += rewards
        for slot in np.flatnonzero(terminated | truncated):
            finished[slot].append(running[slot])
            running[slot] = 0.0
    return np.array([points for f in finished for points in f[:per_slot]])


def expert_points(opponent: str, hands: int, seed: int) -> np.ndarray:
    """Expert's own net points per hand against ``opponent`` in seat 0 (``simulate``): what imitation aims at."""
    frame = simulate(strategies=["expert", opponent], hands=hands, seed=seed).hands
    return (frame["points_0"] - frame["points_1"]).to_numpy().astype(np.float64)


@dataclass
class Match:
    """A player's results against one opponent."""

    player: str
    opponent: str
    points: Estimate
    wins: Estimate

    @classmethod
    def of(cls, player: str, opponent: str, points: np.ndarray) -> Match:
        return cls(player, opponent, mean_ci(points), proportion(int((points > 0).sum()), len(points)))


# -- the report ----------------------------------------------------------------------------------------------------


@dataclass
class Results:
    """What ``run`` measured: the data's size, the imitation's accuracy (overall, per decision, at knocking) beside
    a random legal choice's, the matches, and the seconds each stage took."""

    rows: int
    hands: int
    test_rows: int
    accuracy: float
    random_accuracy: float
    by_kind: list[tuple[str, int, float, float]]
    knocks: tuple[float, float]
    matches: list[Match]
    seconds: dict[str, float]


def kind_table(policy: MaskedPolicy, test: Decisions) -> list[tuple[str, int, float, float]]:
    """(decision, held-out rows, the policy's accuracy, a random legal choice's) per decision kind."""
    hits, chance = accuracy(policy, test), random_choice_accuracy(test)
    return [(DECISION_NAMES[k], int((test.kind == k).sum()), float(hits[test.kind == k].mean()),
             float(chance[test.kind == k].mean())) for k in np.unique(test.kind)]


def markdown(results: Results) -> str:
    lines = [wrap(f"Imitation: {results.rows:,} decisions of expert's in {results.hands:,} hands; held out "
                  f"{results.test_rows:,} (a fifth of the hands): accuracy **{results.accuracy:.1%}** (a random "
                  f"legal choice: {results.random_accuracy:.1%})."), "",
             "| decision | held-out rows | policy | random legal |", "|---|---:|---:|---:|"]
    lines += [f"| {name} | {n:,} | {acc:.1%} | {chance:.1%} |" for name, n, acc, chance in results.by_kind]
    lines += ["", f"At the held-out knock offers expert knocks {results.knocks[0]:.1%} of the time, the policy "
              f"{results.knocks[1]:.1%}."]
    lines += ["", "| player | opponent | hands | net points per hand (95% CI) | hands won (95% CI) |",
              "|---|---|---:|---|---|"]
    lines += [f"| {m.player} | {m.opponent} | {m.points.n:,} | {m.points.bracketed('+.2f')} | "
              f"{m.wins.bracketed('.1f', 100, '%')} |" for m in results.matches]
    lines += ["", "Wall-clock seconds: " + ", ".join(f"{k} {v:.0f}" for k, v in results.seconds.items()) + "."]
    return "\n".join(lines)


README_HEAD = """# Behaviour cloning of `expert`

A worked example of learning from oklasim's decision datasets with numpy alone: `bc.py` writes a dataset of
`expert` (seat 0) against `greedy` and `simple`, fits a masked softmax policy (one hidden ReLU layer over the 938
observation values and the 143 mask bits, the logits of illegal actions masked out) to expert's actions by Adam on
the cross-entropy, holding a fifth of the hands out, and plays the fitted policy (argmax over the legal actions)
through `VectorGin` against `simple` and `expert`. A uniformly random legal policy through the same env is the
floor; expert itself (`simulate`, its seat 0 against the same opponent) the ceiling. Net points per hand are the
learner's points less the opponent's; a hand is won when they are positive (a void hand is neither won nor lost).
Hands where the opponent takes the first upcard and knocks before the learner is asked anything are no episode of
the env, and are not counted for the players that play through it.
"""


def write_readme(path: Path, results: Results, command: str, load_before: str, load_after: str) -> None:
    measured = (f"Measured {datetime.date.today().isoformat()} on {os.cpu_count()} cores; {load_before} before, "
                f"{load_after} after; {time.process_time():.0f} CPU seconds in all (the wall-clock seconds below "
                "stretch with the load).")
    text = [README_HEAD, "## Run", "", "```", command, "```", "", wrap(measured), "", "## Results", "",
            markdown(results), "", "## How strong it gets", "", wrap(verdict(results)), ""]
    path.write_text("\n".join(text))


def wrap(paragraph: str) -> str:
    return textwrap.fill(paragraph, width=116, break_on_hyphens=False)


def verdict(results: Results) -> str:
    """Honest sentences: where the learner stands between the floor and the ceiling against each opponent, and
    whether it beats any."""
    by = {(m.player, m.opponent): m for m in results.matches}
    sentences = []
    for opponent in dict.fromkeys(m.opponent for m in results.matches):  # in play order
        learner, floor, ceiling = (by.get((p, opponent)) for p in ("bc policy", "random legal", "expert"))
        if not (learner and floor and ceiling):
            continue
        span = ceiling.points.mean - floor.points.mean
        share = (learner.points.mean - floor.points.mean) / span if span else float("nan")
        sentences.append(f"Against `{opponent}` the cloned policy nets {learner.points.mean:+.2f} points per hand "
                         f"(random legal {floor.points.mean:+.2f}, expert {ceiling.points.mean:+.2f}): "
                         f"{share:.0%} of the way from the floor to expert.")
    beaten = [m.opponent for m in results.matches if m.player == "bc policy" and m.points.low > 0]
    losing = [m.opponent for m in results.matches if m.player == "bc policy" and m.points.high < 0]
    if losing:
        sentences.append(f"It still loses clearly to {' and '.join(f'`{o}`' for o in losing)}: a fair imitation "
                         "of single decisions, not yet a player.")
    if beaten:
        sentences.append(f"It beats {' and '.join(f'`{o}`' for o in beaten)}.")
    sentences.append(f"Knocking is where it departs most: it knocks at {results.knocks[1]:.0%} of the held-out "
                     f"knock offers where expert knocks at {results.knocks[0]:.0%}; when the deadwood is low enough "
                     "is not in the observation, and the offers are few.")
    return " ".join(sentences)


# -- the script ----------------------------------------------------------------------------------------------------


def run(args: argparse.Namespace, data_dir: Path, log: Callable[[str], None] = print) -> Results:
    seconds = {}
    started = time.perf_counter()
    folders = write_datasets(data_dir, args.hands, args.seed)
    decisions = load_expert_decisions(folders)
    seconds["dataset"] = time.perf_counter() - started
    train, test = split_by_hand(decisions, HELD_OUT, args.seed)
    log(f"dataset: {len(decisions):,} expert decisions of {len(np.unique(decisions.hand)):,} hands; "
        f"fitting on {len(train):,}")
    started = time.perf_counter()
    policy = fit(train, hidden=args.hidden, epochs=args.epochs, seed=args.seed, log=log)
    seconds["fit"] = time.perf_counter() - started
    log(f"train accuracy {accuracy(policy, train).mean():.1%}")
    started = time.perf_counter()
    matches = []
    for index, opponent in enumerate(PLAY_OPPONENTS):
        seed = args.seed + 100 + index
        matches.append(Match.of("bc policy", opponent, play(policy.act, opponent, args.play_hands, seed)))
        matches.append(Match.of("random legal", opponent,
                                play(uniform_random(seed), opponent, args.play_hands, seed)))
        matches.append(Match.of("expert", opponent, expert_points(opponent, args.play_hands, seed)))
    seconds["play"] = time.perf_counter() - started
    return Results(len(decisions), len(np.unique(decisions.hand)), len(test), float(accuracy(policy, test).mean()),
                   float(random_choice_accuracy(test).mean()), kind_table(policy, test), knock_rates(policy, test),
                   matches, seconds)


def machine_load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min)"


def main(argv: Sequence[str] | None = None) -> Results:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=6000, help="hands of the dataset, split between the opponents")
    parser.add_argument("--play-hands", type=int, default=4000, help="hands played against each opponent")
    parser.add_argument("--hidden", type=int, default=256, help="hidden units (0: a linear policy)")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", type=Path, help="keep the datasets in this folder (default: a temporary one)")
    parser.add_argument("--readme", type=Path, help="write the results, command, date and load to this file")
    args = parser.parse_args(argv)
    load_before = machine_load()
    print(f"bc.py: {load_before}")
    if args.data is None:
        with tempfile.TemporaryDirectory() as folder:
            results = run(args, Path(folder))
    else:
        results = run(args, args.data)
    print(markdown(results))
    load_after = machine_load()
    print(f"after: {load_after}")
    if args.readme is not None:
        command = shlex.join([".venv/bin/python", "experiments/bc_expert/bc.py", *(sys.argv[1:] if argv is None
                                                                                     else argv)])
        write_readme(args.readme, results, command, load_before, load_after)
    return results


if __name__ == "__main__":
    main()
