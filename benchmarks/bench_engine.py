"""Hands and games per second of the engine on one core, with OpenSpiel's gin_rummy beside it.

    python benchmarks/bench_engine.py [--hands 200000] [--games 20000] [--repeats 5]

Measures, single process, median of the repeats:
* hands/s, ``simple`` vs ``simple``, under the ``seeds`` and ``openspiel`` presets;
* complete games to 100 per second (``seeds``);
* the start-up cost of a small run in a fresh process with a warm compile cache;
* when ``open-spiel`` is installed (``make peer``): its ``gin_rummy`` with
  ``oklahoma=true`` played by its simple bots, hands/s, and the ratio, taken pair by pair over back-to-back runs
  of both (``openspiel`` preset);
* with ``--against DIR`` (another checkout, e.g. ``git worktree add /tmp/before HEAD~1``): the hands/s of this
  code and of DIR's, ``simple`` vs ``simple`` and ``expert`` vs ``eaai`` under ``seeds``, each measured in fresh
  processes taking turns (each the fastest of three runs), and the ratio of their medians (this code / DIR's).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from common import machine_load, median_seconds, pyspiel_or_none

from oklasim.game.rules import Rules
from oklasim.sim.engine import simulate

STARTUP = "from oklasim.sim.engine import simulate; simulate(strategies=['simple'], games=10, seed=1)"
# Hands/s of one pairing in a fresh process; imports that work in this code and in code before the layout moved.
ONE_RATE = """
import sys, time
import oklasim
try:
    from oklasim.sim.engine import simulate
except ImportError:
    from oklasim.engine import simulate
print(oklasim.__file__)
seats, hands = sys.argv[1].split(","), int(sys.argv[2])
simulate(strategies=seats, hands=2000, seed=2)  # loads the kernels
fastest = float("inf")
for _ in range(3):  # the fastest of three: a stall of the machine (CPU steal) falls on one of them
    started = time.perf_counter()
    simulate(strategies=seats, hands=hands, seed=1)
    fastest = min(fastest, time.perf_counter() - started)
print(hands / fastest)
"""


def openspiel_player(pyspiel, hands: int):
    """A call that plays ``hands`` hands of OpenSpiel's gin_rummy (oklahoma=true) between its simple bots."""
    game = pyspiel.load_game("gin_rummy", {"oklahoma": True})
    bots = [pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), p) for p in range(2)]
    rng = random.Random(0)

    def play() -> None:
        for _ in range(hands):
            pyspiel.evaluate_bots(game.new_initial_state(), bots, rng.randrange(2**31))

    return play


def paired_ratios(ours, our_hands: int, theirs, their_hands: int, repeats: int) -> tuple[list[float], list[float]]:
    """(our hands/s, their hands/s) of ``repeats`` back-to-back pairs of runs: the machine's speed swings by more
    than the difference measured (CPU steal), and a pair sees the same machine, so the ratio is taken pair by pair."""
    ours(), theirs()  # warm-up
    our_rates, their_rates = [], []
    for _ in range(repeats):
        for run, hands, rates in ((ours, our_hands, our_rates), (theirs, their_hands, their_rates)):
            started = time.perf_counter()
            run()
            rates.append(hands / (time.perf_counter() - started))
    return our_rates, their_rates


def rate_in(code: Path, seats: str, hands: int) -> float:
    env = {**os.environ, "PYTHONPATH": str(code)}
    # Run in ``code``: ``python -c`` puts its working directory before PYTHONPATH on the import path.
    done = subprocess.run([sys.executable, "-c", ONE_RATE, seats, str(hands)], env=env, capture_output=True,
                          text=True, check=True, cwd=code)
    package, rate = done.stdout.split()
    if not Path(package).resolve().is_relative_to(code.resolve()):
        raise SystemExit(f"timed the oklasim of {package}, not of {code}")
    return float(rate)


def compare(other: Path, hands: int, repeats: int) -> None:
    """This code against ``other``'s, pairing by pairing, in alternating fresh processes."""
    here = Path(__file__).resolve().parents[1]
    for seats, count in (("simple,simple", hands), ("expert,eaai", hands // 5)):
        ours, theirs = [], []
        for _ in range(repeats):
            ours.append(rate_in(here, seats, count))
            theirs.append(rate_in(other, seats, count))
        a, b = statistics.median(ours), statistics.median(theirs)
        print(f"{seats:<14} this code {a:>10,.0f} hands/s, {other}: {b:>10,.0f} hands/s, ratio {a / b:.3f} "
              f"(runs: {', '.join(f'{x:,.0f}' for x in ours)} | {', '.join(f'{x:,.0f}' for x in theirs)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200_000)
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--peer-hands", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--against", type=Path, help="another checkout whose engine to time beside this one")
    args = parser.parse_args()
    print(f"bench_engine: median of {args.repeats} runs, one core, {machine_load()}")
    if args.against:
        compare(args.against, args.hands, args.repeats)
        return

    rates = {}
    for preset in ("seeds", "openspiel"):
        rules = Rules.preset(preset)
        seconds = median_seconds(lambda: simulate(rules, ["simple"], hands=args.hands, seed=1), args.repeats)
        rates[preset] = args.hands / seconds
        print(f"oklasim   simple vs simple, {preset:<10} {rates[preset]:>12,.0f} hands/s")
    seconds = median_seconds(lambda: simulate(Rules(), ["simple"], games=args.games, seed=1), args.repeats)
    print(f"oklasim   simple vs simple, seeds      {args.games / seconds:>12,.0f} games/s to 100")

    startup = median_seconds(lambda: subprocess.run([sys.executable, "-c", STARTUP], check=True), args.repeats)
    print(f"oklasim   start-up of a 10-game run in a new process (warm cache): {startup:.2f} s")

    pyspiel = pyspiel_or_none()
    if pyspiel is None:
        print("OpenSpiel not installed (make peer): no ratio")
        return
    rules = Rules.preset("openspiel")
    ours, theirs = paired_ratios(lambda: simulate(rules, ["simple"], hands=args.hands, seed=1), args.hands,
                                 openspiel_player(pyspiel, args.peer_hands), args.peer_hands, args.repeats)
    ratios = [a / b for a, b in zip(ours, theirs)]
    print(f"OpenSpiel gin_rummy oklahoma=true, simple bots {statistics.median(theirs):>10,.0f} hands/s")
    print(f"ratio (openspiel preset, {args.repeats} back-to-back pairs): median {statistics.median(ratios):,.0f}x "
          f"(pairs: {', '.join(f'{r:,.0f}x' for r in ratios)})")


if __name__ == "__main__":
    main()
