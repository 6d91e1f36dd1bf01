"""The coach's words (``oklasim.advise.brief``): one sentence a player acts on, never a call inside the noise; the
numbers on request; ``oklasim advise --brief``; the table's coach noting a dropped plan."""

from __future__ import annotations

import json

import pytest
from cli_runner import advise_cli, one_line_error

from oklasim.advise.brief import Brief, abandons, brief
from oklasim.advise.position import read_position
from oklasim.advise.result import Advice, Candidate
from oklasim.analysis.stats import Estimate
from oklasim.game.cards import parse_card
from oklasim.sim.board import Event
from oklasim.game.rules import Rules
from oklasim.table import coach as table_coach

AFTER_DRAW = read_position("2h 3h 4h 7s 7d 7h Jc Qc Kc 5d 5s", upcard="9c", pile="9c 8d 4s")
BEFORE_DRAW = read_position("2h 3h 4h 7s 7d 7h Jc Qc Kc 5d", upcard="9c", pile="9c 8d 4s")


def around(mean: float, half: float = 1.0) -> Estimate:
    return Estimate(mean, mean - half, mean + half, 1000)


def row(action: str, discard: str | None, points: float, status: str = "beaten", vs: Estimate | None = None,
        win: float | None = None, draw: str | None = None) -> Candidate:
    """A candidate as the advisor gives it: ``vs`` is its paired difference from the best (None for the best)."""
    return Candidate(action, discard, draw, False, None, 4 if action == "knock" else None, 1000, around(points),
                     around(win, 0.02) if win is not None else None, around(0.1, 0.02) if action == "knock" else None,
                     {}, vs, status)


def advice(*candidates: Candidate, objective: str = "points", position=AFTER_DRAW) -> Advice:
    best = next(c for c in candidates if c.status in ("recommended", "leading"))
    doubt = None if best.status == "recommended" else "effective sample 40 is below the minimum 100"
    return Advice(recommendation=best if doubt is None else None, candidates=candidates, objective=objective,
                  stop_reason="samples", samples=1000, seconds=1.0, workers=1, seed=1, confidence=0.95,
                  precision=1.0, position=position, me="expert", opponent="simple", no_recommendation=doubt)


KNOCK = row("knock", "5s", 9.2, "recommended")


def test_a_clear_knock_is_one_sentence_with_its_card_and_the_numbers_on_request():
    told = brief(advice(KNOCK, row("continue", "7h", 5.1, vs=Estimate(-4.1, -5.0, -3.2, 1000))))
    assert told.sentence == "Knock, discarding 5s: about +9 points this hand (discarding 7h: +5)."
    assert (told.card, told.action) == ("5s", "knock")
    assert told.details[0] == "holds if the opponent plays simple, under default rules"
    assert "recommendation: KNOCK, discarding 5s" in told.details  # the advisor's table, whole
    assert told.to_dict()["advice"]["recommendation"]["discard"] == "5s"


def test_a_clear_play_on_says_so_and_the_game_when_scores_are_given():
    play_on = row("continue", "7h", 6.2, "recommended", win=0.62)
    knock = row("knock", "5s", 2.4, vs=Estimate(-3.8, -5.3, -2.3, 1000), win=0.62)
    told = brief(advice(knock, play_on))
    assert told.sentence == ("Play on, discarding 7h: about +6 points this hand (knocking with 5s: +2); same chance to "
                             "win the game.")
    assert (told.card, told.action) == ("7h", "discard")


@pytest.mark.parametrize("high", [0.4, 0.0])  # an interval that reaches 0 includes it
def test_a_difference_inside_its_interval_is_too_close_to_call(high):
    rival = row("continue", "7h", 8.4, vs=Estimate(-0.8, -2.0, high, 1000))
    told = brief(advice(KNOCK, rival, row("continue", "6d", 1.0, vs=Estimate(-8.2, -9.0, -7.4, 1000))))
    assert told.sentence == ("Too close to call: knocking with 5s and discarding 7h are within the noise (about +9 and "
                             "+8 points this hand).")
    assert (told.card, told.action) == (None, "close") and len(told.named) == 2


def test_the_game_decides_and_points_that_disagree_are_said_plainly():
    play_on = row("continue", "7h", 5.0, "recommended", win=0.64)
    knock = row("knock", "5s", 9.0, vs=Estimate(-0.06, -0.09, -0.03, 1000), win=0.58)
    told = brief(advice(knock, play_on, objective="win"))
    assert told.sentence == ("Play on, discarding 7h: 64% to win the game (knocking with 5s: 58%), though knocking "
                             "with 5s scores more this hand (+9 against +5 points).")
    close = row("knock", "5s", 9.0, vs=Estimate(-0.01, -0.03, 0.01, 1000), win=0.63)
    told = brief(advice(close, play_on, objective="win"))
    assert told.sentence.startswith("Too close to call: discarding 7h and knocking with 5s are within the noise "
                                    "(64% and 63% to win the game), though knocking with 5s scores more this hand")


def test_without_enough_evidence_there_is_no_recommendation_but_the_leader_is_named():
    told = brief(advice(row("knock", "5s", 9.2, "leading"), row("continue", "7h", 5.1, vs=around(-4.1))))
    assert told.sentence == "No recommendation, too little evidence: knocking with 5s leads, about +9 points this hand."
    assert (told.card, told.action, told.named) == (None, "unsure", ())


BEHIND = Estimate(-2.0, -3.0, -1.0, 1000)  # two points behind the best, clearly


def take_4s_then_9h() -> Brief:
    """Before the draw: take the pile's top (4s), then discard 9h."""
    return brief(advice(row("continue", "9h", 3.0, "recommended", draw="pile"),
                        row("continue", None, 1.0, vs=BEHIND, draw="stock"), position=BEFORE_DRAW))


def discard(best: str, other: str, vs: Estimate = BEHIND) -> Brief:
    """After the draw: discard ``best``, ``other`` behind by ``vs``."""
    return brief(advice(row("continue", best, 3.0, "recommended"), row("continue", other, 3.0 + vs.mean, vs=vs)))


def test_a_take_names_the_card_taken_and_points_at_it():
    told = take_4s_then_9h()
    assert told.sentence == "Take 4s, then discard 9h: about +3 points this hand (drawing from the stock: +1)."
    assert (told.card, told.action) == ("4s", "take")


def test_a_plan_is_dropped_only_when_no_option_named_after_the_draw_follows_it():
    plan = take_4s_then_9h()
    assert not abandons(plan, discard("9h", "5d"))
    assert abandons(plan, discard("5d", "9h"))
    assert not abandons(plan, discard("5d", "9h", Estimate(-0.5, -1.5, 0.5, 1000)))  # too close: 9h is named


def test_the_table_coach_says_what_was_seen_since_a_dropped_plan(monkeypatch):
    import numpy as np

    from oklasim._kernels import layout as L

    answers = iter([take_4s_then_9h(), discard("5d", "9h")] * 2)
    monkeypatch.setattr(table_coach, "coach_brief", lambda *args: next(answers))
    coach = table_coach.Coach("simple", Rules())
    view = np.zeros(L.V_SIZE, dtype=np.int64)
    seen = [Event(0, 1, "discard", parse_card("4s"), 0)]
    assert coach(view, seen).action == "take"
    seen.append(Event(0, 0, "draw_stock", parse_card("7h"), 0))  # the person drew instead of taking 4s
    assert coach(view, seen).sentence == ("Discard 5d: about +3 points this hand (discarding 9h: +1) (changed: you "
                                          "drew 7h).")
    coach(view, seen)
    seen.append(Event(0, 0, "draw_pile", parse_card("4s"), 0))  # as planned: nothing new
    assert coach(view, seen).sentence.endswith("(changed on a closer look: nothing new was seen).")


# -- oklasim advise --brief ------------------------------------------------------------------------------------

POSITION = ["2h 3h 4h 7s 7d 7h Jc Qc Kc 5d Ks", "--upcard", "9c", "--pile", "9c 8d 4s", "--samples", "1000",
            "--seconds", "600", "--seed", "1"]


def test_advise_brief_says_what_the_json_of_the_same_seed_recommends():
    said = advise_cli(*POSITION, "--brief")
    assert said.exit_code == 0, said.output
    sentence, blank, holds, *table = said.output.splitlines()
    assert blank == "" and holds.startswith("holds if the opponent plays expert") and table[-1].startswith(
        "recommendation")
    data = json.loads(advise_cli(*POSITION, "--json").output)
    best = data["recommendation"]
    rival = max((c for c in data["candidates"] if c["vs_recommended"]), key=lambda c: c["vs_recommended"]["mean"])
    if rival["vs_recommended"]["low"] <= 0 <= rival["vs_recommended"]["high"]:
        assert sentence.startswith("Too close to call:") and rival["discard"] in sentence
    else:
        assert sentence.startswith("Knock" if best["action"] == "knock" else "Play on") and "Too close" not in sentence
    assert best["discard"] in sentence


def test_advise_brief_with_json_is_a_one_line_error():
    one_line_error(advise_cli(*POSITION, "--brief", "--json"), "--brief", "--json")


def test_the_coach_gives_the_same_advice_for_the_same_situation(monkeypatch):
    """Its budget is a number of worlds, not seconds: the same decision is advised the same, however busy the
    machine."""
    from oklasim._kernels import layout as L
    from oklasim.sim.board import GameBoard

    monkeypatch.setattr(table_coach, "COACH_SAMPLES", 300)
    game = GameBoard(Rules(), 4)
    seat, kind = game.next_decision()
    assert kind == L.D_TAKE_UPCARD
    first, again = (table_coach.coach_brief(game.view(seat), [], "simple", Rules()) for _ in range(2))
    assert first.advice.stop_reason != "time" and first.sentence == again.sentence
    assert first.to_dict()["advice"]["candidates"] == again.to_dict()["advice"]["candidates"]
