"""The strategies' game memory (``V_GAME_MEMORY``): slots a strategy keeps for the whole game, where ``V_MEMORY`` is
zeroed at each deal; zeroed at each new game by the engine, carried from game to game by an agent that remembers its
opponents."""

import numpy as np

from oklasim._kernels import layout as L
from oklasim.agent.seat import SeatView
from oklasim.game.rules import Rules
from oklasim.sim.board import GameBoard
from oklasim.strategies.registry import resolve

GAME_MEMORY = slice(L.V_GAME_MEMORY, L.V_GAME_MEMORY + L.N_GAME_MEMORY)
MEMORY = slice(L.V_MEMORY, L.V_MEMORY + L.N_MEMORY)


def test_the_game_memory_runs_on_across_the_hands_of_a_game_and_starts_again_with_the_next():
    simple = resolve("simple")
    board = GameBoard(Rules(), seed=3, game=0, events=False)
    board.next_decision()
    written = np.arange(1, L.N_GAME_MEMORY + 1)
    board.view(0)[GAME_MEMORY] = written
    board.view(0)[MEMORY] = 7
    hands = 0
    while (asked := board.next_decision()) is not None:
        if len(board.records) > hands:  # a new deal: the deal's memory starts again, the game's runs on
            hands = len(board.records)
            assert (board.view(0)[MEMORY] == 0).all() and (board.view(0)[GAME_MEMORY] == written).all()
        seat, kind = asked
        board.apply(seat, kind, int(simple.decide(kind, board.view(seat), simple.vector())))
    assert hands >= 2
    fresh = GameBoard(Rules(), seed=3, game=1, events=False)
    fresh.next_decision()
    assert not fresh.view(0)[GAME_MEMORY].any()


def test_an_agent_that_remembers_its_opponents_carries_its_game_memory_to_the_next_game():
    rules = Rules()
    full = (1 << rules.hand_size) - 1
    for remembers in (True, False):
        seat = SeatView(rules, resolve("simple"), remember_opponents=remembers)
        seat.new_hand(0, 0, full, 40)
        seat.board[0, GAME_MEMORY] = 5
        seat.game_over()
        assert not seat.board[:, GAME_MEMORY].any()  # the board's new game cleared it
        seat.new_hand(1, 0, full, 40)  # this seat now sits at 1: its own row gets it back
        assert (seat.board[1, GAME_MEMORY] == (5 if remembers else 0)).all() and not seat.board[0, GAME_MEMORY].any()
