"""Opponents by level: the shipped ladder puts the levels in their order, the study writes what ships, and the
tables (terminal and web) offer the levels while every strategy's own name still works."""

import csv
import json
import tomllib
from pathlib import Path

import pytest
from cli_runner import cli

from oklasim.strategies.registry import resolve
from oklasim.studies.experiment import run_experiment
from oklasim.table import levels
from oklasim.table.terminal import Quit, play

STUDY = Path(levels.__file__).parents[1] / "studies" / "experiments" / "ladder.toml"


def test_the_shipped_levels_are_the_studys_and_in_their_measured_order():
    declared = tomllib.loads(STUDY.read_text())["options"]["levels"]
    shipped = levels.levels()
    assert [(lv.name, lv.strategy) for lv in shipped] == list(declared.items())
    assert all(a.rating < b.rating for a, b in zip(shipped, shipped[1:])), [lv.label for lv in shipped]
    assert all(lv.low < lv.rating < lv.high for lv in shipped)
    for level in shipped:
        resolve(level.strategy)


def test_a_level_is_played_as_its_strategy_and_a_strategy_as_itself():
    club = next(lv for lv in levels.levels() if lv.name == "club")
    assert levels.opponent("club") == (club.strategy, f"club ({club.strategy})")
    assert levels.opponent("greedy(knock_limit=3)") == ("greedy(knock_limit=3)", "greedy(knock_limit=3)")


def test_the_terminal_names_the_level_and_saves_its_strategy(tmp_path):
    shown, save = [], tmp_path / "game.json"

    def quit_at_once(prompt):
        raise Quit

    play(None, "club", 4, str(save), ask=quit_at_once, say=shown.append)
    strategy = levels.opponent("club")[0]
    assert any(f"club ({strategy})" in line for line in shown), shown[:5]
    assert json.loads(save.read_text())["against"] == strategy
    listed = cli("play", "--levels")
    assert listed.exit_code == 0 and all(lv.label in listed.output for lv in levels.levels())


@pytest.mark.slow  # a quick round robin of games to 100
def test_the_study_writes_the_table_that_ships(tmp_path):
    run_experiment(STUDY, quick=True, runs_root=tmp_path / "runs", reports_root=tmp_path / "reports")
    written = tmp_path / "reports" / "ladder-quick" / "levels.csv"
    with written.open() as new, levels.SHIPPED.open() as old:
        assert csv.DictReader(new).fieldnames == csv.DictReader(old).fieldnames
    report = (tmp_path / "reports" / "ladder-quick" / "report.md").read_text()
    assert "levels in their order" in report and "Bradley-Terry" in report



def test_the_web_table_offers_the_levels_and_plays_a_level_as_its_strategy(tmp_path):
    from starlette.testclient import TestClient
    from test_web_api import TOKEN

    from oklasim.web.app import Config, create_app
    from oklasim.web.safety import TOKEN_HEADER

    app = create_app(Config(runs=tmp_path / "runs", reports=tmp_path / "reports"), token=TOKEN)
    with TestClient(app, base_url="http://127.0.0.1", headers={TOKEN_HEADER: TOKEN}) as client:
        page = client.get("/play").text
        assert "Opponents by strength" in page and all(f"<td>{lv.name}</td>" in page for lv in levels.levels())
        state = client.post("/api/play", json={"against": "club", "seed": 3}).json()
        assert state["against"] == levels.opponent("club")[0] != "club"
