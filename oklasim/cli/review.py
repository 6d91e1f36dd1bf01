"""`oklasim review`: what each decision of a played game cost, judged by the advisor."""

from __future__ import annotations

import json
from pathlib import Path

import click

from oklasim.cli.options import Interrupted, at_least_one, seed_option
from oklasim.errors import OklasimError

DEFAULT_SAMPLES = 40_000  # oklasim.review.judge.REVIEW_SAMPLES, here so that --help does not load the advisor


@click.command("review")
@click.argument("game", type=click.Path(exists=True))
@click.option("--game", "game_number", type=int, help="With a run folder: the game to review (from 0).")
@click.option("--seat", type=int, default=0, show_default=True, help="With a run folder: the seat to review.")
@click.option("--samples", type=int, default=DEFAULT_SAMPLES, show_default=True, callback=at_least_one,
              help="Worlds per decision (8 times as many at a knock decision); more judge more decisions.")
@seed_option("Seed: the same game, seed and --samples give the same review.")
@click.option("--workers", type=int, callback=at_least_one, help="Decisions judged at once [all cores].")
@click.option("--out", type=click.Path(dir_okay=False),
              help="The review file, kept after every decision: run again to go on after an interruption "
                   "[GAME.review.json beside a saved game; RUN/reviews/game-G-seat-S.json for a run].")
@click.option("--json", "as_json", is_flag=True, help="Print the review as JSON instead of the summary.")
def review_command(game, game_number, seat, samples, seed, workers, out, as_json) -> None:
    """Judge every decision of one player in a played game.

    GAME is a game saved by `oklasim play --save` or the web table (your
    decisions, seat 0), or a run folder of `oklasim simulate --games` with
    --game and --seat (a bot's decisions). At each decision (the upcard
    offer, the draw, the discard, knocking or not) the advisor weighs every
    action on what the player knew then, against the opponent actually
    played, and tells what was played, the best action and the points lost,
    with an interval; 'not judged' where the evidence is short. The summary
    gives the points lost per hand and per kind of decision, the knock
    decisions, and the three costliest decisions drawn as cards. Examples:

    oklasim review mygame.json

    oklasim review runs/demo --game 3 --seat 1
    """
    from tqdm import tqdm

    from oklasim.review import review, run_game, saved_game
    from oklasim.review.trend import REVIEW_SUFFIX

    source = Path(game)
    if source.is_dir():
        if game_number is None:
            raise OklasimError(f"{game} is a run folder: say which game with --game G (and the seat with --seat)")
        played = run_game(source, game_number, seat)
        path = Path(out) if out else source / "reviews" / f"game-{game_number}-seat-{seat}.json"
    else:
        if game_number is not None or seat != 0:
            raise OklasimError("--game and --seat go with a run folder; a saved game is reviewed at your seat")
        played = saved_game(source)
        path = Path(out) if out else source.with_name(source.stem + REVIEW_SUFFIX)
    if not played.decisions:
        click.echo(f"nothing to review yet: {played.source} has no decision of {played.player}")
        return
    if source.is_dir() and not out:
        path.parent.mkdir(exist_ok=True)
    elif not path.parent.is_dir():
        raise OklasimError(f"cannot write the review to {path}: no folder {path.parent}")
    bar = tqdm(total=len(played.decisions), unit=" decisions", disable=None, dynamic_ncols=True)

    def progress(judged: int, total: int) -> None:
        bar.n = judged
        bar.refresh()

    try:
        with bar:
            reviewed = review(played, samples, seed, workers, path, progress=progress)
    except KeyboardInterrupt:
        raise Interrupted(f"interrupted; the decisions judged are kept in {path}: run the same command to go "
                          "on") from None
    if as_json:
        click.echo(json.dumps(reviewed.to_dict(), indent=1))
        return
    for line in reviewed.lines():
        click.echo(line)
    click.echo(f"\nevery decision: {path}")

