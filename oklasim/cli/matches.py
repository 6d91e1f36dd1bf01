"""`oklasim match` and `tournament`: strategies against each other on paired deals."""

from __future__ import annotations

import click

from oklasim.cli.options import (
    json_option,
    load_rules,
    rules_and_players,
    seed_option,
    strategy_path_option,
    workers_option,
)


def match_options(command):
    for option in reversed([
        rules_and_players(),
        click.option("--hands", type=int, help="Deals to play, each in both seatings [100,000 if no --games]."),
        click.option("--games", type=int, help="Games to play, each in both seatings."),
        seed_option("Seed: the same seed gives the same deals."),
        workers_option(),
        json_option(),
        strategy_path_option(),
    ]):
        command = option(command)
    return command


def match_arguments(rules_spec, players, hands, games, seed, workers, strategy_paths) -> dict:
    if hands is None and games is None:
        hands = 100_000
    return dict(rules=load_rules(rules_spec, players), hands=hands, games=games, seed=seed, workers=workers,
                strategy_paths=strategy_paths)


@click.command("match")
@click.argument("a")
@click.argument("b")
@match_options
def match_command(a, b, rules_spec, players, hands, games, seed, workers, as_json, strategy_paths) -> None:
    """Play strategy A against B on paired deals: points per hand, win rates, outcome mix, with 95% intervals.

    Every deal is played twice with the seats swapped, so the luck of the cards
    cancels in the difference. Example: oklasim match simple greedy --hands 200000
    """
    import json

    from oklasim.analysis.match import match, match_text

    result = match(a, b, **match_arguments(rules_spec, players, hands, games, seed, workers, strategy_paths),
                   progress=not as_json)
    click.echo(json.dumps(result.as_dict(), indent=2) if as_json else match_text(result))


@click.command("tournament")
@click.argument("strategies", nargs=-1, required=True)
@match_options
def tournament_command(strategies, rules_spec, players, hands, games, seed, workers, as_json, strategy_paths) -> None:
    """Round robin of paired matches between STRATEGIES, with a ranking.

    Example: oklasim tournament simple greedy random asap gin_only --hands 50000
    """
    import json

    from oklasim.analysis.match import tournament, tournament_text

    args = match_arguments(rules_spec, players, hands, games, seed, workers, strategy_paths)
    say = None if as_json else (lambda a, b: click.echo(f"played {a} vs {b}", err=True))
    result = tournament(list(strategies), progress_callback=say, **args)
    click.echo(json.dumps(result.as_dict(), indent=2) if as_json else tournament_text(result))
