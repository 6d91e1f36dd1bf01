"""What a faster, approximate expert costs: the same deals played by it and by expert, compared deal by deal.

    python benchmarks/expert_variant_cost.py 'expert(slack=4)' [--hands 20000] [--seed 11] [--strategy-path DIR]

For the ``eaai`` and ``seeds`` presets and the opponents ``eaai`` and
``expert``, every deal is played in both seatings by expert and by the
variant; the cost is the variant's paired result minus expert's, deal by
deal, with its 95% interval (a deal both play alike differs by exactly 0,
so the interval is narrow when few decisions change). The time ratio is the
variant's match time over expert's: how much faster it makes a study.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from common import machine_load

from oklasim.analysis.match import match
from oklasim.analysis.stats import mean_ci
from oklasim.game.rules import Rules
from oklasim.strategies.registry import resolve

OPPONENTS = ("eaai", "expert")


def timed_match(spec: str, opponent: str, rules: Rules, args):
    started = time.perf_counter()
    result = match(spec, opponent, rules=rules, hands=args.hands, seed=args.seed, strategy_paths=args.strategy_path)
    return result, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variant", help="the approximate expert, e.g. 'expert(slack=4)' or a family on --strategy-path")
    parser.add_argument("--hands", type=int, default=20_000, help="deals, each played in both seatings")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--strategy-path", action="append", default=[])
    args = parser.parse_args()
    if args.hands < 1:
        parser.error("--hands must be at least 1")
    try:
        resolve(args.variant, extra_paths=args.strategy_path)
    except (KeyError, ValueError) as error:
        sys.exit(f"expert_variant_cost: {error}")
    print(f"expert_variant_cost: {args.variant} - expert, {args.hands:,} deals x 2 seatings, seed {args.seed}, "
          f"{machine_load()}")
    for preset in ("eaai", "seeds"):
        rules = Rules.preset(preset)
        for spec in ("expert", args.variant):  # warm-up: kernels loaded before any time is taken
            match(spec, "eaai", rules=rules, hands=1, seed=args.seed, strategy_paths=args.strategy_path)
        for opponent in OPPONENTS:
            exact, exact_seconds = timed_match("expert", opponent, rules, args)
            variant, variant_seconds = timed_match(args.variant, opponent, rules, args)
            diff = np.asarray(variant.deal_nets) - np.asarray(exact.deal_nets)
            cost = mean_ci(diff)
            print(f"{preset:<6} vs {opponent:<7} {cost.bracketed()} points/hand, "
                  f"{np.mean(diff != 0):.1%} of deals play out differently, "
                  f"time {variant_seconds / exact_seconds:.2f}x expert's", flush=True)


if __name__ == "__main__":
    main()
