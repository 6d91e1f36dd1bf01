"""``oklasim stats``: a player's figures over a folder of saved games, checked against counts made here from the
games' hands, the grouping by opponent and rules, the files skipped, the command's output, errors and files."""

from __future__ import annotations

import json
import math
import re
import statistics
from pathlib import Path

import pytest
from cli_runner import one_line_error
from click.testing import CliRunner
from saved_games import save_bot_game

from oklasim.analysis.stats import Z95, wilson
from oklasim.cli import FriendlyGroup
from oklasim.cli.stats import stats_command
from oklasim.errors import OklasimError
from oklasim.game.rules import Rules
from oklasim.review.game import saved_game
from oklasim.review.stats import (
    RESULTS,
    SavedGame,
    figures,
    hand_result,
    opponent_label,
    player_stats,
    summary,
    write_stats,
)
from oklasim.table.terminal import SAVE_FORMAT

# The saved games of the folder: file -> (who typed the person's moves, the bot, seed, rules preset, moves kept or
# None for all). The person loses "lost.json", its knocks undercut twice.
GAMES = {
    "first.json": ("expert", "simple", 1, "seeds", None),
    "second.json": ("expert", "defensive", 2, "seeds", None),
    "greedy.json": ("expert", "greedy", 3, "seeds", None),
    "pagat.json": ("expert", "simple", 4, "pagat", None),
    "unfinished.json": ("expert", "simple", 5, "seeds", 120),
    "lost.json": ("simple", "expert", 9, "seeds", None),
}
NOT_GAMES = {"garbage.json": "cannot read the saved game", "foreign.json": "is not a game saved by",
             "three.json": "3-player game"}


@pytest.fixture(scope="module")
def games_dir(tmp_path_factory) -> Path:
    """The games of ``GAMES``, and files that are not games: garbage, foreign JSON, a three-player save, a review,
    a text file and a subfolder."""
    folder = tmp_path_factory.mktemp("games")
    for name, (person, against, seed, preset, kept) in GAMES.items():
        save_bot_game(folder / name, person, against, seed, Rules.preset(preset), stop_after=kept)
    (folder / "garbage.json").write_text("{not json")
    (folder / "foreign.json").write_text(json.dumps({"hello": "world"}))
    three = {"format": SAVE_FORMAT, "against": "simple", "rules": Rules(players=3).to_dict(), "seed": 1,
             "coach": False, "moves": [], "finished": False}
    (folder / "three.json").write_text(json.dumps(three))
    (folder / "first.review.json").write_text("a review: never read as a game")
    (folder / "notes.txt").write_text("not json")
    (folder / "older").mkdir()
    save_bot_game(folder / "older" / "old.json", "expert", "simple", 9)
    return folder


@pytest.fixture(scope="module")
def stats(games_dir):
    return player_stats(games_dir)


@pytest.fixture(scope="module")
def replayed(games_dir) -> dict:
    """Each saved game as the review replays it, by file."""
    return {name: saved_game(games_dir / name) for name in GAMES}


def counts(games) -> dict:
    """The figures counted here, hand by hand, from the replayed games (seat 0 is the person)."""
    hands = [h for g in games for h in g.hands]
    scored = [h for h in hands if h["outcome"] not in ("void", "guard")]
    mine = [h for h in scored if h["knocker"] == 0]
    knocks = [h for h in mine if h["outcome"] in ("knock", "undercut", "tie")]
    finished = [g for g in games if g.result is not None]
    return {"games": len(games), "finished": len(finished), "won": sum(g.result["winner"] == 0 for g in finished),
            "hands": len(scored), "void_hands": len(hands) - len(scored),
            "hands_won": sum(h["winner"] == 0 for h in scored),
            "gins": sum(h["outcome"] in ("gin", "big_gin") for h in mine), "knocks": len(knocks),
            "knock_deadwood": statistics.mean(h["knocker_deadwood"] for h in knocks) if knocks else None,
            "undercuts_given": sum(h["outcome"] == "undercut" and h["knocker"] == 1 for h in scored),
            "undercuts_suffered": sum(h["outcome"] == "undercut" for h in knocks),
            "differences": [h["points"][0] - h["points"][1] for h in hands]}


def assert_figures_match(figures_, expected: dict) -> None:
    for name in ("games", "finished", "won", "hands", "void_hands", "hands_won", "gins", "knocks",
                 "undercuts_given", "undercuts_suffered"):
        assert getattr(figures_, name) == expected[name], name
    assert figures_.knock_deadwood == pytest.approx(expected["knock_deadwood"])
    assert figures_.unfinished == expected["games"] - expected["finished"]
    assert (figures_.games_won.low, figures_.games_won.high) == pytest.approx(wilson(expected["won"],
                                                                                     expected["finished"]))
    differences = expected["differences"]
    points = figures_.points_per_hand
    assert points.n == len(differences) and points.mean == pytest.approx(statistics.mean(differences))
    assert points.half_width == pytest.approx(Z95 * statistics.stdev(differences) / math.sqrt(len(differences)))
    assert sum(figures_.results.values()) == expected["hands"] + expected["void_hands"]


# -- the figures --------------------------------------------------------------------------------------------------

def test_the_folder_is_rich_enough_to_check_the_figures(replayed):
    """The games hold what the figures count (else the checks below would compare zeros)."""
    found = counts(replayed.values())
    assert found["finished"] == len(GAMES) - 1 and 0 < found["won"] < found["finished"]
    assert 0 < found["hands_won"] < found["hands"] and found["void_hands"]
    assert found["gins"] and found["knocks"] and found["undercuts_given"] and found["undercuts_suffered"]
    assert replayed["unfinished.json"].result is None and replayed["unfinished.json"].hands


def test_the_overall_figures_are_the_games_counts(stats, replayed):
    assert [g.file for g in stats.games] == sorted(GAMES)
    assert_figures_match(stats.overall, counts(replayed.values()))


def test_the_figures_are_grouped_by_opponent_level_and_by_rules(stats, replayed):
    # greedy, simple, defensive and expert are the beginner, club, strong and expert levels: shown by level,
    # weakest first (not by name)
    assert list(stats.by_opponent) == ["beginner (greedy)", "club (simple)", "strong (defensive)", "expert (expert)"]
    assert list(stats.by_rules) == ["pagat", "seeds"]
    for label, files in {"beginner (greedy)": ["greedy.json"], "strong (defensive)": ["second.json"],
                         "club (simple)": ["first.json", "pagat.json", "unfinished.json"],
                         "expert (expert)": ["lost.json"]}.items():
        assert_figures_match(stats.by_opponent[label], counts([replayed[f] for f in files]))
    for preset in ("pagat", "seeds"):
        games = [replayed[f] for f, (*_, rules, _) in GAMES.items() if rules == preset]
        assert_figures_match(stats.by_rules[preset], counts(games))


def test_files_that_are_not_saved_games_are_skipped_with_their_reason(stats):
    reasons = {s.file: s.reason for s in stats.skipped}
    assert set(reasons) == set(NOT_GAMES)  # the review, the text file and the subfolder's game are not looked at
    for file, fragment in NOT_GAMES.items():
        assert fragment in reasons[file] and "\n" not in reasons[file]


def test_every_hand_is_told_by_how_it_ended_for_the_person():
    hand = {"outcome": "knock", "knocker": 0, "winner": 0}
    assert hand_result(hand) == "won by knock"
    assert hand_result(hand | {"outcome": "undercut", "winner": 1}) == "lost by undercut"
    assert hand_result(hand | {"outcome": "undercut", "knocker": 1}) == "won by undercut"
    assert hand_result(hand | {"outcome": "big_gin", "knocker": 1, "winner": 1}) == "lost by gin"
    assert hand_result(hand | {"outcome": "guard", "knocker": -1, "winner": -1}) == "void"
    assert hand_result(hand | {"outcome": "tie", "winner": -1}) == "tie"


def hand(outcome: str, knocker: int, winner: int, points: tuple[int, int], knocker_deadwood: int = 0) -> dict:
    return {"outcome": outcome, "knocker": knocker, "winner": winner, "points": list(points),
            "knocker_deadwood": knocker_deadwood}


def test_the_rare_outcomes_are_counted_on_the_right_side():
    """Hands made up to hold every outcome from both sides (real games rarely show them all)."""
    hands = (hand("knock", 0, 0, (12, 0), 6), hand("undercut", 0, 1, (0, 15), 8), hand("undercut", 1, 0, (20, 0), 4),
             hand("big_gin", 0, 0, (50, 0)), hand("gin", 1, 1, (0, 30)), hand("void", -1, -1, (0, 0)),
             hand("guard", -1, -1, (0, 0)), hand("tie", 0, -1, (0, 0), 5))
    games = [SavedGame("a.json", "club (simple)", "seeds", {"winner": 0}, hands[:4]),
             SavedGame("b.json", "club (simple)", "seeds", {"winner": 1}, hands[4:]),
             SavedGame("c.json", "club (simple)", "seeds", None, ())]
    got = figures(games)
    assert (got.games, got.finished, got.unfinished, got.won) == (3, 2, 1, 1)
    assert (got.hands, got.void_hands, got.hands_won, got.gins, got.knocks) == (6, 2, 3, 1, 3)
    assert got.knock_deadwood == pytest.approx((6 + 8 + 5) / 3)
    assert (got.undercuts_given, got.undercuts_suffered) == (1, 1)
    assert got.points_per_hand.mean == pytest.approx((12 - 15 + 20 + 50 - 30) / 8)
    assert got.results == {"won by knock": 1, "won by gin": 1, "won by undercut": 1, "lost by knock": 0,
                           "lost by gin": 1, "lost by undercut": 1, "void": 2, "tie": 1}
    assert list(got.results) == list(RESULTS)


def test_an_opponent_is_shown_by_its_level_when_it_plays_one():
    assert opponent_label("simple") == "club (simple)"
    assert opponent_label("search:search_fast") == "champion (search:search_fast)"
    assert opponent_label("threshold:gin_only") == "threshold:gin_only"


def test_a_folder_of_one_game_not_started_has_no_figure_to_measure(tmp_path):
    save_bot_game(tmp_path / "new.json", "expert", "simple", 7, stop_after=0)
    only = player_stats(tmp_path)
    assert (only.overall.games, only.overall.unfinished, only.overall.hands) == (1, 1, 0)
    assert only.overall.points_per_hand.n == 0 and only.overall.knock_deadwood is None
    assert json.loads(only.to_json())["overall"]["points_per_hand"] == {"mean": None, "ci95": [None, None], "n": 0}
    assert summary(only) == f"1 saved game in {tmp_path} (0 finished, 1 unfinished), 0 hands"
    written = write_stats(only, tmp_path / "out")  # the figures say there is nothing to draw yet
    assert [p.name for p in written if p.read_bytes().startswith(b"\x89PNG")] == ["points_per_hand.png",
                                                                                   "outcomes.png"]


def absent(folder: Path) -> Path:
    return folder / "absent"


def empty(folder: Path) -> Path:
    return folder


def only_garbage(folder: Path) -> Path:
    (folder / "bad.json").write_text("{")
    (folder / "bad.review.json").write_text("{")  # a review is not counted among the files tried
    return folder


NO_GAME = [(absent, "no folder"), (empty, "no saved game in"), (empty, "it has no .json file"),
           (only_garbage, "none of its 1 .json files is a saved game that replays (bad.json: cannot read")]


@pytest.mark.parametrize(("make", "fragment"), NO_GAME)
def test_a_folder_without_a_saved_game_is_refused(tmp_path, make, fragment):
    with pytest.raises(OklasimError, match=re.escape(fragment)):
        player_stats(make(tmp_path))


# -- the command --------------------------------------------------------------------------------------------------

def stats_cli(*args):
    """``oklasim stats ARGS...`` through a group holding only that command, as the entry point runs it."""
    group = FriendlyGroup()
    group.add_command(stats_command)
    return CliRunner().invoke(group, ["stats", *(str(a) for a in args)])


def table_lines(output: str, title: str) -> list[str]:
    """The lines of the printed table under ``title``, its header first."""
    lines = output.splitlines()
    start = lines.index(title) + 1
    end = next((i for i in range(start, len(lines)) if not lines[i]), len(lines))
    return lines[start:end]


def test_the_command_prints_aligned_tables_and_the_files_skipped(games_dir, stats):
    done = stats_cli(games_dir)
    assert done.exit_code == 0, done.output
    assert done.output.startswith(f"6 saved games in {games_dir} (5 finished, 1 unfinished)")
    assert "3 files skipped" in done.output.splitlines()[0]
    for title in ("Games", "Hands", "How the hands ended"):
        lines = table_lines(done.output, title)
        assert [line.split("  ")[0] for line in lines[1:]] == [
            "all games", "vs beginner (greedy)", "vs club (simple)", "vs strong (defensive)", "vs expert (expert)",
            "rules: pagat", "rules: seeds"]
        assert len({len(line) for line in lines}) == 1, f"{title}: the columns are not aligned"
    hands = table_lines(done.output, "Hands")
    assert hands[0].split()[:5] == ["hands", "void", "won", "gins", "knocks"]
    overall = stats.overall
    assert hands[1].split()[2:7] == [str(x) for x in (overall.hands, overall.void_hands, overall.hands_won,
                                                      overall.gins, overall.knocks)]
    assert table_lines(done.output, "Files skipped") == [f"  {s.file}: {s.reason}" for s in stats.skipped]


def test_the_json_is_the_statistics(games_dir, stats):
    done = stats_cli(games_dir, "--json")
    assert done.exit_code == 0, done.output
    printed = json.loads(done.output)
    assert printed == json.loads(stats.to_json())
    assert printed["overall"]["hands_won"] == stats.overall.hands_won
    assert list(printed["by_opponent"]) == list(stats.by_opponent)
    assert [s["file"] for s in printed["skipped"]] == [s.file for s in stats.skipped]


def test_out_writes_the_page_its_figures_and_the_json(games_dir, tmp_path):
    out = tmp_path / "report"
    done = stats_cli(games_dir, "--out", out)
    assert done.exit_code == 0, done.output
    assert sorted(p.name for p in out.iterdir()) == ["outcomes.png", "points_per_hand.png", "stats.json", "stats.md"]
    page = (out / "stats.md").read_text()
    assert "![Points per hand by opponent](points_per_hand.png)" in page
    assert "![How the hands ended](outcomes.png)" in page
    assert "| vs club (simple) |" in page and "## Files skipped" in page
    for png in ("outcomes.png", "points_per_hand.png"):
        assert (out / png).read_bytes().startswith(b"\x89PNG")
    assert json.loads((out / "stats.json").read_text()) == json.loads(stats_cli(games_dir, "--json").output)


@pytest.mark.parametrize(("make", "fragment"), NO_GAME)
def test_the_command_refuses_a_folder_without_a_saved_game_in_one_line(tmp_path, make, fragment):
    one_line_error(stats_cli(make(tmp_path)), fragment)


def test_out_on_a_file_is_refused_in_one_line(games_dir, tmp_path):
    (tmp_path / "taken").write_text("")
    one_line_error(stats_cli(games_dir, "--out", tmp_path / "taken"), "is a file")


def test_the_help_gives_an_example():
    done = stats_cli("--help")
    assert done.exit_code == 0 and "Example:" in done.output and "oklasim stats " in done.output
