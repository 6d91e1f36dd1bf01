"""The agent protocol (docs/agent-protocol.md): JSON lines in, JSON lines out, one seat.

``Agent.handle`` takes one decoded message and returns the reply to write
(an answer to a decision, an error naming the bad field) or ``None`` for an
accepted event; ``serve`` runs it over a pair of text streams. Whatever a
line holds, it gets at most one reply, and a refused line changes nothing.
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from oklasim import __version__
from oklasim.agent.seat import IllegalAnswer, ProtocolError, SeatView, describe
from oklasim.game.cards import format_card, format_hand, mask_of, parse_card
from oklasim.game.rules import Rules
from oklasim.strategies.registry import Strategy

PROTOCOL_VERSION = 1
MAX_LINE_BYTES = 64 * 1024  # a real message is under 1 KiB: a longer line is refused unread, whatever it holds
TAGS = ("id", "seq")  # what a referee may attach to any message to match it with the reply
MAX_TAG = 2**53 - 1  # the largest integer every JSON reader (JavaScript's included) holds exactly
DECISIONS = ("take_upcard", "draw", "discard", "melds")
# Events after a knock that change nothing the seat decides on: accepted, checked for a seat number.
SHOWDOWN_EVENTS = ("melds", "layoff")


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
        raise ProtocolError(field, f"{field}: a card is written as text such as 'Th', got {describe(value)}")
    try:
        return parse_card(value)
    except ValueError as exc:
        raise ProtocolError(field, f"{field}: {exc}") from None


def cards_of(value: Any, field: str) -> list[int]:
    """A list of card texts, or one string of cards separated by spaces."""
    if isinstance(value, str):
        value = value.replace(",", " ").split()
    if not isinstance(value, list):
        raise ProtocolError(field, f"{field}: give a list of cards, got {describe(value)}")
    cards = [card_of(item, field) for item in value]
    if len(set(cards)) != len(cards):
        raise ProtocolError(field, f"{field}: a card is listed twice")
    return cards


def melds_json(melds: tuple[int, ...]) -> list[list[str]]:
    return [format_hand(m).split() for m in melds]


class Agent:
    """One seat answering a referee: decodes messages, drives a ``SeatView``, encodes replies."""

    def __init__(self, rules: Rules, strategy: Strategy, seed: int = 0, remember_opponents: bool = False):
        self.seat = SeatView(rules, strategy, seed, remember_opponents)
        self.rules = rules
        self.strategy = strategy
        self.handlers = {name[4:]: getattr(self, name) for name in dir(self) if name.startswith("_on_")}
        self.handlers.update(dict.fromkeys(SHOWDOWN_EVENTS, self._showdown_detail))

    def hello(self) -> dict[str, Any]:
        changed = {k: v for k, v in self.rules.to_dict().items() if v != getattr(Rules(), k)}
        return {"type": "hello", "v": PROTOCOL_VERSION, "agent": "oklasim", "version": __version__,
                "strategy": self.strategy.canonical(), "rules": changed, "players": self.rules.players,
                "target_score": self.rules.target_score}

    def handle_line(self, line: str) -> dict[str, Any] | None:
        if len(line.encode("utf-8", "surrogatepass")) > MAX_LINE_BYTES:
            return error("line", f"the line is over {MAX_LINE_BYTES} bytes, the limit")
        try:
            message = json.loads(line)
        except RecursionError:
            return error("line", "not JSON this agent reads: nested too deeply")
        except ValueError as exc:  # not JSON, or an integer of more digits than Python converts
            return error("line", f"not JSON: {exc}")
        return self.handle(message)

    def handle(self, message: Any) -> dict[str, Any] | None:
        tags = tags_of(message)
        try:
            if not isinstance(message, dict):
                raise ProtocolError("line", "each line must be one JSON object")
            check_tags(message, tags)
            check_version(message)
            kind = message.get("type")
            handler = self.handlers.get(kind) if isinstance(kind, str) else None
            if handler is None:
                raise ProtocolError("type", f"unknown message type {describe(kind)}")
            answer = handler(message)
            return None if answer is None else make_reply("answer", tags, **answer)
        except ProtocolError as exc:
            return error(exc.field, str(exc), tags)
        except IllegalAnswer as exc:
            return error("strategy", str(exc), tags)
        except Exception as exc:  # noqa: BLE001 - a bug must still reach the referee as a line, not kill the seat
            return error("internal", f"{type(exc).__name__}: {exc}", tags)

    # -- events ---------------------------------------------------------------------------

    def _on_new_hand(self, m):
        hand = mask_of(cards_of(require(m, "hand"), "hand"))
        upcard = card_of(require(m, "upcard"), "upcard")
        self.seat.new_hand(require(m, "seat"), require(m, "dealer"), hand, upcard,
                           m.get("scores"), m.get("hand_number"))

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

    def _on_final_hand(self, m):
        hand = m.get("hand")
        self.seat.final_hand(require(m, "seat"), None if hand is None else mask_of(cards_of(hand, "hand")))

    def _on_game_over(self, m):
        self.seat.game_over()

    def _showdown_detail(self, m):
        if "seat" in m:
            self.seat.check_seat(m["seat"])

    def _on_quit(self, m):
        raise SystemExit(0)

    # -- decisions ------------------------------------------------------------------------

    def _on_decide(self, m):
        decision = require(m, "decision")
        answer: dict[str, Any] = {"decision": decision}
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
            raise ProtocolError("decision", f"unknown decision {describe(decision)}; one of {', '.join(DECISIONS)}")
        return answer


def require(message: dict, field: str):
    if field not in message:
        raise ProtocolError(field, f"{message.get('type')}: missing field {field!r}")
    return message[field]


def is_tag(value: Any) -> bool:
    return isinstance(value, str) or (type(value) is int and -MAX_TAG <= value <= MAX_TAG)


def tags_of(message: Any) -> dict[str, Any]:
    """The message's well-formed id and seq, echoed in its reply (a malformed one is refused by ``check_tags``)."""
    if not isinstance(message, dict):
        return {}
    return {name: message[name] for name in TAGS if name in message and is_tag(message[name])}


def check_tags(message: dict, tags: dict[str, Any]) -> None:
    for name in TAGS:
        if name in message and name not in tags:
            shown = describe(message[name])
            raise ProtocolError(name, f"{name}: a string or an integer within ±{MAX_TAG}, got {shown}")


def check_version(message: dict) -> None:
    version = message.get("v", PROTOCOL_VERSION)
    if type(version) is not int or version != PROTOCOL_VERSION:  # JSON's true and 1.0 equal 1 in Python: not here
        raise ProtocolError(
            "v", f"protocol version {describe(version)} is not supported (this agent speaks {PROTOCOL_VERSION})")


def make_reply(kind: str, tags: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"type": kind, "v": PROTOCOL_VERSION, **tags, **fields}


def error(field: str, message: str, tags: dict[str, Any] | None = None) -> dict[str, Any]:
    return make_reply("error", tags or {}, field=field, message=message)


def serve(agent: Agent, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> int:
    """Answer the referee until 'quit' (exit status 0) or until its input ends (status 1: a dead referee)."""
    write(stdout, agent.hello())
    while True:
        line = read_line(stdin)
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


def read_line(stdin: TextIO) -> str:
    """The next line ('' at the end). Bytes are read when the stream has them, so that a line that is not UTF-8 is
    refused as JSON rather than ending the agent; a line over MAX_LINE_BYTES is cut (and refused), its rest skipped."""
    source = getattr(stdin, "buffer", stdin)
    line = piece = source.readline(MAX_LINE_BYTES + 1)
    while len(line) > MAX_LINE_BYTES and piece and piece[-1:] not in ("\n", b"\n"):
        piece = source.readline(MAX_LINE_BYTES)  # read on by bounded pieces: memory stays bounded
    return line.decode("utf-8", "replace") if isinstance(line, bytes) else line


def write(stdout: TextIO, message: dict[str, Any]) -> None:
    stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    stdout.flush()
