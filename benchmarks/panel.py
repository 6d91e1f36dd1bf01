"""The outside panel: the strong players judged on their worst case against five styles unlike oklasim's own.

    python benchmarks/panel.py [--games 200] [--players expert,search] [--rules eaai] [--seed 49]
    python benchmarks/panel.py --games 4 --players expert --members hunter,sloppy   # a quick look
    python benchmarks/panel.py --players "expert,oracle(member=sloppy)" --members sloppy --strategy-path benchmarks/oracle

Issue 49: ``expert`` and ``search`` were tuned and measured mostly against
oklasim's own families, which share their kit and habits. The panel in
``benchmarks/panel/`` is five rule-based players of other styles, each file's
docstring saying which style it reconstructs and where the idea comes from:
``hunter`` (plays for gin), ``snatcher`` (takes every pile card that helps,
knocks at once), ``wary`` (a cautious discarder that never feeds the
opponent's pickups), ``sloppy`` (a beginner with random slips) and
``counter`` (knock timing by draws and by the opponent's pickups and
discards). Play them anywhere with ``--strategy-path benchmarks/panel``.

For each player (``--players``, separated by commas) and each member, every
deal is played as a whole game to the rules' target score (100 under
``eaai``) twice, the seats swapped: game ``g`` of a seed is dealt alike
whichever strategy sits where, and every member meets the same deals. A row
gives the games played, the player's share of them won (a drawn or guarded
game is not a win) with its 95% Wilson interval over all those games (the
two seatings of a deal tend to go opposite ways, so the interval errs wide),
and its mean margin per game (its points with the bonuses less the
member's) with a 95% interval over the deals, each deal's two games
averaged. Members held out from tuning are starred. The last line per player
is its worst case over the panel: the member it wins least against (and the
one with its lowest margin, when that is another). With several players,
each after the first is then set against the first member by member, deal
by deal: the difference in games won (percentage points) and in margin per
game, with 95% intervals over the deals. The deals are the same, so these
intervals are far narrower than the rows', and they decide whether one
player beats another against a member.

Held out from tuning (``HELD_OUT``): ``hunter`` and ``wary``. Tuning code
(``oklasim tune --against``, a tuning panel, a study's opponent list, a
search over parameters) must never play them, so that they stay an honest
test of what tuning against the other members (``TUNABLE``) produces; a
measurement such as this script may play all five.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from common import machine_load

from oklasim.analysis.stats import Estimate, mean_ci, paired_difference, proportion
from oklasim.game.rules import PRESETS, Rules
from oklasim.sim.engine import simulate
from oklasim.strategies.registry import resolve, split_strategies

PANEL_DIR = Path(__file__).resolve().parent / "panel"
MEMBERS = ("hunter", "snatcher", "wary", "sloppy", "counter")
# Never played by tuning code: kept for judging what tuning against the others yields.
HELD_OUT = ("hunter", "wary")
TUNABLE = tuple(member for member in MEMBERS if member not in HELD_OUT)


@dataclass(frozen=True)
class Pairing:
    """A player's results against one member over both seatings of every deal."""

    player: str
    member: str
    games: int
    wins: Estimate  # share of the games won
    margin: Estimate  # points per game, the player's less the member's
    deal_wins: np.ndarray = field(repr=False, compare=False)  # games won of each deal's two, in deal order
    deal_margins: np.ndarray = field(repr=False, compare=False)  # each deal's margin, its two games averaged


def play_pairing(rules: Rules, player: str, member: str, deals: int, seed: int, paths=(str(PANEL_DIR),)) -> Pairing:
    """Every deal twice, the player in seat 0 and then in seat 1; the same ``seed`` deals both alike; strategies
    are found in ``paths`` too."""
    wins, margins = np.zeros(deals, dtype=np.int64), []
    for seat in (0, 1):
        seats = [player, member] if seat == 0 else [member, player]
        games = simulate(rules, strategies=seats, games=deals, seed=seed, extra_paths=list(paths)).games
        games = games.sort("game")
        wins += (games["winner"] == seat).to_numpy()
        margins.append(games[f"total_{seat}"].to_numpy() - games[f"total_{1 - seat}"].to_numpy())
    per_deal = np.mean(margins, axis=0)  # game g of both seatings is the same deal
    return Pairing(player, member, 2 * deals, proportion(int(wins.sum()), 2 * deals), mean_ci(per_deal), wins,
                   per_deal)


def paired_line(pairing: Pairing, reference: Pairing, width: int) -> str:
    """``pairing``'s player less ``reference``'s against the same member on the same deals: games won (percentage
    points) and margin per game, each with a 95% interval over the deals (paired, far narrower than the rows')."""
    won = paired_difference(pairing.deal_wins / 2, reference.deal_wins / 2)
    margin = paired_difference(pairing.deal_margins, reference.deal_margins)
    star = "*" if pairing.member in HELD_OUT else " "
    return (f"{pairing.player:<{width}}  {pairing.member + star:<9}  {won.bracketed('+.1f', 100):<24}  "
            f"{margin.bracketed('+.1f'):<24}")


def row(pairing: Pairing, width: int) -> str:
    star = "*" if pairing.member in HELD_OUT else " "
    return (f"{pairing.player:<{width}}  {pairing.member + star:<9}  {pairing.games:>6}  "
            f"{pairing.wins.bracketed('.1f', 100, '%'):<24}  {pairing.margin.bracketed('+.1f'):<24}")


def worst_line(pairings: list[Pairing]) -> str:
    by_wins = min(pairings, key=lambda p: p.wins.mean)
    by_margin = min(pairings, key=lambda p: p.margin.mean)
    text = (f"worst case for {by_wins.player}: {by_wins.member}, win share {by_wins.wins.bracketed('.1f', 100, '%')}, "
            f"margin {by_wins.margin.bracketed('+.1f')} points per game")
    if by_margin.member != by_wins.member:
        text += f"; lowest margin against {by_margin.member}, {by_margin.margin.bracketed('+.1f')}"
    return text


def parse_names(text: str, option: str, parser: argparse.ArgumentParser, extra_paths=()) -> list[str]:
    names = split_strategies(text)
    if not names:
        parser.error(f"{option}: name at least one strategy")
    for name in names:
        try:
            resolve(name, extra_paths=extra_paths)
        except Exception as error:  # OklasimError, told as a usage error
            parser.error(f"{option} {name}: {error}")
    return names


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description="Play expert and search (or --players) against the outside panel of benchmarks/panel/ and print "
                    "win shares, margins and each player's worst case over the panel.",
        epilog=f"Held out from tuning: {', '.join(HELD_OUT)} (see the module docstring).",
    )
    parser.add_argument("--games", type=int, default=200, help="deals per pairing, each played as two whole games "
                                                               "with the seats swapped (default 200)")
    parser.add_argument("--players", default="expert,search", help="the strategies judged, separated by commas "
                                                                   "(default expert,search; search is slow)")
    parser.add_argument("--members", default=",".join(MEMBERS), help="the panel members played (default all: "
                                                                     f"{','.join(MEMBERS)})")
    parser.add_argument("--rules", default="eaai", help=f"a rules preset ({', '.join(PRESETS)}) or a TOML file "
                                                        "(default eaai)")
    parser.add_argument("--seed", type=int, default=49, help="the deals' seed, the same for every pairing")
    parser.add_argument("--strategy-path", action="append", default=[], metavar="DIR",
                        help="also find players in this folder of strategy files (repeatable), e.g. "
                             "benchmarks/oracle")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    try:
        rules = Rules.of(args.rules)
    except Exception as error:
        parser.error(f"--rules {args.rules}: {error}")
    if rules.players != 2:
        parser.error("--rules: the panel plays two-player games")
    paths = (str(PANEL_DIR), *args.strategy_path)
    players = parse_names(args.players, "--players", parser, paths)
    members = parse_names(args.members, "--members", parser, [str(PANEL_DIR)])
    unknown = [m for m in members if m not in MEMBERS]
    if unknown:
        parser.error(f"--members: {', '.join(unknown)} not in the panel ({', '.join(MEMBERS)})")

    print(f"panel: {machine_load()} at the start")
    print(f"rules {args.rules}, target {rules.target_score}; {args.games} deals per pairing, each played twice with "
          f"the seats swapped; seed {args.seed}; * held out from tuning")
    width = max(len("player"), *(len(p) for p in players))
    header = (f"{'player':<{width}}  {'member':<9}  {'games':>6}  {'win share [95%]':<24}  "
              f"{'margin/game [95%]':<24}")
    print(header)
    print("-" * len(header))
    played = []
    for player in players:
        pairings = []
        for member in members:
            started = time.perf_counter()
            pairing = play_pairing(rules, player, member, args.games, args.seed, paths)
            pairings.append(pairing)
            print(f"{row(pairing, width)}  {time.perf_counter() - started:7.1f} s", flush=True)
        played.append(pairings)
    print()
    for pairings in played:
        print(worst_line(pairings))
    if len(players) > 1:
        print()
        print(f"against {players[0]} on the same deals, paired deal by deal:")
        header = f"{'player':<{width}}  {'member':<9}  {'games won (pp) [95%]':<24}  {'margin/game [95%]':<24}"
        print(header)
        print("-" * len(header))
        for pairings in played[1:]:
            for pairing, reference in zip(pairings, played[0]):
                print(paired_line(pairing, reference, width))
    print(f"panel: {machine_load()} at the end")


if __name__ == "__main__":
    main()
