"""``oklasim advise``: should I knock now? (registered in ``oklasim.cli`` with ``main.add_command``)."""

from __future__ import annotations

import click

ADVISE_EPILOG = """\b
Examples:
  oklasim advise "2h 3h 4h 7s 7d 7h Jc Qc Kc 5d Ks" --upcard 9c --pile "9c 8d 4s Qh"
  oklasim advise --file position.toml --json
\b
The file (JSON, or TOML) takes the same fields, named as in oklasim.advise.advise:
  hand = "2h 3h 4h 7s 7d 7h Jc Qc Kc 5d Ks"
  upcard = "9c"          # or: limit = 9
  pile = "9c 8d 4s Qh"   # bottom first
  opponent_took = "8c"
  scores = [40, 65]      # yours, the opponent's: adds the chance to win the game
  rules = "seeds"        # a preset, a TOML file, or a table of fields
  opponent = "simple"
Flags given on the command line override the file.
"""


def _scores(text: str | None):
    if text is None:
        return None
    parts = [p for p in text.replace(",", " ").split() if p]
    try:
        return [int(p) for p in parts]
    except ValueError:
        raise ValueError(f"--scores {text!r}: write yours then the opponent's, e.g. 40,65") from None


def _advise(
    hand, request_file, upcard, limit, pile, opponent_took, took, stock, scores, rules_spec, passed, dealer, opponent,
    me, prior, opponent_draws, seed, max_samples, max_seconds, precision, discards, objective, race, workers,
    as_json, strategy_paths,
) -> None:
    """Should I knock now? Weigh knocking against playing on for one situation, by Monte Carlo.

    HAND is your 10 cards (before your draw: taking the pile top, drawing
    from the stock and, on the first turn, passing are weighed too) or 11
    (after your draw). The opponent's hand and the stock are sampled
    consistently with what you know; every action is played out in the same
    sampled worlds by the continuation strategies; the report gives each
    action's expected points (yours minus the opponent's, this hand) with
    95% intervals, the undercut risk of each knock, the chance to win the
    game when --scores are given, and the recommendation.
    """
    from .advise import advise, load_request

    request = load_request(request_file) if request_file else {}
    flags = {
        "hand": hand, "upcard": upcard, "limit": limit, "pile": pile, "opponent_took": opponent_took, "took": took,
        "stock": stock, "scores": _scores(scores), "rules": rules_spec, "passed": passed, "dealer": dealer,
        "opponent": opponent, "me": me, "prior": prior, "opponent_draws": opponent_draws, "seed": seed,
        "max_samples": max_samples, "max_seconds": max_seconds, "discards": discards, "objective": objective,
        "race": race, "workers": workers,
    }
    request.update({k: v for k, v in flags.items() if v is not None})
    if precision is not None:
        request["precision"] = None if precision == 0 else precision
    if not request.get("hand"):
        raise ValueError("give your hand (HAND, or hand in --file)")
    advice = advise(extra_paths=tuple(strategy_paths), **request)
    if as_json:
        click.echo(advice.to_json())
    else:
        for line in advice.lines():
            click.echo(line)


_options = [
    click.argument("hand", required=False),
    click.option("--file", "request_file", type=click.Path(exists=True, dir_okay=False),
                 help="JSON or TOML file with the situation (flags override it)."),
    click.option("--upcard", help="The first upcard, which set the knock limit."),
    click.option("--limit", type=int, help="The knock limit, if you do not give the upcard (0 = gin only)."),
    click.option("--pile", help="The discard pile, bottom first."),
    click.option("--opponent-took", help="Cards the opponent took from the pile this hand."),
    click.option("--took", help="The card you just took from the pile (it may not go straight back)."),
    click.option("--stock", type=int, help="Cards left in the stock (checked against the other counts)."),
    click.option("--scores", help="Game scores, yours then the opponent's: '40,65'."),
    click.option("--rules", "rules_spec", help="Rules preset or TOML file.  [default: seeds]"),
    click.option("--passed", type=int, help="First turn: players who passed the upcard so far (0-2)."),
    click.option("--dealer", type=click.Choice(["me", "opponent"]), help="Who dealt (when the moment does not say)."),
    click.option("--opponent", help="The opponent's strategy.  [default: simple]"),
    click.option("--me", help="The strategy that plays on for you after this decision.  [default: simple]"),
    click.option("--prior", type=click.Choice(["played", "uniform"]),
                 help="How the opponent's unknown cards are drawn.  [default: played]"),
    click.option("--opponent-draws", type=int, help="The opponent's stock draws this hand (default: estimated)."),
    click.option("--seed", type=int, help="Random seed; the same seed gives the same answer.  [default: 0]"),
    click.option("--samples", "max_samples", type=int, help="Most worlds to sample.  [default: 200000]"),
    click.option("--seconds", "max_seconds", type=float, help="Time budget for sampling.  [default: 10]"),
    click.option("--precision", type=float,
                 help="Stop when the open actions are within this many points (0: on separation only).  "
                 "[default: 0.5]"),
    click.option("--discards", type=int, help="Sensible discards weighed when playing on.  [default: 6]"),
    click.option("--objective", type=click.Choice(["points", "win"]),
                 help="What to maximise.  [default: win with --scores, else points]"),
    click.option("--race/--no-race", default=None,
                 help="Stop sampling actions that are behind with confidence (default), or sample all to the end."),
    click.option("--workers", type=int, help="Threads.  [default: all cores]"),
    click.option("--json", "as_json", is_flag=True, help="Print JSON for tools."),
    click.option("--strategy-path", "strategy_paths", multiple=True, type=click.Path(exists=True),
                 help="Extra strategy file or folder (repeatable)."),
]
for _option in reversed(_options):
    _advise = _option(_advise)

advise_command = click.command("advise", epilog=ADVISE_EPILOG)(_advise)
