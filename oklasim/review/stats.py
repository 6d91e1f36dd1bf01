"""A player's statistics over the games they saved (``oklasim play --save`` or the web table's games folder).

Every ``*.json`` of the folder is replayed on the referee (``review.game.saved_game``); a file that is not a saved
game, cannot be read or does not replay is skipped with its one-line reason, and reviews (``*.review.json``) are
left alone. The figures are the person's (seat 0): overall, by opponent (a level's name when the bot played a
level's strategy) and by rules, with 95% intervals from ``analysis.stats``.
"""

from __future__ import annotations

import io
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from oklasim.analysis.report import IMAGE_METADATA, plt  # pyplot as reports use it: the Agg backend, their settings
from oklasim.analysis.stats import Estimate, mean_ci, proportion
from oklasim.errors import OklasimError
from oklasim.review.report import KIND_WORDS, KINDS
from oklasim.review.trend import REVIEW_SUFFIX, ReviewedGame, review_of
from oklasim.runs.storage import atomic_write_bytes
from oklasim.table.levels import levels

PERSON, OPPONENT = 0, 1
VOID_OUTCOMES = ("void", "guard")  # the guard stops a hand that runs too long: void too (RULES.md R23)
GIN_OUTCOMES = ("gin", "big_gin")
# How a hand ended for the person, in the order the outcome chart shows them.
RESULTS = ("won by knock", "won by gin", "won by undercut", "lost by knock", "lost by gin", "lost by undercut",
           "void", "tie")
POINTS_FIGURE, OUTCOMES_FIGURE, LOST_FIGURE = "points_per_hand.png", "outcomes.png", "points_lost.png"
FIGURE_TITLES = {POINTS_FIGURE: "Points per hand by opponent", OUTCOMES_FIGURE: "How the hands ended",
                 LOST_FIGURE: "Reviewed points lost per decision, game after game"}


@dataclass(frozen=True)
class SavedGame:
    """What the statistics need of one replayed save."""

    file: str
    opponent: str  # the opponent's label: 'club (simple)' for a level's strategy, else the strategy's name
    rules: str  # the rules' label: a preset's name or 'custom'
    result: dict | None  # None: unfinished
    hands: tuple[dict, ...]  # ``review.game.hand_facts`` of each hand played to its end

    @property
    def finished(self) -> bool:
        return self.result is not None

    @property
    def won(self) -> bool:
        return self.finished and self.result["winner"] == PERSON


@dataclass(frozen=True)
class Skipped:
    """A ``.json`` file of the folder that is not a saved game that replays, and why."""

    file: str
    reason: str


@dataclass(frozen=True)
class Figures:
    """The person's figures over a group of games."""

    games: int
    finished: int
    won: int
    games_won: Estimate  # share of the finished games won, Wilson interval
    hands: int  # hands played to a score or a tie: the void ones are counted apart
    void_hands: int
    hands_won: int
    gins: int  # big gins included
    knocks: int  # the person's knocks that were not gin
    knock_deadwood: float | None  # their mean deadwood; None without a knock
    undercuts_given: int  # the person undercut the opponent's knock
    undercuts_suffered: int  # the person's knock was undercut
    points_per_hand: Estimate  # the person's points minus the opponent's, per hand (void hands count as 0)
    results: dict[str, int]  # hands by how they ended for the person (``RESULTS``)

    @property
    def unfinished(self) -> int:
        return self.games - self.finished

    def as_dict(self) -> dict:
        return {"games": self.games, "finished": self.finished, "unfinished": self.unfinished, "won": self.won,
                "games_won": _estimate_dict(self.games_won), "hands": self.hands, "void_hands": self.void_hands,
                "hands_won": self.hands_won, "gins": self.gins, "knocks": self.knocks,
                "knock_deadwood": self.knock_deadwood, "undercuts_given": self.undercuts_given,
                "undercuts_suffered": self.undercuts_suffered, "points_per_hand": _estimate_dict(self.points_per_hand),
                "results": dict(self.results)}


@dataclass(frozen=True)
class PlayerStats:
    """The statistics of the saved games of a folder: overall, by opponent and by rules, and the files skipped."""

    folder: Path
    games: tuple[SavedGame, ...]
    skipped: tuple[Skipped, ...]
    overall: Figures
    by_opponent: dict[str, Figures]  # weakest level first, then other strategies by name
    by_rules: dict[str, Figures]
    reviewed: tuple[ReviewedGame, ...] = ()  # the games with a complete review beside them, oldest save first

    def as_dict(self) -> dict:
        return {"folder": str(self.folder), "overall": self.overall.as_dict(),
                "by_opponent": {name: f.as_dict() for name, f in self.by_opponent.items()},
                "by_rules": {name: f.as_dict() for name, f in self.by_rules.items()},
                "games": [{"file": g.file, "opponent": g.opponent, "rules": g.rules, "finished": g.finished,
                           "won": g.won, "hands": len(g.hands)} for g in self.games],
                "skipped": [{"file": s.file, "reason": s.reason} for s in self.skipped],
                "reviewed": [r.as_dict() for r in self.reviewed]}

    def to_json(self) -> str:
        return json.dumps(self.as_dict(), indent=2)


def _estimate_dict(estimate: Estimate) -> dict:
    """``Estimate.as_dict`` with what JSON cannot hold (no figure, an unbounded interval) as null."""
    def finite(x: float) -> float | None:
        return x if math.isfinite(x) else None

    return {"mean": finite(estimate.mean), "ci95": [finite(estimate.low), finite(estimate.high)], "n": estimate.n}


# -- reading the folder -------------------------------------------------------------------------------------------

def player_stats(folder: str | Path) -> PlayerStats:
    """The statistics of the games saved in ``folder`` (its ``*.json``, not its subfolders); ``OklasimError`` when
    it is not a folder or holds no saved game that replays."""
    from oklasim.review.game import saved_game
    from oklasim.table.terminal import rules_label

    folder = Path(folder)
    if not folder.is_dir():
        raise OklasimError(f"no folder {folder}: give the folder your games are saved in")
    games, skipped, reviewed = [], [], []
    for path in _candidates(folder):
        try:
            played = saved_game(path)
        except OklasimError as exc:
            skipped.append(Skipped(path.name, str(exc).splitlines()[0]))
            continue
        games.append(SavedGame(path.name, opponent_label(played.opponent), rules_label(played.rules),
                               played.result, played.hands))
        reviewed.append(review_of(path, played))
    if not games:
        raise OklasimError(_nothing_found(folder, skipped))
    in_order = sorted((r for r in reviewed if r is not None), key=lambda r: (r.saved, r.file))
    return PlayerStats(folder, tuple(games), tuple(skipped), figures(games),
                       _grouped(games, lambda g: g.opponent, _opponent_order),
                       _grouped(games, lambda g: g.rules, lambda label: label), tuple(in_order))


def _candidates(folder: Path) -> list[Path]:
    """The folder's ``*.json`` files by name, reviews left out."""
    return sorted(p for p in folder.glob("*.json") if not p.name.endswith(REVIEW_SUFFIX))


def _nothing_found(folder: Path, skipped: Sequence[Skipped]) -> str:
    if not skipped:
        return (f"no saved game in {folder}: it has no .json file (save games with `oklasim play --save FILE` or "
                "play them in `oklasim serve`)")
    first = skipped[0]
    return (f"no saved game in {folder}: none of its {len(skipped)} .json files is a saved game that replays "
            f"({first.file}: {first.reason})")


def opponent_label(strategy: str) -> str:
    """'club (simple)' when ``strategy`` is a level's, as the table names that opponent; else the strategy's name."""
    level = next((level for level in levels() if level.strategy == strategy), None)
    return strategy if level is None else f"{level.name} ({level.strategy})"


def _opponent_order(label: str) -> tuple[int, str]:
    """Levels weakest first, then the other strategies by name."""
    ranks = {opponent_label(level.strategy): rank for rank, level in enumerate(levels())}
    return ranks.get(label, len(ranks)), label


def _grouped(games: Sequence[SavedGame], key: Callable[[SavedGame], str],
             order: Callable[[str], object]) -> dict[str, Figures]:
    groups: dict[str, list[SavedGame]] = {}
    for game in games:
        groups.setdefault(key(game), []).append(game)
    return {name: figures(groups[name]) for name in sorted(groups, key=order)}


# -- the figures --------------------------------------------------------------------------------------------------

def hand_result(hand: dict) -> str:
    """How a hand ended for the person: one of ``RESULTS``."""
    outcome = hand["outcome"]
    if outcome in VOID_OUTCOMES:
        return "void"
    if outcome == "tie":  # equal deadwood under tie_rule no_score: nobody won
        return "tie"
    side = "won" if hand["winner"] == PERSON else "lost"
    return f"{side} by {'gin' if outcome in GIN_OUTCOMES else outcome}"


def figures(games: Sequence[SavedGame]) -> Figures:
    """The person's figures over ``games``."""
    hands = [hand for game in games for hand in game.hands]
    played = [hand for hand in hands if hand["outcome"] not in VOID_OUTCOMES]
    knocks = [h for h in played if h["knocker"] == PERSON and h["outcome"] not in GIN_OUTCOMES]
    undercuts = [h for h in played if h["outcome"] == "undercut"]
    finished = sum(game.finished for game in games)
    won = sum(game.won for game in games)
    results = {name: 0 for name in RESULTS}
    for hand in hands:
        results[hand_result(hand)] += 1
    return Figures(
        games=len(games), finished=finished, won=won, games_won=proportion(won, finished),
        hands=len(played), void_hands=len(hands) - len(played),
        hands_won=sum(h["winner"] == PERSON for h in played),
        gins=sum(h["knocker"] == PERSON and h["outcome"] in GIN_OUTCOMES for h in played),
        knocks=len(knocks),
        knock_deadwood=sum(h["knocker_deadwood"] for h in knocks) / len(knocks) if knocks else None,
        undercuts_given=sum(h["knocker"] == OPPONENT for h in undercuts),
        undercuts_suffered=sum(h["knocker"] == PERSON for h in undercuts),
        points_per_hand=mean_ci([h["points"][PERSON] - h["points"][OPPONENT] for h in hands]),
        results=results)


# -- tables -------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Table:
    title: str
    headers: tuple[str, ...]
    rows: list[list[str]]
    figure: str | None = None  # the file of the figure the Markdown page shows under the table


def _interval(estimate: Estimate, spec: str, scale: float = 1, unit: str = "") -> str:
    """The mean and its 95% interval; the mean alone when one value leaves the interval unbounded."""
    if estimate.n == 0:
        return "n/a"
    if not (math.isfinite(estimate.low) and math.isfinite(estimate.high)):
        return format(scale * estimate.mean, spec) + unit
    return estimate.bracketed(spec, scale, unit)


GAME_COLUMNS: dict[str, Callable[[Figures], str]] = {
    "games": lambda f: str(f.games),
    "finished": lambda f: str(f.finished),
    "unfinished": lambda f: str(f.unfinished),
    "won": lambda f: str(f.won),
    "games won (95% CI)": lambda f: _interval(f.games_won, ".0f", 100, "%"),
}
HAND_COLUMNS: dict[str, Callable[[Figures], str]] = {
    "hands": lambda f: str(f.hands),
    "void": lambda f: str(f.void_hands),
    "won": lambda f: str(f.hands_won),
    "gins": lambda f: str(f.gins),
    "knocks": lambda f: str(f.knocks),
    "knock deadwood": lambda f: "-" if f.knock_deadwood is None else f"{f.knock_deadwood:.1f}",
    "undercuts given": lambda f: str(f.undercuts_given),
    "undercuts suffered": lambda f: str(f.undercuts_suffered),
    "points/hand (95% CI)": lambda f: _interval(f.points_per_hand, "+.1f"),
}
RESULT_COLUMNS: dict[str, Callable[[Figures], str]] = {
    name: (lambda f, name=name: str(f.results[name])) for name in RESULTS
}


def tables(stats: PlayerStats) -> list[Table]:
    """The games, the hands and the hands' outcomes: a line for all games, then one per opponent, one per rules."""
    groups = [("all games", stats.overall)]
    groups += [(f"vs {name}", f) for name, f in stats.by_opponent.items()]
    groups += [(f"rules: {name}", f) for name, f in stats.by_rules.items()]

    def table(title: str, columns: dict[str, Callable[[Figures], str]], figure: str | None = None) -> Table:
        rows = [[label, *(cell(f) for cell in columns.values())] for label, f in groups]
        return Table(title, ("", *columns), rows, figure)

    shown = [table("Games", GAME_COLUMNS), table("Hands", HAND_COLUMNS, POINTS_FIGURE),
             table("How the hands ended", RESULT_COLUMNS, OUTCOMES_FIGURE)]
    return shown + ([lost_table(stats.reviewed)] if stats.reviewed else [])


def lost_table(reviewed: Sequence[ReviewedGame]) -> Table:
    """The reviewed games, oldest save first: the points lost per decision, in all and by kind of decision."""
    def cell(value: float | None) -> str:
        return "-" if value is None else f"{value:.2f}"

    rows = [[r.file, r.saved, cell(r.per_decision()), *(cell(r.per_decision(k)) for k in KINDS)] for r in reviewed]
    return Table("Points lost per decision (oklasim review)",
                 ("game", "saved", "all", *(KIND_WORDS[k] for k in KINDS)), rows, LOST_FIGURE)


def _counted(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def summary(stats: PlayerStats) -> str:
    """'6 saved games in games/ (5 finished, 1 unfinished), 48 hands; 3 files skipped'."""
    overall = stats.overall
    line = (f"{_counted(overall.games, 'saved game')} in {stats.folder} ({overall.finished} finished, "
            f"{overall.unfinished} unfinished), {_counted(overall.hands + overall.void_hands, 'hand')}")
    return line + (f"; {_counted(len(stats.skipped), 'file')} skipped" if stats.skipped else "")


def _aligned(table: Table) -> list[str]:
    """The table as plain text: the first column left-aligned, the figures right-aligned."""
    cells = [list(table.headers), *table.rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(table.headers))]
    return ["  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths)))
            .rstrip() for row in cells]


def as_text(stats: PlayerStats) -> str:
    """The statistics for the terminal: the summary, the tables, the files skipped."""
    lines = [summary(stats)]
    for table in tables(stats):
        lines += ["", table.title, *_aligned(table)]
    return "\n".join(lines + _skipped_lines(stats, "  "))


def _skipped_lines(stats: PlayerStats, bullet: str) -> list[str]:
    if not stats.skipped:
        return []
    return ["", "Files skipped", *(f"{bullet}{s.file}: {s.reason}" for s in stats.skipped)]


def as_markdown(stats: PlayerStats) -> str:
    """The statistics as a Markdown page, the figures (written beside it by ``write_stats``) embedded."""
    lines = ["# Your statistics", "", summary(stats) + ".", ""]
    for table in tables(stats):
        lines += [f"## {table.title}", "", "| " + " | ".join(table.headers) + " |",
                  "|" + "---|" * len(table.headers), *("| " + " | ".join(row) + " |" for row in table.rows), ""]
        if table.figure:
            lines += [f"![{FIGURE_TITLES[table.figure]}]({table.figure})", ""]
    skipped = _skipped_lines(stats, "- ")
    if skipped:
        lines += ["## Files skipped", "", *skipped[2:], ""]
    return "\n".join(lines)


# -- figures and files --------------------------------------------------------------------------------------------

def points_figure(stats: PlayerStats):
    """Points per hand (the person's minus the opponent's) by opponent, with 95% interval bars."""
    shown = {name: f.points_per_hand for name, f in stats.by_opponent.items() if f.points_per_hand.n}
    fig, ax = plt.subplots(figsize=(6.5, 0.6 * len(shown) + 1.6))
    names = list(shown)
    means = [e.mean for e in shown.values()]
    # One hand leaves the interval unbounded: that point is drawn without a bar.
    errors = [[e.mean - e.low if math.isfinite(e.low) else 0 for e in shown.values()],
              [e.high - e.mean if math.isfinite(e.high) else 0 for e in shown.values()]]
    ax.errorbar(means, range(len(names)), xerr=errors, fmt="o", color="#3a7", capsize=4)
    ax.axvline(0, color="#888", linewidth=0.8)
    ax.set_yticks(range(len(names)), [f"{name}, {_counted(shown[name].n, 'hand')}" for name in names])
    ax.set_ylim(-0.6, len(names) - 0.4)
    ax.invert_yaxis()
    ax.set_xlabel("your points minus the opponent's, per hand (95% interval)")
    ax.set_title(FIGURE_TITLES[POINTS_FIGURE])
    if not shown:  # only unfinished games with no hand over yet
        ax.text(0.5, 0.5, "no hand played to its end yet", ha="center", va="center", transform=ax.transAxes)
    return fig


def outcomes_figure(stats: PlayerStats):
    """The hands by how they ended for the person, all games together."""
    counts = [stats.overall.results[name] for name in RESULTS]
    colours = ["#3a7" if name.startswith("won") else "#c44" if name.startswith("lost") else "#999" for name in RESULTS]
    fig, ax = plt.subplots(figsize=(8, 3.6))
    bars = ax.bar(range(len(RESULTS)), counts, color=colours)
    ax.bar_label(bars)
    ax.margins(y=0.12)  # room for the counts above the bars
    ax.set_xticks(range(len(RESULTS)), [name.replace(" by ", "\n") for name in RESULTS])
    ax.set_ylabel("hands")
    ax.set_title(FIGURE_TITLES[OUTCOMES_FIGURE])
    return fig


def lost_figure(stats: PlayerStats):
    """The reviewed points lost per decision, game after game, in all and by kind of decision."""
    fig, ax = plt.subplots(figsize=(8, 3.6))
    games = range(1, len(stats.reviewed) + 1)
    for kind in (None, *KINDS):
        values = [r.per_decision(kind) for r in stats.reviewed]
        ax.plot(games, [math.nan if v is None else v for v in values], marker="o",
                label="all decisions" if kind is None else KIND_WORDS[kind], linewidth=2.5 if kind is None else 1)
    ax.set_xticks(list(games))
    ax.set_xlabel("reviewed games, oldest first")
    ax.set_ylabel("points lost per decision")
    ax.legend(fontsize="small")
    ax.set_title(FIGURE_TITLES[LOST_FIGURE])
    return fig


def png(fig) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", metadata=IMAGE_METADATA["png"], bbox_inches="tight")
    plt.close(fig)
    return buffer.getvalue()


def write_stats(stats: PlayerStats, out: str | Path) -> list[Path]:
    """``stats.md`` (the tables, the figures embedded), the figures as PNG and ``stats.json`` in ``out``, each
    written whole to a temporary name and renamed; returns the files written."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise OklasimError(f"{out} is a file: --out takes a folder")
    contents = {POINTS_FIGURE: png(points_figure(stats)), OUTCOMES_FIGURE: png(outcomes_figure(stats)),
                "stats.md": as_markdown(stats).encode(), "stats.json": (stats.to_json() + "\n").encode()}
    if stats.reviewed:
        contents[LOST_FIGURE] = png(lost_figure(stats))
    for name, data in contents.items():
        atomic_write_bytes(out / name, data)
    return [out / name for name in contents]
