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
from oklasim._kernels import steps_nb as S
from oklasim._kernels.melds_nb import deadwood_nb, optimal_arrangements_nb
from oklasim._kernels.rng_nb import SEAT_STREAMS, stream_state_nb
from oklasim.errors import OklasimError
from oklasim.game.cards import N_CARDS, cards_of, format_hand
from oklasim.game.rules import Rules
from oklasim.sim.engine import DECISION_NAMES, illegal_reason, stream_key
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
UNCHANGING = ("board", "arrangements", "trace", "status", "strategy", "params", "rules")  # scratch or fixed
FIELD_OF = {L.D_TAKE_UPCARD: "seat", L.D_DRAW: "from", L.D_KNOCK: "seat", L.D_DISCARD: "card"}


def event(method):
    """An event is all or nothing: on a refusal the board and the seat's bookkeeping are put back as they were."""

    @functools.wraps(method)
    def all_or_nothing(self, *args):
        board, kept = self.board.copy(), {k: copy.copy(v) for k, v in vars(self).items() if k not in UNCHANGING}
        try:
            return method(self, *args)
        except ProtocolError:
            self.board[:] = board
            vars(self).update(kept)
            raise

    return all_or_nothing


class SeatView:
    """One seat's board, kept up to date from the referee's events; its strategy answers the referee's decisions."""

    def __init__(self, rules: Rules, strategy: Strategy, seed: int = 0):
        self.rules = rules
        self.strategy = strategy
        self.params = strategy.vector()
        self.board = E.new_board()
        self.board[L.HIDDEN, L.S_RULES : L.S_RULES + L.N_RULE_FIELDS] = rules.to_array()
        self.arrangements = np.zeros((L.MAX_ARRANGEMENTS, L.MAX_MELDS_IN_ARRANGEMENT), dtype=np.int64)
        self.trace = np.zeros((1, E.TRACE_FIELDS), dtype=np.int64)  # never written: the board does not trace
        self.status = np.zeros(E.STATUS_SIZE, dtype=np.int64)
        self.key = stream_key(seed)
        self.game = 0
        self.hand_number = -1
        self.scores = [0] * rules.players
        self.phase = OVER
        self.seat = 0
        self.knocker = -1
        self.held_known = [0] * rules.players  # cards each other seat took from the pile and still holds
        self.last_discard: tuple[int, int, np.ndarray] | None = None  # (seat, card, board before): a knock may follow
        self.wall_knock = L.NO_CARD  # the knock the seat chose when it asked for the last discard
        self._fresh_rng = True

    # -- what the seat knows ------------------------------------------------------------

    @property
    def view(self) -> np.ndarray:
        return self.board[self.seat]

    @property
    def hand(self) -> int:
        return int(self.view[L.V_HAND])

    @property
    def pile(self) -> list[int]:
        return self.view[L.V_PILE : L.V_PILE + self.view[L.V_PILE_SIZE]].tolist()

    @property
    def stock_left(self) -> int:
        return int(self.view[L.V_STOCK_LEFT])

    def _players(self) -> int:
        return self.rules.players

    def check_seat(self, seat, field: str = "seat") -> int:
        return check_count(seat, field, self._players() - 1)

    def check_scores(self, scores) -> list[int]:
        players = self._players()
        if not isinstance(scores, list) or len(scores) != players:
            raise ProtocolError("scores", f"scores: a list of one integer per seat ({players}), got {describe(scores)}")
        return [check_count(score, "scores") for score in scores]

    # -- the board ----------------------------------------------------------------------

    @property
    def _phase(self) -> int:
        return int(self.board[L.HIDDEN, L.S_PHASE])

    @property
    def _turn(self) -> int:
        return int(self.board[L.HIDDEN, L.S_TURN])

    def _pending(self) -> tuple[int, int]:
        seat, kind = S.pending_step(self.board, self.arrangements, self.trace, self.status)
        return int(seat), int(kind)

    def _apply(self, board: np.ndarray, seat: int, kind: int, answer: int, what: str) -> None:
        """Play ``answer`` on ``board``; the machine's refusal as a ProtocolError on the decision's field."""
        if S.apply_step(board, seat, kind, answer, self.arrangements, self.trace, self.status) != L.E_NONE:
            error = board[L.HIDDEN, L.S_ERROR : L.S_ERROR + L.ERROR_FIELDS]
            reason = illegal_reason(kind, answer, int(error[4]), int(error[7]), int(error[8]))
            error[:] = 0
            raise ProtocolError(FIELD_OF.get(kind, "seat"), f"{what}: {reason}")

    def _asked(self, seat: int, what: str, kinds: tuple[int, ...]) -> int:
        """The decision the machine asks of ``seat`` now, one of ``kinds``; else the event is out of turn."""
        asked_seat, kind = self._pending()
        if asked_seat != seat or kind not in kinds:
            whose = "nobody's turn: the hand is over" if kind == L.D_NONE else f"seat {asked_seat} is to play"
            raise ProtocolError("seat", f"{what}: not seat {seat}'s move ({whose})")
        return kind

    def _hidden_hand(self, seat: int) -> int:
        return int(self.board[L.HIDDEN, L.S_HANDS + seat])

    def _set_hidden_hand(self, seat: int, hand: int) -> None:
        self.board[L.HIDDEN, L.S_HANDS + seat] = hand
        self.board[seat, L.V_HAND] = hand

    def _stock(self) -> np.ndarray:
        """The stock's cards on the board, the next draw first (a view: writing it rearranges the completion)."""
        return self.board[L.HIDDEN, L.S_DECK + self.board[L.HIDDEN, L.S_STOCK_POS] : L.S_DECK + N_CARDS]

    def _unseen_holder(self, card: int) -> int:
        """Where the completion put ``card`` that the seat has not seen: another seat, or -1 for the stock; raises
        if the seat knows the card is elsewhere (its hand, the pile, a hand that took it from the pile)."""
        for seat in range(self._players()):
            if seat != self.seat and self._hidden_hand(seat) >> card & 1 and not self.held_known[seat] >> card & 1:
                return seat
        if card in self._stock():
            return -1
        raise ProtocolError("card", f"{format_hand(BIT << card)} is not among the cards this seat has not seen")

    def _swap(self, card: int, holder: int, other: int, other_holder: int) -> None:
        """Exchange two unseen cards between their places (a seat, or -1: the stock)."""
        stock = self._stock()
        places = {c: int(np.flatnonzero(stock == c)[0]) for c, where in ((card, holder), (other, other_holder))
                  if where < 0}
        for have, give, take in ((holder, card, other), (other_holder, other, card)):
            if have >= 0:
                self._set_hidden_hand(have, self._hidden_hand(have) & ~(BIT << give) | (BIT << take))
            else:
                stock[places[give]] = take

    def _deal_completion(self, dealer: int, hand: int, upcard: int) -> None:
        """The seat's hand and the upcard where they are; the other hands and the stock from the unseen cards."""
        players, size = self._players(), self.rules.hand_size
        unseen = [c for c in range(N_CARDS) if not hand >> c & 1 and c != upcard]
        deck = self.board[L.HIDDEN, L.S_DECK : L.S_DECK + N_CARDS]
        dealt = 0
        for seat in range(players):
            cards = list(cards_of(hand)) if seat == self.seat else unseen[dealt : dealt + size]
            dealt += 0 if seat == self.seat else size
            deck[seat * size : (seat + 1) * size] = cards
            self.board[L.HIDDEN, L.S_HANDS + seat] = sum(BIT << c for c in cards)
        deck[players * size] = upcard
        deck[players * size + 1 :] = unseen[dealt:]
        self.board[L.HIDDEN, L.S_STOCK_POS] = players * size
        scores = np.zeros(L.MAX_SEATS, dtype=np.int64)
        scores[:players] = self.scores
        S.start_hand_step(self.board, dealer, self.hand_number, scores)

    # -- events: each is all or nothing (``event``): a refused one leaves the seat as it was -------------------

    @event
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
        if self._fresh_rng:  # the seat's own random stream runs on across the hands of a game, as in the engine
            state = stream_state_nb(np.uint64(self.key) ^ np.uint64(SEAT_STREAMS), self.game * L.MAX_SEATS + seat)
            self.board[seat, L.V_RNG] = np.uint64(state).astype(np.int64)
            self._fresh_rng = False
        elif seat != self.seat:  # the stream runs on in the seat's row wherever the seat sits
            self.board[seat, L.V_RNG] = self.board[self.seat, L.V_RNG]
        self.seat = seat
        self._deal_completion(dealer, hand, upcard)
        self.phase = PLAY
        self.knocker = -1
        self.held_known = [0] * self._players()
        self.last_discard = None
        self.wall_knock = L.NO_CARD

    def _in_play(self, what: str) -> None:
        if self.phase == OVER:
            raise ProtocolError("type", f"{what} outside a hand: report new_hand first")
        if self.phase != PLAY:
            raise ProtocolError("type", f"{what}: the hand is at its showdown")

    @event
    def passed(self, seat: int) -> None:
        """``seat`` declined the first upcard."""
        seat = self.check_seat(seat)
        self._in_play("pass")
        if self._phase != L.PHASE_OFFER:
            raise ProtocolError("type", "pass: the first upcard is no longer on offer")
        self._asked(seat, "pass", (L.D_TAKE_UPCARD,))
        self._apply(self.board, seat, L.D_TAKE_UPCARD, 0, "pass")
        self.last_discard = None

    @event
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
        if self._phase == L.PHASE_FORCED_STOCK:
            raise ProtocolError("from", "draw: all passed the upcard; the first draw is from the stock")
        if self._phase in (L.PHASE_WALL, L.PHASE_LAST_KNOCK):
            return self._took_last_discard(seat)
        kind = self._asked(seat, "draw", (L.D_TAKE_UPCARD, L.D_DRAW))
        self._apply(self.board, seat, kind, 1, "draw")
        if seat != self.seat:
            self.held_known[seat] |= BIT << top

    def _drew_stock(self, seat: int, card: int | None) -> None:
        if self._phase == L.PHASE_OFFER:
            raise ProtocolError("from", f"draw: the upcard is still on offer to seat {self._turn}")
        if self._phase not in (L.PHASE_DRAW, L.PHASE_FORCED_STOCK) or seat != self._turn:
            raise ProtocolError("seat", f"draw: not seat {seat}'s turn to draw")
        if seat == self.seat:
            if card is None:
                raise ProtocolError("card", "draw: the seat's own stock draw must name the card")
            holder = self._unseen_holder(card)
            top = int(self._stock()[0])
            if card != top:  # the completion put it elsewhere: it is the stock's next card
                self._swap(card, holder, top, -1)
        if self._phase == L.PHASE_FORCED_STOCK:
            self._pending()  # the machine draws by itself: no decision
        else:
            self._apply(self.board, seat, L.D_DRAW, 0, "draw")

    def _took_last_discard(self, seat: int) -> None:
        """At the wall (fiftieth-card rule) ``seat`` took the last discard, which it may do only to knock."""
        if seat != self._turn:
            raise ProtocolError("seat", f"draw: the last discard is offered to seat {self._turn}, not {seat}")
        if seat != self.seat:
            self.phase, self.knocker = SHOWN, seat  # its knock comes next; the seat cannot check it
            return
        if self._pending() != (seat, L.D_KNOCK):
            raise ProtocolError("from", "draw: the seat's cards allow no knock with the last discard")
        if self.wall_knock == L.NO_CARD:
            raise ProtocolError("from", "draw: the seat takes the last discard only to knock, and chose not to")
        self._apply(self.board, seat, L.D_KNOCK, self.wall_knock, "draw")
        self.phase, self.knocker = SHOWDOWN, seat

    @event
    def discarded(self, seat: int, card: int) -> None:
        """``seat`` discarded ``card`` (a knock's discard too, before the knock is reported)."""
        seat = self.check_seat(seat)
        if self.phase == SHOWN and seat == self.knocker:  # another seat's knock at the wall: its discard is unseen
            if self._hidden_hand(seat) >> card & 1 == 0 and card != self.pile[-1]:
                self._unseen_holder(card)
            return
        if self.phase == SHOWDOWN and seat == self.knocker == self.seat and card == self.wall_knock:
            return  # the seat's own knock at the wall, played when it took the last discard
        self._in_play("discard")
        if self._phase not in (L.PHASE_AFTER_DRAW, L.PHASE_KNOCK, L.PHASE_DISCARD) or seat != self._turn:
            raise ProtocolError("seat", f"discard: seat {seat} has not drawn this turn")
        before = self.board.copy()
        if seat != self.seat and not self._hidden_hand(seat) >> card & 1:
            self._place_in_hand(seat, card)
        if self._asked(seat, "discard", (L.D_KNOCK, L.D_DISCARD)) == L.D_KNOCK:
            self._apply(self.board, seat, L.D_KNOCK, L.NO_CARD, "discard")
        self._apply(self.board, seat, L.D_DISCARD, card, "discard")
        self.held_known[seat] &= ~(BIT << card)
        self.last_discard = (seat, card, before)

    def _place_in_hand(self, seat: int, card: int) -> None:
        """Another seat discards ``card``: the completion gives it that card for one of its unseen ones."""
        holder = self._unseen_holder(card)
        if holder == seat:
            return
        spare = self._hidden_hand(seat) & ~self.held_known[seat]
        if not spare:
            raise ProtocolError("card", f"discard: seat {seat} cannot hold {format_hand(BIT << card)}")
        self._swap(card, holder, (spare & -spare).bit_length() - 1, seat)

    @event
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
        self.board[:] = before
        kind = self._asked(seat, "knock", (L.D_KNOCK, L.D_DISCARD))
        if kind == L.D_DISCARD:
            limit = int(self.view[L.V_KNOCK_LIMIT])
            raise ProtocolError("seat", f"knock: the seat's cards allow no knock here (the knock limit is {limit})")
        self._apply(self.board, seat, L.D_KNOCK, card, "knock")

    def _big_gin(self, seat: int) -> None:
        if self._phase not in (L.PHASE_AFTER_DRAW, L.PHASE_KNOCK, L.PHASE_DISCARD) or seat != self._turn:
            raise ProtocolError("seat", f"knock: seat {seat} did not just discard, nor has it just drawn")
        if not self.rules.big_gin:
            raise ProtocolError("seat", "knock: a knock without a discard is big gin, which these rules do not play")
        if seat == self.seat:
            if self._asked(seat, "knock", (L.D_KNOCK, L.D_DISCARD)) == L.D_DISCARD:
                raise ProtocolError("seat", "knock: big gin melds every card, and these do not")
            self._apply(self.board, seat, L.D_KNOCK, L.BIG_GIN, "knock")

    @event
    def hand_over(self, scores=None) -> None:
        """The hand is scored (or void); ``scores`` are the game scores after it."""
        if scores is not None:
            self.scores = self.check_scores(scores)
        self.phase = OVER

    def game_over(self) -> None:
        """The game is over: the next hand starts a new game at 0 with a new random stream."""
        self.scores = [0] * self._players()
        self.hand_number = -1
        self.game += 1
        self._fresh_rng = True
        self.phase = OVER

    # -- decisions ----------------------------------------------------------------------

    def take_upcard(self) -> bool:
        if self.phase != PLAY or self._phase != L.PHASE_OFFER or self._turn != self.seat:
            raise ProtocolError("decision", "take_upcard: the upcard is not on offer to this seat")
        return self._ask(self.board, L.D_TAKE_UPCARD) == 1

    def draw(self) -> str:
        """'pile' or 'stock'; at the wall under the fiftieth-card rule 'pile' (to knock) or 'none' (void)."""
        if self.phase != PLAY or self._turn != self.seat:
            raise ProtocolError("decision", "draw: it is not this seat's turn to draw")
        if self._phase == L.PHASE_OFFER:
            raise ProtocolError("decision", "draw: the upcard is on offer; ask take_upcard")
        if self._phase == L.PHASE_FORCED_STOCK:
            return "stock"  # everyone passed: the stock, without a choice
        if self._phase in (L.PHASE_WALL, L.PHASE_LAST_KNOCK):
            return self._last_chance()
        if self._phase != L.PHASE_DRAW:
            raise ProtocolError("decision", "draw: the seat has drawn already" if self._phase != L.PHASE_DONE
                                else "draw: the hand is void at the wall (2 cards left in the stock)")
        return "pile" if self._ask(self.board, L.D_DRAW) == 1 else "stock"

    def _last_chance(self) -> str:
        """Fiftieth-card rule: the seat may take the last discard only to knock with it; otherwise the hand is void."""
        before = self.board.copy()
        if self._pending()[1] != L.D_KNOCK:  # the machine found no knock with it: the hand is void
            self.board[:] = before
            return "none"
        self.wall_knock = self._ask(self.board, L.D_KNOCK)
        return "none" if self.wall_knock == L.NO_CARD else "pile"

    def play_turn(self, allow_knock: bool = True) -> Turn:
        """After the seat's draw: knock (with melds) or discard; only discard if the referee forbids a knock."""
        if self.phase == SHOWDOWN and self.knocker == self.seat and self.wall_knock != L.NO_CARD:
            return self._knock_turn(None, self.wall_knock)  # took the last discard to knock: the knock is played
        if self.phase != PLAY or self._turn != self.seat or self._phase not in (
                L.PHASE_AFTER_DRAW, L.PHASE_KNOCK, L.PHASE_DISCARD):
            raise ProtocolError("decision", "discard: the seat has not drawn this turn")
        kind = self._pending()[1]
        knock = self._ask(self.board, L.D_KNOCK) if kind == L.D_KNOCK and allow_knock else L.NO_CARD
        trial = self.board.copy()  # the answer is played when the referee reports it; here only to ask on
        if kind == L.D_KNOCK:
            self._apply(trial, self.seat, L.D_KNOCK, knock, "knock")
        if knock != L.NO_CARD:
            return self._knock_turn(trial, knock)
        return Turn(self._ask_on(trial, L.D_DISCARD), False)

    def _knock_turn(self, trial: np.ndarray | None, knock: int) -> Turn:
        """The melds laid with ``knock`` (the knocker's choice when several arrangements are optimal)."""
        trial = self.board.copy() if trial is None else trial
        after = int(trial[self.seat, L.V_HAND])
        kind = S.pending_step(trial, self.arrangements, self.trace, self.status)[1]
        choice = self._ask_on(trial, L.D_ARRANGE) if kind == L.D_ARRANGE else 0
        count = min(optimal_arrangements_nb(np.int64(after), self.arrangements), L.MAX_ARRANGEMENTS)
        if not 0 <= choice < count:
            raise self._illegal(L.D_ARRANGE, choice)
        melds = tuple(int(m) for m in self.arrangements[choice] if m)
        return Turn(None if knock == L.BIG_GIN else knock, True, melds, int(deadwood_nb(np.int64(after))))

    def defend(self) -> tuple[tuple[int, ...], int]:
        """The defender's melds after a knock: an arrangement of least deadwood, and that deadwood."""
        if self.phase != SHOWDOWN or self.knocker == self.seat:
            raise ProtocolError("decision", "melds: only the defender declares melds, after a knock")
        count = optimal_arrangements_nb(np.int64(self.hand), self.arrangements)
        melds = tuple(int(m) for m in self.arrangements[0] if m) if count else ()
        return melds, int(deadwood_nb(np.int64(self.hand)))

    def may_knock(self) -> bool:
        """Whether these rules let the seat's 11 cards knock now."""
        forbidden = int(self.board[self.seat, L.V_FORBIDDEN])
        return int(E.knock_discards_nb(np.int64(self.hand), self.view[L.V_KNOCK_LIMIT], forbidden)) != 0

    # -- asking the strategy ------------------------------------------------------------

    def _ask(self, board: np.ndarray, kind: int) -> int:
        """The strategy's answer on ``board``'s row of the seat, checked by the machine on a copy."""
        answer = int(self.strategy.decide(kind, board[self.seat], self.params))
        trial = board.copy()
        try:
            self._apply(trial, self.seat, kind, answer, DECISION_NAMES[kind])
        except ProtocolError:
            raise self._illegal(kind, answer) from None
        return answer

    def _ask_on(self, trial: np.ndarray, kind: int) -> int:
        """Ask on a trial board; what the strategy keeps across decisions (memory, random stream) comes back."""
        answer = self._ask(trial, kind)
        row, kept = trial[self.seat], self.board[self.seat]
        kept[L.V_RNG] = row[L.V_RNG]
        kept[L.V_MEMORY : L.V_MEMORY + L.N_MEMORY] = row[L.V_MEMORY : L.V_MEMORY + L.N_MEMORY]
        return answer

    def _illegal(self, kind: int, answer: int) -> IllegalAnswer:
        return IllegalAnswer(
            f"strategy {self.strategy.name!r} answered {answer} to '{DECISION_NAMES[kind]}' with hand "
            f"{format_hand(self.hand, by_rank=True)}"
        )
