"""One game on the engine's step machine, driven a decision at a time from Python.

The engine plays a hand by asking ``pending_nb`` what is asked next and giving
the seat's answer to ``apply_nb``; ``GameBoard`` drives the same kernels one
step at a time, so that a person, a bot and another program's seat all play
by the one referee, with the engine's deals and random streams: game ``g`` of
seed ``s`` here is game ``g`` of seed ``s`` in ``simulate``.

>>> from oklasim.game.rules import Rules
>>> game = GameBoard(Rules(), seed=1)
>>> seat, kind = game.next_decision()
>>> kind == L.D_TAKE_UPCARD and seat == (game.dealer + 1) % 2
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from oklasim._kernels import engine_nb as E
from oklasim._kernels import layout as L
from oklasim._kernels import steps_nb as S
from oklasim._kernels.linking import entry_point
from oklasim._kernels.melds_nb import MAX_MELDS_IN_ARRANGEMENT
from oklasim.errors import OklasimError
from oklasim.game.rules import Rules
from oklasim.sim.engine import DECISION_NAMES, illegal_reason, stream_key

EVENT_NAMES = ("deal", "upcard", "pass", "take_upcard", "draw_stock", "draw_pile", "discard", "knock", "melds",
               "layoff", "score", "void")
STEP_TRACE_ROWS = 64  # the events one step can make: a deal of four hands, a showdown of four seats


class IllegalMove(OklasimError):
    """An answer the step machine refuses: out of turn, or against the rules. The board is left as it was."""

    def __init__(self, seat: int, reason: str, kind: int = -1):
        super().__init__(f"seat {seat}: {reason}")
        self.seat = seat
        self.reason = reason
        self.kind = kind  # the decision refused (layout.D_*), -1 if none


def apply_or_refuse(board, seat, kind, answer, arrangements, trace, status) -> None:
    """``apply_step``, or ``IllegalMove`` with the machine's reason and the board left as it was. ``board`` and the
    scratch arrays must be C-contiguous int64 (a board's own arrays, or copies): the kernel is called through its
    entry point, whose typing would cost more than the step."""
    if entry_point(S.apply_step)(board, seat, kind, answer, arrangements, trace, status) != L.E_NONE:
        error = board[L.HIDDEN, L.S_ERROR : L.S_ERROR + L.ERROR_FIELDS]
        actor = int(error[L.ER_SEAT])  # the seat whose decision it is
        reason = (illegal_reason(kind, answer, int(error[L.ER_HAND]), int(error[L.ER_FORBIDDEN]),
                                 int(error[L.ER_KNOCK_DISCARDS])) if actor == seat
                  else f"not seat {seat}'s decision: seat {actor} is to play")
        error[:] = 0
        raise IllegalMove(seat, reason, kind)


def pile_of(view: np.ndarray) -> list[int]:
    """The discard pile as a seat's view row shows it, the top last."""
    return view[L.V_PILE : L.V_PILE + view[L.V_PILE_SIZE]].tolist()


@dataclass(frozen=True)
class Event:
    """A trace row of the engine (``engine_nb.EV_*``): ``a`` and ``b`` as the engine documents them per event.
    ``hand_over`` closes every hand: ``a`` is its record's row in ``GameBoard.records``."""

    hand: int  # the hand's number in the game
    seat: int
    name: str
    a: int
    b: int

    def seen_by(self, seat: int) -> Event | None:
        """What ``seat`` may know of this event: a private card hidden (``a`` = -1), another's deal not at all."""
        if self.name == "deal" and self.seat != seat:
            return None
        if self.name == "draw_stock" and self.seat != seat:
            return Event(self.hand, self.seat, self.name, L.NO_CARD, self.b)
        return self


class GameBoard:
    """A whole game, dealt and refereed by the engine's kernels: ``next_decision`` says who is to decide what,
    ``apply`` takes the answer (or raises ``IllegalMove`` with the reason), ``events`` tells what happened."""

    def __init__(self, rules: Rules, seed: int, game: int = 0, events: bool = True):
        self.rules = rules
        self.board = E.new_board()
        self.board[L.HIDDEN, L.S_RULES : L.S_RULES + L.N_RULE_FIELDS] = rules.to_array()
        self.board[L.HIDDEN, L.S_TRACING] = 1 if events else 0  # without: no event history (``events`` is empty)
        self.game_record = np.zeros(L.N_GAME_FIELDS, dtype=np.int64)
        self.deck_rng = S.open_game_step(self.board, stream_key(seed), game, self.game_record)
        self.dealer = int(self.game_record[L.G_FIRST_DEALER])
        self.scores = np.zeros(L.MAX_SEATS, dtype=np.int64)
        self.boxes = np.zeros(L.MAX_SEATS, dtype=np.int64)
        self.records: list[np.ndarray] = []  # the hand records, as the engine writes them
        self.final_hands: list[list[int]] = []  # per hand, every seat's cards at its end (all are shown then)
        self.arrangements = np.zeros((L.MAX_ARRANGEMENTS, MAX_MELDS_IN_ARRANGEMENT), dtype=np.int64)
        self.trace = np.zeros((STEP_TRACE_ROWS, E.TRACE_FIELDS), dtype=np.int64)
        self.status = np.zeros(E.STATUS_SIZE, dtype=np.int64)
        self.history: list[Event] = []  # every event of the game, hidden cards included
        self.unread = 0  # events not yet handed out by ``events``
        self.in_hand = False
        self.over = False
        self.asked: tuple[int, int] | None = None

    @property
    def players(self) -> int:
        return self.rules.players

    def view(self, seat: int) -> np.ndarray:
        """Seat ``seat``'s row of the board: all it may know, laid out as ``layout.V_*``. A bot's kernel decides on
        this very row (its memory and random stream live in it)."""
        return self.board[seat]

    # -- playing ------------------------------------------------------------------------

    def next_decision(self) -> tuple[int, int] | None:
        """(seat, decision kind ``layout.D_*``) of what is asked next, dealing and scoring hands on the way; None
        once the game is over. The seat's view is then ready for the decision (its knock offer, its forbidden
        discard, its arrangements)."""
        while not self.over:
            if not self.in_hand:
                self._open_hand()
                continue
            seat, kind = entry_point(S.pending_step)(self.board, self.arrangements, self.trace, self.status)
            self._read_trace()
            if kind != L.D_NONE:
                self.asked = (int(seat), int(kind))
                return self.asked
            self._close_hand()
        self.asked = None
        return None

    def apply(self, seat: int, kind: int, answer: int) -> None:
        """Play ``seat``'s ``answer`` to decision ``kind``; ``IllegalMove`` (the board unchanged) if it is not
        that seat's decision or the rules do not allow the answer."""
        if self.asked is None or (seat, kind) != self.asked:
            raise IllegalMove(seat, self._out_of_turn(seat, kind))
        if isinstance(answer, bool) or not isinstance(answer, (int, np.integer)) or not -(2**62) < answer < 2**62:
            raise IllegalMove(seat, f"the answer to '{DECISION_NAMES[kind]}' must be a whole number, got {answer!r}")
        apply_or_refuse(self.board, seat, kind, int(answer), self.arrangements, self.trace, self.status)
        self.asked = None
        self._read_trace()

    def events(self) -> list[Event]:
        """The events since the last call (all of them, hidden cards included: see ``Event.seen_by``)."""
        fresh = self.history[self.unread :]
        self.unread = len(self.history)
        return fresh

    def result(self) -> dict:
        """The game's scores, totals with the bonuses, hands won (boxes) and winner (None: no winner), once it is
        over."""
        if not self.over:
            raise OklasimError("the game is not over")
        seats = range(self.players)
        winner = int(self.game_record[L.G_WINNER])
        return {"scores": [int(self.game_record[L.G_SCORES + s]) for s in seats],
                "totals": [int(self.game_record[L.G_TOTALS + s]) for s in seats],
                "boxes": [int(self.game_record[L.G_BOXES + s]) for s in seats],
                "winner": None if winner < 0 else winner}

    # -- the game loop of ``engine_nb.play_hands_nb``, a step at a time ---------------------------------------

    def _open_hand(self) -> None:
        if len(self.records) == L.MAX_HANDS_PER_GAME:
            self.game_record[L.G_GUARD] = 1
            self._settle()
            return
        self.deck_rng = S.open_hand_step(self.board, self.dealer, len(self.records), self.scores, self.deck_rng,
                                         self.trace, self.status)
        self.in_hand = True
        self._read_trace()

    def _close_hand(self) -> None:
        record = self.board[L.HIDDEN, L.S_RECORD : L.S_RECORD + L.N_HAND_FIELDS].copy()
        self.records.append(record)
        self.final_hands.append([int(h) for h in self.board[L.HIDDEN, L.S_HANDS : L.S_HANDS + self.players]])
        self.in_hand = False
        if self.board[L.HIDDEN, L.S_TRACING]:
            self.history.append(Event(len(self.records) - 1, -1, "hand_over", len(self.records) - 1, 0))
        if S.close_hand_step(self.board, record, self.scores, self.boxes, self.game_record):
            self._settle()
        else:
            self.dealer = int(S.next_dealer_step(self.board, record, self.dealer))

    def _settle(self) -> None:
        self.game_record[L.G_HANDS] = len(self.records)
        S.settle_step(self.board, self.scores, self.boxes, self.game_record)
        self.over = True

    def _read_trace(self) -> None:
        rows = int(self.status[E.ST_TRACE])
        if rows == 0:
            return
        if rows == STEP_TRACE_ROWS:
            raise OklasimError("a step made more events than the trace holds")  # a bug: STEP_TRACE_ROWS covers a step
        self.history += [Event(int(r[1]), int(r[2]), EVENT_NAMES[r[3]], int(r[4]), int(r[5])) for r in self.trace[:rows]]
        self.status[E.ST_TRACE] = 0

    def _out_of_turn(self, seat: int, kind: int) -> str:
        if not 0 <= kind < len(DECISION_NAMES):
            return f"{kind!r} is not a decision"
        if self.asked is None:
            return f"'{DECISION_NAMES[kind]}' is not asked: nothing is (the game is over)"
        asked_seat, asked_kind = self.asked
        return f"'{DECISION_NAMES[kind]}' is not asked now: seat {asked_seat} is asked to '{DECISION_NAMES[asked_kind]}'"

    def trace_rows(self) -> np.ndarray:
        """The game's events as the engine's trace rows ``[game, hand, seat, event, a, b]`` (for comparisons)."""
        game = int(self.game_record[L.G_GAME])
        rows = [(game, e.hand, e.seat, EVENT_NAMES.index(e.name), e.a, e.b) for e in self.history if e.name in EVENT_NAMES]
        return np.array(rows, dtype=np.int64).reshape(-1, E.TRACE_FIELDS)
