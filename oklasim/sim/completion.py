"""A hand on the engine's step machine, seen from where not every card shows: the unseen cards completed.

A seat at another referee's table (``oklasim.agent``) or the advisor
replaying a hand's public history (``oklasim.advise.history``) knows where
some cards are (its own hand, the pile, the cards taken from the pile) and
not the rest. ``CompletedBoard`` deals the unseen cards into the other hands
and the stock in one consistent way and moves a card among those unseen
places when an event shows where it is (a discard, a stock draw named to
its drawer), so that every event is played by the engine's own step machine
(``steps_nb``) and refused, if need be, with its reason. The observer's view
row never depends on the completion: it holds only what that seat may know.
"""

from __future__ import annotations

import numpy as np

from oklasim._kernels import engine_nb as E
from oklasim._kernels import layout as L
from oklasim._kernels import steps_nb as S
from oklasim._kernels.melds_nb import MAX_MELDS_IN_ARRANGEMENT
from oklasim.errors import OklasimError
from oklasim.game.cards import N_CARDS, cards_of, format_card
from oklasim.game.rules import Rules
from oklasim.sim.board import apply_or_refuse

BIT = 1


class Unseen(OklasimError):
    """An event puts a card where the observer knows it cannot be."""


class CompletedBoard:
    """One hand's engine board whose unseen cards are a completion; ``observer`` is the seat whose hand is known
    (None: an onlooker who knows no hand)."""

    def __init__(self, rules: Rules, observer: int | None):
        self.rules = rules
        self.observer = observer
        self.board = E.new_board()
        self.board[L.HIDDEN, L.S_RULES : L.S_RULES + L.N_RULE_FIELDS] = rules.to_array()
        self.board[L.HIDDEN, L.S_COMPLETED] = 1  # its showdowns count no style from guessed hands: see ``reveal``
        self.arrangements = np.zeros((L.MAX_ARRANGEMENTS, MAX_MELDS_IN_ARRANGEMENT), dtype=np.int64)
        self.trace = np.zeros((1, E.TRACE_FIELDS), dtype=np.int64)  # never written: the board does not trace
        self.status = np.zeros(E.STATUS_SIZE, dtype=np.int64)
        self.held_known = [0] * rules.players  # cards each seat took from the pile and still holds

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def phase(self) -> int:
        return int(self.board[L.HIDDEN, L.S_PHASE])

    @property
    def turn(self) -> int:
        return int(self.board[L.HIDDEN, L.S_TURN])

    def hand(self, seat: int) -> int:
        return int(self.board[L.HIDDEN, L.S_HANDS + seat])

    def stock(self) -> np.ndarray:
        """The stock's cards on the board, the next draw first (a view: writing it rearranges the completion)."""
        return self.board[L.HIDDEN, L.S_DECK + self.board[L.HIDDEN, L.S_STOCK_POS] : L.S_DECK + N_CARDS]

    def state(self):
        return self.board.copy(), list(self.held_known)

    def restore(self, state) -> None:
        board, held = state
        self.board[:] = board
        self.held_known = list(held)

    # -- the step machine ---------------------------------------------------------------

    def deal(self, dealer: int, hand_number: int, scores: list[int], upcard: int, known_hand: int = 0) -> None:
        """A fresh hand: the observer's ``known_hand`` and the upcard where they are, the other hands and the stock
        from the unseen cards. Each seat's random stream in its row runs on."""
        size = self.rules.hand_size
        unseen = [c for c in range(N_CARDS) if not known_hand >> c & 1 and c != upcard]
        deck = self.board[L.HIDDEN, L.S_DECK : L.S_DECK + N_CARDS]
        for seat in range(self.players):
            cards = list(cards_of(known_hand)) if seat == self.observer else [unseen.pop(0) for _ in range(size)]
            deck[seat * size : (seat + 1) * size] = cards
            self.board[L.HIDDEN, L.S_HANDS + seat] = sum(BIT << c for c in cards)
        deck[self.players * size] = upcard
        deck[self.players * size + 1 :] = unseen
        self.board[L.HIDDEN, L.S_STOCK_POS] = self.players * size
        padded = np.zeros(L.MAX_SEATS, dtype=np.int64)
        padded[: self.players] = scores
        S.start_hand_step(self.board, dealer, hand_number, padded)
        self.held_known = [0] * self.players

    def pending(self, board: np.ndarray | None = None) -> tuple[int, int]:
        """(seat, decision) asked next on ``board`` (this one by default), the steps needing no decision taken."""
        seat, kind = S.pending_step(self.board if board is None else board, self.arrangements, self.trace, self.status)
        return int(seat), int(kind)

    def apply(self, seat: int, kind: int, answer: int) -> None:
        """Play ``answer``; ``IllegalMove`` with the machine's reason, the board unchanged, if it refuses."""
        self.play_on(self.board, seat, kind, answer)
        if kind in (L.D_TAKE_UPCARD, L.D_DRAW) and answer == 1:
            self.held_known[seat] |= BIT << int(self.board[seat, L.V_DRAWN])
        elif kind in (L.D_DISCARD, L.D_KNOCK) and 0 <= answer < N_CARDS:
            self.held_known[seat] &= ~(BIT << answer)

    def play_on(self, trial: np.ndarray, seat: int, kind: int, answer: int) -> None:
        """Play ``answer`` on ``trial`` (this board, or a copy to try an answer on): the machine's checks and play,
        none of the completion's bookkeeping."""
        apply_or_refuse(trial, seat, kind, answer, self.arrangements, self.trace, self.status)

    def discard(self, seat: int, card: int) -> None:
        """``seat`` discards ``card`` without knocking: an unseen card is placed in its hand first, and a knock the
        completion may offer it is declined (its real cards may allow none)."""
        if seat != self.observer:
            self.place_in_hand(seat, card)
        if self.pending() == (seat, L.D_KNOCK):
            self.apply(seat, L.D_KNOCK, L.NO_CARD)
        self.apply(seat, L.D_DISCARD, card)

    def reveal(self, seat: int, hand: int, knocker: int) -> None:
        """``seat`` showed ``hand`` at the showdown ``knocker`` started: counted into the views' public style counts
        (``V_STYLE``), as the engine counts the real hands of its own showdowns."""
        S.reveal_step(self.board, seat, hand, knocker)

    def new_game(self) -> None:
        """A new game: the style counts and the strategies' game memory start again."""
        S.clear_game_step(self.board)

    # -- the completion -----------------------------------------------------------------

    def unseen_holder(self, card: int) -> int:
        """Where the completion put ``card``, which the observer has not seen: a seat, or -1 for the stock; ``Unseen``
        if the observer knows it is elsewhere (its hand, the pile, a hand that took it from the pile)."""
        for seat in range(self.players):
            if seat != self.observer and self.hand(seat) >> card & 1 and not self.held_known[seat] >> card & 1:
                return seat
        if card in self.stock():
            return -1
        raise Unseen(f"{format_card(card)} is not among the cards unseen here")

    def place_in_hand(self, seat: int, card: int) -> None:
        """``seat`` shows ``card`` (its discard): the completion gives it that card for one of its unseen ones."""
        if self.hand(seat) >> card & 1:
            return
        if seat == self.observer:  # its cards are known: none comes to it unseen
            raise Unseen(f"{format_card(card)} is not in the hand of seat {seat}")
        holder = self.unseen_holder(card)
        spare = self.hand(seat) & ~self.held_known[seat]
        if not spare:
            raise Unseen(f"seat {seat} cannot hold {format_card(card)}")
        self._swap(card, holder, (spare & -spare).bit_length() - 1, seat)

    def place_on_stock(self, card: int) -> None:
        """The next stock card is ``card`` (named to its drawer)."""
        top = int(self.stock()[0])
        if card != top:
            self._swap(card, self.unseen_holder(card), top, -1)

    def _swap(self, card: int, holder: int, other: int, other_holder: int) -> None:
        """Exchange two unseen cards between their places (a seat, or -1: the stock)."""
        stock = self.stock()
        places = {c: int(np.flatnonzero(stock == c)[0]) for c, where in ((card, holder), (other, other_holder))
                  if where < 0}
        for have, give, take in ((holder, card, other), (other_holder, other, card)):
            if have >= 0:
                hand = self.hand(have) & ~(BIT << give) | (BIT << take)
                self.board[L.HIDDEN, L.S_HANDS + have] = hand
                self.board[have, L.V_HAND] = hand
            else:
                stock[places[give]] = take
