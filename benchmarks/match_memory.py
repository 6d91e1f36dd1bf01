"""What remembering the opponent across the games of a match is worth: games won with and without it, same deals.

    python benchmarks/match_memory.py [--players expert] [--members hunter,wary,...] [--matches 300] [--length 10]
    python benchmarks/match_memory.py --players 'search(samples=512)' --members hunter --matches 100

A seat of ``oklasim agent --remember-opponents`` (and of the EAAI adapter, by
default) carries the public style counts (``V_STYLE``: what the showdowns
showed of how each seat plays) from one game to the next; the engine's games
each start afresh, so that any game replays from its seed. Here each player
(``--players``) meets each opponent (``--members``: the outside panel's, from
``benchmarks/panel/``, or any oklasim strategy) in ``--matches`` matches of
``--length`` games to the rules' target, in both seatings, once forgetting
and once remembering: game ``g`` is dealt alike in both, so the first game of
every match is the same game. A row gives the games won each way and the gain
with a 95% interval over the matches (a match's games depend on each other
through the memory; matches do not). The games are played on ``GameBoard``,
one process, with the counts carried as the agent carries them.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from common import machine_load

from oklasim._kernels import layout as L
from oklasim.analysis.stats import mean_ci
from oklasim.game.rules import PRESETS, Rules
from oklasim.sim.board import GameBoard
from oklasim.strategies.registry import Strategy, resolve, split_strategies
from panel import MEMBERS, PANEL_DIR


def play_game(rules: Rules, seats: list[Strategy], seed: int, game: int, styles: np.ndarray | None):
    """Game ``game`` of ``seed`` between ``seats``, starting from the style counts ``styles`` (None: none); the
    winner (-1: none) and the counts at its end."""
    board = GameBoard(rules, seed, game, events=False)
    if styles is not None:
        board.board[: rules.players, L.V_STYLE : L.V_STYLE_END] = styles
    while (asked := board.next_decision()) is not None:
        seat, kind = asked
        strategy = seats[seat]
        board.apply(seat, kind, int(strategy.decide(kind, board.view(seat), strategy.vector())))
    winner = board.result()["winner"]
    return (-1 if winner is None else winner), board.view(0)[L.V_STYLE : L.V_STYLE_END].copy()


def match_wins(rules: Rules, seats: list[Strategy], ours: int, seed: int, first: int, length: int,
               remember: bool) -> float:
    """Share of the match's ``length`` games (games ``first`` on of ``seed``) that seat ``ours`` won."""
    styles, wins = None, 0
    for game in range(first, first + length):
        winner, carried = play_game(rules, seats, seed, game, styles)
        styles = carried if remember else None
        wins += winner == ours
    return wins / length


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default="expert", help="the strategies judged, separated by commas")
    parser.add_argument("--members", default=",".join(MEMBERS), help="their opponents, separated by commas")
    parser.add_argument("--matches", type=int, default=300, help="matches per seating (default 300)")
    parser.add_argument("--length", type=int, default=10, help="games per match (default 10)")
    parser.add_argument("--rules", default="eaai", help=f"a rules preset ({', '.join(PRESETS)}) or a TOML file")
    parser.add_argument("--seed", type=int, default=500, help="the deals' seed (default 500)")
    args = parser.parse_args()
    if args.matches < 2 or args.length < 2:
        parser.error("--matches and --length must be at least 2")
    try:
        rules = Rules.load(args.rules)
        players = {spec: resolve(spec) for spec in split_strategies(args.players)}
        members = {spec: resolve(spec, extra_paths=[str(PANEL_DIR)]) for spec in split_strategies(args.members)}
    except ValueError as exc:
        parser.error(str(exc))
    print(f"match_memory: rules {args.rules}, {args.matches} matches of {args.length} games per seating, "
          f"seed {args.seed}; {machine_load()}")
    print(f"{'player':28} {'opponent':20} {'games':>6}  {'forget':>7}  {'remember':>8}  gain, pp [95%]")
    for player_name, player in players.items():
        for member_name, member in members.items():
            started, shares = time.perf_counter(), {False: [], True: []}
            for ours in (0, 1):
                seats = [player, member] if ours == 0 else [member, player]
                for match in range(args.matches):
                    for remember in (False, True):
                        shares[remember].append(match_wins(rules, seats, ours, args.seed + ours,
                                                           match * args.length, args.length, remember))
            forget, remember = np.array(shares[False]), np.array(shares[True])
            gain = mean_ci(100 * (remember - forget))
            print(f"{player_name:28} {member_name:20} {forget.size * args.length:>6}  "
                  f"{forget.mean():>7.1%}  {remember.mean():>8.1%}  {gain.bracketed('+.1f')}"
                  f"  {time.perf_counter() - started:.0f} s")
    print(f"match_memory: {machine_load()} at the end")


if __name__ == "__main__":
    main()
