"""``oklasim stats``: a player's statistics over their saved games (registered in ``oklasim.cli``)."""

from __future__ import annotations

import click


@click.command("stats")
@click.argument("games_dir", metavar="GAMES_DIR")
@click.option("--out", metavar="DIR",
              help="Also write stats.md (the tables, the figures embedded), its PNG figures and stats.json to DIR.")
@click.option("--json", "as_json", is_flag=True, help="Print the statistics as JSON for tools instead of the tables.")
def stats_command(games_dir: str, out: str | None, as_json: bool) -> None:
    """Your statistics over the games saved in GAMES_DIR: games and hands won, gins, knocks, undercuts and points
    per hand, overall, by opponent and by rules, with 95% intervals.

    GAMES_DIR holds games saved by `oklasim play --save FILE` or by the web table
    (`oklasim serve` saves into RUNS/web-games); files that are not saved games
    are skipped and listed with the reason. Example:

    oklasim stats runs/web-games --out my-stats
    """
    from oklasim.review.stats import as_text, player_stats, write_stats

    stats = player_stats(games_dir)
    if out:
        write_stats(stats, out)
    click.echo(stats.to_json() if as_json else as_text(stats))
    if out and not as_json:
        click.echo(f"\nwritten to {out}: stats.md, its figures and stats.json")
