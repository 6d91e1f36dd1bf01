"""Study: the ladder of opponents a person can choose, by a measured rating.

The entrants play a round robin of games to the target on paired deals (each game twice, seats swapped), stored as
the tournament study stores its matches. A Bradley-Terry fit of the games won puts them on one Elo scale with
intervals (``oklasim.analysis.ladder``). ``[options] levels`` names the levels offered to people (``oklasim play
--against club``, the web table) and the entrant each stands for; the report says whether the measured ratings put
the levels in their order, and its ``levels.csv`` is what oklasim ships (``oklasim.strategies.levels``).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import polars as pl

from oklasim.analysis.ladder import Ladder, bradley_terry
from oklasim.analysis.report import Report
from oklasim.errors import OklasimError
from oklasim.studies import tournament
from oklasim.studies.common import fmt_interval
from oklasim.studies.spec import Experiment, provenance


def check(experiment: Experiment) -> None:
    source = experiment.source
    if experiment.mode != "games":
        raise OklasimError(f"{source}: the ladder rates games won: use games = N")
    tournament.check_entrants(experiment, options=("levels",))
    levels = experiment.options.get("levels")
    if not isinstance(levels, dict) or not levels:
        raise OklasimError(f'{source}: [options] levels is a table of level = strategy, e.g. levels = {{ club = '
                           '"greedy" }}, weakest first')
    strangers = sorted(str(s) for s in levels.values() if s not in experiment.strategies)
    if strangers:
        raise OklasimError(f"{source}: [options] levels names {', '.join(strangers)}, not in [study] strategies")


def run(experiment: Experiment, run_dir: Path, workers: int | None) -> None:
    tournament.run(experiment, run_dir, workers)


def ladder_of(run_dir: Path) -> Ladder:
    """The Bradley-Terry ladder of the stored matches: games each side won over both seatings."""
    result, _ = tournament.load(run_dir)
    pairings = []
    for (a, b), m in result.matches.items():
        played = m.a.games_won.n
        pairings.append((a, b, round(m.a.games_won.mean * played), played))
    return bradley_terry(result.names, pairings)


def levels_table(experiment: Experiment, ladder: Ladder) -> pl.DataFrame:
    """The levels, weakest first as the study lists them, with their entrant's rating and its gap above the level
    below (empty for the first), each with its interval."""
    rows, below = [], None
    for level, name in experiment.options["levels"].items():
        r = ladder[name].rating
        gap = ladder.gap(name, below) if below is not None else None
        rows.append({"level": level, "strategy": name, "rating": r.mean, "rating_lo": r.low, "rating_hi": r.high,
                     "above_previous": gap and gap.mean, "above_previous_lo": gap and gap.low,
                     "above_previous_hi": gap and gap.high, "games": ladder[name].games})
        below = name
    return pl.DataFrame(rows, schema_overrides={k: pl.Float64 for k in
                                                ("above_previous", "above_previous_lo", "above_previous_hi")})


def ladder_table(ladder: Ladder) -> pl.DataFrame:
    return pl.DataFrame([{"place": place, "strategy": r.name, "rating": r.rating.mean, "rating_lo": r.rating.low,
                          "rating_hi": r.rating.high, "games": r.games}
                         for place, r in enumerate(ladder.ratings, 1)])


def _summary(levels: pl.DataFrame, ladder: Ladder) -> list[str]:
    rows = levels.to_dicts()
    steps = list(zip(rows, rows[1:]))
    ordered = all(b["above_previous"] > 0 for _, b in steps)
    apart = all(b["above_previous_lo"] > 0 for _, b in steps)
    lines = [f"The measured ratings put the {len(rows)} levels in their order"
             + (", each above the one below it beyond its interval." if apart else
                " by their estimates; some steps' intervals include no difference." if ordered else
                "? No: " + ", ".join(f"{a['level']} ({a['strategy']}) is not below {b['level']} ({b['strategy']})"
                                     for a, b in steps if b["above_previous"] <= 0) + ".")]
    for a, b in steps:
        chance = ladder[b["strategy"]].beats(ladder[a["strategy"]])
        gap = fmt_interval(b["above_previous"], b["above_previous_lo"], b["above_previous_hi"], 0)
        lines.append(f"{b['level']} ({b['strategy']}) is {gap} Elo points above {a['level']} ({a['strategy']}): it "
                     f"wins about {100 * chance:.0f}% of their games.")
    if ladder.misfit > 1:
        lines.append(f"The pairings fit one scale less well than chance allows (misfit {ladder.misfit:.2f}): the "
                     "intervals are widened by its square root.")
    return lines


def _figure(ladder: Ladder, levels: pl.DataFrame):
    named = {row["strategy"]: row["level"] for row in levels.to_dicts()}
    ratings = list(reversed(ladder.ratings))
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(ratings) + 1))
    y = range(len(ratings))
    means = [r.rating.mean for r in ratings]
    ax.errorbar(means, y, xerr=[[m - r.rating.low for m, r in zip(means, ratings)],
                                [r.rating.high - m for m, r in zip(means, ratings)]], fmt="o", capsize=3)
    ax.set_yticks(list(y), [r.name + (f"  [{named[r.name]}]" if r.name in named else "") for r in ratings])
    ax.axvline(0, color="grey", lw=0.5)
    ax.set_xlabel("rating (Elo points; mean 0; 95% interval)")
    return fig


def report(experiment: Experiment, run_dir: Path, report_dir: Path) -> Path:
    ladder = ladder_of(run_dir)
    levels = levels_table(experiment, ladder)
    doc = Report(report_dir, experiment.title)
    doc.summary = _summary(levels, ladder)
    doc.provenance = provenance(
        experiment, {}, size=f"{experiment.count:,} games to the target per pairing, each dealt in both seatings",
        model="Bradley-Terry on games won, half a win and half a loss added per pairing; intervals from the "
              "likelihood, widened by the misfit when above 1")
    doc.figure("ladder", _figure(ladder, levels), "The ladder",
               "Each entrant's rating with its 95% interval; the levels offered to people in brackets.")
    doc.table("levels", levels, "The levels",
              "The levels people choose from, weakest first: the rating of the strategy each stands for, and its "
              "gap above the level below (that gap's interval is narrower than the two ratings' intervals, which "
              "share the uncertainty of the entrants' mean).", digits=0)
    doc.table("ladder", ladder_table(ladder), "Every entrant", "Elo points, the entrants' mean at 0.", digits=0)
    return doc.write()
