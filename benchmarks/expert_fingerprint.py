"""Fingerprints of expert's play, to show that a speed-up keeps every decision.

    python benchmarks/expert_fingerprint.py [--hands 5000] [--spec expert]

For expert vs expert and expert vs eaai in both seatings, under the ``eaai``
and ``seeds`` presets, in independent hands and in games to the target:
a hash of the hand and game records and of the full event trace. Run it in
two checkouts (``git archive COMMIT | tar -x -C DIR``, then
``PYTHONPATH=DIR python DIR/benchmarks/expert_fingerprint.py``); equal lines
mean the same play. Give ``--spec`` to pin parameters whose defaults changed.
"""

from __future__ import annotations

import argparse
import hashlib

from oklasim.game.rules import Rules
from oklasim.sim.engine import kernel_rules, resolve_all, run_kernel

EVENTS_PER_HAND = 200  # trace rows reserved per hand: far more than a hand makes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=5000, help="independent hands; a tenth as many games")
    parser.add_argument("--spec", default="expert", help="the expert to fingerprint, e.g. 'expert(finish_points=0)'")
    args = parser.parse_args()
    for preset in ("eaai", "seeds"):
        rules = Rules.preset(preset)
        for seats in ([args.spec, args.spec], [args.spec, "eaai"], ["eaai", args.spec]):
            strategies = resolve_all(seats, rules.players)
            for hands_only, count in ((True, args.hands), (False, args.hands // 10)):
                capacity = args.hands * EVENTS_PER_HAND
                hands, games, trace = run_kernel(
                    kernel_rules(rules, hands_only), strategies, 7, 0, count, trace_capacity=capacity
                )
                digest = hashlib.sha256(hands.tobytes() + games.tobytes() + trace.tobytes()).hexdigest()[:16]
                kind = "hands" if hands_only else "games"
                print(f"{preset:<6} {' vs '.join(seats):<40} {count:>6} {kind}  {len(trace):>8} events  {digest}")


if __name__ == "__main__":
    main()
