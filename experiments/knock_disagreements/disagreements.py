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
"""

from __future__ import annotations

import argparse
import copy
import sys
from pathlib import Path

import numpy as np

from oklasim._kernels import layout as L
from oklasim.analysis.stats import mean_ci
from oklasim.errors import OklasimError
from oklasim.game.rules import PRESETS, Rules
from oklasim.sim.board import GameBoard
from oklasim.strategies.registry import resolve
from oklasim.table.referee import BotSeat

PANEL_DIR = Path(__file__).resolve().parents[2] / "benchmarks" / "panel"  # the outside panel's members resolve too


def seat(spec: str) -> BotSeat:
    """The strategy ``spec`` (an outside panel member too) in a seat, deciding on the board's own row."""
    return BotSeat(resolve(spec, extra_paths=[str(PANEL_DIR)]))


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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--player", default="search", help="the strategy judged (default search)")
    parser.add_argument("--opponent", required=True, help="its opponent: a strategy or an outside panel member")
    parser.add_argument("--games", type=int, default=100, help="games to 100 played (default 100)")
    parser.add_argument("--rules", default="eaai", choices=sorted(PRESETS), help="a rules preset (default eaai)")
    parser.add_argument("--seed", type=int, default=900, help="the games' seed")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    try:
        player, expert, opponent = seat(args.player), seat("expert"), seat(args.opponent)
    except OklasimError as error:
        parser.error(str(error))
    rules = Rules.preset(args.rules)
    per_game = {"knocks": [], "holds": []}
    counts = {"knocks": 0, "holds": 0}
    for game in range(args.games):
        rows = play_game(rules, args.seed, game, player, expert, opponent)
        for what in per_game:
            mine = [gain for _, knocks, gain in rows if knocks == (what == "knocks")]
            per_game[what].append(sum(mine))
            counts[what] += len(mine)
        print(f"\r{game + 1}/{args.games} games", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    print(f"{args.player} against {args.opponent}, {args.rules}, {args.games} games, seed {args.seed}: "
          "points per game from its knock decisions unlike expert's (expert playing on after either)")
    total = mean_ci(np.add(per_game["knocks"], per_game["holds"]))
    for label, estimate, n in (("knocks where expert holds", mean_ci(per_game["knocks"]), counts["knocks"]),
                               ("holds where expert knocks", mean_ci(per_game["holds"]), counts["holds"]),
                               ("all", total, counts["knocks"] + counts["holds"])):
        print(f"  {label:<27} {n:>5} decisions  {estimate.mean:+6.2f} [{estimate.low:+.2f}, {estimate.high:+.2f}]")


if __name__ == "__main__":
    main()
