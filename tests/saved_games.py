"""Games saved as ``oklasim play --save`` writes them, with a strategy typing the person's moves (for tests of the
review and the statistics)."""

from __future__ import annotations

import json
from pathlib import Path

from oklasim._kernels import layout as L
from oklasim.game.cards import format_card
from oklasim.game.rules import Rules
from oklasim.strategies.registry import resolve
from oklasim.table.referee import BotSeat, Table
from oklasim.table.terminal import SAVE_FORMAT


def save_bot_game(path: Path, person: str, against: str, seed: int, rules: Rules | None = None,
                  stop_after: int | None = None) -> dict:
    """Game ``seed`` with ``person`` playing seat 0 typed as moves; written to ``path`` as a finished save (or an
    unfinished one cut after ``stop_after`` moves). Returns the record."""
    rules = rules or Rules()
    moves: list[str] = []
    offered = [False]  # a knock offer played on: its discard was typed at the offer

    def watch(seat, kind, view, answer, known):
        if seat != 0:
            return
        if kind == L.D_TAKE_UPCARD:
            moves.append("t" if answer else "n")
        elif kind == L.D_DRAW:
            moves.append("p" if answer else "s")
        elif kind == L.D_KNOCK:
            if answer == L.BIG_GIN:
                moves.append("big gin")
            elif answer != L.NO_CARD:
                moves.append(f"knock {format_card(answer)}")
            elif view[L.V_LAST_CHANCE]:
                moves.append("n")
            else:
                offered[0] = True
        elif kind == L.D_DISCARD:
            if offered[0]:
                offered[0] = False
            moves.append(format_card(answer))
        else:
            moves.append(str(answer + 1))

    table = Table(rules, [BotSeat(resolve(person)), BotSeat(resolve(against))], seed, watch=watch)
    table.play_game()
    finished = stop_after is None or stop_after >= len(moves)
    record = {"format": SAVE_FORMAT, "against": against, "rules": rules.to_dict(), "seed": seed, "coach": False,
              "moves": moves if finished else moves[:stop_after], "finished": finished}
    path.write_text(json.dumps(record))
    return record
