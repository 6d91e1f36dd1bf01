"""A table of 2-4 seats around one game of the engine's step machine (``oklasim play``).

The referee is ``oklasim.sim.board.GameBoard``: the engine's own kernels deal,
ask, check and score, so a game at the table is the engine's game of the same
seed, event for event. ``Table`` tells each seat the events it may see and asks
it the decisions the board asks; a refused answer is told back to that seat
(a person types again; a bot's refusal ends the game, as in the engine).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

from oklasim.errors import OklasimError
from oklasim.game.rules import Rules
from oklasim.sim.board import Event, GameBoard, IllegalMove
from oklasim.strategies.registry import Strategy


class Seat(Protocol):
    def tell(self, event: Event) -> None: ...
    def decide(self, kind: int, view: np.ndarray) -> int: ...  # answers as a strategy kernel does (layout.D_*)
    def refused(self, refusal: IllegalMove) -> None: ...
    def hand_over(self, record: np.ndarray, hands: list[int]) -> None: ...  # every hand is shown at its end
    def game_over(self, result: dict) -> None: ...


class BotSeat:
    """A strategy in a seat: its kernel decides on the board's own row, exactly as in the engine."""

    def __init__(self, strategy: Strategy):
        self.strategy = strategy
        self.params = strategy.vector()

    def decide(self, kind: int, view: np.ndarray) -> int:
        return int(self.strategy.decide(kind, view, self.params))

    def refused(self, refusal: IllegalMove) -> None:
        raise IllegalMove(refusal.seat, f"strategy {self.strategy.name!r}: {refusal.reason}")

    def tell(self, event: Event) -> None:
        pass

    def hand_over(self, record: np.ndarray, hands: list[int]) -> None:
        pass

    def game_over(self, result: dict) -> None:
        pass


class Table:
    """Plays game ``game`` of ``seed`` between ``seats`` (seat k plays the engine's seat k)."""

    def __init__(self, rules: Rules, seats: list[Seat], seed: int, game: int = 0,
                 watch: Callable[[int, int, np.ndarray, int, int], None] | None = None):
        if rules.deal_knock_limit >= 0:  # a simulation option of the engine's dealing, not a way to play
            raise OklasimError("the table deals as in play: deal_knock_limit is for simulations only (leave it -1)")
        if len(seats) != rules.players:
            raise OklasimError(f"the rules seat {rules.players} players; the table has {len(seats)} seats")
        self.rules = rules
        self.seats = seats
        self.game = GameBoard(rules, seed, game)
        # Told of every answer taken: (seat, kind, the seat's row before it decided, the answer, the number of the
        # game's events before it).
        self.watch = watch

    def play_game(self) -> dict:
        """Every decision of the game asked and applied; returns the game's result (scores, totals, winner)."""
        while (asked := self.game.next_decision()) is not None:
            self.publish()
            seat, kind = asked
            while True:
                before, known = self.game.view(seat).copy(), len(self.game.history)
                answer = self.seats[seat].decide(kind, self.game.view(seat))
                try:
                    self.game.apply(seat, kind, answer)
                    if self.watch is not None:
                        self.watch(seat, kind, before, answer, known)
                    break
                except IllegalMove as refusal:
                    self.seats[seat].refused(refusal)
        self.publish()
        result = self.game.result()
        for player in self.seats:
            player.game_over(result)
        return result

    def publish(self) -> None:
        """The events since the last decision, to each seat as it may see them; at a hand's end, every hand."""
        for event in self.game.events():
            if event.name == "hand_over":
                for player in self.seats:
                    player.hand_over(self.game.records[event.a], self.game.final_hands[event.a])
                continue
            for seat, player in enumerate(self.seats):
                seen = event.seen_by(seat)
                if seen is not None:
                    player.tell(seen)
