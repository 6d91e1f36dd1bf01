"""Median ns per hand of the exact deadwood kernels, single thread, with OpenSpiel beside them.

    python benchmarks/bench_deadwood.py [--hands 1000000] [--repeats 5]

Hands are uniform random 10-card hands (for ``deadwood``) and 11-card hands
(for ``deadwood_after_discard``). When ``open-spiel`` is installed (``make
peer``), its ``GinRummyUtils.min_deadwood`` runs on the same hands in the
same run: a Python call per hand, so the printed Python-call overhead (a
trivial pyspiel call on the same list) is subtracted for a second,
C++-only ratio. OpenSpiel's 11-card figure uses a shortcut that is
sometimes wrong; the mismatches against ours are counted.
"""

from __future__ import annotations

import argparse

import numpy as np
from common import machine_load, median_seconds, pyspiel_or_none

from oklasim._kernels import melds_nb, rng_nb
from oklasim.game.cards import cards_of


def random_hands(seed: int, size: int, count: int) -> np.ndarray:
    out = np.empty(count, dtype=np.int64)
    rng_nb.random_hands_nb(seed, size, out)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    print(f"bench_deadwood: {args.hands:,} hands, median of {args.repeats} runs, {machine_load()}")
    cases = [
        ("deadwood, 10 cards", random_hands(1, 10, args.hands), melds_nb.deadwood_many_nb),
        ("deadwood_after_discard, 11 cards", random_hands(2, 11, args.hands), melds_nb.deadwood_after_discard_many_nb),
    ]
    pyspiel = pyspiel_or_none()
    utils = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10) if pyspiel else None
    print(f"{'kernel':<34}{'oklasim ns/hand':>16}{'OpenSpiel ns/hand':>19}{'ratio':>8}{'ratio C++ only':>16}")
    for name, hands, kernel in cases:
        out = np.empty_like(hands)
        ours = median_seconds(lambda: kernel(hands, out), args.repeats) / len(hands) * 1e9
        if utils is None:
            print(f"{name:<34}{ours:>16.1f}{'(make peer)':>19}")
            continue
        lists = [list(cards_of(int(h))) for h in hands]
        theirs_values = []
        theirs = median_seconds(lambda: theirs_values.append([utils.min_deadwood(c) for c in lists]), args.repeats)
        overhead = median_seconds(lambda: [utils.total_card_value(c) for c in lists], args.repeats)
        theirs_ns, cpp_ns = theirs / len(hands) * 1e9, (theirs - overhead) / len(hands) * 1e9
        wrong = int((np.asarray(theirs_values[-1]) != out).sum())
        print(f"{name:<34}{ours:>16.1f}{theirs_ns:>19.1f}{theirs_ns / ours:>7.0f}x{cpp_ns / ours:>15.0f}x")
        if wrong:
            print(f"  OpenSpiel differs from the exact value on {wrong:,} of {len(hands):,} hands")


if __name__ == "__main__":
    main()
