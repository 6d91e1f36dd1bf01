"""End-to-end `simulate`: wall time and peak memory, parquet included.

    python benchmarks/bench_simulate.py [--games 100000 1000000] [--workers 2] [--repeats 3]

Each run is a fresh process (like the command line) writing parquet to a
temporary folder: ``simple`` vs ``simple``, ``seeds`` rules, games to 100.
Peak memory is the largest resident set of the driver and of any worker;
it should stay flat as the number of games grows (it is bounded by the
shard size, not by N).
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time

from common import machine_load


def child(games: int, workers: int) -> None:
    from oklasim.game.rules import Rules
    from oklasim.runs.batch import RunSpec, run

    spec = RunSpec.create(Rules(), ["simple", "simple"], games=games, seed=1)
    with tempfile.TemporaryDirectory() as out:
        started = time.perf_counter()
        result = run(spec, f"{out}/run", workers=workers, progress=False)
        wall = time.perf_counter() - started
    print(json.dumps({
        "wall": wall,
        "driver_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "worker_mb": result.peak_worker_mb,
        "shards": spec.n_shards,
    }))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.workers)
        return
    print(f"bench_simulate: simple vs simple, seeds, {args.workers} workers, median of {args.repeats}, {machine_load()}")
    print(f"{'games':>10}{'wall s':>9}{'games/s':>10}{'driver MB':>11}{'worker MB':>11}{'shards':>8}")
    for games in args.games:
        runs = []
        for _ in range(args.repeats):
            output = subprocess.run(
                [sys.executable, __file__, "--child", str(games), "--workers", str(args.workers)],
                check=True, capture_output=True, text=True,
            ).stdout
            runs.append(json.loads(output.strip().splitlines()[-1]))
        wall = statistics.median(r["wall"] for r in runs)
        print(
            f"{games:>10,}{wall:>9.1f}{games / wall:>10,.0f}{max(r['driver_mb'] for r in runs):>11.0f}"
            f"{max(r['worker_mb'] for r in runs):>11.0f}{runs[0]['shards']:>8}"
        )
    print(f"after: {machine_load()}")


if __name__ == "__main__":
    main()
