"""``oklasim play``: a person against a bot in the terminal (registered in ``oklasim.cli``)."""

from __future__ import annotations

import sys

import click

from oklasim.cli.options import Interrupted, rules_option, seed_option


@click.command("play")
@click.option("--against", default="simple", show_default=True, help="The bot's strategy.")
@rules_option()
@seed_option("Seed of the deals (the same seed and moves give the same game) [random].", default=None)
@click.option("--coach", is_flag=True, help="Show the `oklasim advise` table at each of your knock decisions.")
@click.option("--save", type=click.Path(dir_okay=False), help="Keep the game in FILE, rewritten after every move.")
@click.option("--resume", type=click.Path(exists=True, dir_okay=False), help="Go on with a game saved with --save.")
def play_command(against, rules_spec, seed, coach, save, resume) -> None:
    """Play a whole game against a bot: your hand sorted into melds, typed moves ('help' lists them)."""
    from oklasim.game.rules import Rules
    from oklasim.table.terminal import play

    kept = save or resume
    try:
        play(None if resume else Rules.load(rules_spec), against, seed, save, resume, coach, ask=input, say=click.echo)
    except KeyboardInterrupt:
        click.echo(err=True)  # off the line of the prompt
        raise Interrupted(f"game interrupted{'; it is saved in ' + kept if kept else ''}") from None
    except EOFError:  # the input ended: the player left
        click.echo(f"\ngame stopped at the end of the input{'; it is saved in ' + kept if kept else ''}", err=True)
        sys.exit(1)
