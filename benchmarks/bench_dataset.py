"""Decision datasets against `simulate`: hands per second of each, the same strategies, seed and size, and the ratio.

    python benchmarks/bench_dataset.py [expert,search:40 expert,expert:4000 ...] [--repeats 5]

Each case is STRATEGIES:HANDS. Both write parquet to a temporary folder in
this process (``--workers 1``): ``simulate --out`` (``runs.batch.run``) and
``dataset --out`` (``env.dataset.write``), after one warm-up each (the kernels
compiled or loaded), then in turn ``--repeats`` times; the medians are
compared. The target: the dataset at least half as fast as ``simulate``.

The dataset writes each chunk of decisions on a thread while its kernel plays the next (``--workers 1`` is one
process, up to two cores busy). "play ratio" is ``simulate`` against the dataset's play alone (its kernel filling
the buffers, no parquet): where it is far above the ratio, parquet's writing of the observations (about 1 GB/s of
fixed-width binary on this machine) is the bound, not the play.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
from common import machine_load

from oklasim._kernels import layout as L
from oklasim.env.dataset import DatasetSpec, play_chunks, write
from oklasim.game.rules import Rules
from oklasim.runs.batch import RunSpec, run
from oklasim.sim.engine import kernel_rules, resolve_all


def timed(play) -> float:
    started = time.perf_counter()
    play()
    return time.perf_counter() - started


def case(strategies: str, hands: int, repeats: int, folder: Path) -> tuple[float, float, float, int]:
    """(simulate's median seconds, the dataset's, the dataset's play alone, its rows)."""
    runs = {"simulate": [], "dataset": [], "play": []}
    rows = 0

    def simulate(i):
        run(RunSpec.create(None, strategies, hands=hands, seed=1), folder / f"sim{i}", workers=1, progress=False)

    def dataset(i):
        nonlocal rows
        rows = write(DatasetSpec.create(None, strategies, hands=hands, seed=1), folder / f"data{i}", workers=1,
                     progress=False).rows_written

    def play(i):  # the decisions played and encoded into the buffers, no parquet
        records = np.empty((hands, L.N_GAME_FIELDS), dtype=np.int64)
        for _ in play_chunks(kernel_rules(Rules(), True), resolve_all(strategies.split(","), 2), 1, 0, hands,
                             records):
            pass

    simulate("warm"), dataset("warm"), play("warm")
    for i in range(repeats):
        for name, action in (("simulate", simulate), ("dataset", dataset), ("play", play)):
            runs[name].append(timed(lambda: action(i)))
    return (*(statistics.median(runs[name]) for name in ("simulate", "dataset", "play")), rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", default=["expert,search:40", "expert,expert:4000"],
                        help="STRATEGIES:HANDS, e.g. expert,search:40")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"bench_dataset: in-process, seeds rules, seed 1, median of {args.repeats}, {machine_load()}")
    print(f"{'strategies':<20}{'hands':>7}{'simulate h/s':>14}{'dataset h/s':>13}{'rows/hand':>11}{'ratio':>7}"
          f"{'play ratio':>12}")
    for item in args.cases:
        strategies, hands = item.rsplit(":", 1)
        with tempfile.TemporaryDirectory() as folder:
            simulate, dataset, play, rows = case(strategies, int(hands), args.repeats, Path(folder))
        n = int(hands)
        print(f"{strategies:<20}{n:>7,}{n / simulate:>14,.0f}{n / dataset:>13,.0f}{rows / n:>11.1f}"
              f"{simulate / dataset:>7.2f}{simulate / play:>12.2f}")
    print(f"after: {machine_load()}")


if __name__ == "__main__":
    main()
