"""What the player knows: the checked ``Position`` of a decision, and the engine view row it stands for."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._kernels import layout as L
from ..cards import N_CARDS, format_card, format_hand, mask_of, parse_cards
from ..rules import Rules

FIRST_STOCK = Rules(players=2).first_stock  # advise reads two-player positions (read_position checks)


@dataclass(frozen=True)
class Position:
    """A checked description of the decision: everything the player knows."""

    hand: int  # mask, 10 or 11 cards
    knock_limit: int
    upcard: int | None
    pile: tuple[int, ...]  # bottom first
    opponent_took: int  # mask, as given
    opponent_known: int  # mask of cards the opponent must hold now
    took: int | None  # the card the player just took from the pile
    stock: int
    scores: tuple[int, int] | None
    passed: int  # first turn: seats that passed the upcard before this decision
    dealer: int  # 0 = me, 1 = the opponent
    rules: Rules
    moment: str  # "after_draw", "draw", "offer" or "forced_stock"

    @property
    def unseen(self) -> int:
        """Cards the player cannot place: the opponent's unknown cards and the stock."""
        return ((1 << N_CARDS) - 1) & ~self.hand & ~mask_of(self.pile) & ~self.opponent_known

    @property
    def kind(self) -> int:
        """The engine decision the position is at."""
        return {"after_draw": L.D_KNOCK, "draw": L.D_DRAW, "offer": L.D_TAKE_UPCARD, "forced_stock": L.D_DRAW}[
            self.moment
        ]

    def describe(self) -> dict[str, Any]:
        return {
            "hand": format_hand(self.hand, by_rank=True),
            "cards": self.hand.bit_count(),
            "moment": self.moment,
            "knock_limit": self.knock_limit,
            "upcard": format_card(self.upcard) if self.upcard is not None else None,
            "pile": " ".join(format_card(c) for c in self.pile),
            "opponent_known": format_hand(self.opponent_known, by_rank=True),
            "took": format_card(self.took) if self.took is not None else None,
            "stock": self.stock,
            "scores": list(self.scores) if self.scores is not None else None,
            "dealer": "me" if self.dealer == 0 else "opponent",
            "unseen": self.unseen.bit_count(),
            "rules": {k: v for k, v in self.rules.to_dict().items() if v != getattr(Rules(), k)},  # beside the default
        }


def card_list(value, what: str) -> list[int]:
    """Cards from text ("As 2s"), a card index, or a list of either."""
    if value is None:
        return []
    if isinstance(value, str):
        try:
            return parse_cards(value)
        except ValueError as exc:
            raise ValueError(f"{what}: {exc}") from None
    if isinstance(value, (int, np.integer)):
        return [int(value)]
    cards: list[int] = []
    for item in value:
        for card in card_list(item, what):
            if card in cards:
                raise ValueError(f"{what}: {format_card(card)} is listed twice")
            cards.append(card)
    return cards


def one_card(value, what: str) -> int | None:
    cards = card_list(value, what)
    if len(cards) > 1:
        raise ValueError(f"{what}: one card expected, got {len(cards)}")
    return cards[0] if cards else None


def rules_of(rules) -> Rules:
    if rules is None:
        return Rules()
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, str):
        return Rules.load(rules)
    if isinstance(rules, dict):
        return Rules.from_dict(rules)
    raise ValueError(f"rules: give a preset name, a TOML file or a table of fields, not {rules!r}")


def read_position(
    hand,
    upcard=None,
    limit: int | None = None,
    pile=(),
    opponent_took=(),
    took=None,
    stock: int | None = None,
    scores: Sequence[int] | None = None,
    rules=None,
    passed: int = 0,
    dealer: str | None = None,
) -> Position:
    """Check what the player says it knows and work out the moment of the hand; ``ValueError`` if impossible."""
    rules = rules_of(rules)
    if rules.players != 2:
        raise ValueError(f"advise handles two players; the rules have {rules.players}")
    size = rules.hand_size
    mine = card_list(hand, "hand")
    if len(mine) not in (size, size + 1):
        raise ValueError(
            f"a hand of {len(mine)} cards fits no moment of the game: hold {size} cards before your draw "
            f"or {size + 1} after it"
        )
    hand_mask = mask_of(mine)
    pile_cards = tuple(card_list(pile, "pile"))
    pile_mask = mask_of(pile_cards)
    if hand_mask & pile_mask:
        raise ValueError(f"{format_hand(hand_mask & pile_mask)} cannot be both in your hand and on the pile")
    up = one_card(upcard, "upcard")
    took_card = one_card(took, "took")
    opp_took = mask_of(card_list(opponent_took, "opponent took"))
    drawn = len(mine) == size + 1

    # The knock limit: from the upcard, or given, or both when they agree.
    if limit is not None:
        if isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or not 0 <= limit <= 10:
            raise ValueError(f"knock limit {limit!r}: use 0 (gin only) to 10")
        limit = int(limit)
        possible = {rules.knock_limit(c) for c in range(N_CARDS)}
        if limit not in possible:
            raise ValueError(f"a knock limit of {limit} cannot happen under these rules (possible: "
                             f"{', '.join(str(p) for p in sorted(possible))})")
    if up is None and limit is None:
        raise ValueError("give the upcard that set the knock limit, or the limit itself")
    if up is not None and limit is not None and rules.knock_limit(up) != limit:
        raise ValueError(f"upcard {format_card(up)} sets a knock limit of {rules.knock_limit(up)}, not {limit}")
    knock_limit = rules.knock_limit(up) if up is not None else limit
    if up is None and rules.spade_double:
        raise ValueError("with spade doubling on, give the upcard (its suit matters), not just the limit")

    # The stock follows from the cards: the opponent holds `size` between and during your turns.
    derived = N_CARDS - len(mine) - len(pile_cards) - size
    if stock is not None and stock != derived:
        raise ValueError(
            f"a stock of {stock} does not fit: with {len(mine)} cards in your hand, {len(pile_cards)} on the "
            f"pile and {size} in the opponent's, the stock holds {derived}"
        )
    if drawn and derived < 2:
        raise ValueError(f"{len(pile_cards)} cards on the pile leave {derived} in the stock; a hand ends at 2")
    if not drawn and derived < 3:
        raise ValueError(
            f"{len(pile_cards)} cards on the pile leave {derived} in the stock: the hand has ended at the wall"
        )
    if not drawn and not pile_cards:
        raise ValueError("the discard pile cannot be empty before your draw")

    # The moment, and what it says about the first upcard.
    if passed not in (0, 1, 2):
        raise ValueError(f"passed = {passed!r}: 0, 1 or 2 players passed the first upcard")
    # The moment. A full stock means nobody has drawn from it yet; cards may still have changed hands
    # through the pile. `passed` (passes of the first upcard) matters only where the first turn is certain.
    inferred_dealer = None
    fresh = derived == FIRST_STOCK and not opp_took
    if drawn:
        moment = "after_draw"
        if took_card is None and derived == FIRST_STOCK:  # the 11th card came from the pile
            if up is None or not hand_mask >> up & 1 or opp_took:
                raise ValueError("with 11 cards and a full stock you took a card from the pile: name it (took)")
            took_card = up
        if fresh and took_card == up and not pile_cards:  # I took the upcard on the first turn
            if passed > 1:
                raise ValueError("both players passed: the first draw is from the stock")
            inferred_dealer = 1 if passed == 0 else 0  # the non-dealer is offered the upcard first
        elif derived == FIRST_STOCK and opp_took == (1 << up if up is not None else -1) and not pile_cards:
            if passed > 1:  # the opponent took the upcard, and I its first discard
                raise ValueError("the opponent took the upcard: at most one player (you) passed it")
            inferred_dealer = 0 if passed == 0 else 1
        elif took_card is None and derived == FIRST_STOCK - 1 and up is not None and pile_cards == (up,) \
                and not opp_took:
            inferred_dealer = 1  # both passed and I, the non-dealer, drew the first card of the stock
    elif fresh and (up is None or pile_cards == (up,)):  # the upcard is on offer
        if up is None:
            up = pile_cards[0]  # before any draw, a one-card pile is taken to be the upcard
            if rules.knock_limit(up) != knock_limit:
                raise ValueError(f"before any draw the pile is the upcard {format_card(up)}, whose knock "
                                 f"limit is {rules.knock_limit(up)}, not {knock_limit}")
        moment = "offer" if passed < 2 else "forced_stock"
        inferred_dealer = 1 if passed in (0, 2) else 0
    else:
        moment = "draw"
        if derived == FIRST_STOCK and up is not None and opp_took == 1 << up and len(pile_cards) == 1:
            if passed > 1:  # the opponent took the upcard and discarded
                raise ValueError("the opponent took the upcard: at most one player (you) passed it")
            inferred_dealer = 0 if passed == 0 else 1
    if dealer is not None and dealer not in ("me", "opponent"):
        raise ValueError(f"dealer = {dealer!r}: 'me' or 'opponent'")
    dealer_seat = None if dealer is None else (0 if dealer == "me" else 1)
    if inferred_dealer is not None and dealer_seat is not None and inferred_dealer != dealer_seat:
        who = "you" if inferred_dealer == 0 else "the opponent"
        raise ValueError(f"at this moment of the first turn {who} must be the dealer")
    dealer_seat = inferred_dealer if inferred_dealer is not None else (1 if dealer_seat is None else dealer_seat)
    passed = passed if inferred_dealer is not None else 0

    if took_card is not None:
        if not drawn:
            raise ValueError("took names the card you just took from the pile: you then hold 11 cards")
        if not hand_mask >> took_card & 1:
            raise ValueError(f"you took {format_card(took_card)} from the pile: it must be in your hand")

    # What the opponent must hold: what it took and did not throw back, and an upcard found nowhere else.
    known = opp_took & ~hand_mask & ~pile_mask
    if up is not None and not (hand_mask | pile_mask) >> up & 1:
        known |= 1 << up
    if known.bit_count() > size:
        raise ValueError(f"the opponent would hold {known.bit_count()} known cards ({format_hand(known)}), more "
                         f"than {size}")
    score_pair = None
    if scores is not None:
        score_pair = tuple(int(s) for s in scores)
        if len(score_pair) != 2 or min(score_pair) < 0:
            raise ValueError(f"scores: two non-negative numbers (yours, the opponent's), got {list(scores)!r}")
        if rules.single_hand:
            raise ValueError("scores need a game, but these rules play a single hand")
        if max(score_pair) >= rules.target_score:
            raise ValueError(f"scores {score_pair[0]}-{score_pair[1]}: the game ended at {rules.target_score}")
    return Position(
        hand=hand_mask,
        knock_limit=knock_limit,
        upcard=up,
        pile=pile_cards,
        opponent_took=opp_took,
        opponent_known=known,
        took=took_card,
        stock=derived,
        scores=score_pair,
        passed=passed,
        dealer=dealer_seat,
        rules=rules,
        moment=moment,
    )


def placeholder_upcard(rules: Rules, limit: int) -> int:
    """Some card setting ``limit``, for a view whose upcard is unknown (only its limit matters)."""
    return next(c for c in range(N_CARDS) if rules.knock_limit(c) == limit)


def view_of(position: Position) -> np.ndarray:
    """Seat 0's view row at the position, as the engine would show it."""
    p = position
    view = np.zeros(L.V_SIZE, dtype=np.int64)
    rules = p.rules.to_array()
    view[L.V_SEAT] = 0
    view[L.V_PLAYERS] = 2
    view[L.V_DEALER] = p.dealer
    view[L.V_HAND] = p.hand
    upcard = p.upcard if p.upcard is not None else placeholder_upcard(p.rules, p.knock_limit)
    view[L.V_UPCARD] = upcard
    view[L.V_KNOCK_LIMIT] = p.knock_limit
    view[L.V_MULTIPLIER] = p.rules.score_multiplier(upcard) if p.upcard is not None else 1
    view[L.V_STOCK_LEFT] = p.stock
    view[L.V_PILE_SIZE] = len(p.pile)
    view[L.V_PILE : L.V_PILE + len(p.pile)] = p.pile
    view[L.V_PILE_MASK] = mask_of(p.pile)
    taken_by_me = 0 if p.took is None else 1 << p.took
    pile_draws = (p.opponent_took | p.opponent_known).bit_count() + taken_by_me.bit_count()
    view[L.V_DRAWS] = FIRST_STOCK - p.stock + pile_draws
    view[L.V_MY_DRAWS] = (view[L.V_DRAWS] + 1) // 2
    view[L.V_DRAWN] = L.NO_CARD  # the card drawn this turn: unknown from the stock, so any of the hand
    if p.moment == "after_draw":
        view[L.V_DRAWN] = p.took if p.took is not None else next(iter(_bits(p.hand)))
    view[L.V_FORBIDDEN] = p.took if p.took is not None and not p.rules.discard_taken_card else L.NO_CARD
    if p.scores is not None:
        view[L.V_SCORES : L.V_SCORES + 2] = p.scores
    view[L.V_TAKEN] = taken_by_me
    view[L.V_TAKEN + 1] = p.opponent_took | p.opponent_known
    if p.moment in ("offer", "forced_stock") or (p.took is not None and p.stock == FIRST_STOCK):
        first = 1 - p.dealer  # the non-dealer is offered first
        for k in range(p.passed):
            view[L.V_PASSED + (first + k) % 2] = 1
    elif p.moment == "after_draw" and p.stock == FIRST_STOCK - 1 and len(p.pile) == 1 and p.took is None:
        view[L.V_PASSED : L.V_PASSED + 2] = 1
    view[L.V_RULES : L.V_RULES + L.N_RULE_FIELDS] = rules
    return view


def _bits(mask: int) -> Iterable[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low
