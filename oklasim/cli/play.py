"""``oklasim play``: a person against bots in the terminal (registered in ``oklasim.cli``)."""

from __future__ import annotations

import sys

import click
from click.core import ParameterSource

from oklasim.cli.options import Interrupted, load_rules, rules_and_players, seed_option


@click.command("play")
@click.option("--against", metavar="LEVEL|STRATEGY",
              help="The bots: a level (beginner, club, strong, expert, champion: `oklasim play --levels` rates "
                   "them) or any strategy [simple; on --resume the saved one].")
@click.option("--levels", "show_levels", is_flag=True, help="List the levels with their measured ratings and exit.")
@rules_and_players()
@seed_option("Seed of the deals (the same seed and moves give the same game) [random].", default=None)
@click.option("--coach", is_flag=True, help="Say the advisor's advice in one sentence at each of your decisions "
                                            "(two players); 'why' shows its numbers.")
@click.option("--save", type=click.Path(dir_okay=False), help="Keep the game in FILE, rewritten after every move.")
@click.option("--resume", type=click.Path(exists=True, dir_okay=False),
              help="Go on with a game saved with --save (its rules, bots, seed and coach).")
@click.option("--overwrite", is_flag=True, help="Let --save replace an unfinished game saved in FILE.")
def play_command(against, show_levels, rules_spec, players, seed, coach, save, resume, overwrite) -> None:
    """Play a whole game against bots (2-4 players): your hand sorted into melds, typed moves ('help' lists them)."""
    from oklasim.table.terminal import play

    if show_levels:
        from oklasim.table.levels import levels

        click.echo("level: the strategy it plays, its rating (Elo points, 95% interval) from `oklasim run ladder`")
        for level in levels():
            click.echo("  " + level.label)
        return

    rules_given = click.get_current_context().get_parameter_source("rules_spec") != ParameterSource.DEFAULT
    rules = load_rules(rules_spec, players) if rules_given or players or not resume else None
    kept = save or resume
    try:
        play(rules, against, seed, save, resume, coach, ask=input, say=click.echo, overwrite=overwrite)
    except KeyboardInterrupt:
        click.echo(err=True)  # off the line of the prompt
        raise Interrupted(f"game interrupted{'; it is saved in ' + kept if kept else ''}") from None
    except EOFError:  # the input ended: the player left
        click.echo(f"\ngame stopped at the end of the input{'; it is saved in ' + kept if kept else ''}", err=True)
        sys.exit(1)
