"""The facts a hand's end and a game's end show (``oklasim.table.showdown``): every card accounted for, the
deadwood the referee counted, and points and totals whose explanations add up to the record's."""

from __future__ import annotations

import re

import pytest

from oklasim._kernels import layout as L
from oklasim.game.cards import card_value, parse_card
from oklasim.game.rules import PRESETS, Rules
from oklasim.sim.board import GameBoard
from oklasim.strategies.registry import resolve
from oklasim.table.referee import BotSeat
from oklasim.table.showdown import game_end, hand_end, hand_lines, score_text
from oklasim.table.terminal import seat_names

BOTS = ("greedy", "simple", "greedy", "simple")


def played(rules: Rules, seed: int) -> tuple[list[dict], list[tuple], dict]:
    """A game of bots; each hand's facts, with its record and final hands, and the game's result."""
    game = GameBoard(rules, seed)
    bots = [BotSeat(resolve(name)) for name in BOTS[: rules.players]]
    facts, hands, events, scores = [], [], [], [0] * rules.players
    while True:
        asked = game.next_decision()
        for e in game.events():
            if e.name == "hand_over":
                record, final = game.records[e.a], game.final_hands[e.a]
                scores = [s + int(record[L.H_SEAT_POINTS + k]) for k, s in enumerate(scores)]
                facts.append(hand_end(rules, names(rules), record, final, events, scores))
                hands.append((record, final, events))
                events = []
            else:
                events.append(e)
        if asked is None:
            return facts, hands, game_end(rules, names(rules), game.result())
        seat, kind = asked
        game.apply(seat, kind, bots[seat].decide(kind, game.view(seat)))


def names(rules: Rules) -> list[str]:
    return seat_names(rules, "bot")


CASES = [(preset, players) for preset in PRESETS for players in (2, 3)] + [("pagat", 4)]


@pytest.mark.parametrize("preset, players", CASES)
def test_the_facts_account_for_every_card_and_point(preset, players):
    rules = Rules.preset(preset).replace(players=players)
    for seed in range(3):
        facts, hands, ending = played(rules, seed)
        for shown, (record, final, events) in zip(facts, hands):
            layoffs = {e.seat: e.a for e in events if e.name == "layoff"}
            for seat, hand in enumerate(shown["hands"]):
                cards = [c for meld in hand["melds"] for c in meld] + hand["laid_off"] + hand["loose"]
                assert sorted(map(parse_card, cards)) == sorted(_cards(final[seat]))  # each card once
                assert hand["deadwood"] == sum(card_value(parse_card(c)) for c in hand["loose"])
                assert hand["deadwood"] <= hand["before"]
                if hand["role"] is not None:  # a showdown: the referee's deadwood, its layoffs
                    assert hand["deadwood"] == record[L.H_SEAT_DEADWOOD + seat]
                    assert sorted(map(parse_card, hand["laid_off"])) == _cards(layoffs.get(seat, 0))
            assert _explained(shown) == shown["scored"] == [int(record[L.H_SEAT_POINTS + s]) for s in range(players)]
            assert hand_lines(shown)[-1].startswith(f"hand {shown['hand']}: {shown['summary']}; score ")
        assert ending["line"].endswith("totals " + score_text(names(rules), ending["totals"]))
        assert bool(ending["bonuses"]) == (ending["totals"] != ending["scores"])
        assert [_added(line) for line in ending["bonuses"]] == [t for t in ending["totals"] if ending["bonuses"]]


def _cards(mask: int) -> list[int]:
    return [c for c in range(52) if mask >> c & 1]


def _added(line: str) -> int:
    """The sum a total's explanation writes out ('greedy: score 108 + 5 x 25 box bonus + game bonus 100 = 333'),
    checked against its stated total."""
    terms, total = line.split(": ", 1)[1].rsplit(" = ", 1)
    added = 0
    for term in terms.split(" + "):
        numbers = [int(n) for n in re.findall(r"\d+", term)]
        added += numbers[0] * (numbers[1] if len(numbers) == 2 else 1)
    assert added == int(total), line
    return added


def _explained(shown: dict) -> list[int]:
    """Each seat's points as the explanations count them ('... = 27 to you')."""
    seats = [hand["name"] for hand in shown["hands"]]
    points = [0] * len(seats)
    for line in shown["points"]:
        found = re.search(r"= (\d+) to (.+)$", line)
        if found:
            points[seats.index(found.group(2))] += int(found.group(1))
    return points
