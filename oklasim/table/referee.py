"""A two-player referee in plain Python, speaking the agent protocol to its seats (``oklasim play``).

The engine plays strategies against strategies in numba; a person cannot
sit in it. ``Table`` deals, offers, asks and scores by the same rules
(``Rules``; scores from ``oklasim.game.reference.settle``, layoffs from
``oklasim.game.melds``), telling each seat only what it may see as agent-protocol
events (``docs/agent-protocol.md``), so a bot seat is an ``Agent`` and a
person's seat is anything with the same four methods. Every answer is
checked; an illegal one raises ``IllegalMove`` with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from oklasim.agent.seat import Turn
from oklasim.errors import OklasimError
from oklasim.game import melds, reference
from oklasim.game.cards import N_CARDS, format_card, format_hand

PLAYERS = 2


class IllegalMove(OklasimError):
    """A seat's answer the rules do not allow."""


class Seat(Protocol):
    def tell(self, message: dict) -> None: ...
    def take_upcard(self) -> bool: ...
    def draw(self) -> str: ...  # "pile" or "stock"; at the fiftieth-card wall "pile" (to knock) or "none"
    def play_turn(self) -> Turn: ...


def cards_text(mask: int) -> list[str]:
    return format_hand(mask).split()


@dataclass
class HandState:
    """Where every card is during a hand."""

    hands: list[int]
    stock: list[int]  # top last
    pile: list[int]  # top last
    upcard: int
    limit: int
    multiplier: int
    draws: int = 0


def knock_legal(hand: int, card: int | None, limit: int) -> tuple[bool, int]:
    """Whether discarding ``card`` (None: lay all 11) from ``hand`` leaves a knock; and that deadwood."""
    after = hand if card is None else hand & ~(1 << card)
    dw = int(melds.deadwood([after])[0])
    return dw <= limit, dw


class Table:
    """Deals and referees whole two-player games between two seats."""

    def __init__(self, rules, seats: list[Seat], seed: int):
        if rules.players != PLAYERS:
            raise OklasimError(f"the table seats two players; the rules have {rules.players}")
        if rules.deal_knock_limit >= 0:  # a simulation option of the engine's dealing, not a way to play
            raise OklasimError("the table deals as in play: deal_knock_limit is for simulations only (leave it -1)")
        self.rules = rules
        self.seats = seats
        self.rng = np.random.default_rng(seed)
        self.scores = [0, 0]
        self.boxes = [0, 0]
        self.dealer = int(self.rng.integers(PLAYERS))
        self.hand_number = 0

    # -- telling ------------------------------------------------------------------------

    def tell_all(self, message: dict, private: dict | None = None, to: int | None = None) -> None:
        """``message`` to every seat; seat ``to`` gets ``private`` (what only it may see) instead."""
        for seat, player in enumerate(self.seats):
            player.tell(private if seat == to and private is not None else message)

    # -- a game -------------------------------------------------------------------------

    def play_game(self) -> dict:
        """Hands until a score reaches the target (one hand under ``single_hand``); returns the game's result."""
        while True:
            result = self.play_hand()
            if result["winner"] is not None:
                self.boxes[result["winner"]] += 1
            if self.rules.single_hand or max(self.scores) >= self.rules.target_score:
                break
            self.dealer = self.next_dealer(result)
        final = self.final_totals()
        self.tell_all({"type": "game_over", **final})
        return final

    def next_dealer(self, result: dict) -> int:
        winner = result["winner"]
        if winner is None:
            return self.dealer
        return {"winner": winner, "alternate": 1 - self.dealer, "loser": 1 - winner}[self.rules.dealer_rule]

    def final_totals(self) -> dict:
        """Totals with box, game and shutout bonuses (RULES.md §7)."""
        r = self.rules
        totals = [s + b * r.box_bonus for s, b in zip(self.scores, self.boxes)]
        if self.scores[0] == self.scores[1]:  # one void or tied hand under single_hand: no winner
            return {"scores": list(self.scores), "totals": totals, "winner": None}
        winner = int(np.argmax(self.scores))
        shutout = self.scores[1 - winner] == 0
        totals[winner] += r.game_bonus * (2 if shutout and r.shutout_rule == "double_bonus" else 1)
        if shutout and r.shutout_rule == "double_total":
            totals[winner] *= 2
        return {"scores": list(self.scores), "totals": totals, "winner": winner}

    # -- a hand -------------------------------------------------------------------------

    def deal(self) -> HandState:
        deck = [int(c) for c in self.rng.permutation(N_CARDS)]
        hands = [0, 0]
        for k in range(2 * self.rules.hand_size):
            hands[(self.dealer + 1 + k) % PLAYERS] |= 1 << deck[k]
        upcard = deck[2 * self.rules.hand_size]
        stock = deck[2 * self.rules.hand_size + 1 :][::-1]
        state = HandState(hands, stock, [upcard], upcard, self.rules.knock_limit(upcard),
                          self.rules.score_multiplier(upcard))
        for seat, player in enumerate(self.seats):
            player.tell({"type": "new_hand", "seat": seat, "dealer": self.dealer, "hand": cards_text(hands[seat]),
                         "upcard": format_card(upcard), "scores": list(self.scores), "hand_number": self.hand_number})
        self.hand_number += 1
        return state

    def play_hand(self) -> dict:
        s = self.deal()
        first = (self.dealer + 1) % PLAYERS
        taker = None
        for seat in (first, self.dealer):
            if self.seats[seat].take_upcard():
                taker = seat
                break
            self.tell_all({"type": "pass", "seat": seat})
        if taker is None:
            seat, source = first, "stock"
        else:
            seat, source = taker, "pile"
        while True:
            if s.draws >= self.rules.max_draws:
                return self.void(s, "guard")
            taken = self.draw(s, seat, source)
            result = self.after_draw(s, seat, taken)
            if result is not None:
                return result
            if len(s.stock) <= 2:  # the wall
                if self.rules.wall_rule != "fiftieth_card":
                    return self.void(s, "void")
                return self.last_chance(s, 1 - seat)
            seat = 1 - seat
            source = self.seats[seat].draw()
            if source not in ("pile", "stock"):
                raise IllegalMove(f"seat {seat}: draw from the 'pile' or the 'stock', not {source!r}")

    def draw(self, s: HandState, seat: int, source: str) -> int | None:
        """Move a card into ``seat``'s hand; returns the card if it came from the pile."""
        card = s.pile.pop() if source == "pile" else s.stock.pop()
        s.hands[seat] |= 1 << card
        s.draws += 1
        public = {"type": "draw", "seat": seat, "from": source, "card": format_card(card) if source == "pile" else None}
        self.tell_all(public, {**public, "card": format_card(card)}, to=seat)
        return card if source == "pile" else None

    def after_draw(self, s: HandState, seat: int, taken: int | None, must_knock: bool = False) -> dict | None:
        """The seat discards, or knocks and the hand is scored (returned)."""
        turn = self.seats[seat].play_turn()
        hand = s.hands[seat]
        forbidden = taken if taken is not None and not self.rules.discard_taken_card else None
        if turn.card is None:
            if not (turn.knock and self.rules.big_gin and melds.deadwood([hand])[0] == 0):
                raise IllegalMove(f"seat {seat}: big gin needs all 11 cards melded{'' if self.rules.big_gin else ' (and is not played)'}")
        elif not hand >> turn.card & 1:
            raise IllegalMove(f"seat {seat} does not hold {format_card(turn.card)}")
        elif turn.card == forbidden:
            raise IllegalMove(f"seat {seat} may not discard {format_card(turn.card)}: it was just taken from the pile")
        if must_knock and not turn.knock:
            raise IllegalMove(f"seat {seat} took the last discard: it must knock")
        if turn.knock:
            return self.knock(s, seat, turn)
        s.hands[seat] &= ~(1 << turn.card)
        s.pile.append(turn.card)
        self.tell_all({"type": "discard", "seat": seat, "card": format_card(turn.card)})
        return None

    def last_chance(self, s: HandState, seat: int) -> dict:
        """Fiftieth-card rule: ``seat`` may take the last discard only to knock; otherwise the hand is void."""
        answer = self.seats[seat].draw()
        if answer == "none":
            return self.void(s, "void")
        if answer != "pile":
            raise IllegalMove(f"seat {seat}: at the wall take the 'pile' to knock, or 'none'")
        taken = self.draw(s, seat, "pile")
        return self.after_draw(s, seat, taken, must_knock=True)

    def knock(self, s: HandState, seat: int, turn: Turn) -> dict:
        legal, dw = knock_legal(s.hands[seat], turn.card, s.limit)
        if not legal:
            limit = "gin only" if s.limit == 0 else f"the limit is {s.limit}"
            raise IllegalMove(f"seat {seat} cannot knock: {dw} deadwood after the discard, {limit}")
        if turn.card is not None:
            s.hands[seat] &= ~(1 << turn.card)
            s.pile.append(turn.card)
            self.tell_all({"type": "discard", "seat": seat, "card": format_card(turn.card)})
        hand = s.hands[seat]
        if set(turn.melds) not in [set(a) for a in melds.optimal_arrangements(hand)]:
            raise IllegalMove(f"seat {seat}: the melds laid must be an arrangement of least deadwood")
        big_gin = turn.card is None
        gin = dw == 0
        defender = 1 - seat
        if gin:
            defender_dw, laid = int(melds.deadwood([s.hands[defender]])[0]), 0
        else:
            defender_dw, laid = melds.layoff_deadwood(turn.melds, s.hands[defender])
        outcome, knocker_points, defender_points = reference.settle(dw, defender_dw, gin, big_gin, self.rules)
        points = [0, 0]
        points[seat], points[defender] = knocker_points * s.multiplier, defender_points * s.multiplier
        winner = None if outcome == "tie" else defender if outcome == "undercut" else seat
        for k in range(PLAYERS):
            self.scores[k] += points[k]
        self.tell_all({"type": "knock", "seat": seat, "melds": [cards_text(m) for m in turn.melds], "deadwood": dw})
        self.tell_all({"type": "layoff", "seat": defender, "cards": cards_text(laid), "deadwood": defender_dw})
        for k in range(PLAYERS):
            self.tell_all({"type": "final_hand", "seat": k, "hand": cards_text(s.hands[k])})
        result = {"outcome": outcome, "knocker": seat, "winner": winner, "points": points,
                  "deadwood": {"knocker": dw, "defender": defender_dw}}
        self.tell_all({"type": "hand_over", "scores": list(self.scores), **result})
        return result

    def void(self, s: HandState, outcome: str) -> dict:
        for k in range(PLAYERS):
            self.tell_all({"type": "final_hand", "seat": k, "hand": cards_text(s.hands[k])})
        result = {"outcome": outcome, "knocker": None, "winner": None, "points": [0, 0]}
        self.tell_all({"type": "hand_over", "scores": list(self.scores), **result})
        return result


class AgentSeat:
    """A bot seat: an ``Agent`` answering the table through the protocol's messages."""

    def __init__(self, agent):
        self.agent = agent

    def tell(self, message: dict) -> None:
        self._reply(message)

    def take_upcard(self) -> bool:
        return self._decide("take_upcard")["take"]

    def draw(self) -> str:
        return self._decide("draw")["from"]

    def play_turn(self) -> Turn:
        from oklasim.game.cards import parse_card, parse_hand

        answer = self._decide("discard")
        card = None if answer["card"] is None else parse_card(answer["card"])
        melds_laid = tuple(parse_hand(" ".join(m)) for m in answer.get("melds", []))
        return Turn(card, answer["knock"], melds_laid, answer.get("deadwood", 0))

    def _decide(self, decision: str) -> dict:
        return self._reply({"type": "decide", "decision": decision})

    def _reply(self, message: dict) -> dict | None:
        reply = self.agent.handle(message)
        if reply is not None and reply["type"] == "error":
            raise RuntimeError(f"the bot refused {reply['field']}: {reply['message']}")
        return reply
