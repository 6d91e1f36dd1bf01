"""What each part of the expert strategy is worth: switch it off, replay the very same deals, compare.

    python benchmarks/expert_ablation.py [--hands 20000] [--seed 2027]

For each rules preset and its reference opponent (``eaai`` under the
``eaai`` rules, ``defensive`` under ``seeds``), every deal is played by the
full expert and by each ablated version, both seatings, against the same
opponent; the worth of a part is the full expert's paired result minus the
ablated one's, deal by deal, with its 95% interval.
"""

from __future__ import annotations

import argparse

import numpy as np

from common import machine_load

from oklasim.match import match
from oklasim.rules import Rules
from oklasim.stats import mean_ci

SETTINGS = {
    "eaai": "eaai",
    "seeds": "defensive",
}
ABLATIONS = {
    "look-ahead (lookahead=0)": "expert(lookahead=0)",
    "fading of the look-ahead (lookahead_horizon=99)": "expert(lookahead_horizon=99)",
    "pickups in the fading (pickup_weight=0)": "expert(pickup_weight=0)",
    "steep undercut zone (steepness=0)": "expert(steepness=0)",
    "gin chance (gin_weight=0)": "expert(gin_weight=0)",
    "danger of feeding melds (danger_weight=0)": "expert(danger_weight=0)",
    "discards beyond the least deadwood (slack=0)": "expert(slack=0)",
    "card tracking tiers (hot_factor=1, cold_factor=1)": "expert(hot_factor=1, cold_factor=1)",
    "early knocks (early_draws=0, gin_after_draws=0)": "expert(early_draws=0, gin_after_draws=0)",
    "holding for gin (gin_after_draws=99)": "expert(gin_after_draws=99)",
    "least exposed layout (lay_safe=0)": "expert(lay_safe=0)",
    "all of look-ahead, danger and slack (expert_plain)": "expert:expert_plain",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=2027)
    args = parser.parse_args()
    print(f"expert_ablation: {args.hands:,} deals x 2 seatings per line, seed {args.seed}, {machine_load()}")
    for preset, opponent in SETTINGS.items():
        rules = Rules.preset(preset)
        full = match("expert", opponent, rules=rules, hands=args.hands, seed=args.seed, workers=1)
        d = full.diff_points_per_hand
        print(f"\n{preset} rules, against {opponent}: expert {d.mean:+.2f} [{d.low:+.2f}, {d.high:+.2f}] points/hand")
        for label, name in ABLATIONS.items():
            ablated = match(name, opponent, rules=rules, hands=args.hands, seed=args.seed, workers=1)
            worth = mean_ci(np.asarray(full.deal_nets) - np.asarray(ablated.deal_nets))
            print(f"  {label:<52} worth {worth.mean:+.2f} [{worth.low:+.2f}, {worth.high:+.2f}] points/hand")


if __name__ == "__main__":
    main()
