"""`oklasim simulate`, `runs`, `show`, `replay` and `report`: many games, stored and looked at."""

from __future__ import annotations

from pathlib import Path

import click

from oklasim.cli.options import (
    Interrupted,
    given_options,
    load_rules,
    rules_and_players,
    seats_and_size,
    seed_option,
    shard_size_option,
    strategy_path_option,
    workers_option,
)
from oklasim.errors import OklasimError


@click.command()
@rules_and_players()
@seats_and_size("simple,simple", "simple,random(knock_probability=0.3)")
@seed_option("Seed: the same seed gives the same games.")
@workers_option()
@click.option("--out", "out", type=click.Path(file_okay=False), help="Run folder for parquet output (runs/NAME).")
@shard_size_option()
@click.option("--resume", is_flag=True,
              help="Finish an interrupted run in --out, keeping its finished shards; options left out are the run's.")
@click.option("--overwrite", is_flag=True, help="Replace the run in --out.")
@click.option("--scheduler", help="Address of a Dask scheduler, e.g. tcp://host:8786.")
@click.option("--dask-local", type=int, help="Start a local Dask cluster with N workers.")
@strategy_path_option()
def simulate(rules_spec, players, strategy_list, params, games, hands, seed, workers, out, shard_size, resume,
             overwrite, scheduler, dask_local, strategy_paths) -> None:
    """Play many games or hands on all cores (or a Dask cluster) and summarise them.

    With --out the records go to parquet in that folder, with the rules,
    strategies, seed and version in its manifest.json; interrupt it and run
    the same command with --resume to finish. Example:

    oklasim simulate --strategies simple,greedy --games 100000 --seed 7 --out runs/demo
    """
    from oklasim.runs.batch import RunSpec, run, stored_spec
    from oklasim.runs.storage import MANIFEST
    from oklasim.strategies.registry import parse_overrides, split_strategies, with_overrides

    if workers is not None and (scheduler or dask_local is not None):
        raise OklasimError("--workers sets the local pool; a Dask cluster has its own workers (--dask-local N)")
    if (resume or overwrite) and not out:
        raise OklasimError("--resume and --overwrite need --out")
    if resume and (Path(out) / MANIFEST).is_file():  # what is not given is the run's
        given = given_options()
        spec = stored_spec(out, load_rules(rules_spec, None) if "rules_spec" in given else None, players,
                           split_strategies(strategy_list) if "strategy_list" in given else None,
                           parse_overrides(params), games, hands, seed if "seed" in given else None, shard_size,
                           strategy_paths)
    else:
        seats = with_overrides(split_strategies(strategy_list), parse_overrides(params), strategy_paths)
        spec = RunSpec.create(load_rules(rules_spec, players), seats, games=games, hands=hands, seed=seed,
                              shard_size=shard_size, strategy_paths=strategy_paths)
    try:
        result = run(spec, out, workers=workers, resume=resume, overwrite=overwrite, scheduler=scheduler,
                     dask_local=dask_local)
    except KeyboardInterrupt:
        where = f"; rerun the same command with --resume to finish {out}" if out else ""
        raise Interrupted(f"interrupted{where}") from None
    from oklasim.analysis.tables import run_summary

    click.echo(run_summary(result.hands, result.games, spec.labels))
    rate = spec.count / result.seconds if result.seconds else float("inf")
    click.echo(f"{spec.count:,} {spec.mode} in {result.seconds:.1f} s ({rate:,.0f}/s)" + (f"; written to {out}" if out else ""))


@click.command("report")
@click.argument("run_dir", type=click.Path(exists=True, file_okay=False))
@click.option("--reports", "reports_root", default="reports", show_default=True, help="Where the report goes.")
def report_command(run_dir, reports_root) -> None:
    """Build the report of an existing run (a study folder or a simulate --out folder)."""
    from oklasim.studies.experiment import build_report

    click.echo(f"report: {build_report(run_dir, reports_root)}")


@click.command()
@click.argument("root", required=False, type=click.Path(file_okay=False))
def runs(root: str | None) -> None:
    """List the runs under ROOT (default: runs/), newest first; one with a foreign, unreadable, extra or missing
    shard is listed as damaged."""
    from oklasim.runs import storage

    if root is not None and not Path(root).is_dir():
        raise OklasimError(f"{root} is not a folder; give the folder that holds the runs (default: runs)")
    root = root or "runs"
    found = storage.list_runs(Path(root))
    if not found:
        click.echo(f"no runs under {root}")
    statuses = [storage.checked_status(path, manifest) for path, manifest in found]
    for (path, manifest), status in zip(found, statuses):
        spec = manifest.get("spec", {})
        click.echo(
            f"{str(path):<28} {status:<11} {spec['count']:>10,} {spec['mode']:<5} "
            f"{','.join(spec.get('labels', [])):<30} seed {spec.get('seed')}  {manifest.get('created', '')}"
        )
    if "damaged" in statuses:
        click.echo("damaged: oklasim show RUN says what is wrong with it and what to do")


@click.command()
@click.argument("run_dir", type=click.Path(exists=True, file_okay=False))
def show(run_dir: str) -> None:
    """Summarise one run: its spec, counts, outcome mix and points."""
    from oklasim.analysis.tables import run_summary
    from oklasim.runs import storage

    manifest = storage.read_manifest(Path(run_dir))
    spec = manifest["spec"]
    found = len(storage.checked_shards(Path(run_dir), "hands", manifest))  # checked before anything is shown
    click.echo(f"run {run_dir}: {storage.status(manifest)}, {found}/{storage.planned_shards(manifest)} shards, "
               f"oklasim {manifest.get('version', '?')}, seed {spec['seed']}")
    click.echo(f"strategies: {', '.join(spec['labels'])}")
    if not found:
        click.echo("no records yet")
        return
    hands = storage.read(Path(run_dir), "hands")
    games = storage.read(Path(run_dir), "games") if spec["mode"] == "games" else None
    click.echo(run_summary(hands, games, spec["labels"]))


@click.command()
@click.argument("source", metavar="RUN|STRATEGIES")
@seed_option("Seed of the run the game belongs to [a RUN's own].")
@click.option("--game", default=0, show_default=True, help="Game number within the run (from 0).")
@click.option("--hands", "hands_only", is_flag=True, help="The run played independent hands, not games.")
@rules_and_players()
@strategy_path_option()
def replay(source: str, seed: int, game: int, hands_only: bool, rules_spec: str, players, strategy_paths) -> None:
    """Print one game of a run turn by turn, exactly as the run played it.

    RUN is the run's folder (simulate --out): its rules, strategies and seed
    are read from its manifest. Or give the run's STRATEGIES, a
    comma-separated list, one per seat (or one for all), with its --seed and
    --rules:

    oklasim replay runs/sg --game 42

    oklasim replay simple,greedy --seed 1 --game 42
    """
    from oklasim.runs.replay import replay as replay_game
    from oklasim.runs.replay import replay_run
    from oklasim.strategies.registry import split_strategies

    if Path(source).is_dir() or "/" in source:  # a folder: strategy names hold no '/'
        given = given_options()
        lines = replay_run(source, game, True if "hands_only" in given else None,
                           rules=load_rules(rules_spec, None) if "rules_spec" in given else None, players=players,
                           seed=seed if "seed" in given else None, strategy_paths=strategy_paths)
    else:
        lines = replay_game(load_rules(rules_spec, players), split_strategies(source), seed, game, hands_only,
                            strategy_paths)
    for line in lines:
        click.echo(line)
