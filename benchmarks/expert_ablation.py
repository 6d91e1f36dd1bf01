"""What each part of the expert strategy is worth: switch it off, replay the very same deals, compare.

    python benchmarks/expert_ablation.py [--hands 20000] [--seed 2027]
    python benchmarks/expert_ablation.py --games 10000      # games won instead

For each rules preset and its reference opponent (``eaai`` under the
``eaai`` rules, ``defensive`` under ``seeds``), every deal is played by the
full expert and by each ablated version, both seatings, against the same
opponent; the worth of a part is the full expert's paired result minus the
ablated one's, deal by deal, with its 95% interval. With ``--games`` every
line plays whole games to the target score instead, and a part's worth is
the share of games won (both seatings of each game seed) it adds, in
percentage points.
"""

from __future__ import annotations

import argparse

import numpy as np
from common import machine_load

from oklasim.analysis.match import match
from oklasim.analysis.stats import mean_ci
from oklasim.game.rules import Rules

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
    parser.add_argument("--games", type=int, help="play this many games to the target score instead of hands")
    parser.add_argument("--seed", type=int, default=2027)
    args = parser.parse_args()
    games = args.games is not None
    count, unit = (args.games, "games") if games else (args.hands, "deals")
    scale, figure = (100, "pp of games won") if games else (1, "points/hand")

    def per_deal(name: str, opponent: str, rules: Rules) -> np.ndarray:
        """The strategy's result on each deal: its share of the game won, or its paired net points."""
        result = match(name, opponent, rules=rules, hands=None if games else count, games=count if games else None,
                       seed=args.seed, workers=1)
        return scale * (result.game_wins if games else result.deal_nets)

    print(f"expert_ablation: {count:,} {unit} x 2 seatings per line, seed {args.seed}, {machine_load()}")
    for preset, opponent in SETTINGS.items():
        rules = Rules.preset(preset)
        full = per_deal("expert", opponent, rules)
        d = mean_ci(full)
        sign = "" if games else "+"  # a share of games is no edge over the opponent
        print(f"\n{preset} rules, against {opponent}: expert {d.mean:{sign}.2f} [{d.low:{sign}.2f}, "
              f"{d.high:{sign}.2f}] {'% of games won' if games else 'points/hand'}")
        for label, name in ABLATIONS.items():
            worth = mean_ci(full - per_deal(name, opponent, rules))
            print(f"  {label:<52} worth {worth.bracketed('+.2f')} {figure}", flush=True)


if __name__ == "__main__":
    main()
