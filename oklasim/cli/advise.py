"""``oklasim advise``: should I knock now? (registered in ``oklasim.cli`` with ``main.add_command``).

Its options are derived from the fields of ``Request``: one option per field,
spelled as the field (``--opponent-took``) unless the field names a flag.
"""

from __future__ import annotations

import click

from oklasim.advise.request import FIELDS, FieldError, Request, flag_of
from oklasim.cli.options import strategy_path_option
from oklasim.errors import OklasimError

ADVISE_EPILOG = """\b
Examples:
  oklasim advise "2h 3h 4h 7s 7d 7h Jc Qc Kc 5d Ks" --upcard 9c --pile "9c 8d 4s Qh"
  oklasim advise --file position.toml --json
\b
The file (JSON, or TOML) takes the fields of oklasim.advise.Request, named as the
long options with '_' for '-' (--samples is max_samples, --seconds max_seconds):
  hand = "2h 3h 4h 7s 7d 7h Jc Qc Kc 5d Ks"
  upcard = "9c"          # or: limit = 9
  pile = "9c 8d 4s Qh"   # bottom first
  opponent_took = "8c"
  scores = [40, 65]      # yours, the opponent's: adds the chance to win the game
  rules = "seeds"        # a preset, a TOML file, or a table of fields
  opponent = "simple"
Flags given on the command line override the file.
"""


def _option(name: str):
    """The click parameter of one request field."""
    meta = FIELDS[name].metadata
    if name == "hand":
        return click.argument("hand", required=False)
    flag = flag_of(name)
    default = meta["shown"] or FIELDS[name].default
    help_text = meta["help"] + (f"  [default: {default}]" if default not in (None, ()) else "")
    if meta["kind"] is bool:
        return click.option(f"{flag}/--no-{flag[2:]}", name, default=None, help=help_text)
    kind = click.Choice(meta["choices"]) if meta["choices"] else {int: int, float: float}.get(meta["kind"])
    return click.option(flag, name, type=kind, help=help_text)


def _advise(request_file, as_json, as_brief, strategy_paths, **flags) -> None:
    """Should I knock now? Weigh knocking against playing on for one situation, by Monte Carlo.

    HAND is your 10 cards (before your draw: taking the pile top, drawing
    from the stock and, on the first turn, passing are weighed too) or 11
    (after your draw). The opponent's hand and the stock are sampled
    consistently with what you know; every action is played out in the same
    sampled worlds by the continuation strategies; the report gives each
    action's expected points (yours minus the opponent's, this hand) with
    95% intervals, the undercut risk of each knock, the chance to win the
    game when --scores are given, and the recommendation. --brief says the
    recommendation first, in one sentence, then the numbers.
    """
    from oklasim.advise.request import load_request
    from oklasim.advise.rollouts import run

    if as_json and as_brief:
        raise OklasimError("--brief is for people and --json for tools: give one of them")
    values = load_request(request_file) if request_file else {}
    typed = {k for k, v in flags.items() if v is not None}
    values.update({k: flags[k] for k in typed})
    if flags["precision"] == 0:
        values["precision"] = None  # 0 on the command line: stop on separation alone
    if not values.get("hand"):
        raise OklasimError("give your hand (HAND, or hand in --file)")

    def typed_as(name: str) -> str:
        """A field as the user gave it: its flag, or its name in the file."""
        return flag_of(name) if name in typed or name not in values else f"{name} (in {request_file})"

    try:
        advice = run(Request.from_fields(values), tuple(strategy_paths))
    except FieldError as exc:
        raise OklasimError(exc.spelt(typed_as)) from None
    if as_json:
        click.echo(advice.to_json())
        return
    lines = advice.lines()
    if as_brief:
        from oklasim.advise.brief import brief

        told = brief(advice)
        lines = [told.sentence, "", *told.details]
    for line in lines:
        click.echo(line)


_params = [_option(name) for name in FIELDS] + [
    click.option("--file", "request_file", type=click.Path(exists=True, dir_okay=False),
                 help="JSON or TOML file with the request (flags override it)."),
    click.option("--json", "as_json", is_flag=True, help="Print JSON for tools."),
    click.option("--brief", "as_brief", is_flag=True,
                 help="Say the advice in one sentence a player acts on, then the numbers (not with --json)."),
    strategy_path_option(),
]
for _param in reversed(_params):
    _advise = _param(_advise)

advise_command = click.command("advise", epilog=ADVISE_EPILOG)(_advise)
