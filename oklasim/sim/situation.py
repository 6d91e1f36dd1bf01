"""Start a hand from a given mid-hand situation instead of a fresh deal.

Scripted tests, replays and the advisor need it: every card's place is
given (hands, discard pile, stock order), with whose turn it is.

>>> from oklasim.game.cards import parse_cards, parse_hand
>>> s = Situation(
...     hands=(parse_hand("2h 3h 4h 7s 7d 7h Jc Qc Kc 5d"), parse_hand("4c 5c 6c Qs Qd Qh As 2s 8d 9h")),
...     upcard=parse_cards("9c")[0], pile=tuple(parse_cards("9c")), stock=None, turn=0, phase="draw")
>>> len(s.complete_stock())
31
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from oklasim._kernels import advise_board_nb as B
from oklasim._kernels import engine_nb as E
from oklasim._kernels import layout as L
from oklasim.errors import OklasimError
from oklasim.game.cards import FULL_DECK, N_CARDS, format_hand, mask_of
from oklasim.game.rules import Rules

PHASES = {"offer": L.PHASE_OFFER, "forced_stock": L.PHASE_FORCED_STOCK, "draw": L.PHASE_DRAW}


@dataclass(frozen=True)
class Situation:
    """Where every card is and who acts next.

    ``stock`` lists the stock from its top; ``None`` means "the remaining
    cards in index order" (for scripted tests where the stock order does not
    matter, or is set by ``complete_stock``). ``phase``: ``offer`` (the
    first upcard is being offered to ``turn``; ``offers`` seats have passed),
    ``forced_stock`` (all passed, ``turn`` must draw from the stock) or
    ``draw`` (a normal turn).
    """

    hands: tuple[int, ...]
    upcard: int
    pile: tuple[int, ...]
    stock: tuple[int, ...] | None
    turn: int
    phase: str = "draw"
    dealer: int = 1
    offers: int = 0
    scores: tuple[int, ...] = (0, 0, 0, 0)
    draws: int = 0
    hand_number: int = 0
    first_taker: int = -1
    taken: tuple[int, ...] = field(default=(0, 0, 0, 0))  # cards each seat took from the pile
    discarded: tuple[int, ...] = field(default=(0, 0, 0, 0))  # cards each seat discarded
    my_draws: tuple[int, ...] = field(default=(0, 0, 0, 0))  # draws each seat made

    def complete_stock(self) -> tuple[int, ...]:
        if self.stock is not None:
            return self.stock
        used = mask_of(self.pile) | np.bitwise_or.reduce(np.asarray(self.hands, dtype=np.int64)).item()
        return tuple(c for c in range(N_CARDS) if not used >> c & 1)

    def check(self, rules: Rules) -> None:
        """Every card exactly once, hands of the right size, a valid turn: else ``ValueError``."""
        if len(self.hands) != rules.players:
            raise OklasimError(f"situation: {rules.players} players need {rules.players} hands, got {len(self.hands)}")
        if self.phase not in PHASES:
            raise OklasimError(f"situation: phase {self.phase!r} is not one of {', '.join(PHASES)}")
        if not 0 <= self.turn < rules.players or not 0 <= self.dealer < rules.players:
            raise OklasimError("situation: turn and dealer must be seats of the game")
        seen = 0
        places = [("hand", h) for h in self.hands] + [("pile", mask_of(self.pile)), ("stock", mask_of(self.complete_stock()))]
        for name, mask in places:
            if seen & mask:
                raise OklasimError(f"situation: {format_hand(seen & mask)} appear twice ({name})")
            seen |= mask
        if seen != FULL_DECK:
            raise OklasimError(f"situation: cards missing from every place: {format_hand(FULL_DECK & ~seen)}")
        for seat, hand in enumerate(self.hands):
            if hand.bit_count() != rules.hand_size:
                raise OklasimError(
                    f"situation: seat {seat} holds {hand.bit_count()} cards; between turns a hand has {rules.hand_size}"
                )
        if not self.pile:
            raise OklasimError("situation: the discard pile cannot be empty between turns")
        if self.phase == "offer" and (self.pile != (self.upcard,) or self.offers >= rules.players):
            raise OklasimError("situation: during the first-turn offer the pile is just the upcard")
        left = (self.dealer + 1) % rules.players
        if self.phase == "offer" and self.turn != (left + self.offers) % rules.players:
            raise OklasimError("situation: the upcard is offered round the table from the dealer's left")
        if self.phase == "forced_stock" and self.turn != left:
            raise OklasimError("situation: when all pass, the player on the dealer's left draws from the stock")
        if len(self.complete_stock()) < 3:
            raise OklasimError("situation: the hand ended at the wall with 2 cards in the stock")


def passes_of(players: int, situation: Situation) -> int:
    """How many seats passed the first upcard (round the table from the dealer's left)."""
    if situation.phase == "offer":
        return situation.offers
    if situation.first_taker < 0:
        return players
    return (situation.first_taker - situation.dealer - 1) % players


def board_for(rules: Rules, situation: Situation) -> np.ndarray:
    """A board set up at ``situation``, ready for ``play_situation_nb``."""
    situation.check(rules)
    board = E.new_board()
    seats = np.zeros(L.MAX_SEATS, dtype=np.int64)
    hands, taken, discarded, my_draws = (seats.copy() for _ in range(4))
    hands[: rules.players] = situation.hands
    taken[:] = situation.taken
    discarded[:] = situation.discarded
    my_draws[:] = situation.my_draws
    B.mid_hand_board_nb(board, rules.to_array(), situation.dealer, situation.hand_number,
                        np.asarray(situation.scores, dtype=np.int64), situation.upcard,
                        np.asarray(situation.pile, dtype=np.int64), np.asarray(situation.complete_stock(), dtype=np.int64),
                        hands, taken, discarded, my_draws, passes_of(rules.players, situation), situation.draws,
                        situation.turn, PHASES[situation.phase], L.NO_CARD, B.NO_STYLES, B.NO_LOG)
    return board
