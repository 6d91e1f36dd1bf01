"""How well do the advisor's worlds predict a knock? Uniform vs played prior, against real hands.

    python benchmarks/advise_prior_calibration.py [--hands 3000] [--samples 2000] [--strategy simple]

Plays hands between two copies of a strategy with the engine, follows its
trace, and stops at every decision of seat 0 after a draw where a knock is
legal. There the advisor sees only what seat 0 knows (hand, pile, the cards
the opponent took, the stock); for each prior it predicts the points of the
best knock by sampling worlds, and the prediction is compared with the same
knock settled against the opponent's true hand. A calibrated prior has mean
error near 0 (the true result is one draw from what it predicts).
"""

from __future__ import annotations

import argparse
import statistics

import numpy as np

from oklasim._kernels import advise_columns_nb as C
from oklasim._kernels import advise_rollouts_nb as R
from oklasim._kernels import advise_worlds_nb as W
from oklasim._kernels import engine_nb as E
from oklasim._kernels import layout as L
from oklasim.advise import read_position, view_of, world_prior
from oklasim.advise.played import positions_from_play
from oklasim.rules import Rules
from oklasim.strategy import resolve


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=3000)
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument("--strategy", default="simple")
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    rules = Rules()
    strategy = resolve(args.strategy)
    params = np.zeros((L.MAX_SEATS, L.MAX_PARAMS))
    variants = {"uniform": None, "improved by draws": 0, "+ no knock": W.PRIOR_NO_KNOCK,
                "+ last discard (played)": W.PRIOR_PLAYED}
    errors = {v: [] for v in variants}
    undercut = {v: [] for v in variants} | {"true": []}
    stage = {v: {} for v in variants}
    count = 0
    for request, truth, _ in positions_from_play(rules, args.strategy, args.hands, args.seed):
        position = read_position(**request)
        view = view_of(position)
        columns = np.zeros((C.MAX_COLUMNS, C.N_CAND_FIELDS), dtype=np.int64)
        n = int(C.candidates_nb(view, L.D_KNOCK, 1, columns))
        columns = np.ascontiguousarray(columns[:n])
        active = (columns[:, C.C_KIND] == C.SHOWDOWN).astype(np.int64)
        # The knock the advisor would weigh: the first legal discard, in its first arrangement.
        c = int(np.flatnonzero(active)[0])
        active[:] = 0
        active[c] = 1
        board = np.zeros((L.BOARD_ROWS, L.V_SIZE), dtype=np.int64)
        W.template_nb(view, L.D_KNOCK, board)
        _, mine, theirs = R.showdown_nb(board, columns[c], truth)
        actual = mine - theirs
        undercut["true"].append(theirs > 0)
        for prior, flags in variants.items():
            vector = world_prior(position, "uniform" if flags is None else "played")
            if flags is not None:
                vector[1] = flags
            out = np.zeros((args.samples, n, R.N_OUT), dtype=np.int64)
            status = np.zeros(E.STATUS_SIZE, dtype=np.int64)
            code = R.advise_batch_nb(strategy.decide, strategy.decide, R.forced_nb, params, view, L.D_KNOCK, columns, n,
                                     active, 1234 + count, 0, vector, 0, args.samples, out, status)
            assert code == 0, code
            predicted = out[:, c, R.O_POINTS].mean()
            errors[prior].append(predicted - actual)
            undercut[prior].append(out[:, c, R.O_UNDERCUT].mean())
            bucket = min((31 - position.stock) // 4, 4)
            stage[prior].setdefault(bucket, []).append(predicted - actual)
        count += 1
    print(f"{count} knock decisions of seat 0 in {args.hands} hands of {args.strategy} vs {args.strategy}, "
          f"{args.samples} worlds each")
    print(f"true undercut rate of that knock: {np.mean(undercut['true']):.1%}")
    for prior, values in errors.items():
        se = statistics.stdev(values) / len(values) ** 0.5
        print(f"{prior:>26}: mean(predicted - actual) = {np.mean(values):+.2f} ± {1.96 * se:.2f} points; "
              f"predicted undercut rate {np.mean(undercut[prior]):.1%}")
        for bucket in sorted(stage[prior]):
            part = stage[prior][bucket]
            label = f"stock draws {4 * bucket}-{4 * bucket + 3}" if bucket < 4 else "stock draws 16+"
            print(f"{'':>28}{label:<18} n={len(part):>5}  error {np.mean(part):+6.2f} "
                  f"± {1.96 * statistics.stdev(part) / len(part) ** 0.5 if len(part) > 1 else 0:.2f}")


if __name__ == "__main__":
    main()
