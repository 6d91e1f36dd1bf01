"""The ``oklasim`` command line: parse, call the API, print. No logic lives here.

One module per group of commands; each imports what it runs only when it runs, so that ``--help`` is instant.
"""

from __future__ import annotations

import io
import logging
import os
import signal
import sys

import click

from oklasim import __version__
from oklasim.cli import (advise, agent, compiling, dataset, game, matches, play, review, runs, serve, stats, strategies,
                         studies, tune)
from oklasim.cli.options import Interrupted
from oklasim.errors import OklasimError
from oklasim.runs import lifetime

DEBUG = "oklasim.debug"  # in the context's meta: --debug was given
LOG_FORMAT = "oklasim: %(message)s"


class FriendlyGroup(click.Group):
    """Tells an ``OklasimError`` (bad cards, rules, options, files), a file-system error and an interrupt (Ctrl-C,
    SIGTERM, SIGHUP) in one line with a non-zero exit; anything else is a bug, told in one line too, its traceback
    shown with ``--debug``."""

    def invoke(self, ctx: click.Context):
        from oklasim.cli.compile_notice import compile_notice

        ctx.call_on_close(lifetime.interrupt_on_termination())
        try:
            with compile_notice():
                result = super().invoke(ctx)
            sys.stdout.flush()  # a reader gone before the end shows here, not in the flush at exit
            return result
        except BrokenPipeError:
            raise click.exceptions.Exit(stdout_closed()) from None
        except OklasimError as exc:
            raise click.ClickException(str(exc)) from None
        except OSError as exc:
            where = f"{exc.filename}: " if exc.filename else ""
            raise click.ClickException(f"{where}{exc.strerror or exc}") from None
        except KeyboardInterrupt:
            raise Interrupted("interrupted") from None
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except Exception as exc:
            if ctx.meta.get(DEBUG):
                raise
            first = next((line.strip() for line in str(exc).splitlines() if line.strip()), "")
            raise click.ClickException(f"internal error (a bug in oklasim): {type(exc).__name__}: {first} "
                                       "(run the command with oklasim --debug for the traceback)") from None


def stdout_closed() -> int:
    """The reader of the output stopped reading (``oklasim strategies | head -1``): end quietly as other Unix tools
    do, with the status of a process ended by SIGPIPE; what is still buffered goes nowhere."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):  # no file descriptor behind stdout (tests)
        pass
    return 128 + signal.SIGPIPE


def configure_logging(verbosity: int) -> None:
    """The ``oklasim`` logger (shards, workers, the kernel cache) on stderr: quiet by default, -v info, -vv debug."""
    logger = logging.getLogger("oklasim")
    for handler in [h for h in logger.handlers if getattr(h, "oklasim_cli", False)]:
        logger.removeHandler(handler)
    if verbosity:
        handler = logging.StreamHandler()
        handler.oklasim_cli = True
        handler.setFormatter(logging.Formatter(LOG_FORMAT))
        logger.addHandler(handler)
    logger.setLevel({0: logging.WARNING, 1: logging.INFO}.get(verbosity, logging.DEBUG))


@click.group(cls=FriendlyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="oklasim")
@click.option("-v", "--verbose", count=True, help="Log shard, worker and kernel-cache events on stderr (-vv: more).")
@click.option("--debug", is_flag=True, help="Show the traceback of an unexpected error.")
@click.pass_context
def main(ctx: click.Context, verbose: int, debug: bool) -> None:
    """Monte Carlo strategy analysis for Oklahoma Gin.

    Cards are written rank then suit: ranks A 2-9 T (or 10) J Q K, suits
    s c d h, any case, separated by spaces or commas: "As 10h Kd".
    """
    ctx.meta[DEBUG] = debug
    configure_logging(verbose)


for _command in (
    game.deadwood, game.layoff, game.rules_command,
    runs.simulate, runs.runs, runs.show, runs.replay, runs.report_command,
    matches.match_command, matches.tournament_command,
    studies.run_command, studies.policy_command,
    strategies.strategies_command, compiling.compile_command, tune.tune_command, advise.advise_command,
    play.play_command, agent.agent_command, agent.openspiel_command, serve.serve_command, dataset.dataset_command,
    review.review_command, stats.stats_command,
):
    main.add_command(_command)


def run() -> None:
    """The ``oklasim`` console command: ``main`` in a process that stopping signals reach only while it works."""
    lifetime.ignore_outside_commands()
    main()
