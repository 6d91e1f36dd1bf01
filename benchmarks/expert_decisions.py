"""Time per expert decision on recorded positions, optionally against another version of expert.py.

    python benchmarks/expert_decisions.py [--games 40] [--rounds 40] [--baseline OLD_EXPERT.py]

Seat 0's views at every decision of ``expert`` vs ``expert`` games (the
agent protocol's transcripts, so the views are exactly what the engine
shows) are recorded under the ``eaai`` and ``seeds`` presets, then each
decision kind is timed in a compiled loop: chunks of 400 positions, the
minimum of ``--rounds`` rounds per chunk, so that a shared machine's load
shows up as little as possible. With ``--baseline`` (e.g. the file from
``git show main:oklasim/strategies/families/expert.py``) both versions take turns on the same
chunks, their answers must agree, and the ratio of times is printed.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time

import numpy as np
from common import machine_load
from numba import njit

from oklasim._kernels import layout as L
from oklasim.agent.transcript import recorded_views
from oklasim.game.rules import Rules
from oklasim.strategies.registry import families, family_module, resolve

KINDS = {"draw": L.D_DRAW, "knock": L.D_KNOCK, "discard": L.D_DISCARD}
CHUNK = 400


def recorded_positions(preset: str, games: int) -> tuple[np.ndarray, np.ndarray]:
    calls = recorded_views(Rules.preset(preset), ["expert", "expert"], 5, games)
    return np.array([k for k, _ in calls]), np.array([v for _, v in calls])


def timing_loop(decide):
    @njit
    def run(kinds, views, kind, params, scratch):
        total = 0
        for i in range(views.shape[0]):
            if kinds[i] == kind:
                scratch[:] = views[i]  # a decision may write its memory slots: each starts from the recorded view
                total += decide(kind, scratch, params)
        return total

    return run


def load_baseline(path: str):
    spec = importlib.util.spec_from_file_location("expert_baseline", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # numba's cache reloads the module by name
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="games to 100 recorded per preset")
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--baseline", help="another expert.py to time side by side")
    args = parser.parse_args()
    if args.games < 1 or args.rounds < 1:
        parser.error("--games and --rounds must be at least 1")
    params = resolve("expert").vector()
    versions = {"this": timing_loop(family_module(families()["expert"].source).decide_nb)}
    if args.baseline:
        try:
            versions["baseline"] = timing_loop(load_baseline(args.baseline).decide_nb)
        except (OSError, AttributeError, SyntaxError) as error:
            sys.exit(f"expert_decisions: cannot load {args.baseline}: {error}")
    print(f"expert_decisions: {machine_load()}")
    for preset in ("eaai", "seeds"):
        kinds, views = recorded_positions(preset, args.games)
        scratch = np.empty(views.shape[1], np.int64)
        for name, kind in KINDS.items():
            n = int((kinds == kind).sum())
            answers = {v: run(kinds, views, kind, params, scratch) for v, run in versions.items()}
            if len(set(answers.values())) > 1:
                sys.exit(f"expert_decisions: {preset} {name}: the versions answer differently")
            seconds = dict.fromkeys(versions, 0.0)
            for start in range(0, len(kinds), CHUNK):
                part = kinds[start : start + CHUNK], views[start : start + CHUNK]
                best = dict.fromkeys(versions, np.inf)
                for _ in range(args.rounds):
                    for version, run in versions.items():
                        started = time.perf_counter()
                        run(*part, kind, params, scratch)
                        best[version] = min(best[version], time.perf_counter() - started)
                for version in versions:
                    seconds[version] += best[version]
            line = f"{preset:<6} {name:<8} {n:>5} positions  {seconds['this'] / n * 1e6:5.2f} µs"
            if args.baseline:
                line += f"  (baseline {seconds['baseline'] / n * 1e6:5.2f} µs: {seconds['this'] / seconds['baseline']:.2f}x)"
            print(line)


if __name__ == "__main__":
    main()
