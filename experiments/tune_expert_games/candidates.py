"""Games won by targeted candidates against a reference on the same game seeds, paired game by game.

    python experiments/tune_expert_games/candidates.py --games 4000 --seed 31 \
        'expert_score(lead_points=30)' 'expert_score(trail_points=50)' ...

Each candidate and the reference (``--reference``, by default
``expert_score``: ``expert`` as shipped) play ``--games`` games against
``--against`` under ``--rules``, each game in both seatings; a candidate's
gain is its share of each game won less the reference's, averaged over the
games, with a 95% interval (the same game seeds: games part only where the
two decide differently).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from common import machine_load  # noqa: E402

from oklasim.analysis.match import match  # noqa: E402
from oklasim.analysis.stats import mean_ci, paired_difference  # noqa: E402
from oklasim.game.rules import Rules  # noqa: E402

STRATEGIES = str(Path(__file__).resolve().parent / "strategies")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("candidates", nargs="+")
    parser.add_argument("--reference", default="expert_score")
    parser.add_argument("--against", default="eaai")
    parser.add_argument("--rules", default="eaai")
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=31)
    args = parser.parse_args()
    rules = Rules.preset(args.rules)

    def wins(name: str):
        return match(name, args.against, rules, games=args.games, seed=args.seed, workers=1,
                     strategy_paths=(STRATEGIES,)).game_wins

    reference = wins(args.reference)
    r = mean_ci(reference)
    print(f"{args.games:,} games x 2 seatings vs {args.against}, rules {args.rules}, seed {args.seed}, "
          f"{machine_load()}")
    print(f"{args.reference:<64}  {r.bracketed('.2f', 100, '%')}")
    for name in args.candidates:
        mine = wins(name)
        gain, rate = paired_difference(mine, reference), mean_ci(mine)
        print(f"{name:<64}  {rate.bracketed('.2f', 100, '%')}  gain {gain.bracketed('+.2f', 100, ' pp')}",
              flush=True)


if __name__ == "__main__":
    main()
