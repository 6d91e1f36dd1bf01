"""The public style counts (``V_STYLE``): what each seat's showdowns showed of how it plays.

The engine counts them at its showdowns; a seat at another referee's table
(the agent) counts them from the final hands it is shown; ``expert`` reads
them to tell a player that holds hands it could knock with from one that
knocks at once. Checked here against a recount in plain Python with the
reference deadwood, game by game.
"""

from __future__ import annotations

import numpy as np
import pytest

from oklasim._kernels import layout as L
from oklasim.agent import Agent, ProtocolError
from oklasim.agent.transcript import transcript
from oklasim.game import reference
from oklasim.game.rules import Rules
from oklasim.sim.board import GameBoard
from oklasim.strategies.registry import resolve

DRAWS = ("take_upcard", "draw_stock", "draw_pile")
KNOCKER_AND_HOLDER = ["eaai", "threshold:gin_only"]


def played(rules: Rules, names: list[str], seed: int, game: int) -> GameBoard:
    """Game ``game`` of ``seed`` played to its end on a GameBoard by the named strategies."""
    strategies = [resolve(name) for name in names]
    board = GameBoard(rules, seed, game)
    while (asked := board.next_decision()) is not None:
        seat, kind = asked
        strategy = strategies[seat]
        board.apply(seat, kind, int(strategy.decide(kind, board.view(seat), strategy.vector())))
    return board


def recount(board: GameBoard) -> np.ndarray:
    """(knocks, held, gins) per seat from the game's records, final hands and draws, by the rule's words."""
    counts = np.zeros((L.MAX_SEATS, L.STYLE_FIELDS), dtype=np.int64)
    draws = {}
    for event in board.history:
        if event.name in DRAWS:
            draws[event.hand, event.seat] = draws.get((event.hand, event.seat), 0) + 1
    for hand, (record, hands) in enumerate(zip(board.records, board.final_hands)):
        knocker, limit = int(record[L.H_KNOCKER]), int(record[L.H_KNOCK_LIMIT])
        if knocker < 0:
            continue  # a void hand shows nothing
        counts[knocker, L.STYLE_KNOCKS if record[L.H_KNOCKER_DEADWOOD] > 0 else L.STYLE_GINS] += 1
        for seat, cards in enumerate(hands):
            if seat != knocker and draws.get((hand, seat), 0) and limit > 0 and reference.deadwood(cards) <= limit:
                counts[seat, L.STYLE_HELD] += 1
    return counts


def style_of(view: np.ndarray) -> np.ndarray:
    return view[L.V_STYLE : L.V_STYLE + L.STYLE_FIELDS * L.MAX_SEATS].reshape(L.MAX_SEATS, L.STYLE_FIELDS)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_engine_counts_what_its_showdowns_show(players):
    rules = Rules(players=players)
    names = (KNOCKER_AND_HOLDER + ["threshold:early_then_gin", "simple"])[:players]
    seen = np.zeros((L.MAX_SEATS, L.STYLE_FIELDS), dtype=np.int64)
    for game in range(6):
        board = played(rules, names, seed=5, game=game)
        expected = recount(board)
        for seat in range(players):
            assert (style_of(board.view(seat)) == expected).all(), (game, seat)
        seen += expected
    assert seen[0, L.STYLE_KNOCKS] > 0 and seen[1, L.STYLE_HELD] > 0  # the knocker knocks, the holder holds
    assert seen[1, L.STYLE_KNOCKS] == 0  # gin_only never knocks short of gin
    assert players > 2 or seen[1, L.STYLE_GINS] > 0  # with 7 cards each gin is rare


def test_a_new_game_starts_its_counts_again():
    rules = Rules()
    board = played(rules, KNOCKER_AND_HOLDER, seed=5, game=1)
    assert style_of(board.view(0)).any()
    fresh = GameBoard(rules, 5, 2)
    fresh.next_decision()
    assert not style_of(fresh.view(0)).any()


def test_the_agent_counts_the_final_hands_it_is_shown_as_the_engine_does():
    """A transcript shows every hand after the hand, as the EAAI referee does: the agent's counts are the engine's at
    the end of each game, void hands and its own hand included."""
    rules = Rules.preset("eaai")
    agent = Agent(rules, resolve("simple"), 7)
    game = 0
    for message, _ in transcript(rules, KNOCKER_AND_HOLDER, 7, 4):
        if message["type"] == "game_over":
            assert (style_of(agent.seat.view) == recount(played(rules, KNOCKER_AND_HOLDER, 7, game))).all()
            game += 1
        agent.handle(message)
    assert game == 3


def test_a_final_hand_counts_once_and_a_void_hand_not_at_all():
    rules = Rules.preset("eaai")
    messages = [m for m, _ in transcript(rules, KNOCKER_AND_HOLDER, 7, 2)]
    first_show = next(i for i, m in enumerate(messages) if m["type"] == "final_hand")
    agent = Agent(rules, resolve("simple"), 7)
    for message in messages[: first_show + 1]:
        agent.handle(message)
    again = agent.handle(messages[first_show])
    assert again["type"] == "error" and "already shown" in again["message"]
    seat = agent.seat
    seat.knocker = -1  # as after a void hand
    before = style_of(seat.view).copy()
    seat.final_hand(1 - messages[first_show]["seat"], 0b1111111111)
    assert (style_of(seat.view) == before).all()
    with pytest.raises(ProtocolError):
        seat.final_hand(5, 0)


def test_expert_reads_the_counts_to_choose_its_knock_timing():
    """With the holder timing set apart (knock in every draw) expert knocks late only once an opponent has held."""
    from oklasim.strategies.families import expert as X

    params = resolve("expert(holder_above=0.5,holding_prior=0,holding_weight=2,holder_early_draws=99)").vector()
    view = np.zeros(L.V_SIZE, dtype=np.int64)
    view[L.V_PLAYERS], view[L.V_SEAT] = 2, 0
    assert X.knock_timing_nb(view, params)[0] == params[X.EARLY_DRAWS]
    view[L.V_STYLE + L.STYLE_FIELDS + L.STYLE_HELD] = 3
    assert X.knock_timing_nb(view, params)[0] == 99
    view[L.V_STYLE + L.STYLE_FIELDS + L.STYLE_KNOCKS] = 4  # 3 held of 7 showings, prior 0 worth 2: 1/3
    assert X.knock_timing_nb(view, params)[0] == params[X.EARLY_DRAWS]
    view[L.V_STYLE + L.STYLE_FIELDS + L.STYLE_GINS] = 4  # and 4 gins: 7 of 11, 7/13 > 0.5
    assert X.knock_timing_nb(view, params)[0] == 99
