"""The agent protocol (docs/agent-protocol.md): JSON lines in, JSON lines out, one seat.

``Agent.handle`` takes one decoded message and returns the reply to write
(an answer to a decision, an error naming the bad field) or ``None`` for an
accepted event; ``serve`` runs it over a pair of text streams.
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from oklasim import __version__
from oklasim.agent.seat import ProtocolError, SeatView
from oklasim.game.cards import format_card, format_hand, mask_of, parse_card
from oklasim.game.rules import Rules
from oklasim.strategies.registry import Strategy

PROTOCOL_VERSION = 1
DECISIONS = ("take_upcard", "draw", "discard", "melds")
# Events after a knock that change nothing the seat decides on: accepted, checked for a seat number.
SHOWDOWN_EVENTS = ("melds", "layoff", "final_hand")


# Every spelling parse_card accepts for the 52 cards, so that a referee's card costs one lookup.
CARD_TEXTS = {
    text: card
    for card in range(52)
    for rank in ([format_card(card)[0], "10"] if format_card(card)[0] == "T" else [format_card(card)[0]])
    for text in (rank.upper() + format_card(card)[1].lower(), rank.lower() + format_card(card)[1].lower(),
                 rank.upper() + format_card(card)[1].upper(), rank.lower() + format_card(card)[1].upper())
}


def card_of(value: Any, field: str) -> int:
    card = CARD_TEXTS.get(value) if isinstance(value, str) else None
    if card is not None:
        return card
    if not isinstance(value, str):
        raise ProtocolError(field, f"{field}: a card is written as text such as 'Th', got {value!r}")
    try:
        return parse_card(value)
    except ValueError as exc:
        raise ProtocolError(field, f"{field}: {exc}") from None


def cards_of(value: Any, field: str) -> list[int]:
    """A list of card texts, or one string of cards separated by spaces."""
    if isinstance(value, str):
        value = value.replace(",", " ").split()
    if not isinstance(value, list):
        raise ProtocolError(field, f"{field}: give a list of cards, got {value!r}")
    cards = [card_of(item, field) for item in value]
    if len(set(cards)) != len(cards):
        raise ProtocolError(field, f"{field}: a card is listed twice")
    return cards


def melds_json(melds: tuple[int, ...]) -> list[list[str]]:
    return [format_hand(m).split() for m in melds]


class Agent:
    """One seat answering a referee: decodes messages, drives a ``SeatView``, encodes replies."""

    def __init__(self, rules: Rules, strategy: Strategy, seed: int = 0):
        self.seat = SeatView(rules, strategy, seed)
        self.rules = rules
        self.strategy = strategy
        self.handlers = {name[4:]: getattr(self, name) for name in dir(self) if name.startswith("_on_")}

    def hello(self) -> dict[str, Any]:
        changed = {k: v for k, v in self.rules.to_dict().items() if v != getattr(Rules(), k)}
        return {"type": "hello", "v": PROTOCOL_VERSION, "agent": "oklasim", "version": __version__,
                "strategy": self.strategy.canonical(), "rules": changed, "players": self.rules.players}

    def handle_line(self, line: str) -> dict[str, Any] | None:
        try:
            message = json.loads(line)
        except json.JSONDecodeError as exc:
            return error("line", f"not JSON: {exc.msg} at column {exc.colno}")
        return self.handle(message)

    def handle(self, message: Any) -> dict[str, Any] | None:
        try:
            if not isinstance(message, dict):
                raise ProtocolError("line", "each line must be one JSON object")
            if message.get("v", PROTOCOL_VERSION) != PROTOCOL_VERSION:
                raise ProtocolError("v", f"protocol version {message['v']!r} is not supported (this agent speaks {PROTOCOL_VERSION})")
            kind = message.get("type")
            handler = self.handlers.get(kind) if isinstance(kind, str) else None
            if handler is None:
                raise ProtocolError("type", f"unknown message type {kind!r}")
            return handler(message)
        except ProtocolError as exc:
            return error(exc.field, str(exc))
        except RuntimeError as exc:  # the strategy itself answered illegally
            return error("strategy", str(exc))
        except Exception as exc:  # noqa: BLE001 - a bug must still reach the referee as a line, not kill the seat
            return error("internal", f"{type(exc).__name__}: {exc}")

    # -- events ---------------------------------------------------------------------------

    def _on_new_hand(self, m):
        hand = mask_of(cards_of(require(m, "hand"), "hand"))
        upcard = card_of(require(m, "upcard"), "upcard")
        self.seat.new_hand(require(m, "seat"), require(m, "dealer"), hand, upcard, m.get("scores"), m.get("hand_number"))

    def _on_pass(self, m):
        self.seat.passed(require(m, "seat"))

    def _on_draw(self, m):
        card = m.get("card")
        self.seat.drew(require(m, "seat"), require(m, "from"), None if card is None else card_of(card, "card"))

    def _on_discard(self, m):
        self.seat.discarded(require(m, "seat"), card_of(require(m, "card"), "card"))

    def _on_knock(self, m):
        self.seat.knocked(require(m, "seat"))

    def _on_hand_over(self, m):
        self.seat.hand_over(m.get("scores"))

    def _on_game_over(self, m):
        self.seat.game_over()

    def _on_info(self, m):
        if "seat" in m:
            self.seat.check_seat(m["seat"])

    _on_melds = _on_layoff = _on_final_hand = _on_info

    def _on_quit(self, m):
        raise SystemExit(0)

    # -- decisions ------------------------------------------------------------------------

    def _on_decide(self, m):
        decision = require(m, "decision")
        answer: dict[str, Any] = {"type": "answer", "v": PROTOCOL_VERSION, "decision": decision}
        if "id" in m:
            answer["id"] = m["id"]
        if decision == "take_upcard":
            answer["take"] = self.seat.take_upcard()
        elif decision == "draw":
            answer["from"] = self.seat.draw()
        elif decision == "discard":
            turn = self.seat.play_turn()
            answer["card"] = None if turn.card is None else format_card(turn.card)
            answer["knock"] = turn.knock
            if turn.knock:
                answer["melds"] = melds_json(turn.melds)
                answer["deadwood"] = turn.deadwood
        elif decision == "melds":
            melds, dw = self.seat.defend()
            answer["melds"] = melds_json(melds)
            answer["deadwood"] = dw
        else:
            raise ProtocolError("decision", f"unknown decision {decision!r}; one of {', '.join(DECISIONS)}")
        return answer


def require(message: dict, field: str):
    if field not in message:
        raise ProtocolError(field, f"{message.get('type')}: missing field {field!r}")
    return message[field]


def error(field: str, message: str) -> dict[str, Any]:
    return {"type": "error", "v": PROTOCOL_VERSION, "field": field, "message": message}


def serve(agent: Agent, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> int:
    """Answer the referee until 'quit' (exit status 0) or until its input ends (status 1: a dead referee)."""
    write(stdout, agent.hello())
    while True:
        line = stdin.readline()
        if not line:
            print("oklasim agent: the referee closed the input without 'quit'", file=sys.stderr)
            return 1
        if not line.strip():
            continue
        try:
            reply = agent.handle_line(line)
        except SystemExit as done:
            return int(done.code or 0)
        if reply is not None:
            write(stdout, reply)


def write(stdout: TextIO, message: dict[str, Any]) -> None:
    stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    stdout.flush()
