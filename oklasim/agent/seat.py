"""One seat of a game refereed elsewhere: the engine's step machine, driven by the reported events.

A foreign referee (the EAAI Java referee, OpenSpiel) tells the seat what it
may see, event by event. ``SeatView`` keeps a whole engine board whose hidden
cards are one completion consistent with what the seat knows (the other hands
and the stock drawn from the unseen cards, a card moved among them when an
event shows where it is), and plays every event on it through the step
machine (``steps_nb.pending_step`` / ``apply_step``): the seat's view row is
then the engine's, and its strategy decides on it. An event the machine
refuses is refused with the machine's reason; a bad one raises
``ProtocolError`` naming the field and leaves the seat as it was. What the
seat cannot see it cannot check: another seat's knock ends the hand on the
referee's word (its turn and the big-gin rule are checked).
"""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass

import numpy as np

from oklasim._kernels import engine_nb as E
from oklasim._kernels import layout as L
from oklasim._kernels.melds_nb import deadwood_nb, optimal_arrangements_nb
from oklasim._kernels.rng_nb import SEAT_STREAMS, stream_state_nb
from oklasim.errors import OklasimError
from oklasim.game.cards import format_hand
from oklasim.game.rules import Rules
from oklasim.sim.board import IllegalMove, pile_of
from oklasim.sim.completion import CompletedBoard, Unseen
from oklasim.sim.engine import DECISION_NAMES, stream_key
from oklasim.strategies.registry import Strategy

BIT = 1
# Scores and hand numbers beyond any real game: a bound that keeps them well inside the view's int64.
MAX_COUNT = 2**31 - 1
DESCRIBED_CHARS = 40  # a value quoted in an error message is cut to this: the referee may send anything


class ProtocolError(OklasimError):
    """A message the seat cannot accept: ``field`` names the culprit."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


class IllegalAnswer(RuntimeError):
    """The strategy answered a decision against the rules (a fault of the strategy, not of the referee)."""


def describe(value) -> str:
    """``value`` for an error message: short, and safe to build for anything JSON decodes to."""
    if isinstance(value, (list, dict)):  # never their repr: it may be huge, or nested deeper than the stack
        return "a list" if isinstance(value, list) else "an object"
    if isinstance(value, int) and value.bit_length() > 64:  # repr of a huge integer is slow, or refused
        return "an integer too large"
    text = repr(value)
    return text if len(text) <= DESCRIBED_CHARS else text[: DESCRIBED_CHARS - 3] + "..."


def check_count(value, field: str, high: int = MAX_COUNT) -> int:
    """An integer 0..high: JSON's true, 1.0 and "1" are not integers here."""
    if type(value) is not int or not 0 <= value <= high:
        raise ProtocolError(field, f"{field} must be an integer 0..{high}, got {describe(value)}")
    return value


@dataclass(frozen=True)
class Turn:
    """The seat's answer after its draw: discard ``card``, or knock with it (``card`` None: big gin)."""

    card: int | None
    knock: bool
    melds: tuple[int, ...] = ()
    deadwood: int = 0


SHOWN, PLAY, SHOWDOWN, OVER = "shown", "play", "showdown", "over"  # SHOWN: another seat took the last discard
UNCHANGING = ("hidden", "strategy", "params", "rules")  # the board is kept by its own state()
FIELD_OF = {L.D_TAKE_UPCARD: "seat", L.D_DRAW: "from", L.D_KNOCK: "seat", L.D_DISCARD: "card"}


def event(name: str):
    """Event ``name`` is all or nothing: on a refusal the board and the seat's bookkeeping are put back as they
    were. The machine's and the completion's refusals become ProtocolErrors naming the field."""
    return functools.partial(all_or_nothing, name)


def all_or_nothing(name: str, method):
    @functools.wraps(method)
    def played(self, *args):
        board, kept = self.hidden.state(), {k: copy.copy(v) for k, v in vars(self).items() if k not in UNCHANGING}
        try:
            return method(self, *args)
        except (ProtocolError, IllegalMove, Unseen) as refusal:
            self.hidden.restore(board)
            vars(self).update(kept)
            if isinstance(refusal, ProtocolError):
                raise
            field = FIELD_OF.get(refusal.kind, "seat") if isinstance(refusal, IllegalMove) else "card"
            reason = refusal.reason if isinstance(refusal, IllegalMove) else str(refusal)
            raise ProtocolError(field, f"{name}: {reason}") from None

    return played


class SeatView:
    """One seat's board, kept up to date from the referee's events; its strategy answers the referee's decisions."""

    def __init__(self, rules: Rules, strategy: Strategy, seed: int = 0, remember_opponents: bool = False):
        """``remember_opponents``: the public style counts (``V_STYLE``: what the showdowns showed of how each seat
        plays) and the strategy's game memory (``V_GAME_MEMORY``: what it learnt of its opponents) run on from one
        game to the next, each opponent's counts kept by its place at the table from this seat, for a seat that
        meets the same opponents game after game; else each game starts them again, as the engine's games do."""
        self.rules = rules
        self.remember_opponents = remember_opponents
        self.carried_styles: np.ndarray | None = None  # at a game's end, rows by place from this seat
        self.carried_memory: np.ndarray | None = None  # at a game's end, the seat's own game memory
        self.strategy = strategy
        self.params = strategy.vector()
        self.hidden = CompletedBoard(rules, observer=0)
        self.key = stream_key(seed)
        self.game = 0
        self.hand_number = -1
        self.scores = [0] * rules.players
        self.phase = OVER
        self.knocker = -1
        self.revealed: set[int] = set()  # seats whose final hand was shown this hand
        self.last_discard = None  # (seat, card, board state before it): a knock may follow
        self.wall_knock = L.NO_CARD  # the knock the seat chose when it asked for the last discard
        self._fresh_rng = True

    # -- what the seat knows ------------------------------------------------------------

    @property
    def seat(self) -> int:
        return self.hidden.observer

    @property
    def board(self) -> np.ndarray:
        return self.hidden.board

    @property
    def view(self) -> np.ndarray:
        return self.board[self.seat]

    @property
    def hand(self) -> int:
        return int(self.view[L.V_HAND])

    @property
    def pile(self) -> list[int]:
        return pile_of(self.view)

    @property
    def stock_left(self) -> int:
        return int(self.view[L.V_STOCK_LEFT])

    def _players(self) -> int:
        return self.rules.players

    def styles(self) -> np.ndarray:
        """The style counts of every seat as this seat sees them, a row per seat (``MAX_SEATS`` rows)."""
        return self.view[L.V_STYLE : L.V_STYLE_END].reshape(L.MAX_SEATS, L.STYLE_FIELDS)

    def restore_styles(self, seat: int) -> None:
        """The counts carried from the last game, in every view, for this seat now sitting at ``seat``."""
        players = self._players()
        for place, row in enumerate(self.carried_styles):
            start = L.V_STYLE + L.STYLE_FIELDS * ((seat + place) % players)
            self.board[:players, start : start + L.STYLE_FIELDS] = row

    def check_seat(self, seat, field: str = "seat") -> int:
        return check_count(seat, field, self._players() - 1)

    def check_scores(self, scores) -> list[int]:
        players = self._players()
        if not isinstance(scores, list) or len(scores) != players:
            raise ProtocolError("scores", f"scores: a list of one integer per seat ({players}), got {describe(scores)}")
        return [check_count(score, "scores") for score in scores]

    def _asked(self, seat: int, what: str, kinds: tuple[int, ...]) -> int:
        """The decision the machine asks of ``seat`` now, one of ``kinds``; else the event is out of turn."""
        asked_seat, kind = self.hidden.pending()
        if asked_seat != seat or kind not in kinds:
            whose = "nobody's turn: the hand is over" if kind == L.D_NONE else f"seat {asked_seat} is to play"
            raise ProtocolError("seat", f"{what}: not seat {seat}'s move ({whose})")
        return kind

    # -- events: each is all or nothing (``event``) -------------------------------------------------------------

    @event("new_hand")
    def new_hand(self, seat: int, dealer: int, hand: int, upcard: int, scores=None, hand_number=None) -> None:
        """A fresh deal: the seat's cards and the first upcard."""
        seat = self.check_seat(seat)
        dealer = self.check_seat(dealer, "dealer")
        size = self.rules.hand_size
        if hand.bit_count() != size:
            raise ProtocolError("hand", f"a dealt hand has {size} cards, got {hand.bit_count()}")
        if hand >> upcard & 1:
            raise ProtocolError("upcard", "the upcard cannot also be in the hand")
        scores = self.scores if scores is None else self.check_scores(scores)
        hand_number = self.hand_number + 1 if hand_number is None else check_count(hand_number, "hand_number")
        self.scores = scores
        self.hand_number = hand_number
        if self._fresh_rng and self.carried_styles is not None:  # the first hand of a game after another
            self.restore_styles(seat)
            self.board[seat, L.V_GAME_MEMORY : L.V_GAME_MEMORY + L.N_GAME_MEMORY] = self.carried_memory
        rng = self.view[L.V_RNG]  # the seat's own random stream runs on across the hands of a game, as in the engine
        if self._fresh_rng:
            state = stream_state_nb(np.uint64(self.key) ^ np.uint64(SEAT_STREAMS), self.game * L.MAX_SEATS + seat)
            rng = np.uint64(state).astype(np.int64)
            self._fresh_rng = False
        self.hidden.observer = seat
        self.board[seat, L.V_RNG] = rng
        self.hidden.deal(dealer, hand_number, scores, upcard, hand)
        self.phase = PLAY
        self.knocker = -1
        self.revealed = set()
        self.last_discard = None
        self.wall_knock = L.NO_CARD

    def _in_play(self, what: str) -> None:
        if self.phase == OVER:
            raise ProtocolError("type", f"{what} outside a hand: report new_hand first")
        if self.phase != PLAY:
            raise ProtocolError("type", f"{what}: the hand is at its showdown")

    @event("pass")
    def passed(self, seat: int) -> None:
        """``seat`` declined the first upcard."""
        seat = self.check_seat(seat)
        self._in_play("pass")
        if self.hidden.phase != L.PHASE_OFFER:
            raise ProtocolError("type", "pass: the first upcard is no longer on offer")
        self._asked(seat, "pass", (L.D_TAKE_UPCARD,))
        self.hidden.apply(seat, L.D_TAKE_UPCARD, 0)
        self.last_discard = None

    @event("draw")
    def drew(self, seat: int, source: str, card: int | None) -> None:
        """``seat`` drew from the ``pile`` (card shown) or the ``stock`` (card shown only to the drawer)."""
        seat = self.check_seat(seat)
        self._in_play("draw")
        if source not in ("pile", "stock"):
            raise ProtocolError("from", f"draw: from must be 'pile' or 'stock', got {describe(source)}")
        if source == "pile":
            self._drew_pile(seat, card)
        else:
            self._drew_stock(seat, card)
        self.last_discard = None

    def _drew_pile(self, seat: int, card: int | None) -> None:
        if self.view[L.V_PILE_SIZE] == 0:
            raise ProtocolError("from", "draw: the pile is empty")
        top = self.pile[-1]
        if card is not None and card != top:
            raise ProtocolError("card", f"draw: the pile top is {format_hand(BIT << top)}, not {format_hand(BIT << card)}")
        phase = self.hidden.phase
        if phase == L.PHASE_FORCED_STOCK:
            raise ProtocolError("from", "draw: all passed the upcard; the first draw is from the stock")
        if phase in (L.PHASE_WALL, L.PHASE_LAST_KNOCK):
            return self._took_last_discard(seat)
        kind = self._asked(seat, "draw", (L.D_TAKE_UPCARD, L.D_DRAW))
        self.hidden.apply(seat, kind, 1)

    def _drew_stock(self, seat: int, card: int | None) -> None:
        phase = self.hidden.phase
        if phase == L.PHASE_OFFER:
            raise ProtocolError("from", f"draw: the upcard is still on offer to seat {self.hidden.turn}")
        if phase not in (L.PHASE_DRAW, L.PHASE_FORCED_STOCK) or seat != self.hidden.turn:
            raise ProtocolError("seat", f"draw: not seat {seat}'s turn to draw")
        if seat == self.seat:
            if card is None:
                raise ProtocolError("card", "draw: the seat's own stock draw must name the card")
            self.hidden.place_on_stock(card)
        if phase == L.PHASE_FORCED_STOCK:
            self.hidden.pending()  # the machine draws by itself: no decision
        else:
            self.hidden.apply(seat, L.D_DRAW, 0)

    def _took_last_discard(self, seat: int) -> None:
        """At the wall (fiftieth-card rule) ``seat`` took the last discard, which it may do only to knock."""
        if seat != self.hidden.turn:
            raise ProtocolError("seat", f"draw: the last discard is offered to seat {self.hidden.turn}, not {seat}")
        if seat != self.seat:
            self.phase, self.knocker = SHOWN, seat  # its knock comes next; the seat cannot check it
            return
        if self.hidden.pending() != (seat, L.D_KNOCK):
            raise ProtocolError("from", "draw: the seat's cards allow no knock with the last discard")
        if self.wall_knock == L.NO_CARD:
            raise ProtocolError("from", "draw: the seat takes the last discard only to knock, and chose not to")
        self.hidden.apply(seat, L.D_KNOCK, self.wall_knock)
        self.phase, self.knocker = SHOWDOWN, seat

    @event("discard")
    def discarded(self, seat: int, card: int) -> None:
        """``seat`` discarded ``card`` (a knock's discard too, before the knock is reported)."""
        seat = self.check_seat(seat)
        if self.phase == SHOWN and seat == self.knocker:  # another seat's knock at the wall: its cards are unseen
            if not self.hidden.hand(seat) >> card & 1 and card != self.pile[-1]:
                self.hidden.unseen_holder(card)
            return
        if self.phase == SHOWDOWN and seat == self.knocker == self.seat and card == self.wall_knock:
            return  # the seat's own knock at the wall, played when it took the last discard
        self._in_play("discard")
        if self.hidden.phase not in (L.PHASE_AFTER_DRAW, L.PHASE_KNOCK, L.PHASE_DISCARD) or seat != self.hidden.turn:
            raise ProtocolError("seat", f"discard: seat {seat} has not drawn this turn")
        before = self.hidden.state()
        self.hidden.discard(seat, card)
        self.last_discard = (seat, card, before)

    @event("knock")
    def knocked(self, seat: int) -> None:
        """``seat`` knocked right after its discard, or went big gin (after its draw, no discard): the showdown."""
        seat = self.check_seat(seat)
        if self.phase in (SHOWN, SHOWDOWN) and seat == self.knocker:
            self.phase = SHOWDOWN
            return
        self._in_play("knock")
        if self.last_discard is not None and self.last_discard[0] == seat:
            self._knock_after_discard(seat)
        else:
            self._big_gin(seat)
        self.phase, self.knocker = SHOWDOWN, seat

    def _knock_after_discard(self, seat: int) -> None:
        _, card, before = self.last_discard
        if seat != self.seat:
            return  # its cards are unseen: its knock is the referee's word
        self.hidden.restore(before)
        if self._asked(seat, "knock", (L.D_KNOCK, L.D_DISCARD)) == L.D_DISCARD:
            limit = int(self.view[L.V_KNOCK_LIMIT])
            raise ProtocolError("seat", f"knock: the seat's cards allow no knock here (the knock limit is {limit})")
        self.hidden.apply(seat, L.D_KNOCK, card)

    def _big_gin(self, seat: int) -> None:
        if self.hidden.phase not in (L.PHASE_AFTER_DRAW, L.PHASE_KNOCK, L.PHASE_DISCARD) or seat != self.hidden.turn:
            raise ProtocolError("seat", f"knock: seat {seat} did not just discard, nor has it just drawn")
        if not self.rules.big_gin:
            raise ProtocolError("seat", "knock: a knock without a discard is big gin, which these rules do not play")
        if seat == self.seat:
            if self._asked(seat, "knock", (L.D_KNOCK, L.D_DISCARD)) == L.D_DISCARD:
                raise ProtocolError("seat", "knock: big gin melds every card, and these do not")
            self.hidden.apply(seat, L.D_KNOCK, L.BIG_GIN)

    @event("hand_over")
    def hand_over(self, scores=None) -> None:
        """The hand is scored (or void); ``scores`` are the game scores after it."""
        if scores is not None:
            self.scores = self.check_scores(scores)
        self.phase = OVER

    @event("final_hand")
    def final_hand(self, seat: int, hand: int | None) -> None:
        """``seat`` showed ``hand`` (None: not told) after the hand: what a showdown shows of how it plays is counted
        (``V_STYLE``); a void hand's cards show nothing, as in the engine."""
        seat = self.check_seat(seat)
        if hand is None or self.knocker < 0:
            return
        if seat in self.revealed:
            raise ProtocolError("seat", f"final_hand: seat {seat}'s hand was already shown this hand")
        self.revealed.add(seat)
        self.hidden.reveal(seat, hand, self.knocker)

    def game_over(self) -> None:
        """The game is over: the next hand starts a new game at 0 with a new random stream."""
        if self.remember_opponents:
            self.carried_styles = np.roll(self.styles()[: self._players()], -self.seat, axis=0)
            self.carried_memory = self.view[L.V_GAME_MEMORY : L.V_GAME_MEMORY + L.N_GAME_MEMORY].copy()
        self.hidden.new_game()
        self.scores = [0] * self._players()
        self.hand_number = -1
        self.game += 1
        self._fresh_rng = True
        self.phase = OVER

    # -- decisions ----------------------------------------------------------------------

    def take_upcard(self) -> bool:
        if self.phase != PLAY or self.hidden.phase != L.PHASE_OFFER or self.hidden.turn != self.seat:
            raise ProtocolError("decision", "take_upcard: the upcard is not on offer to this seat")
        return self._ask(self.board, L.D_TAKE_UPCARD) == 1

    def draw(self) -> str:
        """'pile' or 'stock'; at the wall under the fiftieth-card rule 'pile' (to knock) or 'none' (void)."""
        phase = self.hidden.phase
        if self.phase != PLAY or self.hidden.turn != self.seat:
            raise ProtocolError("decision", "draw: it is not this seat's turn to draw")
        if phase == L.PHASE_OFFER:
            raise ProtocolError("decision", "draw: the upcard is on offer; ask take_upcard")
        if phase == L.PHASE_FORCED_STOCK:
            return "stock"  # everyone passed: the stock, without a choice
        if phase in (L.PHASE_WALL, L.PHASE_LAST_KNOCK):
            return self._last_chance()
        if phase != L.PHASE_DRAW:
            raise ProtocolError("decision", "draw: the seat has drawn already" if phase != L.PHASE_DONE
                                else "draw: the hand is void at the wall (2 cards left in the stock)")
        return "pile" if self._ask(self.board, L.D_DRAW) == 1 else "stock"

    def _last_chance(self) -> str:
        """Fiftieth-card rule: the seat may take the last discard only to knock with it; otherwise the hand is void."""
        before = self.hidden.state()
        if self.hidden.pending()[1] != L.D_KNOCK:  # the machine found no knock with it: the hand is void
            self.hidden.restore(before)
            return "none"
        self.wall_knock = self._ask(self.board, L.D_KNOCK)
        return "none" if self.wall_knock == L.NO_CARD else "pile"

    def play_turn(self, allow_knock: bool = True) -> Turn:
        """After the seat's draw: knock (with melds) or discard; only discard if the referee forbids a knock."""
        if self.phase == SHOWDOWN and self.knocker == self.seat and self.wall_knock != L.NO_CARD:
            return self._knock_turn(self.board.copy(), self.wall_knock)  # took the last discard: the knock is played
        if self.phase != PLAY or self.hidden.turn != self.seat or self.hidden.phase not in (
                L.PHASE_AFTER_DRAW, L.PHASE_KNOCK, L.PHASE_DISCARD):
            raise ProtocolError("decision", "discard: the seat has not drawn this turn")
        kind = self.hidden.pending()[1]
        knock = self._ask(self.board, L.D_KNOCK) if kind == L.D_KNOCK and allow_knock else L.NO_CARD
        trial = self.board.copy()  # the answer is played when the referee reports it; here only to ask on
        if kind == L.D_KNOCK:
            self.hidden.play_on(trial, self.seat, L.D_KNOCK, knock)
        if knock != L.NO_CARD:
            return self._knock_turn(trial, knock)
        return Turn(self._ask_on(trial, L.D_DISCARD), False)

    def _knock_turn(self, trial: np.ndarray, knock: int) -> Turn:
        """The melds laid with ``knock`` (the knocker's choice when several arrangements are optimal)."""
        after = int(trial[self.seat, L.V_HAND])
        # The showdown's step leaves the knocker's best arrangements in ``arrangements``, and asks for a choice
        # among them when it matters (the machine checks the answer).
        choice = self._ask_on(trial, L.D_ARRANGE) if self.hidden.pending(trial)[1] == L.D_ARRANGE else 0
        melds = tuple(int(m) for m in self.hidden.arrangements[choice] if m)
        return Turn(None if knock == L.BIG_GIN else knock, True, melds, int(deadwood_nb(np.int64(after))))

    def defend(self) -> tuple[tuple[int, ...], int]:
        """The defender's melds after a knock: an arrangement of least deadwood, and that deadwood."""
        if self.phase != SHOWDOWN or self.knocker == self.seat:
            raise ProtocolError("decision", "melds: only the defender declares melds, after a knock")
        arrangements = self.hidden.arrangements
        count = optimal_arrangements_nb(np.int64(self.hand), arrangements)
        melds = tuple(int(m) for m in arrangements[0] if m) if count else ()
        return melds, int(deadwood_nb(np.int64(self.hand)))

    def may_knock(self) -> bool:
        """Whether these rules let the seat's 11 cards knock now."""
        forbidden = int(self.view[L.V_FORBIDDEN])
        return int(E.knock_discards_nb(np.int64(self.hand), self.view[L.V_KNOCK_LIMIT], forbidden)) != 0

    # -- asking the strategy ------------------------------------------------------------

    def _ask(self, board: np.ndarray, kind: int) -> int:
        """The strategy's answer on ``board``'s row of the seat, checked by the machine on a copy."""
        answer = int(self.strategy.decide(kind, board[self.seat], self.params))
        try:
            self.hidden.play_on(board.copy(), self.seat, kind, answer)
        except IllegalMove:
            raise self._illegal(kind, answer) from None
        return answer

    def _ask_on(self, trial: np.ndarray, kind: int) -> int:
        """Ask on a trial board; what the strategy keeps across decisions (memory, game memory, random stream) comes
        back."""
        answer = self._ask(trial, kind)
        row, kept = trial[self.seat], self.view
        kept[L.V_RNG] = row[L.V_RNG]
        for start, size in ((L.V_MEMORY, L.N_MEMORY), (L.V_GAME_MEMORY, L.N_GAME_MEMORY)):
            kept[start : start + size] = row[start : start + size]
        return answer

    def _illegal(self, kind: int, answer: int) -> IllegalAnswer:
        return IllegalAnswer(
            f"strategy {self.strategy.name!r} answered {answer} to '{DECISION_NAMES[kind]}' with hand "
            f"{format_hand(self.hand, by_rank=True)}"
        )
