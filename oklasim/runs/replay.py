"""Turn engine traces into readable, turn-by-turn text (debugging and teaching)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from oklasim._kernels import engine_nb as E
from oklasim._kernels import layout as L
from oklasim.errors import OklasimError
from oklasim.game.cards import format_card, format_hand
from oklasim.game.rules import Rules
from oklasim.runs import storage
from oklasim.runs.batch import MAX_COUNT, stored_spec, written_by_this_code
from oklasim.sim.engine import kernel_rules, resolve_all, run_kernel, trace_rows
from oklasim.strategies.registry import Strategy


def _event_text(event: int, seat: int, a: int, b: int) -> str:
    who = f"seat {seat}"
    if event == E.EV_DEAL:
        return f"{who} is dealt {format_hand(a, by_rank=True)}"
    if event == E.EV_UPCARD:
        limit = "gin only" if b == 0 else f"knock limit {b}"
        return f"dealer is seat {seat}; upcard {format_card(a)}: {limit}"
    if event == E.EV_PASS:
        return f"{who} passes the upcard"
    if event == E.EV_TAKE_UPCARD:
        return f"{who} takes the upcard {format_card(a)}"
    if event == E.EV_DRAW_STOCK:
        return f"{who} draws {format_card(a)} from the stock"
    if event == E.EV_DRAW_PILE:
        return f"{who} takes {format_card(a)} from the discard pile"
    if event == E.EV_DISCARD:
        return f"{who} discards {format_card(a)}"
    if event == E.EV_KNOCK:
        if a == L.BIG_GIN:
            return f"{who} goes big gin"
        return f"{who} {'goes gin' if b == 0 else f'knocks with {b}'}, discarding {format_card(a)}"
    if event == E.EV_MELDS:
        return f"    {who} lays {format_hand(a)}"
    if event == E.EV_LAYOFF:
        laid = f"lays off {format_hand(a)}" if a else "lays off nothing"
        return f"    {who} {laid}; deadwood {b}"
    if event == E.EV_SCORE:
        outcome = L.OUTCOME_NAMES[b]
        return f"    {outcome}: nobody scores" if seat < 0 else f"    {outcome}: seat {seat} scores {a}"
    if event == E.EV_VOID:
        return f"    hand void ({L.OUTCOME_NAMES[a]}): no score, the same dealer deals again"
    raise OklasimError(f"unknown trace event {event}")


def format_trace(trace: np.ndarray) -> list[str]:
    lines: list[str] = []
    current = None
    for game, hand, seat, event, a, b in trace.tolist():
        if (game, hand) != current:
            current = (game, hand)
            lines.append(f"-- game {game}, hand {hand + 1}")
        lines.append(_event_text(event, seat, a, b))
    return lines


def replay(
    rules: Rules, strategies: Sequence[str | Strategy], seed: int, game: int, hands_only: bool = False, extra_paths=()
) -> list[str]:
    """Lines describing game ``game`` of ``seed`` turn by turn, exactly as a run played it."""
    if isinstance(game, bool) or not isinstance(game, int) or not 0 <= game < MAX_COUNT:
        raise OklasimError(f"game {game!r} is not a game of any run: numbers go from 0 to {MAX_COUNT - 1:,}")
    seats = resolve_all(strategies, rules.players, extra_paths)
    hand_records, game_records, trace = run_kernel(
        kernel_rules(rules, hands_only), seats, seed, game, 1, trace_capacity=trace_rows(L.MAX_HANDS_PER_GAME)
    )
    lines = format_trace(trace)
    if not hands_only:
        record = game_records[0]
        scores = ", ".join(str(record[L.G_TOTALS + s]) for s in range(rules.players))
        winner = f"seat {record[L.G_WINNER]} wins" if record[L.G_WINNER] >= 0 else "nobody wins"
        lines.append(f"== {winner} after {record[L.G_HANDS]} hands; totals {scores}")
    return lines


def replay_run(run_dir: str | Path, game: int, hands_only: bool | None = None, **given) -> list[str]:
    """Game ``game`` of the run in ``run_dir``, with the rules, strategies and seed of its manifest (``given``:
    ``rules``, ``players``, ``seed``, ``strategy_paths`` as ``stored_spec`` takes them, each checked against it)."""
    manifest = storage.read_manifest(Path(run_dir))
    if not written_by_this_code(manifest):
        raise OklasimError(f"{run_dir} was played by oklasim {manifest.get('version', '?')} with other kernel code: "
                           "this one would not replay its games as they were; replay it with that version")
    spec = stored_spec(run_dir, **given)
    if hands_only is not None and hands_only != (spec.mode == "hands"):
        raise OklasimError(f"{run_dir} played {spec.mode}, not {'hands' if hands_only else 'games'}: leave out --hands")
    if isinstance(game, bool) or not isinstance(game, int) or not 0 <= game < spec.count:
        raise OklasimError(f"{run_dir} played {spec.count:,} {spec.mode}: --game goes from 0 to {spec.count - 1:,}")
    return replay(spec.rules_object(), spec.seats(), spec.seed, game, spec.mode == "hands", spec.strategy_paths)
