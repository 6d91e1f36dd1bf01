"""The behaviour-cloning example (experiments/bc_expert/bc.py) end to end on a few dozen hands: the fitted policy
picks only legal actions, imitates expert better than a random legal choice, and plays VectorGin to finite points."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("gymnasium")

SCRIPT = Path(__file__).resolve().parents[1] / "experiments" / "bc_expert" / "bc.py"


@pytest.fixture(scope="module")
def bc():
    spec = importlib.util.spec_from_file_location("bc_example", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    yield module
    del sys.modules[spec.name]


@pytest.fixture(scope="module")
def decisions(bc, tmp_path_factory):
    folders = bc.write_datasets(tmp_path_factory.mktemp("bc"), hands=40, seed=3)
    return bc.load_expert_decisions(folders)


@pytest.fixture(scope="module")
def policy(bc, decisions):
    return bc.fit(decisions, hidden=32, epochs=6, seed=0, log=None)


def test_the_dataset_holds_only_expert_decisions_with_legal_actions(decisions):
    assert len(decisions) > 200
    assert decisions.mask[np.arange(len(decisions)), decisions.action].all()
    assert decisions.obs.shape == (len(decisions), 938) and decisions.mask.shape == (len(decisions), 143)


def test_the_policy_picks_only_legal_actions(bc, policy, decisions):
    chosen = policy.act(decisions.obs, decisions.mask)
    assert decisions.mask[np.arange(len(decisions)), chosen].all()
    anything = np.ones_like(decisions.mask)  # the mask decides, not the data: forbid what the policy liked best
    favourite = policy.act(decisions.obs, anything)
    narrowed = decisions.mask.copy()
    narrowed[np.arange(len(decisions)), favourite] = 0
    keep = narrowed.any(axis=1)
    again = policy.act(decisions.obs[keep], narrowed[keep])
    assert narrowed[keep][np.arange(keep.sum()), again].all()


def test_imitation_beats_a_random_legal_choice_on_its_own_data(bc, policy, decisions):
    fitted = bc.accuracy(policy, decisions).mean()
    chance = bc.random_choice_accuracy(decisions).mean()
    assert fitted > chance + 0.1, (fitted, chance)


def test_the_split_keeps_whole_hands_apart(bc, decisions):
    train, test = bc.split_by_hand(decisions, 0.25, seed=1)
    assert len(train) + len(test) == len(decisions) and len(test) > 0
    assert not set(train.hand) & set(test.hand)


def test_playing_through_vectorgin_gives_finite_points_and_legal_moves(bc, policy):
    asked = []

    def checked(obs, mask):
        actions = policy.act(obs, mask)
        live = mask.any(axis=1)  # a slot whose episode just ended is asked nothing (its action is ignored)
        asked.append(mask[live][np.arange(live.sum()), actions[live]].all())
        return actions

    points = bc.play(checked, "simple", hands=30, seed=5, slots=8)
    assert len(points) == 30 and np.isfinite(points).all() and all(asked)
    floor = bc.play(bc.uniform_random(5), "simple", hands=30, seed=5, slots=8)
    assert len(floor) == 30 and np.isfinite(floor).all()
    match = bc.Match.of("bc policy", "simple", points)
    assert np.isfinite(match.points.mean) and 0 <= match.wins.mean <= 1


def test_the_report_names_every_player_and_decision(bc, policy, decisions):
    train, test = bc.split_by_hand(decisions, 0.25, seed=1)
    matches = [bc.Match.of(player, "simple", np.array([3.0, -1.0, 0.0, 5.0]))
               for player in ("bc policy", "random legal", "expert")]
    knocks = bc.knock_rates(policy, test)
    results = bc.Results(len(decisions), 40, len(test), 0.5, 0.3, bc.kind_table(policy, test), knocks, matches,
                         {"fit": 1.0})
    text = bc.markdown(results)
    assert "| bc policy | simple | 4 |" in text and "| discard |" in text and "| draw |" in text
    assert "Against `simple`" in bc.verdict(results)


def test_the_script_runs_end_to_end_and_writes_its_readme(bc, tmp_path):
    readme = tmp_path / "README.md"
    results = bc.main(["--hands", "30", "--play-hands", "20", "--hidden", "16", "--epochs", "2", "--data",
                       str(tmp_path / "data"), "--readme", str(readme)])
    text = readme.read_text()
    assert "bc.py --hands 30" in text and "load average" in text and "## How strong it gets" in text
    assert len(results.matches) == 6 and all(m.points.n == 20 for m in results.matches)
    assert 0 < results.accuracy <= 1 and 0 < results.random_accuracy < 1
