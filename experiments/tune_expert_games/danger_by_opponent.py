"""Points per hand a candidate gains over a reference, per rules preset and opponent, on the same deals.

    python experiments/tune_expert_games/danger_by_opponent.py [--candidate expert:guarded] [--hands 20000]

Why ``guarded`` is a preset and not the default: its ``danger_weight`` wins
games against ``eaai`` but gives up points against players that hold for
gin, under every preset (so neither a rules-dependent default nor one
weight serves every opponent). Each deal is played in both seatings by the
candidate and by the reference; the gain is the paired difference of their
results, deal by deal, with a 95% interval.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from common import machine_load  # noqa: E402

from oklasim.analysis.match import match  # noqa: E402
from oklasim.analysis.stats import paired_difference  # noqa: E402
from oklasim.game.rules import Rules  # noqa: E402

OPPONENTS = ("eaai", "simple", "defensive", "score_aware", "threshold:early_then_gin", "threshold:gin_only", "expert")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candidate", default="expert:guarded")
    parser.add_argument("--reference", default="expert")
    parser.add_argument("--presets", default="eaai,seeds,north_american")
    parser.add_argument("--hands", type=int, default=20_000, help="deals, each played in both seatings")
    parser.add_argument("--seed", type=int, default=77)
    args = parser.parse_args()
    if args.hands < 1:
        parser.error("--hands must be at least 1")
    print(f"{args.candidate} - {args.reference}, {args.hands:,} deals x 2 seatings, seed {args.seed}, "
          f"{machine_load()}")
    for preset in args.presets.split(","):
        rules = Rules.preset(preset)
        for opponent in OPPONENTS:
            nets = [match(name, opponent, rules=rules, hands=args.hands, seed=args.seed).deal_nets
                    for name in (args.candidate, args.reference)]
            gain = paired_difference(*nets)
            print(f"{preset:<15} vs {opponent:<26} {gain.bracketed('+.2f')} points/hand", flush=True)


if __name__ == "__main__":
    main()
