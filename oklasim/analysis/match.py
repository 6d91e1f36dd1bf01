"""Fair comparisons: duplicate (paired) deals, matches between two strategies, round-robin tournaments.

Every deal is played twice with the seats swapped: game ``g`` of a seed has
the same deck order (and the same first dealer) whichever strategy sits
where, so A's result in seat 0 and in seat 1 on the same deal form a pair
and the luck of the cards largely cancels in their difference.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import polars as pl

from oklasim.analysis.stats import Estimate, mean_ci, proportion, ratio_ci
from oklasim.errors import OklasimError
from oklasim.game.rules import Rules
from oklasim.runs.batch import RunSpec, run
from oklasim.sim.engine import play_count
from oklasim.strategies.registry import Strategy, resolve, split_strategies


@dataclass(frozen=True)
class Side:
    """One strategy's figures over both seatings."""

    name: str
    points_per_hand: Estimate
    hands_won: Estimate
    games_won: Estimate | None
    outcomes: dict[str, Estimate]

    def as_dict(self) -> dict:
        out = {
            "name": self.name,
            "points_per_hand": self.points_per_hand.as_dict(),
            "hands_won": self.hands_won.as_dict(),
            "outcomes": {k: v.as_dict() for k, v in self.outcomes.items()},
        }
        if self.games_won is not None:
            out["game_win_rate"] = self.games_won.as_dict()
        return out

    @classmethod
    def from_dict(cls, data: dict) -> Side:
        """The inverse of ``as_dict``."""
        games_won = data.get("game_win_rate")
        return cls(data["name"], Estimate.from_dict(data["points_per_hand"]), Estimate.from_dict(data["hands_won"]),
                   None if games_won is None else Estimate.from_dict(games_won),
                   {name: Estimate.from_dict(value) for name, value in data["outcomes"].items()})


@dataclass(frozen=True)
class MatchResult:
    a: Side
    b: Side
    diff_points_per_hand: Estimate  # A minus B, from paired deals
    unpaired_diff_points_per_hand: Estimate  # the same data treated as unpaired, for comparison
    void_share: Estimate
    mode: str
    deals: int
    hands: int
    seed: int
    rules: dict = field(repr=False)
    # A's paired net points on each deal, averaged over the seatings (hands mode): for paired comparisons
    # across matches on the same deals, e.g. a tuned strategy and its default against one opponent.
    deal_nets: np.ndarray | None = field(default=None, repr=False, compare=False)
    # A's share of the wins of each game over the seatings (games mode): 1 won in every seat, 0 in none.
    game_wins: np.ndarray | None = field(default=None, repr=False, compare=False)

    @property
    def variance_reduction(self) -> float:
        """How many times fewer deals pairing needs for the same interval width."""
        paired = self.diff_points_per_hand.half_width
        return (self.unpaired_diff_points_per_hand.half_width / paired) ** 2 if paired else float("inf")

    def as_dict(self) -> dict:
        return {
            "a": self.a.as_dict(),
            "b": self.b.as_dict(),
            "diff_points_per_hand": self.diff_points_per_hand.as_dict(),
            "unpaired_diff_points_per_hand": self.unpaired_diff_points_per_hand.as_dict(),
            "variance_reduction": self.variance_reduction,
            "void": self.void_share.as_dict(),
            "mode": self.mode,
            "deals": self.deals,
            "hands": self.hands,
            "seed": self.seed,
            "rules": self.rules,
        }

    @classmethod
    def from_dict(cls, data: dict) -> MatchResult:
        """The inverse of ``as_dict`` (``variance_reduction`` is derived again; the per-deal arrays are not stored)."""
        return cls(
            a=Side.from_dict(data["a"]),
            b=Side.from_dict(data["b"]),
            diff_points_per_hand=Estimate.from_dict(data["diff_points_per_hand"]),
            unpaired_diff_points_per_hand=Estimate.from_dict(data["unpaired_diff_points_per_hand"]),
            void_share=Estimate.from_dict(data["void"]),
            mode=data["mode"],
            deals=int(data["deals"]),
            hands=int(data["hands"]),
            seed=int(data["seed"]),
            rules=data["rules"],
        )


def _points_of(seat: pl.Expr, players: int) -> pl.Expr:
    """The points column of a seat given as an expression."""
    expr = pl.lit(0)
    for p in range(players):
        expr = pl.when(seat == p).then(pl.col(f"points_{p}")).otherwise(expr)
    return expr


def _side(name: str, hands: pl.DataFrame, games: pl.DataFrame | None, mine, players: int) -> Side:
    """One side's figures; ``mine(expr)`` says whether a seat (an expression) belongs to the side."""
    sides_seats = range(players)
    own_points = sum(pl.when(mine(pl.lit(p))).then(pl.col(f"points_{p}")).otherwise(0) for p in sides_seats)
    own_seats = sum(pl.when(mine(pl.lit(p))).then(1).otherwise(0) for p in sides_seats)
    knocked = mine(pl.col("knocker"))
    undercut_made = sum(
        pl.when(mine(pl.lit(p)) & (pl.col("knocker") != p) & (pl.col(f"points_{p}") > 0)).then(1).otherwise(0)
        for p in sides_seats
    )
    table = hands.select(
        per_seat=own_points / own_seats,
        won=mine(pl.col("winner")),
        knock=knocked & (pl.col("outcome") == "knock"),
        gin=knocked & pl.col("outcome").is_in(["gin", "big_gin"]),
        undercut_suffered=knocked & (pl.col("outcome") == "undercut"),
        undercut_made=(pl.col("knocker") >= 0) & ~knocked & (undercut_made > 0),
    )
    n = table.height
    outcomes = {k: proportion(int(table[k].sum()), n) for k in ("knock", "gin", "undercut_suffered", "undercut_made")}
    games_won = None
    if games is not None:
        games_won = proportion(int(games.select(mine(pl.col("winner")).sum()).item()), games.height)
    return Side(name, mean_ci(table["per_seat"].to_numpy()), proportion(int(table["won"].sum()), n), games_won, outcomes)


def seatings(a, b, players: int) -> list[list]:
    """The seatings of a duplicate deal: A in each seat in turn, B in every other seat."""
    return [[a if place == seat else b for place in range(players)] for seat in range(players)]


def seat_nets(hands: pl.DataFrame, seat: int, players: int) -> np.ndarray:
    """Per hand, the seat's points minus the average of the other seats' (A's net when A sits in ``seat``)."""
    others = [hands[f"points_{p}"].to_numpy() for p in range(players) if p != seat]
    return hands[f"points_{seat}"].to_numpy() - np.mean(others, axis=0)


def match(
    a: str | Strategy,
    b: str | Strategy,
    rules: Rules | str | None = None,
    hands: int | None = None,
    games: int | None = None,
    seed: int = 0,
    workers: int | None = 1,
    strategy_paths: Sequence[str] = (),
    progress: bool = False,
) -> MatchResult:
    """Play A against B on duplicate deals: each deal once per seat, A taking each seat in turn.

    With two players this is the classic swap of seats; with 3-4, B holds
    every other seat. A's result on a deal is its points minus the average
    of B's seats, averaged over the seatings. ``rules``: a ``Rules``, a preset
    name or a TOML file (``Rules.of``).
    """
    rules = Rules.of(rules)
    play_count(hands, games)  # checked before anything is compiled
    players = rules.players
    sa = a if isinstance(a, Strategy) else resolve(a, extra_paths=strategy_paths)
    sb = b if isinstance(b, Strategy) else resolve(b, extra_paths=strategy_paths)
    frames, game_frames, nets = [], [], []
    for seat, seats in enumerate(seatings(sa, sb, players)):
        spec = RunSpec.create(rules, seats, games=games, hands=hands, seed=seed, strategy_paths=strategy_paths)
        result = run(spec, None, workers=workers, progress=progress)
        h = result.hands.with_columns(pl.lit(seat).alias("seating"))
        nets.append(seat_nets(h, seat, players))
        frames.append(h)
        if games is not None:
            game_frames.append(result.games.with_columns(pl.lit(seat).alias("seating")))
    deal_nets = None
    if hands is not None:
        deal_nets = np.mean(nets, axis=0)  # hand i of every seating is the same deal
        paired = mean_ci(deal_nets)
        unpaired = mean_ci(np.concatenate(nets))
    else:
        per_game = [
            h.with_columns(net=pl.Series(net)).group_by("game").agg(pl.col("net").sum(), pl.len().alias("n")).sort("game")
            for h, net in zip(frames, nets)
        ]
        total = sum(g["net"].to_numpy() for g in per_game)
        count = sum(g["n"].to_numpy() for g in per_game)
        paired = ratio_ci(total, count)  # game g of every seating starts alike
        unpaired = ratio_ci(np.concatenate([g["net"].to_numpy() for g in per_game]) * players,
                            np.concatenate([g["n"].to_numpy() for g in per_game]) * players)
    every = pl.concat(frames)
    every_game = pl.concat(game_frames) if games is not None else None
    game_wins = None
    if games is not None:  # game g of every seating is dealt alike; A sits in seat ``seating``
        game_wins = np.mean([g.sort("game")["winner"].to_numpy() == seat for seat, g in enumerate(game_frames)], axis=0)
    void = int(every["outcome"].is_in(["void", "guard"]).sum())
    return MatchResult(
        a=_side(sa.name, every, every_game, lambda seat: seat == pl.col("seating"), players),
        b=_side(sb.name, every, every_game, lambda seat: (seat >= 0) & (seat != pl.col("seating")), players),
        diff_points_per_hand=paired,
        unpaired_diff_points_per_hand=unpaired,
        void_share=proportion(void, every.height),
        mode="hands" if hands is not None else "games",
        deals=hands if hands is not None else games,
        hands=every.height,
        seed=seed,
        rules=rules.to_dict(),
        deal_nets=deal_nets,
        game_wins=game_wins,
    )


def match_text(result: MatchResult) -> str:
    players = result.rules["players"]
    seatings = "both seatings" if players == 2 else f"{players} seatings, {result.a.name} taking each seat in turn"
    lines = [
        f"{result.a.name} vs {result.b.name}: {result.deals:,} {result.mode}, each played in {seatings} "
        f"({result.hands:,} hands), seed {result.seed}"
    ]
    name = max(28, len(result.a.name) + 2, len(result.b.name) + 2)  # every strategy named in full
    header = (f"{'':<{name}}{'points/hand':>16}{'hands won':>16}{'knock':>14}{'gin':>14}{'undercut by':>14}"
              f"{'undercut':>14}")
    if result.a.games_won is not None:
        header += f"{'games won':>16}"
    lines.append(header)
    for side in (result.a, result.b):
        o = side.outcomes
        row = (
            f"{side.name:<{name}}{side.points_per_hand.text(2):>16}{side.hands_won.text(1, True):>16}"
            f"{o['knock'].text(1, True):>14}{o['gin'].text(1, True):>14}{o['undercut_suffered'].text(1, True):>14}"
            f"{o['undercut_made'].text(1, True):>14}"
        )
        if side.games_won is not None:
            row += f"{side.games_won.text(1, True):>16}"
        lines.append(row)
    d = result.diff_points_per_hand
    verdict = "no significant difference"
    if d.low > 0:
        verdict = f"{result.a.name} is better"
    elif d.high < 0:
        verdict = f"{result.b.name} is better"
    gain = result.variance_reduction
    pairing = (
        f"pairing cut the variance {gain:.1f}x"
        if gain > 1
        else f"pairing did not cut the variance ({gain:.1f}x: games part ways after their first hand)"
    )
    lines.append(
        f"A - B points per hand (paired): {d.text(3)}  [{d.low:.3f}, {d.high:.3f}]  -> {verdict}; "
        f"{pairing}; void hands {result.void_share.text(1, True)}"
    )
    return "\n".join(lines)


@dataclass(frozen=True)
class Standing:
    """One strategy's place in a round robin: its head-to-head record and its average paired edge."""

    name: str
    wins: int  # matches won: the paired difference's 95% interval above 0
    losses: int  # matches lost: the interval below 0
    undecided: int  # the rest: no difference shown
    edge: Estimate  # average paired edge over all the others, points per hand
    edge_place: int  # its place by the edge alone
    tied_edge: Estimate | None = None  # average paired edge over the others of the same record (None: no other)


RANKING_RULE = ("ranked by head-to-head record (Copeland): matches won minus matches lost, a win or a loss being a "
                "match whose paired difference's 95% interval excludes 0; a tie by the average paired edge over the "
                "others of the same record alone (their matches among themselves), then over all")


@dataclass(frozen=True)
class TournamentResult:
    names: list[str]
    matches: dict[tuple[str, str], MatchResult]

    def diff(self, row: str, col: str) -> Estimate:
        """Row minus column, points per hand (paired)."""
        if (row, col) in self.matches:
            return self.matches[(row, col)].diff_points_per_hand
        d = self.matches[(col, row)].diff_points_per_hand
        return Estimate(-d.mean, -d.high, -d.low, d.n)

    def score(self, name: str, among: Sequence[str] | None = None) -> Estimate:
        """Average paired edge in points per hand against all the others, or those ``among`` (independent
        matches)."""
        edges = [self.diff(name, other) for other in (self.names if among is None else among) if other != name]
        mean = float(np.mean([e.mean for e in edges]))
        half = float(np.sqrt(sum(e.half_width**2 for e in edges))) / len(edges)
        return Estimate(mean, mean - half, mean + half, len(edges))

    def ranking(self) -> list[Standing]:
        """The standings, by head-to-head record (``RANKING_RULE``): an average over the field would let one
        large win over an absurd entrant outrank losses to everyone else, and so would it among entrants of the
        same record, which their matches among themselves order instead."""
        by_edge = sorted(self.names, key=lambda n: -self.score(n).mean)
        records = {}
        for name in self.names:
            diffs = [self.diff(name, other) for other in self.names if other != name]
            records[name] = (sum(d.low > 0 for d in diffs), sum(d.high < 0 for d in diffs))
        standings = []
        for name, (wins, losses) in records.items():
            tied = [other for other, record in records.items() if record[1] - record[0] == losses - wins]
            standings.append(Standing(name, wins, losses, len(self.names) - 1 - wins - losses, self.score(name),
                                      by_edge.index(name) + 1, self.score(name, tied) if len(tied) > 1 else None))
        return sorted(standings, key=lambda s: (s.losses - s.wins, -(s.tied_edge.mean if s.tied_edge else 0),
                                                s.edge_place))

    def as_dict(self) -> dict:
        return {
            "ranked_by": RANKING_RULE,
            "ranking": [{"name": s.name, "wins": s.wins, "losses": s.losses, "undecided": s.undecided,
                         "edge_points_per_hand": s.edge.as_dict(), "edge_place": s.edge_place,
                         "edge_among_tied": s.tied_edge.as_dict() if s.tied_edge else None}
                        for s in self.ranking()],
            "matches": [
                {"a": a, "b": b, "diff_points_per_hand": r.diff_points_per_hand.as_dict()}
                for (a, b), r in self.matches.items()
            ],
        }


def tournament(names: str | Sequence[str], progress_callback=None, **match_args) -> TournamentResult:
    """Round robin: a paired match between every two strategies (a list, or names separated by commas)."""
    names = split_strategies(names) if isinstance(names, str) else list(names)
    if len(set(names)) < 2:
        raise OklasimError("a tournament needs at least two different strategies")
    for name in names:  # every name checked before the first match is played
        resolve(name, extra_paths=match_args.get("strategy_paths", ()))
    results = {}
    for a, b in itertools.combinations(names, 2):
        results[(a, b)] = match(a, b, **match_args)
        if progress_callback:
            progress_callback(a, b)
    return TournamentResult(names, results)


def tournament_text(result: TournamentResult) -> str:
    """The matrix and the standings, every strategy named in full (its column as wide as its name)."""
    width = max(len(n) for n in result.names) + 2
    columns = [max(len(n) + 2, 17) for n in result.names]
    lines = ["row minus column, points per hand (paired, 95% interval); * = significant"]
    lines.append(" " * width + "".join(f"{n:>{c}}" for n, c in zip(result.names, columns)))
    for row in result.names:
        cells = []
        for col, column in zip(result.names, columns):
            if row == col:
                cells.append(f"{'-':>{column}}")
                continue
            d = result.diff(row, col)
            mark = "*" if d.low > 0 or d.high < 0 else " "
            cells.append(f"{f'{d.mean:+.2f} ±{d.half_width:.2f}{mark}':>{column}}")
        lines.append(f"{row:<{width}}" + "".join(cells))
    lines.append(f"{RANKING_RULE}:")
    lines.append(f"  {'':<{width + 4}}{'won':>5}{'lost':>6}{'undecided':>11}   {'among tied':<16}"
                 "average edge (points per hand)")
    for place, s in enumerate(result.ranking(), 1):
        tied = f"{s.tied_edge.mean:+.3f} ±{s.tied_edge.half_width:.3f}" if s.tied_edge else ""
        lines.append(f"  {place:>2}. {s.name:<{width}}{s.wins:>5}{s.losses:>6}{s.undecided:>11}   {tied:<16}"
                     f"{s.edge.mean:+.3f} ±{s.edge.half_width:.3f}")
    return "\n".join(lines)
