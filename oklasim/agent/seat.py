"""One seat of a game refereed elsewhere: its view row built from reported events, its decisions.

A foreign referee (the EAAI Java referee, OpenSpiel, a person's game)
tells the seat what it may see, event by event; ``SeatView`` keeps the same
int64 view row the engine would give the seat (``oklasim._kernels.layout``)
and asks the strategy's kernel when the referee asks for a decision. Every
event and request is checked against what the seat knows; a bad one raises
``ProtocolError`` naming the field and leaves the view unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from oklasim._kernels import engine_nb as E
from oklasim._kernels import layout as L
from oklasim._kernels.melds_nb import deadwood_nb, optimal_arrangements_nb
from oklasim._kernels.rng_nb import SEAT_STREAMS, stream_state_nb
from oklasim.errors import OklasimError
from oklasim.game.cards import N_CARDS, format_hand
from oklasim.game.rules import Rules
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


OFFER, PLAY, SHOWDOWN, OVER = "offer", "play", "showdown", "over"


class SeatView:
    """The view row of one seat, kept up to date from the referee's events."""

    def __init__(self, rules: Rules, strategy: Strategy, seed: int = 0):
        self.rules = rules
        self.strategy = strategy
        self.params = strategy.vector()
        self.view = np.zeros(L.V_SIZE, dtype=np.int64)
        self.arrangements = np.zeros((L.MAX_ARRANGEMENTS, L.MAX_MELDS_IN_ARRANGEMENT), dtype=np.int64)
        self.key = stream_key(seed)
        self.game = 0
        self.hand_number = -1
        self.scores = [0] * rules.players
        self.phase = OVER
        self.seat = 0
        self._fresh_rng = True

    # -- what the seat knows ------------------------------------------------------------

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

    def _in_hand(self, what: str) -> None:
        if self.phase == OVER:
            raise ProtocolError("type", f"{what} outside a hand: report new_hand first")

    # -- events -------------------------------------------------------------------------
    # Each event checks everything before it changes anything: a refused event leaves the seat as it was.

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
            self.view[L.V_RNG] = np.uint64(state).astype(np.int64)
            self._fresh_rng = False
        rng = self.view[L.V_RNG]
        v = self.view
        v[:] = 0
        v[L.V_RNG] = rng
        v[L.V_SEAT] = seat
        v[L.V_PLAYERS] = self._players()
        v[L.V_DEALER] = dealer
        v[L.V_HAND] = hand
        v[L.V_HAND_NUMBER] = self.hand_number
        v[L.V_UPCARD] = upcard
        v[L.V_KNOCK_LIMIT] = self.rules.knock_limit(upcard)
        v[L.V_MULTIPLIER] = self.rules.score_multiplier(upcard)
        v[L.V_STOCK_LEFT] = N_CARDS - self._players() * size - 1
        v[L.V_DRAWN] = L.NO_CARD
        v[L.V_FORBIDDEN] = L.NO_CARD
        v[L.V_SCORES : L.V_SCORES + self._players()] = self.scores
        v[L.V_RULES : L.V_RULES + L.N_RULE_FIELDS] = self.rules.to_array()
        v[L.V_PILE] = upcard
        v[L.V_PILE_SIZE] = 1
        v[L.V_PILE_MASK] = BIT << upcard
        self.seat = seat
        self.phase = OFFER
        self.offers = 0
        self.turn = (dealer + 1) % self._players()
        self.drawn_from = None  # "pile" or "stock" once the seat to play has drawn this turn
        self.taken_card = L.NO_CARD  # the card the seat to play took from the pile this turn
        self.held_known = [0] * self._players()  # cards each other seat took from the pile and still holds
        self.knocker = -1
        self.last_chance_knock = None

    def passed(self, seat: int) -> None:
        """``seat`` declined the first upcard."""
        seat = self.check_seat(seat)
        if self.phase != OFFER:
            raise ProtocolError("type", "pass: the first upcard is no longer on offer")
        if seat != self.turn:
            raise ProtocolError("seat", f"pass: the upcard is offered to seat {self.turn}, not {seat}")
        self.view[L.V_PASSED + seat] = 1
        self.offers += 1
        self.turn = (seat + 1) % self._players()
        if self.offers == self._players():
            self.turn = (int(self.view[L.V_DEALER]) + 1) % self._players()

    def drew(self, seat: int, source: str, card: int | None) -> None:
        """``seat`` drew from the ``pile`` (card shown) or the ``stock`` (card shown only to the drawer)."""
        seat = self.check_seat(seat)
        self._in_hand("draw")
        if self.phase != OFFER and self.phase != PLAY:
            raise ProtocolError("type", "draw: the hand is over")
        if seat != self.turn or self.drawn_from is not None:
            raise ProtocolError("seat", f"draw: it is seat {self.turn}'s turn to draw" if self.drawn_from is None
                                else f"draw: seat {self.turn} has drawn already this turn")
        v = self.view
        mine = seat == self.seat
        if source == "pile":
            if self.phase == OFFER and self.offers == self._players():
                raise ProtocolError("from", "draw: all passed the upcard; the first draw is from the stock")
            top = self.pile[-1]
            if card is not None and card != top:
                raise ProtocolError("card", f"draw: the pile top is {format_hand(BIT << top)}, not {format_hand(BIT << card)}")
            card = top
            self._pop_pile()
            v[L.V_TAKEN + seat] |= BIT << card
            if not mine:
                self.held_known[seat] |= BIT << card
        elif source == "stock":
            if self.phase == OFFER and self.offers < self._players():
                raise ProtocolError("from", f"draw: the upcard is still on offer to seat {self.turn}")
            if v[L.V_STOCK_LEFT] <= 0:
                raise ProtocolError("from", "draw: the stock is empty")
            if mine:
                if card is None:
                    raise ProtocolError("card", "draw: the seat's own stock draw must name the card")
                if self._placed() >> card & 1:
                    raise ProtocolError("card", f"draw: {format_hand(BIT << card)} cannot be in the stock")
            v[L.V_STOCK_LEFT] -= 1
        else:
            raise ProtocolError("from", f"draw: from must be 'pile' or 'stock', got {source!r}")
        if mine:
            v[L.V_HAND] |= BIT << card
            v[L.V_MY_DRAWS] += 1
            v[L.V_DRAWN] = card
        v[L.V_DRAWS] += 1
        self.phase = PLAY
        self.drawn_from = source
        self.taken_card = card if source == "pile" else L.NO_CARD

    def discarded(self, seat: int, card: int) -> None:
        """``seat`` discarded ``card`` (a knock's discard too, before the knock is reported)."""
        seat = self.check_seat(seat)
        self._in_hand("discard")
        if self.phase != PLAY or seat != self.turn or self.drawn_from is None:
            raise ProtocolError("seat", f"discard: seat {seat} has not drawn this turn")
        if card == self._forbidden():
            raise ProtocolError("card", f"discard: {format_hand(BIT << card)} was just taken from the pile")
        v = self.view
        if seat == self.seat:
            if not v[L.V_HAND] >> card & 1:
                raise ProtocolError("card", f"discard: the seat does not hold {format_hand(BIT << card)}")
            v[L.V_HAND] &= ~(BIT << card)
        elif self._placed(holder=seat) >> card & 1:
            raise ProtocolError("card", f"discard: seat {seat} cannot hold {format_hand(BIT << card)}")
        else:
            self.held_known[seat] &= ~(BIT << card)
        self._push_pile(card)
        v[L.V_DISCARDED + seat] |= BIT << card
        v[L.V_DRAWN] = L.NO_CARD
        v[L.V_FORBIDDEN] = L.NO_CARD
        self.drawn_from = None
        self.taken_card = L.NO_CARD
        self.turn = (seat + 1) % self._players()

    def knocked(self, seat: int) -> None:
        """``seat`` knocked right after its discard, or went big gin (after its draw, no discard): the showdown."""
        seat = self.check_seat(seat)
        if self.phase != PLAY:
            raise ProtocolError("type", "knock: no hand is being played")
        if self.drawn_from is None:
            self._check_knock(seat)
        else:
            self._check_big_gin(seat)
        self.knocker = seat
        self.phase = SHOWDOWN

    def _check_knock(self, seat: int) -> None:
        """A knock follows the knocker's discard; the cards this seat keeps after its own must be within the limit."""
        discarder = (self.turn - 1) % self._players()
        if seat != discarder:
            raise ProtocolError("seat", f"knock: seat {seat} did not just discard (seat {discarder} did)")
        limit = int(self.view[L.V_KNOCK_LIMIT])
        if seat == self.seat and (deadwood := self._deadwood()) > limit:
            raise ProtocolError("seat", f"knock: the seat's deadwood {deadwood} is over the knock limit {limit}")

    def _check_big_gin(self, seat: int) -> None:
        """A knock with no discard is big gin: in the rules, by the seat that just drew, all its own cards melded."""
        if seat != self.turn:
            raise ProtocolError("seat", f"knock: seat {seat} did not just discard (seat {self.turn} has drawn)")
        if not self.rules.big_gin:
            raise ProtocolError("seat", "knock: a knock without a discard is big gin, which these rules do not play")
        if seat == self.seat and (deadwood := self._deadwood()) != 0:
            raise ProtocolError("seat", f"knock: big gin melds every card; the seat's deadwood is {deadwood}")

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
        if self.phase != OFFER or self.turn != self.seat or self.offers == self._players():
            raise ProtocolError("decision", "take_upcard: the upcard is not on offer to this seat")
        return self._ask(L.D_TAKE_UPCARD) == 1

    def draw(self) -> str:
        """'pile' or 'stock'; at the wall under the fiftieth-card rule 'pile' (to knock) or 'none' (void)."""
        if self.phase not in (OFFER, PLAY) or self.turn != self.seat or self.drawn_from is not None:
            raise ProtocolError("decision", "draw: it is not this seat's turn to draw")
        if self.phase == OFFER and self.offers < self._players():
            raise ProtocolError("decision", "draw: the upcard is on offer; ask take_upcard")
        if self.phase == OFFER:
            return "stock"  # everyone passed: the stock, without a choice
        if self.stock_left <= 2:
            if self.rules.wall_rule != "fiftieth_card":
                raise ProtocolError("decision", "draw: the hand is void at the wall (2 cards left in the stock)")
            return self._last_chance()
        return "pile" if self._ask(L.D_DRAW) == 1 else "stock"

    def play_turn(self, allow_knock: bool = True) -> Turn:
        """After the seat's draw: knock (with melds) or discard; only discard if the referee forbids a knock."""
        if self.phase != PLAY or self.turn != self.seat or self.drawn_from is None:
            raise ProtocolError("decision", "discard: the seat has not drawn this turn")
        v = self.view
        forbidden = self._forbidden()
        if self.last_chance_knock is not None:
            knock = self.last_chance_knock
        else:
            knock = self._offer_knock(forbidden, last_chance=False) if allow_knock else L.NO_CARD
        if knock != L.NO_CARD:
            return self._knock(knock)
        v[L.V_FORBIDDEN] = forbidden
        card = self._ask(L.D_DISCARD)
        if not (0 <= card < N_CARDS and v[L.V_HAND] >> card & 1 and card != forbidden):
            raise self._illegal(L.D_DISCARD, card)
        return Turn(card, False)

    def defend(self) -> tuple[tuple[int, ...], int]:
        """The defender's melds after a knock: an arrangement of least deadwood, and that deadwood."""
        if self.phase != SHOWDOWN or self.knocker == self.seat:
            raise ProtocolError("decision", "melds: only the defender declares melds, after a knock")
        count = optimal_arrangements_nb(np.int64(self.hand), self.arrangements)
        melds = tuple(int(m) for m in self.arrangements[0] if m) if count else ()
        return melds, self._deadwood()

    # -- helpers ------------------------------------------------------------------------

    def _ask(self, kind: int) -> int:
        return int(self.strategy.decide(kind, self.view, self.params))

    def _illegal(self, kind: int, answer: int) -> IllegalAnswer:
        return IllegalAnswer(
            f"strategy {self.strategy.name!r} answered {answer} to '{DECISION_NAMES[kind]}' with hand "
            f"{format_hand(self.hand, by_rank=True)}"
        )

    def _deadwood(self) -> int:
        return int(deadwood_nb(np.int64(self.hand)))

    def _placed(self, holder: int = -1) -> int:
        """Cards whose place the seat knows outside the stock and outside the hand of seat ``holder``."""
        known = self.hand | int(self.view[L.V_PILE_MASK])
        for seat, mask in enumerate(self.held_known):
            if seat != holder:
                known |= mask
        return known

    def _forbidden(self) -> int:
        return L.NO_CARD if self.rules.discard_taken_card else self.taken_card

    def _pop_pile(self) -> None:
        v = self.view
        size = v[L.V_PILE_SIZE] - 1
        v[L.V_PILE_SIZE] = size
        v[L.V_PILE_MASK] &= ~(BIT << int(v[L.V_PILE + size]))

    def _push_pile(self, card: int) -> None:
        v = self.view
        v[L.V_PILE + v[L.V_PILE_SIZE]] = card
        v[L.V_PILE_SIZE] += 1
        v[L.V_PILE_MASK] |= BIT << card

    def may_knock(self) -> bool:
        """Whether these rules let the seat's 11 cards knock now."""
        return int(E.knock_discards_nb(np.int64(self.hand), self.view[L.V_KNOCK_LIMIT], self._forbidden())) != 0

    def _offer_knock(self, forbidden: int, last_chance: bool) -> int:
        """The engine's knock offer: the knock discard, BIG_GIN, or NO_CARD to play on."""
        v = self.view
        hand = np.int64(self.hand)
        options = int(E.knock_discards_nb(hand, v[L.V_KNOCK_LIMIT], forbidden))
        big_gin = self.rules.big_gin and deadwood_nb(hand) == 0
        if options == 0 and not big_gin:
            return L.NO_CARD
        v[L.V_KNOCK_DISCARDS] = options
        v[L.V_BIG_GIN] = int(big_gin)
        v[L.V_LAST_CHANCE] = int(last_chance)
        v[L.V_FORBIDDEN] = forbidden
        answer = self._ask(L.D_KNOCK)
        legal = answer == L.NO_CARD or (answer == L.BIG_GIN and big_gin) or (0 <= answer < N_CARDS and options >> answer & 1)
        if not legal:
            raise self._illegal(L.D_KNOCK, answer)
        v[L.V_KNOCK_DISCARDS] = 0
        v[L.V_BIG_GIN] = 0
        v[L.V_LAST_CHANCE] = 0
        return answer

    def _last_chance(self) -> str:
        """Fiftieth-card rule: take the last discard only to knock with it; otherwise the hand is void."""
        v = self.view
        top = self.pile[-1]
        keep = v[L.V_HAND]
        v[L.V_HAND] = keep | (BIT << top)  # show the seat the hand it would have, as the engine does
        forbidden = top if not self.rules.discard_taken_card else L.NO_CARD
        try:
            knock = self._offer_knock(forbidden, last_chance=True)
        finally:
            v[L.V_HAND] = keep
            v[L.V_FORBIDDEN] = L.NO_CARD
        if knock == L.NO_CARD:
            return "none"
        self.last_chance_knock = knock
        return "pile"

    def _knock(self, knock: int) -> Turn:
        """The melds to lay with ``knock``: on a copy of the view after the discard, as the engine asks."""
        big_gin = knock == L.BIG_GIN
        after = self.hand if big_gin else self.hand & ~(BIT << knock)
        count = min(optimal_arrangements_nb(np.int64(after), self.arrangements), L.MAX_ARRANGEMENTS)
        dw = int(deadwood_nb(np.int64(after)))
        choice = 0
        if count > 1 and dw > 0:
            shown = self.view.copy()
            shown[L.V_HAND] = after
            if not big_gin:
                shown[L.V_PILE + shown[L.V_PILE_SIZE]] = knock
                shown[L.V_PILE_SIZE] += 1
                shown[L.V_PILE_MASK] |= BIT << knock
                shown[L.V_DISCARDED + self.seat] |= BIT << knock
            shown[L.V_DRAWN] = L.NO_CARD
            shown[L.V_FORBIDDEN] = L.NO_CARD
            shown[L.V_N_ARRANGEMENTS] = count
            shown[L.V_ARRANGEMENTS : L.V_ARRANGEMENTS + L.MAX_MELDS_IN_ARRANGEMENT * count] = self.arrangements[:count].ravel()
            choice = int(self.strategy.decide(L.D_ARRANGE, shown, self.params))
            if not 0 <= choice < count:
                raise self._illegal(L.D_ARRANGE, choice)
            # What the strategy keeps across decisions lives in the view: carry it back.
            self.view[L.V_RNG] = shown[L.V_RNG]
            self.view[L.V_MEMORY : L.V_MEMORY + L.N_MEMORY] = shown[L.V_MEMORY : L.V_MEMORY + L.N_MEMORY]
        melds = tuple(int(m) for m in self.arrangements[choice] if m)
        self.last_chance_knock = None
        return Turn(None if big_gin else knock, True, melds, dw)
