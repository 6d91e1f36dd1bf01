"""What a player's knock decisions that differ from expert's are worth against a given opponent.

The player (seat 0) plays whole games against the opponent (seat 1). At each
of its knock decisions where it knocks and expert would not, or the other
way round, the board is copied twice, each of the two answers applied, and
the hand played out to its end with expert in seat 0 and the opponent in
seat 1, on the same stock: the exact counterfactual of that one decision,
expert playing on after it. The gain is the player's hand points (its
points less the opponent's) after its own answer less after expert's; the
game then goes on with the player's answer. Summed per game and averaged
over the games (a 95% interval over games), split by what the player did.

It shows where a search's model of the opponent misleads it: against the
opponent its model describes the gains are positive; against one unlike it
they need not be.

    python experiments/knock_disagreements/disagreements.py --player search --opponent counter --games 300 --seed 900
    python experiments/knock_disagreements/disagreements.py --opponent counter --games 300 --by-draws   # split too
"""

from __future__ import annotations

import argparse
import copy
import sys
from pathlib import Path

from oklasim._kernels import layout as L
from oklasim.analysis.stats import mean_ci
from oklasim.errors import OklasimError
from oklasim.game.rules import PRESETS, Rules
from oklasim.sim.board import GameBoard
from oklasim.strategies.registry import resolve
from oklasim.table.referee import BotSeat

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
# The outside panel's members resolve too, and ``oracle`` (search told who its opponent is).
STRATEGY_PATHS = [str(BENCHMARKS / "panel"), str(BENCHMARKS / "oracle")]


def seat(spec: str) -> BotSeat:
    """The strategy ``spec`` (an outside panel member or the oracle too) in a seat, deciding on the board's own
    row."""
    return BotSeat(resolve(spec, extra_paths=STRATEGY_PATHS))


def hand_points_after(board: GameBoard, answer: int, me: BotSeat, opponent: BotSeat) -> int:
    """Seat 0's points less seat 1's over the rest of the hand, on a copy of the board, after ``answer``."""
    board = copy.deepcopy(board)
    before = board.scores[:2].copy()
    hands = len(board.records)
    board.apply(*board.asked, answer)
    while len(board.records) == hands and (asked := board.next_decision()) is not None:
        seat, kind = asked
        board.apply(seat, kind, (me if seat == 0 else opponent).decide(kind, board.view(seat)))
    gained = board.scores[:2] - before
    return int(gained[0] - gained[1])


def play_game(rules: Rules, seed: int, game: int, player: BotSeat, expert: BotSeat, opponent: BotSeat) -> list[tuple]:
    """(own draws, player knocks, gain) at each of the player's knock decisions that differ from expert's."""
    rows = []
    board = GameBoard(rules, seed, game, events=False)
    while (asked := board.next_decision()) is not None:
        seat, kind = asked
        view = board.view(seat)
        if seat == 1:
            board.apply(seat, kind, opponent.decide(kind, view))
            continue
        ours = expert.decide(kind, view.copy()) if kind == L.D_KNOCK and not view[L.V_BIG_GIN] else None
        answer = player.decide(kind, view)
        if ours is not None and (ours >= 0) != (answer >= 0):
            gain = hand_points_after(board, answer, expert, opponent) - hand_points_after(board, ours, expert, opponent)
            rows.append((int(view[L.V_MY_DRAWS]), answer >= 0, gain))
        board.apply(seat, kind, answer)
    return rows


# Own draws at the decision, bucketed for --by-draws: [low, high) pairs.
DRAW_BUCKETS = ((0, 2), (2, 4), (4, 6), (6, 8), (8, 99))


def in_bucket(low: int, high: int, knocks: bool):
    """The test of a row: the player knocked (or held) with ``low`` to ``high - 1`` own draws."""
    return lambda row: low <= row[0] < high and row[1] == knocks


def summary_line(label: str, games_rows: list[list[tuple]], chosen) -> str:
    """The decisions ``chosen`` picks (a test on a row), their count and their points per game with a 95% interval
    over the games (a game without one counts 0)."""
    per_game = [sum(row[2] for row in rows if chosen(row)) for rows in games_rows]
    count = sum(1 for rows in games_rows for row in rows if chosen(row))
    estimate = mean_ci(per_game)
    return f"  {label:<27} {count:>5} decisions  {estimate.mean:+6.2f} [{estimate.low:+.2f}, {estimate.high:+.2f}]"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--player", default="search", help="the strategy judged (default search)")
    parser.add_argument("--opponent", required=True, help="its opponent: a strategy or an outside panel member")
    parser.add_argument("--games", type=int, default=100, help="games to 100 played (default 100)")
    parser.add_argument("--rules", default="eaai", choices=sorted(PRESETS), help="a rules preset (default eaai)")
    parser.add_argument("--seed", type=int, default=900, help="the games' seed")
    parser.add_argument("--by-draws", action="store_true", help="also split the figures by the player's own draws "
                                                                "at the decision")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    try:
        player, expert, opponent = seat(args.player), seat("expert"), seat(args.opponent)
    except OklasimError as error:
        parser.error(str(error))
    rules = Rules.preset(args.rules)
    games_rows = []
    for game in range(args.games):
        games_rows.append(play_game(rules, args.seed, game, player, expert, opponent))
        print(f"\r{game + 1}/{args.games} games", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    print(f"{args.player} against {args.opponent}, {args.rules}, {args.games} games, seed {args.seed}: "
          "points per game from its knock decisions unlike expert's (expert playing on after either)")
    print(summary_line("knocks where expert holds", games_rows, lambda row: row[1]))
    print(summary_line("holds where expert knocks", games_rows, lambda row: not row[1]))
    print(summary_line("all", games_rows, lambda row: True))
    if args.by_draws:
        print("by its own draws at the decision:")
        for low, high in DRAW_BUCKETS:
            for knocks, what in ((True, "knocks"), (False, "holds")):
                label = f"{what}, draws {low} to {high - 1}" if high < 99 else f"{what}, draws {low} on"
                print(summary_line(label, games_rows, in_bucket(low, high, knocks)))


if __name__ == "__main__":
    main()
