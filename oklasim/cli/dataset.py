"""`oklasim dataset`: every decision of a simulated run, as the research environment encodes it, to parquet."""

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


@click.command("dataset")
@rules_and_players()
@seats_and_size("expert", "expert,search")
@seed_option("Seed: the run simulate plays with the same seed, rules and strategies.")
@workers_option()
@click.option("--out", "out", help="Folder the dataset goes to (required).")
@shard_size_option()
@click.option("--resume", is_flag=True,
              help="Finish an interrupted dataset in --out, keeping its finished shards; options left out are its.")
@click.option("--overwrite", is_flag=True, help="Replace what --out holds.")
@strategy_path_option()
def dataset_command(rules_spec, players, strategy_list, params, games, hands, seed, workers, out, shard_size, resume,
                    overwrite, strategy_paths) -> None:
    """Write one parquet row per decision of every seat of a simulated run.

    Game G of seed S is game G of `oklasim simulate` with the same seed, rules
    and strategies. Each row holds the seat's observation and legal-action
    mask exactly as `oklasim.env` encodes them, the action its strategy took,
    the decision, seat, game and hand, and the seat's points of the hand (and
    the game's result with --games). The manifest.json records the rules, the
    strategies with every parameter, the seed, the version and the encoding's
    version. Interrupt it and run the same command with --resume to finish.
    Example:

    oklasim dataset --strategies expert,search --hands 1000 --seed 7 --out data/expert-search
    """
    from oklasim.env.dataset import DatasetSpec, stored_dataset_spec, write
    from oklasim.runs.storage import MANIFEST
    from oklasim.strategies.registry import parse_overrides, split_strategies, with_overrides

    if not out:
        raise OklasimError("--out is required: the folder the dataset goes to")
    if resume and (Path(out) / MANIFEST).is_file():  # what is not given is the dataset's
        given = given_options()
        spec = stored_dataset_spec(out, load_rules(rules_spec, None) if "rules_spec" in given else None, players,
                                   split_strategies(strategy_list) if "strategy_list" in given else None,
                                   parse_overrides(params), games, hands, seed if "seed" in given else None,
                                   shard_size, strategy_paths)
    else:
        seats = with_overrides(split_strategies(strategy_list), parse_overrides(params), strategy_paths)
        spec = DatasetSpec.create(load_rules(rules_spec, players), seats, games=games, hands=hands, seed=seed,
                                  shard_size=shard_size, strategy_paths=strategy_paths)
    try:
        result = write(spec, out, workers=workers, resume=resume, overwrite=overwrite)
    except KeyboardInterrupt:
        raise Interrupted(f"interrupted; rerun the same command with --resume to finish {out}") from None
    rate = result.hands_written / result.seconds if result.seconds else float("inf")
    games = f" in {spec.count:,} games" if spec.mode == "games" else ""
    click.echo(f"{result.rows_written:,} decisions of {result.hands_written:,} hands{games} ({', '.join(spec.labels)}) "
               f"in {result.seconds:.1f} s ({rate:,.0f} hands/s); written to {out}")
