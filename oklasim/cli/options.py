"""The command-line options several commands share, each defined once, the parsing they need, and the interrupt.

Each function returns a click decorator: ``@rules_option()``. A command whose
``--seed`` means something of its own says so in ``seed_option(help)``.
"""

from __future__ import annotations

import click
from click.core import ParameterSource

from oklasim.errors import OklasimError
from oklasim.game.rules import Rules


class Interrupted(click.ClickException):
    """A command stopped by Ctrl-C, SIGTERM or SIGHUP: one line, and the exit status a shell gives it."""

    exit_code = 130


def rules_option(help: str = "Rules preset or TOML file."):  # noqa: A002 - click's own name for it
    return click.option("--rules", "rules_spec", default="seeds", show_default=True, help=help)


def players_option():
    return click.option("--players", type=click.IntRange(2, 4),
                        help="Players (2-4; 3-4 play 7 cards each) [as the rules say].")


def rules_and_players():
    """``--rules`` and ``--players``, read together by ``load_rules``."""
    def decorate(command):
        return rules_option()(players_option()(command))
    return decorate


def seed_option(help: str, default: int | None = 0):  # noqa: A002
    """``--seed``; ``default=None``: no default (the command draws one)."""
    if default is None:
        return click.option("--seed", type=int, help=help)
    return click.option("--seed", default=default, show_default=True, help=help)


def at_least_one(ctx: click.Context, param: click.Parameter, value: int | None) -> int | None:
    """A count that must be 1 or more when given (refused in one line, as every bad input)."""
    if value is not None and value < 1:
        raise OklasimError(f"{param.opts[0]} must be at least 1, got {value}")
    return value


def seats_and_size(default: str, example: str):
    """--strategies (one per seat), --param, and the size: --games or --hands."""
    options = (
        click.option("--strategies", "strategy_list", default=default, show_default=True,
                     help=f"Comma-separated, one per seat (or one for all), e.g. '{example}'."),
        click.option("--param", "params", multiple=True, metavar="NAME=VALUE",
                     help="Set a parameter on every seat whose strategy has it (repeatable)."),
        click.option("--games", type=int, help="Complete games to the target score."),
        click.option("--hands", type=int, help="Independent hands (each dealt at score 0)."),
    )

    def decorate(command):
        for option in reversed(options):
            command = option(command)
        return command

    return decorate


def workers_option():
    return click.option("--workers", type=int, callback=at_least_one,
                        help="Worker processes [all cores, or in-process for a small run].")


def shard_size_option():
    return click.option("--shard-size", type=int, callback=at_least_one,
                        help="Games (or hands) per shard [count/16, within 1,000-20,000 games or 10,000-200,000 hands].")


def strategy_path_option():
    return click.option("--strategy-path", "strategy_paths", multiple=True, type=click.Path(exists=True),
                        help="Extra strategy file or folder (repeatable); its families are usable by name.")


def json_option():
    return click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")


def given_options() -> set[str]:
    """The parameters of the running command given on its command line, not left at their defaults."""
    ctx = click.get_current_context()
    return {name for name in ctx.params if ctx.get_parameter_source(name) not in (ParameterSource.DEFAULT, None)}


def load_rules(rules_spec: str, players: int | None) -> Rules:
    rules = Rules.load(rules_spec)
    return rules.replace(players=players) if players else rules


