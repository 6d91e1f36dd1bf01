"""`oklasim compile`: every kernel compiled now, on every core (``make install`` runs it)."""

from __future__ import annotations

import os

import click

from oklasim.cli.options import strategy_path_option


@click.command("compile")
@click.option("--jobs", type=int, help="Processes compiling at once [every core].")
@strategy_path_option()
def compile_command(jobs, strategy_paths) -> None:
    """Compile the engine's, the advisor's and every strategy family's kernels now, on every core.

    They are cached on disk (under OKLASIM_CACHE_DIR, default ~/.cache/oklasim), so that no later command waits
    for them; kernels already cached are only read. Run it after installing or upgrading oklasim.
    """
    import time

    from tqdm import tqdm

    from oklasim.runs.compiling import compile_all, units

    started = time.perf_counter()
    total = sum(len(wave) for wave in units(tuple(strategy_paths)))
    with tqdm(total=total, unit="unit", desc="compiling", disable=None) as bar:
        def done(unit, seconds):
            bar.update()
            bar.set_postfix_str(f"{unit[1]} {seconds:.0f} s")

        took = compile_all(jobs or os.cpu_count() or 1, tuple(strategy_paths), done)
    slowest = max(took.items(), key=lambda item: item[1])
    click.echo(f"{len(took)} units compiled or found cached in {time.perf_counter() - started:.0f} s "
               f"(the slowest, {slowest[0][1]}, {slowest[1]:.0f} s)")
