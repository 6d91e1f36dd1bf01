"""`oklasim run` and `policy`: the shipped studies and the knock policy they measured."""

from __future__ import annotations

import time
from pathlib import Path

import click

from oklasim.cli.options import load_rules, rules_and_players, workers_option


@click.command("run")
@click.argument("experiment", required=False)
@click.option("--list", "list_shipped", is_flag=True, help="List the shipped studies and exit.")
@click.option("--quick", is_flag=True, help="A small sample: the same report in well under a minute.")
@workers_option()
@click.option("--runs", "runs_root", default="runs", show_default=True, help="Where the raw runs go.")
@click.option("--reports", "reports_root", default="reports", show_default=True, help="Where the report goes.")
@click.option("--overwrite", is_flag=True, help="Replace the runs of another experiment of the same name.")
def run_command(experiment, list_shipped, quick, workers, runs_root, reports_root, overwrite) -> None:
    """Run the study EXPERIMENT (a shipped study's name, or a TOML file) and write its report.

    Runs already complete with the same spec are reused, interrupted ones resumed.
    Example: oklasim run upcard_effects --quick
    """
    from oklasim.studies.experiment import load, run_experiment, shipped

    if list_shipped:
        for name in shipped():
            click.echo(f"{name:<26} {load(name).title}")
        return
    if experiment is None:
        raise click.UsageError("name a study (oklasim run --list shows the shipped ones) or a TOML file")
    started = time.perf_counter()
    index = run_experiment(experiment, quick=quick, workers=workers, runs_root=runs_root, reports_root=reports_root,
                           overwrite=overwrite)
    click.echo(f"report: {index} ({time.perf_counter() - started:.1f} s)")
    click.echo(f"        {index.parent / 'report.md'}")


@click.command("policy")
@rules_and_players()
@click.option("--runs", "runs_root", type=click.Path(path_type=Path),
              help="Where to look for knock_thresholds runs.  [default: runs]")
@click.option("--answer", "answers", default="mix,max-min,equilibrium", show_default=True,
              help="Comma-separated: mix, max-min, equilibrium, an opponent of the panel (e.g. greedy), or all.")
@click.option("--details", is_flag=True,
              help="The long form: every rule within noise of the best, the basis and the exploitability.")
@click.option("--quick", is_flag=True, help="Also use a --quick run (few deals: for trying the study out, not advice).")
@click.option("--undercut-bonus", type=int, help="The undercut bonus [as the rules say].")
@click.option("--write-study", type=click.Path(dir_okay=False, path_type=Path),
              help="Write a study file that measures these rules; exit.")
def policy_command(rules_spec, players, runs_root, answers, details, quick, undercut_bonus, write_study) -> None:
    """The measured knock policy for these rules (two players): per knock limit what to do, its gain and
    interval, and whom it is against; --details for the long form. A table measured under rules that differ only
    in what acts between hands (box, game and shutout bonuses, who deals) answers too, and says so."""
    from oklasim.studies.knock_policy import policy_answer

    click.echo(policy_answer(load_rules(rules_spec, players), rules_spec, runs_root, answers.split(","), quick,
                             write_study, details, undercut_bonus))
