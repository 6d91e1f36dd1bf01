"""``oklasim agent``: one seat over stdin/stdout (registered in ``oklasim.cli`` with ``main.add_command``)."""

from __future__ import annotations

import sys

import click

from oklasim.cli.options import json_option, rules_option, seed_option, strategy_path_option


@click.command("agent")
@click.option("--strategy", "strategy_name", required=True, help="Strategy playing the seat, e.g. simple or 'threshold(threshold=4)'.")
@rules_option("Rules preset or TOML file the referee plays.")
@seed_option("Seed of the seat's own random stream.")
@strategy_path_option()
@click.option("--remember-opponents", is_flag=True,
              help="Carry what the showdowns showed of the opponents' play (the style counts) and what the strategy "
                   "learnt of them (its game memory, e.g. search's carry) from one game to the next, for a referee "
                   "that plays a match against the same opponents; by default each game starts afresh, as in "
                   "oklasim's engine.")
def agent_command(strategy_name: str, rules_spec: str, seed: int, strategy_paths, remember_opponents: bool) -> None:
    """Play one seat for another referee: JSON lines on stdin, answers on stdout.

    The referee reports every event the seat may see and asks for decisions;
    the schema is in docs/agent-protocol.md. The first line out is a hello
    naming the protocol version. Bad lines get an error line naming the
    field; the agent ends on {"type": "quit"} (status 0) or when its input
    closes (status 1).
    """
    from oklasim.agent.protocol import Agent, error, serve, write
    from oklasim.game.rules import Rules
    from oklasim.strategies.registry import resolve

    field = "rules"
    try:
        rules = Rules.load(rules_spec)
        field = "strategy"
        strategy = resolve(strategy_name, extra_paths=strategy_paths)
    except ValueError as exc:  # the referee reads the reason where it expects the hello
        write(sys.stdout, error(field, str(exc)))
        raise click.ClickException(str(exc)) from None
    try:
        status = serve(Agent(rules, strategy, seed, remember_opponents))
    except BrokenPipeError:
        sys.stderr.write("oklasim agent: the referee stopped reading\n")
        sys.stdout = None  # nothing more can be written: skip the flush at exit
        status = 1
    sys.exit(status)


@click.command("openspiel")
@click.argument("strategy")
@click.option("--against", default="openspiel-simple", show_default=True,
              help="The opponent: OpenSpiel's own simple bot, or an oklasim strategy.")
@click.option("--hands", default=2000, show_default=True, help="Hands refereed by OpenSpiel (seats alternate).")
@click.option("--engine-hands", default=100_000, show_default=True, help="Hands of the same match in oklasim's engine.")
@seed_option("Seed of OpenSpiel's deals and of the engine's.")
@json_option()
def openspiel_command(strategy, against, hands, engine_hands, seed, as_json) -> None:
    """Cross-check: STRATEGY plays in OpenSpiel's gin_rummy (oklahoma=true) and in oklasim's engine.

    OpenSpiel referees single hands between an oklasim seat (the agent's
    view, built from OpenSpiel's actions) and its own simple bot or another
    oklasim strategy; every action chosen for oklasim is checked legal. The
    same figures from oklasim's engine under the openspiel preset are shown
    beside them, with 95% intervals. Needs the peer extra (make peer).
    """
    import json

    from oklasim.agent.openspiel import crosscheck

    if hands < 1 or engine_hands < 1:
        raise click.BadParameter("give at least one hand", param_hint="--hands/--engine-hands")
    result = crosscheck(strategy, against, hands, seed, engine_hands)
    click.echo(json.dumps(result.as_dict(), indent=2) if as_json else "\n".join(result.lines()))
