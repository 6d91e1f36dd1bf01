"""Points per hand (or games won) a candidate gains over a reference, per rules preset and opponent, on the same deals.

    python experiments/tune_expert_games/danger_by_opponent.py [--candidate expert:guarded] [--hands 20000]
    python experiments/tune_expert_games/danger_by_opponent.py --candidate expert --reference expert:v1 \
        --opponents panel --games 5000 --presets eaai,seeds

Why ``guarded`` is a preset and not the default: its ``danger_weight`` wins
games against ``eaai`` but gives up points against players that hold for
gin, under every preset (so neither a rules-dependent default nor one
weight serves every opponent). Each deal is played in both seatings by the
candidate and by the reference; the gain is the paired difference of their
results, deal by deal, with a 95% interval. With ``--games`` the deals are
games to the target and the figure is the share of games won.
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
from oklasim.studies.tune_space import expand_panel  # noqa: E402

OPPONENTS = ("eaai", "simple", "defensive", "score_aware", "threshold:early_then_gin", "threshold:gin_only", "expert")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candidate", default="expert:guarded")
    parser.add_argument("--reference", default="expert")
    parser.add_argument("--presets", default="eaai,seeds,north_american")
    parser.add_argument("--hands", type=int, default=20_000, help="deals, each played in both seatings")
    parser.add_argument("--games", type=int, default=0, help="games to the target instead of hands (each in both "
                                                                 "seatings): the gain in games won")
    parser.add_argument("--opponents", default=",".join(OPPONENTS), help="comma-separated; 'panel': the tuning panel")
    parser.add_argument("--seed", type=int, default=77)
    args = parser.parse_args()
    deals = args.games or args.hands
    if deals < 1:
        parser.error("--hands and --games must be at least 1")
    unit = "games" if args.games else "deals"
    print(f"{args.candidate} - {args.reference}, {deals:,} {unit} x 2 seatings, seed {args.seed}, {machine_load()}")
    for preset in args.presets.split(","):
        rules = Rules.preset(preset)
        for opponent in expand_panel(args.opponents.split(",")):
            size = {"games": args.games} if args.games else {"hands": args.hands}
            results = [match(name, opponent, rules=rules, seed=args.seed, **size) for name in (args.candidate,
                                                                                                args.reference)]
            if args.games:
                gain = paired_difference(*(100 * r.game_wins for r in results))
                print(f"{preset:<15} vs {opponent:<26} {gain.bracketed('+.2f')} pp of games "
                      f"({100 * results[0].game_wins.mean():.2f}% against {100 * results[1].game_wins.mean():.2f}%)",
                      flush=True)
            else:
                gain = paired_difference(*(r.deal_nets for r in results))
                print(f"{preset:<15} vs {opponent:<26} {gain.bracketed('+.2f')} points/hand", flush=True)


if __name__ == "__main__":
    main()
