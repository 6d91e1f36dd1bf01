"""What the player knows: the checked ``Position`` of a decision, and the engine view row it stands for."""

from __future__ import annotations

import functools
import operator
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from oklasim._kernels import advise_board_nb as B
from oklasim._kernels import engine_nb as E
from oklasim._kernels import layout as L
from oklasim.advise.request import FieldError
from oklasim.errors import OklasimError
from oklasim.game.cards import N_CARDS, format_card, format_hand, mask_of, parse_cards
from oklasim.game.rules import Rules

SEAT_NAMES = {"me": 0, "opponent": 1, "left": 1, "across": 2, "right": -1}  # right: the seat before mine


@dataclass(frozen=True)
class Position:
    """A checked description of the decision: everything the player knows."""

    hand: int  # mask, 10 or 11 cards
    knock_limit: int
    upcard: int | None
    pile: tuple[int, ...]  # bottom first
    opponents_took: tuple[int, ...]  # per opponent, from my left (seat 1 on): masks as given
    opponents_known: tuple[int, ...]  # per opponent: what it must hold now
    took: int | None  # the card the player just took from the pile
    stock: int
    scores: tuple[int, ...] | None  # mine, then the opponents' from my left
    passed: int  # first turn: seats that passed the upcard before this decision
    dealer: int  # 0 = me, then the opponents from my left (1 = the opponent of two players)
    rules: Rules
    moment: str  # "after_draw", "draw", "offer" or "forced_stock"

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def opponent_took(self) -> int:
        """What the opponents took, all together (a mask)."""
        return functools.reduce(operator.or_, self.opponents_took, 0)

    @property
    def opponent_known(self) -> int:
        """What the opponents must hold now, all together (a mask)."""
        return functools.reduce(operator.or_, self.opponents_known, 0)

    @property
    def unseen(self) -> int:
        """Cards the player cannot place: the opponent's unknown cards and the stock."""
        return ((1 << N_CARDS) - 1) & ~self.hand & ~mask_of(self.pile) & ~self.opponent_known

    @property
    def last_chance(self) -> bool:
        """The fiftieth card: the stock is down to 2 and you took the last discard, which you may do only to knock."""
        return self.rules.wall_rule == "fiftieth_card" and self.moment == "after_draw" and self.stock == 2 \
            and self.took is not None

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
            "dealer": seat_name(self.dealer, self.players),
            "unseen": self.unseen.bit_count(),
            "rules": {k: v for k, v in self.rules.to_dict().items() if v != getattr(Rules(), k)},  # beside the default
        }


def card_list(value, what: str) -> list[int]:
    """Cards from text ("As 2s"), a card index, or a list of either; ``what`` says where, naming the request's
    field as ``{field}`` (see ``FieldError``)."""
    if value is None:
        return []
    if isinstance(value, str):
        try:
            return parse_cards(value)
        except ValueError as exc:
            raise FieldError(what + ": {reason}", reason=exc) from None
    if isinstance(value, (int, np.integer)):
        return [int(value)]
    cards: list[int] = []
    for item in value:
        for card in card_list(item, what):
            if card in cards:
                raise FieldError(what + ": {card} is listed twice", card=format_card(card))
            cards.append(card)
    return cards


def score_list(value) -> tuple[int, ...] | None:
    """Game scores from text ("40,65" or "40 65") or a list of whole numbers, yours first; ``ValueError`` if not."""
    if value is None:
        return None
    parts = value.replace(",", " ").split() if isinstance(value, str) else value
    try:
        scores = tuple(int(p) if isinstance(p, str) else p for p in parts)
    except (TypeError, ValueError):
        scores = ()
    if not scores or not all(isinstance(s, (int, np.integer)) and not isinstance(s, bool) for s in scores):
        raise FieldError("{scores} {value!r}: whole numbers, yours then the opponent's, e.g. 40,65", value=value)
    return tuple(int(s) for s in scores)


def one_card(value, what: str) -> int | None:
    cards = card_list(value, what)
    if len(cards) > 1:
        raise FieldError(what + ": one card expected, got {count}", count=len(cards))
    return cards[0] if cards else None


def rules_of(rules) -> Rules:
    """``Rules.of`` with its error naming the request's field."""
    try:
        return Rules.of(rules)
    except OklasimError as exc:
        raise FieldError("{rules}: {reason}", reason=exc) from None


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
    players: int | None = None,
) -> Position:
    """Check what the player says it knows and work out the moment of the hand; ``ValueError`` if impossible.

    With 3-4 players (``players``, or the rules') ``opponent_took`` is one
    group per opponent from your left, separated by ``|`` (or a list of
    groups), ``scores`` has a score per seat from yours on, and ``dealer`` is
    ``me``, ``left``, ``across`` or ``right``.
    """
    rules = rules_of(rules)
    if players is not None:
        if isinstance(players, bool) or players not in (2, 3, 4):
            raise FieldError("{players} {value!r}: 2, 3 or 4", value=players)
        rules = rules.replace(players=players)
    n = rules.players
    size = rules.hand_size
    mine = card_list(hand, "{hand}")
    if len(mine) not in (size, size + 1):
        raise FieldError("{hand}: a hand of {count} cards fits no moment of the game: hold {size} cards before your "
                         "draw or {after} after it", count=len(mine), size=size, after=size + 1)
    hand_mask = mask_of(mine)
    pile_cards = tuple(card_list(pile, "{pile}"))
    pile_mask = mask_of(pile_cards)
    if hand_mask & pile_mask:
        raise FieldError("{cards} cannot be both in your hand and on the pile ({hand}, {pile})",
                         cards=format_hand(hand_mask & pile_mask))
    up = one_card(upcard, "{upcard}")
    took_card = one_card(took, "{took}")
    groups = opponent_groups(opponent_took, n)
    opp_took = 0
    for group in groups:
        if opp_took & group:
            raise FieldError("{opponent_took}: {cards} is listed for two opponents; list it only for the one "
                             "holding it now", cards=format_hand(opp_took & group))
        opp_took |= group
    drawn = len(mine) == size + 1

    # The knock limit: from the upcard, or given, or both when they agree.
    if limit is not None:
        if isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or not 0 <= limit <= 10:
            raise FieldError("{limit} {value!r}: a knock limit, 0 (gin only) to 10", value=limit)
        limit = int(limit)
        possible = {rules.knock_limit(c) for c in range(N_CARDS)}
        if limit not in possible:
            raise FieldError("{limit} {value}: a knock limit of {value} cannot happen under these rules (possible: "
                             "{possible})", value=limit, possible=", ".join(str(p) for p in sorted(possible)))
    if up is None and limit is None:
        raise FieldError("give the upcard that set the knock limit, or the limit itself ({upcard} or {limit})")
    if up is not None and limit is not None and rules.knock_limit(up) != limit:
        raise FieldError("{upcard} {card} sets a knock limit of {its}, not {given} ({limit})", card=format_card(up),
                         its=rules.knock_limit(up), given=limit)
    knock_limit = rules.knock_limit(up) if up is not None else limit
    if up is None and rules.spade_double:
        raise FieldError("with spade doubling on, give the upcard ({upcard}: its suit matters), not just {limit}")

    # The stock follows from the cards: the opponent holds `size` between and during your turns.
    derived = N_CARDS - len(mine) - len(pile_cards) - (n - 1) * size
    if stock is not None and stock != derived:
        theirs = "the opponent's" if n == 2 else f"each of the {n - 1} opponents'"
        raise FieldError("{stock} {given}: a stock of {given} does not fit: with {mine} cards in your hand, {piled} "
                         "on the pile and {size} in {theirs}, the stock holds {derived}", given=stock,
                         mine=len(mine), piled=len(pile_cards), size=size, theirs=theirs, derived=derived)
    if drawn and derived < 2:
        raise FieldError("{pile}: {piled} cards on the pile leave {derived} in the stock; a hand ends at 2",
                         piled=len(pile_cards), derived=derived)
    if not drawn and derived < 3:
        raise FieldError("{pile}: {piled} cards on the pile leave {derived} in the stock: the hand has ended at the "
                         "wall", piled=len(pile_cards), derived=derived)
    if not drawn and not pile_cards:
        raise FieldError("{pile}: the discard pile cannot be empty before your draw")

    # The moment, and what it says about the first upcard.
    if isinstance(passed, bool) or passed not in range(n + 1):
        raise FieldError("{passed} {value!r}: 0 to {most} players passed the first upcard", value=passed,
                         most=n)
    # The moment. A full stock means nobody has drawn from it yet; cards may still have changed hands
    # through the pile. `passed` (passes of the first upcard) matters only where the first turn is certain.
    inferred_dealer = None
    fresh = derived == rules.first_stock and not opp_took
    if n > 2:  # the first turn is read from the pile alone: the upcard, offered round the table
        moment = "after_draw" if drawn else "draw"
        if not drawn and fresh and (up is None or pile_cards == (up,)):
            up = pile_cards[0] if up is None else up
            moment = "offer" if passed < n else "forced_stock"
            inferred_dealer = (n - 1 - passed) % n  # I am offered it after `passed` seats from the dealer's left
    elif drawn:
        moment = "after_draw"
        if took_card is None and derived == rules.first_stock:  # the 11th card came from the pile
            if up is None or not hand_mask >> up & 1 or opp_took:
                raise FieldError("with 11 cards and a full stock you took a card from the pile: name it ({took})")
            took_card = up
        if fresh and took_card == up and not pile_cards:  # I took the upcard on the first turn
            if passed > 1:
                raise FieldError("{passed} {value}: both players passed, so the first draw is from the stock",
                                 value=passed)
            inferred_dealer = 1 if passed == 0 else 0  # the non-dealer is offered the upcard first
        elif derived == rules.first_stock and opp_took == (1 << up if up is not None else -1) and not pile_cards:
            if passed > 1:  # the opponent took the upcard, and I its first discard
                raise FieldError("{passed} {value}: the opponent took the upcard, so at most one player (you) "
                                 "passed it", value=passed)
            inferred_dealer = 0 if passed == 0 else 1
        elif took_card is None and derived == rules.first_stock - 1 and up is not None and pile_cards == (up,) \
                and not opp_took:
            inferred_dealer = 1  # both passed and I, the non-dealer, drew the first card of the stock
    elif fresh and (up is None or pile_cards == (up,)):  # the upcard is on offer
        if up is None:
            up = pile_cards[0]  # before any draw, a one-card pile is taken to be the upcard
            if rules.knock_limit(up) != knock_limit:
                raise FieldError("{limit} {given}: before any draw the pile ({pile}) is the upcard {card}, whose "
                                 "knock limit is {its}", given=knock_limit, card=format_card(up),
                                 its=rules.knock_limit(up))
        moment = "offer" if passed < 2 else "forced_stock"
        inferred_dealer = 1 if passed in (0, 2) else 0
    else:
        moment = "draw"
        if derived == rules.first_stock and up is not None and opp_took == 1 << up and len(pile_cards) == 1:
            if passed > 1:  # the opponent took the upcard and discarded
                raise FieldError("{passed} {value}: the opponent took the upcard, so at most one player (you) "
                                 "passed it", value=passed)
            inferred_dealer = 0 if passed == 0 else 1
    dealer_seat = None if dealer is None else seat_of(dealer, n)
    if inferred_dealer is not None and dealer_seat is not None and inferred_dealer != dealer_seat:
        who = "you" if inferred_dealer == 0 else ("the opponent" if n == 2 else seat_name(inferred_dealer, n))
        raise FieldError("{dealer} {value!r}: at this moment of the first turn {who} must be the dealer",
                         value=dealer, who=who)
    dealer_seat = inferred_dealer if inferred_dealer is not None else (n - 1 if dealer_seat is None else dealer_seat)
    passed = passed if inferred_dealer is not None else 0

    if took_card is not None:
        if not drawn:
            raise FieldError("{took} names the card you just took from the pile: you then hold 11 cards ({hand})")
        if not hand_mask >> took_card & 1:
            raise FieldError("{took} {card}: you took {card} from the pile: it must be in your hand ({hand})",
                             card=format_card(took_card))

    if drawn and derived == 2 and took_card is not None and rules.wall_rule == "fiftieth_card":
        forbidden = took_card if not rules.discard_taken_card else L.NO_CARD
        if not E.knock_discards_nb(hand_mask, knock_limit, forbidden):  # (11 cards of melds always have a discard)
            raise FieldError("{took} {card}: at the fiftieth card you may take {card} only to knock, and no discard "
                             "lets you knock: decline it, the hand is void", card=format_card(took_card))

    # What the opponent must hold: what it took and did not throw back, and an upcard found nowhere else.
    known_by_seat = [g & ~hand_mask & ~pile_mask for g in groups]
    if up is not None and not (hand_mask | pile_mask | opp_took) >> up & 1:
        if n > 2:
            raise FieldError("{upcard} {card} is in no hand you know and not on the pile: say which opponent took it "
                             "({opponent_took}, one group per opponent from your left)", card=format_card(up))
        known_by_seat[0] |= 1 << up
    for seat, known in enumerate(known_by_seat, 1):
        if known.bit_count() > size:
            who = "the opponent" if n == 2 else seat_name(seat, n)
            raise FieldError("{opponent_took}: {who} would hold {count} known cards ({cards}), more than {size}",
                             who=who, count=known.bit_count(), cards=format_hand(known), size=size)
    score_pair = None
    if scores is not None:
        score_pair = score_list(scores)
        if len(score_pair) != n or min(score_pair) < 0:
            whose = "yours, the opponent's" if n == 2 else "yours, then the opponents' from your left"
            raise FieldError("{scores}: {count} non-negative numbers ({whose}), got {got!r}", count=n, whose=whose,
                             got=list(score_pair))
        if rules.single_hand:
            raise FieldError("{scores} need a game, but these rules play a single hand ({rules})")
        if max(score_pair) >= rules.target_score:
            raise FieldError("{scores} {given}: the game ended at {target}",
                             given="-".join(map(str, score_pair)), target=rules.target_score)
    return Position(
        hand=hand_mask,
        knock_limit=knock_limit,
        upcard=up,
        pile=pile_cards,
        opponents_took=tuple(groups),
        opponents_known=tuple(known_by_seat),
        took=took_card,
        stock=derived,
        scores=score_pair,
        passed=passed,
        dealer=dealer_seat,
        rules=rules,
        moment=moment,
    )


def opponent_groups(value, players: int) -> list[int]:
    """The cards each opponent took, from your left: one group for two players, else separated by ``|``."""
    if players == 2:
        return [mask_of(card_list(value, "{opponent_took}"))]
    if value is None or value == () or value == "":
        parts = []
    elif isinstance(value, str):
        parts = value.split("|")
    else:
        parts = list(value)
    if len(parts) > players - 1:
        raise FieldError("{opponent_took}: {count} groups for {opponents} opponents (separate them with '|')",
                         count=len(parts), opponents=players - 1)
    parts += [""] * (players - 1 - len(parts))
    return [mask_of(card_list(part, "{opponent_took} (group %d)" % k)) for k, part in enumerate(parts, 1)]


def seat_of(name: str, players: int) -> int:
    """A seat from its name: me, or (from my left) the opponent of two players, left, across (four) or right."""
    if name not in DEALER_NAMES[players]:
        names = DEALER_NAMES[players]
        raise FieldError("{dealer} {value!r}: with {count} players {choices}", value=name, count=players,
                         choices=f"{', '.join(map(repr, names[:-1]))}{',' if len(names) > 2 else ''} or {names[-1]!r}")
    return SEAT_NAMES[name] % players


# Who may have dealt, by the players at the table: left and right are other seats than the one opponent of two.
DEALER_NAMES = {2: ("me", "opponent"), 3: ("me", "left", "right"), 4: ("me", "left", "across", "right")}


def seat_name(seat: int, players: int) -> str:
    if seat == 0:
        return "me"
    if players == 2:
        return "opponent"
    return {1: "left", players - 1: "right"}.get(seat, "across")


def placeholder_upcard(rules: Rules, limit: int) -> int:
    """Some card setting ``limit``, for a view whose upcard is unknown (only its limit matters)."""
    return next(c for c in range(N_CARDS) if rules.knock_limit(c) == limit)


def view_of(position: Position, history=None) -> np.ndarray:
    """Seat 0's view row at the position, as the engine would show it (``advise_board_nb`` builds it).

    ``history`` (``history.Replay``) gives what only the replayed hand knows
    exactly: the discards, the draws and the passes.
    """
    p = position
    n = p.players
    seats = np.zeros((3, L.MAX_SEATS), dtype=np.int64)
    hands, taken, discarded = seats
    hands[0] = p.hand
    hands[1:n] = p.opponents_known  # their unknown cards come with each world
    upcard = p.upcard if p.upcard is not None else placeholder_upcard(p.rules, p.knock_limit)
    taken[0] = 0 if p.took is None else 1 << p.took
    taken[1:n] = [t | k for t, k in zip(p.opponents_took, p.opponents_known)]
    draws = p.rules.first_stock - p.stock + sum(int(t).bit_count() for t in taken)
    if p.moment in ("offer", "forced_stock") or (p.took is not None and p.stock == p.rules.first_stock and n == 2):
        passes = p.passed
    elif p.moment == "after_draw" and p.stock == p.rules.first_stock - 1 and len(p.pile) == 1 and p.took is None and n == 2:
        passes = 2  # both passed and I drew the first card of the stock
    else:
        passes = 0  # not known
    if n == 2:
        mine = (draws + 1) // 2
    else:  # the turns went round from the seat after those who passed
        first = (p.dealer + 1 + passes) % n
        mine = sum(1 for i in range(draws) if (first + i) % n == 0)
    log = B.NO_LOG
    if history is not None:
        v = history.view
        taken[:] = v[L.V_TAKEN : L.V_TAKEN + L.MAX_SEATS]
        discarded[:] = v[L.V_DISCARDED : L.V_DISCARDED + L.MAX_SEATS]
        log = v[L.V_LOG_TURNS : L.V_LOG_END]
        draws = v[L.V_DRAWS]
        mine = v[L.V_MY_DRAWS]
        passes = history.passed
    my_draws = B.draws_by_seat_nb(n, 0, draws, mine)
    drawn = L.NO_CARD
    if p.moment == "after_draw":  # the card drawn this turn: unknown from the stock, so any of the hand
        drawn = p.took if p.took is not None else next(iter(_bits(p.hand)))
    phase = {"offer": L.PHASE_OFFER, "forced_stock": L.PHASE_FORCED_STOCK}.get(p.moment, L.PHASE_DRAW)
    board = np.zeros((L.BOARD_ROWS, L.V_SIZE), dtype=np.int64)
    scores = np.zeros(L.MAX_SEATS, dtype=np.int64)
    scores[:n] = p.scores or 0
    B.mid_hand_board_nb(board, p.rules.to_array(), p.dealer, 0, scores, upcard,
                        np.asarray(p.pile, dtype=np.int64), np.zeros(p.stock, dtype=np.int64), hands, taken, discarded,
                        my_draws, passes, draws, 0, phase, drawn, B.NO_STYLES, log)
    board[0, L.V_LAST_CHANCE] = int(p.last_chance)  # as the engine's offer of the fiftieth card shows it
    return board[0]


def _bits(mask: int) -> Iterable[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low
