"""``oklasim tune``: tune a family's parameters against a panel (registered in ``oklasim.cli``)."""

from __future__ import annotations

import click

from oklasim.cli.options import (
    Interrupted,
    load_rules,
    rules_and_players,
    seed_option,
    strategy_path_option,
    workers_option,
)
from oklasim.errors import OklasimError

TUNE_EPILOG = """\b
Examples:
  oklasim tune threshold --against greedy,simple --rules eaai --budget 20
  oklasim tune threshold --against eaai --param early_draws=0..10 --param gin_after_draws=0..20 --fix late_stock=0
  oklasim tune expert --against eaai --rules eaai --objective games --param finish_points=0..30
  oklasim tune expert --against panel --rules eaai --objective games --aggregate min --param early_draws
"""


class AgainstOption(click.Option):
    """--against, whose help lists the shipped panel: read when the help is shown, so that the command line starts
    without importing the studies."""

    @property
    def help(self) -> str:
        from oklasim.studies.tune_space import PANEL, PANEL_NAME

        return f"{self._help} '{PANEL_NAME}' stands for the shipped panel of styles: {', '.join(PANEL)}."

    @help.setter
    def help(self, text: str) -> None:
        self._help = text


def _params(items: tuple[str, ...]) -> dict[str, tuple[float, float] | None]:
    from oklasim.studies.tune_space import parse_range

    chosen: dict[str, tuple[float, float] | None] = {}
    for item in items:
        name, sep, text = (part.strip() for part in item.partition("="))
        if name in chosen:
            raise OklasimError(f"--param {name} is given twice")
        chosen[name] = parse_range(text, name) if sep else None
    return chosen


@click.command("tune", epilog=TUNE_EPILOG)
@click.argument("family")
@click.option("--against", cls=AgainstOption, required=True,
              help="The panel of opponents, comma-separated: 'greedy,simple' or 'panel,greedy'.")
@rules_and_players()
@click.option("--budget", type=int, default=20, show_default=True,
              help="Candidates to try (the family's defaults first); a rerun with a larger budget continues.")
@seed_option("Seed: the same seed gives the same candidates and result.")
@click.option("--objective", default="points", show_default=True, metavar="points|games",
              help="What a candidate maximises: paired points/hand on independent hands, or the share of games "
                   "to the target score won.")
@click.option("--aggregate", default="mean", show_default=True, metavar="mean|min|min-gain",
              help="Over the panel: the mean of the opponents' figures, the worst of them (min), or the worst of "
                   "the gains over the family's defaults on the same deals (min-gain: better against everyone), for "
                   "the pruning and the choice of the best candidate.")
@click.option("--param", "params", multiple=True, metavar="NAME[=LO..HI]",
              help="Tune this parameter, over LO..HI if given (repeatable) [every parameter with a range].")
@click.option("--fix", "fixes", multiple=True, metavar="NAME=VALUE", help="Hold a parameter at VALUE (repeatable).")
@click.option("--hands-per-rung", type=int, default=1000, show_default=True,
              help="Deals per opponent in the first rung (games with --objective games), each in every seating; "
                   "every rung doubles them.")
@click.option("--rungs", type=int, default=4, show_default=True,
              help="Rungs of successive halving: a candidate in the worse half at a rung stops there.")
@click.option("--held-out", type=int, default=20_000, show_default=True,
              help="Fresh deals (games with --objective games) per opponent for the final check of the best "
                   "candidate against the defaults.")
@click.option("--out", type=click.Path(file_okay=False),
              help="Folder of the study and the result [runs/tune/FAMILY-HASH of the arguments].")
@workers_option()
@strategy_path_option()
def tune_command(family, against, rules_spec, players, budget, seed, objective, aggregate, params, fixes,
                 hands_per_rung, rungs, held_out, out, workers, strategy_paths) -> None:
    """Tune the parameters of strategy FAMILY against a panel of opponents.

    The objective of a candidate is its mean paired points/hand difference
    over the panel (with --objective games: its share of games to the target
    score won; with --aggregate min: the worst of its figures against the
    opponents; with min-gain: the worst of its gains over the defaults):
    against each opponent (equal weights) every deal is played
    with the candidate in every seat. Optuna's TPE sampler proposes
    candidates; each plays rungs of doubling numbers of deals, and
    successive halving stops it at a rung where it is in the worse half. The best candidate and the
    defaults are then re-measured on fresh deals the search never saw; the
    table gives their points/hand, the gain and per-opponent figures with
    95% intervals, also written to result.json and result.md in the folder.

    The study is kept in the folder: interrupt it and run the same command
    to continue; the result equals that of an uninterrupted run.
    """
    from oklasim.strategies.registry import parse_overrides, split_strategies
    from oklasim.studies.tune import TuneSpec, default_folder, run_tune

    panel = split_strategies(against) if against.strip() else []
    spec = TuneSpec.create(family, panel, load_rules(rules_spec, players), _params(params), parse_overrides(fixes, "--fix"),
                           seed, hands_per_rung, rungs, strategy_paths, objective, aggregate)
    folder = out or default_folder(spec)
    try:
        result = run_tune(spec, budget, folder, workers, held_out, progress=True)
    except KeyboardInterrupt:
        raise Interrupted(f"interrupted; run the same command to continue the study in {folder}") from None
    click.echo(result.text())
    click.echo(f"written to {folder}/result.json and result.md")
