"""Games won by expert's style switch over expert:v1, on a grid of its weight, threshold and holder window.

    python experiments/tune_expert_panel/switch_grid.py --rules eaai --seed 92

Every candidate has no prior (``holding_prior`` 0: it starts as against
``eaai``) and, against a holder, knocks whenever legal in its first
``holder_early_draws`` own draws, then only goes gin. Each cell is the
paired gain in percentage points of games won over ``expert:v1`` on the
same games (each in both seatings), with a 95% interval, against the two
players that knock at once and the two styles the switch is for.
"""

from __future__ import annotations

import argparse
import itertools

from oklasim.analysis.match import match
from oklasim.analysis.stats import paired_difference
from oklasim.game.rules import Rules

OPPONENTS = ("eaai", "policy:seeds_equilibrium", "expert:early3_then_gin", "threshold:gin_only")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="eaai")
    parser.add_argument("--seed", type=int, default=92)
    parser.add_argument("--games", type=int, default=4000)
    args = parser.parse_args()
    rules = Rules.preset(args.rules)
    reference = {o: match("expert:v1", o, rules=rules, seed=args.seed, games=args.games) for o in OPPONENTS}
    print(f"{args.rules} rules, {args.games:,} games x 2 seatings, seed {args.seed}; against " + " | ".join(OPPONENTS))
    for weight, above, early in itertools.product((1, 2, 3, 5), (0.15, 0.25, 0.35), (6, 7)):
        spec = (f"expert(holding_prior=0, holding_weight={weight}, holder_above={above}, holder_early_draws={early}, "
                f"holder_gin_after_draws={early})")
        gains = []
        for opponent in OPPONENTS:
            result = match(spec, opponent, rules=rules, seed=args.seed, games=args.games)
            gains.append(paired_difference(100 * result.game_wins, 100 * reference[opponent].game_wins))
        print(f"weight {weight} above {above} early {early}: " + " | ".join(g.bracketed("+.2f") for g in gains),
              flush=True)


if __name__ == "__main__":
    main()
