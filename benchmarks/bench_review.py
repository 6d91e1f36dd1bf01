"""How long `oklasim review` takes on a game of six hands at its default budget, on every core.

    python benchmarks/bench_review.py [--seed 11] [--opponent simple] [--repeats 3] [--samples 40000]

The game is ``expert`` (the reviewed seat) against ``--opponent``, game 0 of ``--seed`` (seed 11 against simple
lasts six hands). After a warm-up review of its first decisions (the kernels compiled or loaded), the whole game is
reviewed ``--repeats`` times; printed: the median wall time, the CPU time of the process per review, how many
knock decisions there were and how many were judged, and the machine's load. The target: six hands in at most
60 s on two cores, every knock decision judged.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter
from dataclasses import replace

from common import machine_load

from oklasim.game.rules import Rules
from oklasim.review import REVIEW_SAMPLES, bot_game, review
from oklasim.review.judge import NOT_JUDGED


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--opponent", default="simple")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--samples", type=int, default=REVIEW_SAMPLES)
    args = parser.parse_args()
    game = bot_game(Rules(), ["expert", args.opponent], args.seed, 0, 0)
    review(replace(game, decisions=game.decisions[:4]), args.samples)  # warm-up: the kernels loaded
    walls, cpus = [], []
    for _ in range(args.repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        reviewed = review(game, args.samples)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    knocks = [j for j in reviewed.judgements if j.knock_offered]
    verdicts = Counter(j.verdict for j in reviewed.judgements)
    print(f"expert vs {args.opponent}, seed {args.seed}: {len(game.hands)} hands, {len(game.decisions)} decisions "
          f"({dict(verdicts)}); {len(knocks)} knock decisions, "
          f"{sum(j.verdict != NOT_JUDGED for j in knocks)} judged")
    print(f"review at {args.samples:,} worlds per decision: median {statistics.median(walls):.1f} s wall "
          f"(of {', '.join(f'{w:.1f}' for w in walls)}), {statistics.median(cpus):.1f} s CPU; {machine_load()}")


if __name__ == "__main__":
    main()
