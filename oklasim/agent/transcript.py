"""Engine games as agent-protocol transcripts: what a referee would send one seat, and what the seat answered.

``transcript`` plays games in oklasim's engine with tracing on and turns
the trace into the messages a referee sends seat ``me`` under the protocol
(only what that seat may see), each decision request paired with the
answer the engine's strategy gave in the game. The tests feed these to the
agent and expect the same answers; the benchmark times the agent on them.
"""

from __future__ import annotations

from collections.abc import Iterator

from oklasim._kernels import engine_nb as E
from oklasim._kernels import layout as L
from oklasim.agent.protocol import Agent
from oklasim.game.cards import format_card, format_hand
from oklasim.game.rules import Rules
from oklasim.sim.engine import HANDS_PER_GAME, kernel_rules, resolve_all, run_kernel, trace_rows
from oklasim.strategies.registry import resolve

LONG_GAME = 3 * HANDS_PER_GAME  # hands traced per game: a game longer than this stops the transcript, said so


def decide(decision: str) -> dict:
    return {"type": "decide", "decision": decision}


def transcript(rules: Rules, strategies: list[str], seed: int, games: int) -> Iterator[tuple[dict, dict | None]]:
    """(message, expected answer fields or None) for seat 0 through ``games`` games of 2-4 players."""
    players = rules.players
    seats = resolve_all(strategies, players)
    records, _, trace = run_kernel(kernel_rules(rules, False), seats, seed, 0, games,
                                   trace_capacity=trace_rows(games * LONG_GAME))
    rows = trace.tolist()
    held, scores, game, hands_over = [0] * players, [0] * players, 0, 0
    stock = 0
    for index, (g, hand_no, who, event, a, b) in enumerate(rows):
        if g != game:
            yield {"type": "game_over"}, None
            game, scores = g, [0] * players
        held = follow_hands(held, who, event, a)
        if event == E.EV_DEAL and who == 0:
            dealt = a
        elif event == E.EV_UPCARD:
            stock = 52 - players * rules.hand_size - 1
            yield {"type": "new_hand", "seat": 0, "dealer": who, "hand": format_hand(dealt), "upcard": format_card(a),
                   "scores": list(scores), "hand_number": hand_no}, None
        elif event in (E.EV_PASS, E.EV_TAKE_UPCARD):
            if who == 0:
                yield decide("take_upcard"), {"take": event == E.EV_TAKE_UPCARD}
            if event == E.EV_PASS:
                yield {"type": "pass", "seat": who}, None
            else:
                yield {"type": "draw", "seat": who, "from": "pile", "card": format_card(a)}, None
        elif event in (E.EV_DRAW_STOCK, E.EV_DRAW_PILE):
            source = "pile" if event == E.EV_DRAW_PILE else "stock"
            if who == 0:
                yield decide("draw"), {"from": source}
            shown = who == 0 or source == "pile"
            stock -= source == "stock"
            yield {"type": "draw", "seat": who, "from": source, "card": format_card(a) if shown else None}, None
        elif event == E.EV_DISCARD:
            yield {"type": "discard", "seat": who, "card": format_card(a)}, None
        elif event == E.EV_KNOCK:
            if a != L.BIG_GIN:
                yield {"type": "discard", "seat": who, "card": format_card(a)}, None
            yield {"type": "knock", "seat": who}, None
            if who != 0:
                yield decide("melds"), None
        elif event in (E.EV_SCORE, E.EV_VOID):
            # At the fiftieth card seat 0 was offered the last discard, which the seat before it made, and declined.
            offered = rules.wall_rule == "fiftieth_card" and rows[index - 1][2] == players - 1 and stock <= 2
            if event == E.EV_VOID and a == L.OUT_VOID and offered:
                yield decide("draw"), {"from": "none"}
            for seat, hand in enumerate(held):  # every hand is shown after the hand, as the EAAI referee does
                yield {"type": "final_hand", "seat": seat, "hand": format_hand(hand)}, None
            record = records[hands_over]  # every seat's points: with 3-4 players several may score in a hand
            hands_over += 1
            scores = [score + int(record[L.H_SEAT_POINTS + seat]) for seat, score in enumerate(scores)]
            yield {"type": "hand_over", "scores": list(scores)}, None
        if event in (E.EV_TAKE_UPCARD, E.EV_DRAW_STOCK, E.EV_DRAW_PILE) and who == 0:
            yield decide("discard"), after_draw(rows, index)


def follow_hands(held: list[int], who: int, event: int, card: int) -> list[int]:
    """Every seat's cards after one trace event."""
    if event == E.EV_DEAL:
        held = held.copy()
        held[who] = card
    elif event in (E.EV_TAKE_UPCARD, E.EV_DRAW_STOCK, E.EV_DRAW_PILE):
        held = held.copy()
        held[who] |= 1 << card
    elif event == E.EV_DISCARD or (event == E.EV_KNOCK and card != L.BIG_GIN):
        held = held.copy()
        held[who] &= ~(1 << card)
    return held


def after_draw(rows: list, index: int) -> dict:
    """Seat 0's answer after the draw at ``rows[index]``: the discard, or the knock with its melds."""
    _, _, _, event, a, b = rows[index + 1]
    if event == E.EV_DISCARD:
        return {"card": format_card(a), "knock": False}
    melds = []
    for _, _, who, later, meld, _ in rows[index + 2 :]:
        if later != E.EV_MELDS:
            break
        melds.append(format_hand(meld).split())
    card = None if a == L.BIG_GIN else format_card(a)
    return {"card": card, "knock": True, "melds": melds, "deadwood": b}


class _Recorder:
    """Stands in for the seat's strategy: keeps a copy of each view it is asked about."""

    def __init__(self, strategy):
        self.strategy, self.calls = strategy, []

    def __getattr__(self, name):
        return getattr(self.strategy, name)

    def decide(self, kind, view, params):
        self.calls.append((kind, view.copy()))
        return self.strategy.decide(kind, view, params)


def recorded_views(rules: Rules, strategies: list[str], seed: int, games: int) -> list[tuple[int, object]]:
    """(decision kind, view) of every decision seat 0 (``strategies[0]``) is asked in ``games`` games, the views
    exactly as the agent protocol builds them (for timing a strategy's decisions or checking its answers)."""
    agent = Agent(rules, resolve(strategies[0]))
    recorder = agent.seat.strategy = _Recorder(agent.seat.strategy)
    for message, _ in transcript(rules, strategies, seed, games):
        agent.handle(message)
    return recorder.calls
