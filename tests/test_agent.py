"""The agent seat: its view, built from events alone, decides exactly as the engine's seat does.

``follow`` feeds seat 0's transcript of engine games of 2-4 players (what a
referee would send it, ``oklasim.agent.transcript``) to an agent and checks
that, at each of seat 0's decisions, it answers what the engine's strategy
answered. Then the JSON protocol: its answers, its
errors, its process behaviour. Hostile input: tests/test_agent_hostile.py.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from oklasim.agent import Agent, ProtocolError, SeatView
from oklasim.agent.transcript import transcript
from oklasim.game.cards import parse_card
from oklasim.game.rules import Rules
from oklasim.strategies.registry import resolve

OKLASIM = [sys.executable, "-m", "oklasim.cli"]


def follow(rules: Rules, strategies: list[str], seed: int, games: int) -> int:
    """Feed seat 0's transcript of engine games to an agent; every answer must be the engine's. Returns their count."""
    agent = Agent(rules, resolve(strategies[0]), seed)
    checked = 0
    for message, expected in transcript(rules, strategies, seed, games):
        reply = agent.handle(message)
        if message["type"] != "decide":
            assert reply is None, (message, reply)
            continue
        assert reply["type"] == "answer", (message, reply)
        if expected is not None:
            assert {k: reply.get(k) for k in expected} == expected, (message, reply)
            checked += 1
    return checked


@pytest.mark.parametrize("strategy", ["simple", "greedy", "eaai", "threshold", "random", "defensive", "score_aware", "expert"])
@pytest.mark.parametrize("preset", ["seeds", "eaai", "openspiel", "pagat"])
def test_seat_decides_as_the_engine(strategy, preset):
    rules = Rules.preset(preset)
    games = 4 if rules.single_hand else 2
    assert follow(rules, [strategy, "greedy"], seed=11, games=games * 10) > 50


def test_big_gin_and_ace_rules_are_followed():
    rules = Rules(big_gin=True, ace_upcard="one", spade_double=True)
    assert follow(rules, ["simple", "simple"], seed=3, games=20) > 100


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("strategy", ["simple", "expert"])
def test_three_and_four_players_decide_as_the_engine(players, strategy):
    """Every seat's passes, draws, discards and knocks, told to seat 0 round the table: it answers as in the engine."""
    rules = Rules(players=players, big_gin=True)
    strategies = [strategy, "greedy"] + ["simple"] * (players - 2)
    knockers = {m["seat"] for m, _ in transcript(rules, strategies, 5, 12) if m["type"] == "knock"}
    assert knockers == set(range(players))  # knocks by every seat, the agent's own included
    assert follow(rules, strategies, seed=5, games=12) > 200


# -- the seat refuses what it cannot know or do -------------------------------------------


def fresh(strategy="simple", rules="seeds") -> SeatView:
    seat = SeatView(Rules.load(rules), resolve(strategy))
    from oklasim.game.cards import parse_card, parse_hand

    seat.new_hand(0, 1, parse_hand("2h 3h 4h 7s 7d 7h Jc Qc Kc 5d"), parse_card("9c"))
    return seat


@pytest.mark.parametrize(
    "action, field",
    [
        (lambda s: s.draw(), "decision"),  # the upcard is on offer: take_upcard, not draw
        (lambda s: s.passed(1), "seat"),  # the non-dealer (seat 0) is offered first
        (lambda s: s.drew(0, "stock", 5), "from"),  # nobody passed yet
        (lambda s: s.drew(0, "pile", 1), "card"),  # the pile top is 9c, not 2s
        (lambda s: s.discarded(0, 3), "seat"),  # no draw yet
        (lambda s: s.play_turn(), "decision"),
        (lambda s: s.defend(), "decision"),
        (lambda s: s.drew(7, "pile", None), "seat"),
    ],
)
def test_seat_refuses_out_of_turn(action, field):
    seat = fresh()
    before = seat.view.copy()
    with pytest.raises(ProtocolError) as caught:
        action(seat)
    assert caught.value.field == field
    assert (seat.view == before).all()  # a refused message changes nothing


def test_seat_refuses_cards_it_cannot_have():
    from oklasim.game.cards import parse_card

    seat = fresh()
    seat.passed(0)
    seat.passed(1)
    with pytest.raises(ProtocolError) as caught:
        seat.drew(0, "stock", parse_card("7h"))  # already in the hand
    assert caught.value.field == "card"
    seat.drew(0, "stock", parse_card("Ah"))
    with pytest.raises(ProtocolError) as caught:
        seat.discarded(0, parse_card("Ad"))
    assert caught.value.field == "card"
    seat.discarded(0, parse_card("Ah"))
    with pytest.raises(ProtocolError) as caught:
        seat.discarded(1, parse_card("Ah"))  # seat 1 has not drawn
    assert caught.value.field == "seat"
    seat.drew(1, "stock", None)
    with pytest.raises(ProtocolError) as caught:
        seat.discarded(1, parse_card("2h"))  # seat 0 holds it
    assert caught.value.field == "card"


def test_taken_card_may_not_be_discarded():
    from oklasim.game.cards import parse_card

    seat = fresh()
    seat.drew(0, "pile", None)
    with pytest.raises(ProtocolError) as caught:
        seat.discarded(0, parse_card("9c"))
    assert caught.value.field == "card"


# -- the JSON protocol ---------------------------------------------------------------------


def lines(*messages) -> str:
    return "".join(json.dumps(m) + "\n" for m in messages)


def run_agent(stdin: str, *args) -> subprocess.CompletedProcess:
    return subprocess.run(OKLASIM + ["agent", *args], input=stdin, capture_output=True, text=True, timeout=120)


DEAL = {"type": "new_hand", "seat": 0, "dealer": 1, "hand": "2h 3h 4h 7s 7d 7h Jc Qc Kc 5d", "upcard": "9c"}


def test_agent_plays_a_turn_and_errors_name_the_field():
    agent = Agent(Rules(), resolve("simple"))
    assert agent.hello()["v"] == 1
    assert agent.handle(DEAL) is None
    assert agent.handle({"type": "decide", "decision": "take_upcard", "id": 7}) == {
        "type": "answer", "v": 1, "decision": "take_upcard", "id": 7, "take": True}
    assert agent.handle({"type": "draw", "seat": 0, "from": "pile"}) is None
    answer = agent.handle({"type": "decide", "decision": "discard"})
    assert answer["knock"] is True and answer["card"] == "5d" and answer["deadwood"] == 9
    assert sorted(map(sorted, answer["melds"])) == sorted(map(sorted, [["Jc", "Qc", "Kc"], ["7s", "7d", "7h"], ["2h", "3h", "4h"]]))
    assert agent.handle({"type": "discard", "seat": 0, "card": "9c"})["field"] == "card"
    bad = [
        ("{", "line"), ("[1]", "line"), ('{"type": "dance"}', "type"), ('{"type": "pass", "v": 2}', "v"),
        ('{"type": "discard", "seat": 0}', "card"), ('{"type": "discard", "seat": 0, "card": 12}', "card"),
        ('{"type": "decide", "decision": "sing"}', "decision"), ('{"type": "decide", "decision": "draw"}', "decision"),
        ('{"type": "new_hand", "seat": 0, "dealer": 1, "hand": "As", "upcard": "9c"}', "hand"),
        ('{"type": "new_hand", "seat": 0, "dealer": 5, "hand": "As", "upcard": "9c"}', "dealer"),
    ]
    for line, field in bad:
        reply = agent.handle_line(line)
        assert reply["type"] == "error" and reply["field"] == field, (line, reply)


def test_agent_process_answers_and_exits_cleanly():
    out = run_agent(lines(DEAL, {"type": "decide", "decision": "take_upcard"}, {"type": "quit"}), "--strategy", "greedy")
    replies = [json.loads(line) for line in out.stdout.splitlines()]
    assert out.returncode == 0, out.stderr
    assert replies[0]["type"] == "hello" and replies[0]["strategy"] == "greedy"
    assert replies[1]["decision"] == "take_upcard" and isinstance(replies[1]["take"], bool)


def test_agent_process_reports_a_dead_referee_and_bad_options():
    out = run_agent(lines(DEAL), "--strategy", "simple")
    assert out.returncode == 1 and "closed the input" in out.stderr
    out = run_agent("", "--strategy", "nonesuch")
    assert out.returncode == 1
    assert json.loads(out.stdout)["field"] == "strategy"
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_the_knockers_choice_of_melds_is_the_engines():
    """Knocks with several arrangements of least deadwood, where ``defensive`` picks one: the same melds laid."""
    from oklasim.game import melds

    told = list(transcript(Rules(), ["defensive", "greedy"], 3, 100))
    chosen = [e for m, e in told if m.get("decision") == "discard" and e and e["knock"] and e["deadwood"] > 0]
    several = [e for e in chosen if len(melds.optimal_arrangements(sum(
        1 << c for meld in e["melds"] for c in map(parse_card, meld)))) > 1]
    assert len(several) >= 5
    assert follow(Rules(), ["defensive", "greedy"], seed=3, games=100) > 300
