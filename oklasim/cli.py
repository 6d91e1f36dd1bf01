"""The ``oklasim`` command line: parse, call the API, print. No logic lives here."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from . import __version__, lifetime
from .cards import format_hand, parse_card, parse_hand
from .cli_options import (json_option, load_rules, rules_and_players, rules_option, seed_option,
                          split_strategies, strategy_path_option, workers_option)
from .rules import PRESETS, Rules, field_docs


class Interrupted(click.ClickException):
    exit_code = 130  # as a shell reports a command stopped by Ctrl-C


class FriendlyGroup(click.Group):
    """Turns the API's ``ValueError`` (bad cards, rules, files), a file-system error and an interrupt
    (Ctrl-C, SIGTERM, SIGHUP) into a one-line error with a non-zero exit."""

    def invoke(self, ctx: click.Context):
        ctx.call_on_close(lifetime.interrupt_on_termination())
        try:
            return super().invoke(ctx)
        except ValueError as exc:
            raise click.ClickException(str(exc)) from None
        except OSError as exc:
            where = f"{exc.filename}: " if exc.filename else ""
            raise click.ClickException(f"{where}{exc.strerror or exc}") from None
        except KeyboardInterrupt:
            raise Interrupted("interrupted") from None


@click.group(cls=FriendlyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="oklasim")
def main() -> None:
    """Monte Carlo strategy analysis for Oklahoma Gin.

    Cards are written rank then suit: ranks A 2-9 T (or 10) J Q K, suits
    s c d h, any case, separated by spaces or commas: "As 10h Kd".
    """


@main.command()
@click.argument("hand")
@click.option("--upcard", help="The first upcard, to tell whether the hand may knock.")
@rules_option()
def deadwood(hand: str, upcard: str | None, rules_spec: str) -> None:
    """Deadwood and melds of a 10-card HAND, or best discards of an 11-card one.

    Example: oklasim deadwood "2h 3h 4h 7s 7d 7h Jc Qc Kc 5d 9s" --upcard 6c
    """
    from . import melds

    rules = Rules.load(rules_spec)
    limit = rules.knock_limit(parse_card(upcard)) if upcard else None  # checked before anything is printed
    mask = parse_hand(hand, count=(rules.hand_size, rules.hand_size + 1))
    size = mask.bit_count()
    click.echo(f"hand      {format_hand(mask, by_rank=True)}  ({size} cards)")
    click.echo(f"deadwood  {melds.deadwood([mask])[0]} with no discard")
    for arrangement in melds.optimal_arrangements(mask):
        click.echo("melds     " + (" | ".join(format_hand(m) for m in arrangement) or "none"))
    if size >= 2:
        after = int(melds.deadwood_after_discard([mask])[0])
        click.echo(f"discard   {format_hand(int(melds.best_discards([mask])[0]))} -> deadwood {after}")
    if upcard:
        verdict = melds.knock_verdict(mask, rules.hand_size, limit)
        click.echo(f"limit     {limit} ({'gin only' if limit == 0 else 'knock limit'}) -> {verdict}")


@main.command()
@click.option("--knocker", required=True, help="The knocker's cards after its discard.")
@click.option("--defender", required=True, help="The defender's cards.")
def layoff(knocker: str, defender: str) -> None:
    """The defender's deadwood after layoffs, for each optimal arrangement of the knocker."""
    from . import melds

    k, d = parse_hand(knocker), parse_hand(defender)
    if k & d:
        raise ValueError(f"cards in both hands: {format_hand(k & d)}")
    click.echo(f"knocker deadwood {melds.deadwood([k])[0]}")
    for arrangement in melds.optimal_arrangements(k):
        dw, laid = melds.layoff_deadwood(arrangement, d)
        shown = " | ".join(format_hand(m) for m in arrangement) or "no melds"
        click.echo(f"{shown:<40} defender lays off {format_hand(laid) or 'nothing':<20} deadwood {dw}")


@main.command("rules")
@click.argument("spec", default="seeds")
@click.option("--list", "list_presets", is_flag=True, help="List the presets and exit.")
def rules_command(spec: str, list_presets: bool) -> None:
    """Print the rules of preset or TOML file SPEC as TOML, each field with its meaning."""
    if list_presets:
        for name, changes in PRESETS.items():
            differs = ", ".join(f"{k}={v}" for k, v in changes.items()) or "the defaults"
            click.echo(f"{name:<15} {differs}")
        return
    docs = field_docs()
    for line in Rules.load(spec).to_toml().splitlines():
        key = line.split(" = ")[0]
        click.echo(f"{line:<32} # {docs[key]}")


@main.command()
@rules_and_players()
@click.option("--strategies", "strategy_list", default="simple,simple", show_default=True,
              help="Comma-separated, one per seat (or one for all), e.g. 'simple,random(knock_probability=0.3)'.")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE",
              help="Set a parameter on every seat whose strategy has it (repeatable).")
@click.option("--games", type=int, help="Complete games to the target score.")
@click.option("--hands", type=int, help="Independent hands (each dealt at score 0).")
@seed_option("Seed: the same seed gives the same games.")
@workers_option()
@click.option("--out", "out", type=click.Path(file_okay=False), help="Run folder for parquet output (runs/NAME).")
@click.option("--shard-size", type=int, help="Games (or hands) per shard [count/16, within 1,000-20,000 games or 10,000-200,000 hands].")
@click.option("--resume", is_flag=True, help="Finish an interrupted run in --out, keeping its finished shards.")
@click.option("--overwrite", is_flag=True, help="Replace the run in --out.")
@click.option("--scheduler", help="Address of a Dask scheduler, e.g. tcp://host:8786.")
@click.option("--dask-local", type=int, help="Start a local Dask cluster with N workers.")
@strategy_path_option()
def simulate(rules_spec, players, strategy_list, params, games, hands, seed, workers, out, shard_size, resume,
             overwrite, scheduler, dask_local, strategy_paths) -> None:
    """Play many games or hands on all cores (or a Dask cluster) and summarise them.

    With --out the records go to parquet in that folder, with the rules,
    strategies, seed and version in its manifest.json; interrupt it and run
    the same command with --resume to finish. Example:

    oklasim simulate --strategies simple,greedy --games 100000 --seed 7 --out runs/demo
    """
    from .batch import RunSpec, run
    from .strategy import parse_overrides, with_overrides

    if workers is not None and (scheduler or dask_local is not None):
        raise ValueError("--workers sets the local pool; a Dask cluster has its own workers (--dask-local N)")
    rules = load_rules(rules_spec, players)
    seats = with_overrides(split_strategies(strategy_list), parse_overrides(params), strategy_paths)
    spec = RunSpec.create(rules, seats, games=games, hands=hands, seed=seed, shard_size=shard_size,
                          strategy_paths=strategy_paths)
    if (resume or overwrite) and not out:
        raise ValueError("--resume and --overwrite need --out")
    try:
        result = run(spec, out, workers=workers, resume=resume, overwrite=overwrite, scheduler=scheduler,
                     dask_local=dask_local)
    except KeyboardInterrupt:
        where = f"; rerun the same command with --resume to finish {out}" if out else ""
        raise Interrupted(f"interrupted{where}") from None
    from .analysis import run_summary

    click.echo(run_summary(result.hands, result.games, spec.labels))
    rate = spec.count / result.seconds if result.seconds else float("inf")
    click.echo(f"{spec.count:,} {spec.mode} in {result.seconds:.1f} s ({rate:,.0f}/s)" + (f"; written to {out}" if out else ""))


def match_options(command):
    for option in reversed([
        rules_and_players(),
        click.option("--hands", type=int, help="Deals to play, each in both seatings [100,000 if no --games]."),
        click.option("--games", type=int, help="Games to play, each in both seatings."),
        seed_option("Seed: the same seed gives the same deals."),
        workers_option(),
        json_option(),
        strategy_path_option(),
    ]):
        command = option(command)
    return command


def match_arguments(rules_spec, players, hands, games, seed, workers, strategy_paths) -> dict:
    if hands is None and games is None:
        hands = 100_000
    return dict(rules=load_rules(rules_spec, players), hands=hands, games=games, seed=seed, workers=workers,
                strategy_paths=strategy_paths)


@main.command("match")
@click.argument("a")
@click.argument("b")
@match_options
def match_command(a, b, rules_spec, players, hands, games, seed, workers, as_json, strategy_paths) -> None:
    """Play strategy A against B on paired deals: points per hand, win rates, outcome mix, with 95% intervals.

    Every deal is played twice with the seats swapped, so the luck of the cards
    cancels in the difference. Example: oklasim match simple greedy --hands 200000
    """
    import json

    from .match import match, match_text

    result = match(a, b, **match_arguments(rules_spec, players, hands, games, seed, workers, strategy_paths),
                   progress=not as_json)
    click.echo(json.dumps(result.as_dict(), indent=2) if as_json else match_text(result))


@main.command("tournament")
@click.argument("strategies", nargs=-1, required=True)
@match_options
def tournament_command(strategies, rules_spec, players, hands, games, seed, workers, as_json, strategy_paths) -> None:
    """Round robin of paired matches between STRATEGIES, with a ranking.

    Example: oklasim tournament simple greedy random asap gin_only --hands 50000
    """
    import json

    from .match import tournament, tournament_text

    args = match_arguments(rules_spec, players, hands, games, seed, workers, strategy_paths)
    say = None if as_json else (lambda a, b: click.echo(f"played {a} vs {b}", err=True))
    result = tournament(list(strategies), progress_callback=say, **args)
    click.echo(json.dumps(result.as_dict(), indent=2) if as_json else tournament_text(result))


@main.command("run")
@click.argument("experiment", type=click.Path(dir_okay=False))
@click.option("--quick", is_flag=True, help="A small sample: the same report in well under a minute.")
@workers_option()
@click.option("--runs", "runs_root", default="runs", show_default=True, help="Where the raw runs go.")
@click.option("--reports", "reports_root", default="reports", show_default=True, help="Where the report goes.")
@click.option("--overwrite", is_flag=True, help="Replace the runs of another experiment of the same name.")
def run_command(experiment, quick, workers, runs_root, reports_root, overwrite) -> None:
    """Run the study described in EXPERIMENT (a TOML file in experiments/) and write its report.

    Runs already complete with the same spec are reused, interrupted ones resumed.
    Example: oklasim run experiments/upcard_effects.toml --quick
    """
    from .experiment import run_experiment

    started = time.perf_counter()
    index = run_experiment(experiment, quick=quick, workers=workers, runs_root=runs_root, reports_root=reports_root,
                           overwrite=overwrite)
    click.echo(f"report: {index} ({time.perf_counter() - started:.1f} s)")
    click.echo(f"        {index.parent / 'report.md'}")


@main.command("policy")
@rules_and_players()
@click.option("--runs", "runs_root", type=click.Path(path_type=Path),
              help="Where to look for knock_thresholds runs.  [default: runs]")
@click.option("--answer", "answers", default="mix,max-min,equilibrium", show_default=True,
              help="Comma-separated: mix, max-min, equilibrium, an opponent of the panel (e.g. greedy), or all.")
@click.option("--quick", is_flag=True, help="Also use a --quick run (few deals: for trying the study out, not advice).")
@click.option("--write-study", type=click.Path(dir_okay=False, path_type=Path),
              help="Write a study file that measures these rules; exit.")
def policy_command(rules_spec, players, runs_root, answers, quick, write_study) -> None:
    """The measured knock policy by knock limit for exactly these rules (two players), and whom it is against."""
    from .knock_policy import policy_answer

    click.echo(policy_answer(load_rules(rules_spec, players), rules_spec, runs_root, answers.split(","), quick,
                             write_study))


@main.command("report")
@click.argument("run_dir", type=click.Path(exists=True, file_okay=False))
@click.option("--reports", "reports_root", default="reports", show_default=True, help="Where the report goes.")
def report_command(run_dir, reports_root) -> None:
    """Build the report of an existing run (a study folder or a simulate --out folder)."""
    from .experiment import build_report

    click.echo(f"report: {build_report(run_dir, reports_root)}")


@main.command()
@click.argument("root", default="runs", type=click.Path(file_okay=False))
def runs(root: str) -> None:
    """List the runs under ROOT (default: runs/), newest first."""
    from . import storage

    found = storage.list_runs(Path(root))
    if not found:
        click.echo(f"no runs under {root}")
    for path, manifest in found:
        spec = manifest.get("spec", {})
        click.echo(
            f"{str(path):<28} {storage.status(manifest):<11} {spec['count']:>10,} {spec['mode']:<5} "
            f"{','.join(spec.get('labels', [])):<30} seed {spec.get('seed')}  {manifest.get('created', '')}"
        )


@main.command()
@click.argument("run_dir", type=click.Path(exists=True, file_okay=False))
def show(run_dir: str) -> None:
    """Summarise one run: its spec, counts, outcome mix and points."""
    from . import storage
    from .analysis import run_summary

    manifest = storage.read_manifest(Path(run_dir))
    spec = manifest["spec"]
    found = len(storage.checked_shards(Path(run_dir), "hands", manifest))  # checked before anything is shown
    click.echo(f"run {run_dir}: {storage.status(manifest)}, {found}/{storage.planned_shards(manifest)} shards, "
               f"oklasim {manifest.get('version', '?')}, seed {spec['seed']}")
    click.echo(f"strategies: {', '.join(spec['labels'])}")
    if not found:
        click.echo("no records yet")
        return
    hands = storage.read(Path(run_dir), "hands")
    games = storage.read(Path(run_dir), "games") if spec["mode"] == "games" else None
    click.echo(run_summary(hands, games, spec["labels"]))


@main.command()
@click.argument("strategies")
@seed_option("Seed of the run the game belongs to.")
@click.option("--game", default=0, show_default=True, help="Game number within the run (from 0).")
@click.option("--hands", "hands_only", is_flag=True, help="The run played independent hands, not games.")
@rules_and_players()
@strategy_path_option()
def replay(strategies: str, seed: int, game: int, hands_only: bool, rules_spec: str, players, strategy_paths) -> None:
    """Print one game of a run turn by turn, exactly as the run played it.

    STRATEGIES is a comma-separated list, one per seat (or one for all):
    oklasim replay simple,greedy --seed 1 --game 42
    """
    from .replay import replay as replay_game

    rules = load_rules(rules_spec, players)
    for line in replay_game(rules, split_strategies(strategies), seed, game, hands_only, strategy_paths):
        click.echo(line)


@main.command("strategies")
@click.argument("family_name", required=False, metavar="[FAMILY]")
@strategy_path_option()
def strategies_command(family_name, strategy_paths) -> None:
    """List the strategy families, their parameters (default and range) and presets.

    With FAMILY, explain that family in full: how it plays, where the idea
    comes from, what its parts are worth, then its parameters.
    """
    import ast

    from .strategy import families

    known = families(tuple(strategy_paths))
    if family_name is not None and family_name not in known:
        raise click.BadParameter(f"unknown family {family_name!r}; known: {', '.join(sorted(known))}")
    for name, loaded in sorted(known.items()):
        if family_name not in (None, name):
            continue
        family = loaded.family
        click.echo(f"{name}: {family.doc}")
        click.echo(f"    from {loaded.source}")
        if family_name is not None:
            explained = ast.get_docstring(ast.parse(loaded.source.read_text()))
            click.echo("\n" + (explained or "(no module docstring)") + "\n")
        for p in family.params:
            click.echo(f"    {p.name} = {p.default:g}  ({p.low:g}..{p.high:g})  {p.help}")
        for preset, values in family.presets.items():
            shown = ", ".join(f"{k}={v:g}" for k, v in values.items()) or "defaults"
            click.echo(f"    preset {preset}: {shown}")


def _register_commands() -> None:
    """Commands that live in their own modules."""
    from .advise.cli import advise_command
    from .agent.cli import agent_command, openspiel_command
    from .play_cli import play_command
    from .tune_cli import tune_command

    main.add_command(advise_command)
    main.add_command(agent_command)
    main.add_command(openspiel_command)
    main.add_command(play_command)
    main.add_command(tune_command)


_register_commands()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
