"""The knock-disagreement experiment (experiments/knock_disagreements/disagreements.py): its counterfactual of an
answer is what the game itself does after it, leaves the real board untouched, and finds no disagreement where the
player is expert; its oracle models the panel member it is told, with that member's defaults."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from oklasim._kernels import layout as L
from oklasim.game.rules import Rules
from oklasim.sim.board import GameBoard
from oklasim.strategies.registry import family_module

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "experiments" / "knock_disagreements" / "disagreements.py"
ORACLE = ROOT / "benchmarks" / "oracle" / "oracle.py"


def load_script():
    spec = importlib.util.spec_from_file_location("knock_disagreements", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_counterfactual_of_the_answer_played_is_the_hand_as_played():
    script = load_script()
    expert, counter = script.seat("expert"), script.seat("counter")
    board = GameBoard(Rules.preset("eaai"), 900, 0, events=False)
    checked = 0
    while checked < 3 and (asked := board.next_decision()) is not None:
        seat, kind = asked
        player = expert if seat == 0 else counter
        answer = player.decide(kind, board.view(seat))
        if seat == 0 and kind == L.D_KNOCK:
            hands, before, kept = len(board.records), board.scores[:2].copy(), board.board.copy()
            predicted = script.hand_points_after(board, answer, expert, counter)
            assert np.array_equal(board.board, kept)  # the copy is played, not the board
            board.apply(seat, kind, answer)
            while len(board.records) == hands and (asked := board.next_decision()) is not None:
                seat, kind = asked
                board.apply(seat, kind, (expert if seat == 0 else counter).decide(kind, board.view(seat)))
            gained = board.scores[:2] - before
            assert predicted == gained[0] - gained[1]
            checked += 1
            continue
        board.apply(seat, kind, answer)
    assert checked == 3


def test_expert_never_disagrees_with_itself_and_search_does(capsys):
    script = load_script()
    expert, counter = script.seat("expert"), script.seat("counter")
    rules = Rules.preset("eaai")
    assert script.play_game(rules, 900, 0, expert, expert, counter) == []
    rows = script.play_game(rules, 900, 0, script.seat("search(samples=256)"), expert, counter)
    assert rows and all(draws >= 0 and isinstance(gain, int) for draws, _, gain in rows)
    script.main(["--player", "search(samples=64)", "--opponent", "counter", "--games", "1", "--seed", "900"])
    out = capsys.readouterr().out
    assert "knocks where expert holds" in out and "holds where expert knocks" in out


def test_an_unknown_strategy_is_a_one_line_usage_error(capsys):
    script = load_script()
    with pytest.raises(SystemExit) as stop:
        script.main(["--opponent", "nosuch", "--games", "1"])
    assert stop.value.code == 2
    assert "unknown strategy 'nosuch'" in capsys.readouterr().err


def test_the_split_by_draws_adds_up_to_the_totals(capsys):
    script = load_script()
    script.main(["--player", "search(samples=64)", "--opponent", "counter", "--games", "3", "--seed", "900",
                 "--by-draws"])
    lines = capsys.readouterr().out.splitlines()
    split = lines[lines.index("by its own draws at the decision:") + 1:]
    assert len(split) == 2 * len(script.DRAW_BUCKETS)

    def count_and_mean(line):
        fields = line.split("decisions")
        return int(fields[0].split()[-1]), float(fields[1].split()[0])

    total_count, total_mean = count_and_mean(next(line for line in lines if line.strip().startswith("all")))
    assert total_count > 0
    assert sum(count_and_mean(line)[0] for line in split) == total_count
    # The per-game sums add up, so the buckets' means do too (each printed to two decimals).
    assert abs(sum(count_and_mean(line)[1] for line in split) - total_mean) <= 0.005 * (len(split) + 1)


def test_the_oracle_knows_every_panel_member_with_its_defaults():
    oracle = family_module(ORACLE)
    assert set(oracle.MEMBERS) == {path.stem for path in (ROOT / "benchmarks" / "panel").glob("*.py")}
    for row, module in enumerate(oracle.MEMBER_MODULES):
        assert module.FAMILY.name == oracle.MEMBERS[row]
        width = len(module.FAMILY.params)
        assert np.array_equal(oracle.MEMBER_DEFAULTS[row, :width], module.FAMILY.defaults())
        assert not oracle.MEMBER_DEFAULTS[row, width:].any()


def knock_answers_compared(first, second, games=4):
    """Two specs' answers at the knock decisions of expert's seat 0 against counter: (decisions, how many differ)."""
    script = load_script()
    first, second = script.seat(first), script.seat(second)
    expert, counter = script.seat("expert"), script.seat("counter")
    differ = knocks = 0
    for game in range(games):
        board = GameBoard(Rules.preset("eaai"), 900, game, events=False)
        while (asked := board.next_decision()) is not None:
            seat, kind = asked
            view = board.view(seat)
            if seat == 0 and kind == L.D_KNOCK:
                knocks += 1
                differ += first.decide(kind, view.copy()) != second.decide(kind, view.copy())
            board.apply(seat, kind, (expert if seat == 0 else counter).decide(kind, view))
    return knocks, differ


def test_the_oracle_weighs_by_the_member_it_is_told():
    """Told one member or another, the same knock decisions get different answers somewhere: the model is the
    member's (in mc_nb's greedy place, with its parameters), not a fixed one."""
    knocks, differ = knock_answers_compared("oracle(member=counter,samples=128,knock_margin=0)",
                                            "oracle(member=hunter,samples=128,knock_margin=0)")
    assert knocks >= 10 and differ > 0


def test_the_oracles_control_is_search_modelling_expert():
    """model=expert puts expert back in the member's place: search's own model 0, answer for answer."""
    knocks, differ = knock_answers_compared("oracle(member=counter,samples=128,model=expert)",
                                            "search(samples=128,model=0)")
    assert knocks >= 10 and differ == 0


def test_the_oracle_without_weights_answers_otherwise():
    """weighs=0 leaves the opponent's play this hand out of the worlds: some knock answers change."""
    knocks, differ = knock_answers_compared("oracle(member=counter,samples=128,knock_margin=0)",
                                            "oracle(member=counter,samples=128,knock_margin=0,weighs=0)")
    assert knocks >= 10 and differ > 0
