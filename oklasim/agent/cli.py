"""``oklasim agent``: one seat over stdin/stdout (registered in ``oklasim.cli`` with ``main.add_command``)."""

from __future__ import annotations

import sys

import click


@click.command("agent")
@click.option("--strategy", "strategy_name", required=True, help="Strategy playing the seat, e.g. simple or 'threshold(limit=4)'.")
@click.option("--rules", "rules_spec", default="seeds", show_default=True, help="Rules preset or TOML file the referee plays.")
@click.option("--seed", default=0, show_default=True, help="Seed of the seat's own random stream.")
@click.option("--strategy-path", "strategy_paths", multiple=True, type=click.Path(exists=True),
              help="Extra strategy file or folder (repeatable).")
def agent_command(strategy_name: str, rules_spec: str, seed: int, strategy_paths) -> None:
    """Play one seat for another referee: JSON lines on stdin, answers on stdout.

    The referee reports every event the seat may see and asks for decisions;
    the schema is in docs/agent-protocol.md. The first line out is a hello
    naming the protocol version. Bad lines get an error line naming the
    field; the agent ends on {"type": "quit"} (status 0) or when its input
    closes (status 1).
    """
    from .protocol import Agent, error, serve, write
    from ..rules import Rules
    from ..strategy import resolve

    field = "rules"
    try:
        rules = Rules.load(rules_spec)
        field = "strategy"
        strategy = resolve(strategy_name, extra_paths=strategy_paths)
    except ValueError as exc:  # the referee reads the reason where it expects the hello
        write(sys.stdout, error(field, str(exc)))
        raise click.ClickException(str(exc)) from None
    try:
        status = serve(Agent(rules, strategy, seed))
    except BrokenPipeError:
        sys.stderr.write("oklasim agent: the referee stopped reading\n")
        sys.stdout = None  # nothing more can be written: skip the flush at exit
        status = 1
    sys.exit(status)
