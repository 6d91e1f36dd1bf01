"""oklasim strategies refereed by OpenSpiel's gin_rummy (oklahoma=true) through the agent's view.

Skipped without the optional peer (``make peer``). The OpenSpiel runs are
seeded (its chance events are drawn by the driver, its bot is
deterministic), so these checks are reproducible.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytest.importorskip("pyspiel")

from oklasim.agent.openspiel import FIGURES, OPENSPIEL_BOT, crosscheck, play_hands  # noqa: E402
from oklasim.strategies.registry import resolve  # noqa: E402

pytestmark = pytest.mark.peer
HANDS = 2000


@pytest.mark.slow
def test_simple_scores_the_same_under_both_referees():
    """The same match (simple against simple) refereed by OpenSpiel and by oklasim's engine."""
    result = crosscheck("simple", "simple", hands=HANDS, seed=1, engine_hands=100_000)
    assert result.actions > 20 * HANDS  # every one checked legal by OpenSpiel (else IllegalAction)
    for figure in FIGURES:
        assert result.gap_z(figure) < 2.58, "\n".join(result.lines())  # 99%: the run is fixed by its seed


@pytest.mark.slow
def test_simple_against_openspiels_bot_plays_only_legal_actions():
    result = crosscheck("simple", OPENSPIEL_BOT, hands=HANDS, seed=1, engine_hands=20_000)
    assert result.actions > 10 * HANDS
    # OpenSpiel's first-player edge and its bot's hand lengths match oklasim's simple as a stand-in
    for figure in ("first player's net points per hand", "gin share", "no-knock share"):
        assert result.gap_z(figure) < 2.58, "\n".join(result.lines())


@pytest.mark.parametrize("strategy", ["greedy", "eaai", "threshold", "random"])
def test_other_strategies_play_legally(strategy):
    records, referee = play_hands(resolve(strategy), None, 60, seed=7)
    assert len(records) == 60 and referee.actions > 500
    assert {r.seat for r in records} == {0, 1}


def test_command_prints_the_cross_check():
    done = subprocess.run([sys.executable, "-m", "oklasim.cli", "openspiel", "simple", "--hands", "40",
                           "--engine-hands", "2000", "--json"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)["figures"]
    assert set(figures) == set(FIGURES) and figures["gin share"]["openspiel"]["n"] == 40
    bad = subprocess.run([sys.executable, "-m", "oklasim.cli", "openspiel", "nonesuch"], capture_output=True,
                         text=True, timeout=300)
    assert bad.returncode == 1 and "unknown strategy" in bad.stderr and "Traceback" not in bad.stderr
