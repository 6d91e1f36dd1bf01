"""The ``oklasim`` command line: parse, call the API, print. No logic lives here.

One module per group of commands; each imports what it runs only when it runs, so that ``--help`` is instant.
"""

from __future__ import annotations

import click

from oklasim import __version__
from oklasim.cli import advise, agent, game, matches, play, runs, strategies, studies, tune
from oklasim.cli.options import Interrupted
from oklasim.runs import lifetime


class FriendlyGroup(click.Group):
    """Turns the API's ``ValueError`` (bad cards, rules, files), a file-system error and an interrupt
    (Ctrl-C, SIGTERM, SIGHUP) into a one-line error with a non-zero exit."""

    def invoke(self, ctx: click.Context):
        ctx.call_on_close(lifetime.interrupt_on_termination())
        try:
            return super().invoke(ctx)
        except ValueError as exc:
            raise click.ClickException(str(exc)) from None
        except OSError as exc:
            where = f"{exc.filename}: " if exc.filename else ""
            raise click.ClickException(f"{where}{exc.strerror or exc}") from None
        except KeyboardInterrupt:
            raise Interrupted("interrupted") from None


@click.group(cls=FriendlyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="oklasim")
def main() -> None:
    """Monte Carlo strategy analysis for Oklahoma Gin.

    Cards are written rank then suit: ranks A 2-9 T (or 10) J Q K, suits
    s c d h, any case, separated by spaces or commas: "As 10h Kd".
    """


for _command in (
    game.deadwood, game.layoff, game.rules_command,
    runs.simulate, runs.runs, runs.show, runs.replay, runs.report_command,
    matches.match_command, matches.tournament_command,
    studies.run_command, studies.policy_command,
    strategies.strategies_command, tune.tune_command, advise.advise_command,
    play.play_command, agent.agent_command, agent.openspiel_command,
):
    main.add_command(_command)


def run() -> None:
    """The ``oklasim`` console command: ``main`` in a process that stopping signals reach only while it works."""
    lifetime.ignore_outside_commands()
    main()
