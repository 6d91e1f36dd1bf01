"""Realistic positions from played games, for benchmarks and calibration."""

from __future__ import annotations

from typing import Any

from oklasim._kernels import engine_nb as E
from oklasim._kernels import layout as L
from oklasim.advise.request import Request
from oklasim.advise.worlds import worlds_for
from oklasim.game.cards import N_CARDS, format_card, format_hand
from oklasim.game.rules import Rules
from oklasim.sim.engine import kernel_rules, resolve_all, run_kernel, trace_rows


def positions_from_play(rules: Rules, strategies, hands: int, seed: int, knock_only: bool = True,
                        with_history: bool = False):
    """Seat 0's decisions after its draws in ``hands`` hands of ``strategies`` (me, the opponent; or one for both).

    Yields ``(request, opponent_hand, opponent_stock_draws)``: ``request`` holds
    the fields of ``advise`` that describe what seat 0 knew (with
    ``with_history``, as the history of the hand in place of the pile, the
    cards the opponent took and the passes); the other two are the truth it
    did not know. With ``knock_only``, only decisions where a knock was legal.
    """
    names = [strategies] if isinstance(strategies, str) else list(strategies)
    seats = resolve_all(names, 2)
    _, _, trace = run_kernel(kernel_rules(rules, True), seats, seed, 0, hands, trace_capacity=trace_rows(hands))
    h: dict[str, Any] = {"game": -1}
    for game, _, seat, event, a, _ in trace.tolist():
        who = "me" if seat == 0 else "opp"
        if event == E.EV_DEAL:
            if h["game"] != game:
                h = {"game": game, "hands": [0, 0], "pile": [], "took": [0, 0], "stock": rules.first_stock, "passes": 0,
                     "stock_draws": [0, 0], "turns": []}
            h["hands"][seat] = a
        elif event == E.EV_UPCARD:
            h.update(upcard=a, dealer=seat, pile=[a])
        elif event == E.EV_PASS:
            h["passes"] += 1
            h["turns"].append(f"{who} pass")
        elif event in (E.EV_TAKE_UPCARD, E.EV_DRAW_PILE, E.EV_DRAW_STOCK):
            took = None
            if event == E.EV_DRAW_STOCK:
                h["stock"] -= 1
                h["stock_draws"][seat] += 1
            else:
                took = h["pile"].pop()
                h["took"][seat] |= 1 << took
            h["turns"].append(f"{who} {DRAW_WORDS[event]}")
            h["hands"][seat] |= 1 << a
            limit = rules.knock_limit(h["upcard"])
            forbidden = took if took is not None and not rules.discard_taken_card else L.NO_CARD
            if seat == 0 and (not knock_only or E.knock_discards_nb(h["hands"][0], limit, forbidden)):
                request = {"hand": format_hand(h["hands"][0]), "upcard": format_card(h["upcard"]), "stock": h["stock"],
                           "rules": rules}
                if with_history:
                    request["history"] = "; ".join(h["turns"])
                else:
                    request.update({
                        "pile": " ".join(format_card(c) for c in h["pile"]),
                        "opponent_took": format_hand(h["took"][1]),
                        "took": format_card(took) if took is not None else None, "passed": h["passes"],
                        "dealer": "me" if h["dealer"] == 0 else "opponent"})
                yield request, h["hands"][1], h["stock_draws"][1]
        elif event in (E.EV_DISCARD, E.EV_KNOCK) and a != L.BIG_GIN:
            h["hands"][seat] &= ~(1 << a)
            h["pile"].append(a)
            h["turns"][-1] += f" {format_card(a)}"


DRAW_WORDS = {E.EV_TAKE_UPCARD: "upcard", E.EV_DRAW_PILE: "pile", E.EV_DRAW_STOCK: "stock"}


def without_history(request: dict) -> dict:
    """A request of ``positions_from_play(..., with_history=True)`` told without its history, as a player who does
    not type one would: the pile, what the opponent took, the card just taken, who dealt and the passes."""
    position = worlds_for(Request(**request)).position
    told = {k: v for k, v in request.items() if k != "history"}
    return told | {"pile": list(position.pile), "took": position.took, "passed": position.passed,
                   "opponent_took": [c for c in range(N_CARDS) if position.opponent_took >> c & 1],
                   "dealer": "me" if position.dealer == 0 else "opponent"}
