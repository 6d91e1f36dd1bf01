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

from .batch import RunSpec, run
from .rules import Rules
from .stats import Estimate, mean_ci, proportion, ratio_ci
from .strategy import Strategy, resolve


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


def _side_outcomes(hands: pl.DataFrame, seat_of_side: pl.Expr) -> dict[str, Estimate]:
    """What happened to one side: its knocks won, gins, undercuts suffered and made (shares of all hands)."""
    n = hands.height
    knocked = pl.col("knocker") == seat_of_side
    defended = (pl.col("knocker") >= 0) & ~knocked
    counts = hands.select(
        knock=(knocked & (pl.col("outcome") == "knock")).sum(),
        gin=(knocked & pl.col("outcome").is_in(["gin", "big_gin"])).sum(),
        undercut_suffered=(knocked & (pl.col("outcome") == "undercut")).sum(),
        undercut_made=(defended & (pl.col("outcome") == "undercut")).sum(),
    ).row(0, named=True)
    return {name: proportion(int(count), n) for name, count in counts.items()}


def _side(name: str, hands: pl.DataFrame, games: pl.DataFrame | None, seat: pl.Expr, points: np.ndarray) -> Side:
    won = int(hands.select((pl.col("winner") == seat).sum()).item())
    games_won = None
    if games is not None:
        games_won = proportion(int(games.select((pl.col("winner") == seat).sum()).item()), games.height)
    return Side(name, mean_ci(points), proportion(won, hands.height), games_won, _side_outcomes(hands, seat))


def match(
    a: str | Strategy,
    b: str | Strategy,
    rules: Rules | None = None,
    hands: int | None = None,
    games: int | None = None,
    seed: int = 0,
    workers: int = 1,
    strategy_paths: Sequence[str] = (),
    progress: bool = False,
) -> MatchResult:
    """Play A against B on paired deals (each deal twice, seats swapped). Two players only."""
    rules = rules or Rules()
    if rules.players != 2:
        raise ValueError("match compares two strategies: use rules with players = 2")
    sa = a if isinstance(a, Strategy) else resolve(a, extra_paths=strategy_paths)
    sb = b if isinstance(b, Strategy) else resolve(b, extra_paths=strategy_paths)
    results = []
    for seats in ((sa, sb), (sb, sa)):
        spec = RunSpec.create(rules, seats, games=games, hands=hands, seed=seed, strategy_paths=strategy_paths)
        results.append(run(spec, None, workers=workers, progress=progress))
    h1, h2 = (r.hands.with_columns(pl.lit(i).alias("seating")) for i, r in enumerate(results))
    # Net points of A per hand: seat 0 in the first seating, seat 1 in the second.
    net1 = (h1["points_0"] - h1["points_1"]).to_numpy().astype(np.float64)
    net2 = (h2["points_1"] - h2["points_0"]).to_numpy().astype(np.float64)
    if hands is not None:
        paired = mean_ci((net1 + net2) / 2)  # hand i of both seatings is the same deal
        unpaired = mean_ci(np.concatenate([net1, net2]))
    else:
        per_game = [
            h.group_by("game").agg(pl.col("net").sum(), pl.len().alias("n")).sort("game")
            for h in (h1.with_columns(net=pl.Series(net1)), h2.with_columns(net=pl.Series(net2)))
        ]
        nets = [g["net"].to_numpy() for g in per_game]
        counts = [g["n"].to_numpy() for g in per_game]
        paired = ratio_ci(nets[0] + nets[1], counts[0] + counts[1])  # game g of both seatings starts alike
        # The same games as if unpaired, half as many units each twice as noisy.
        unpaired = ratio_ci(np.concatenate(nets) * 2, np.concatenate(counts) * 2)
    both = pl.concat([h1, h2])
    seat_a = pl.when(pl.col("seating") == 0).then(0).otherwise(1)
    seat_b = 1 - seat_a
    points_a = np.concatenate([h1["points_0"].to_numpy(), h2["points_1"].to_numpy()])
    points_b = np.concatenate([h1["points_1"].to_numpy(), h2["points_0"].to_numpy()])
    games_both = None
    if games is not None:
        games_both = pl.concat([r.games.with_columns(pl.lit(i).alias("seating")) for i, r in enumerate(results)])
    void = int(both["outcome"].is_in(["void", "guard"]).sum())
    return MatchResult(
        a=_side(sa.name, both, games_both, seat_a, points_a),
        b=_side(sb.name, both, games_both, seat_b, points_b),
        diff_points_per_hand=paired,
        unpaired_diff_points_per_hand=unpaired,
        void_share=proportion(void, both.height),
        mode="hands" if hands is not None else "games",
        deals=hands if hands is not None else games,
        hands=both.height,
        seed=seed,
        rules=rules.to_dict(),
    )


def match_text(result: MatchResult) -> str:
    lines = [
        f"{result.a.name} vs {result.b.name}: {result.deals:,} deals played in both seatings "
        f"({result.hands:,} hands), seed {result.seed}"
    ]
    header = f"{'':<28}{'points/hand':>16}{'hands won':>16}{'knock':>14}{'gin':>14}{'undercut by':>14}{'undercut':>14}"
    if result.a.games_won is not None:
        header += f"{'games won':>16}"
    lines.append(header)
    for side in (result.a, result.b):
        o = side.outcomes
        row = (
            f"{side.name[:27]:<28}{side.points_per_hand.text(2):>16}{side.hands_won.text(1, True):>16}"
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
class TournamentResult:
    names: list[str]
    matches: dict[tuple[str, str], MatchResult]

    def score(self, name: str) -> Estimate:
        """Average paired edge in points per hand against all the others (independent matches)."""
        edges = []
        for (a, b), result in self.matches.items():
            d = result.diff_points_per_hand
            if a == name:
                edges.append((d.mean, d.half_width))
            elif b == name:
                edges.append((-d.mean, d.half_width))
        mean = float(np.mean([e[0] for e in edges]))
        half = float(np.sqrt(sum(e[1] ** 2 for e in edges))) / len(edges)
        return Estimate(mean, mean - half, mean + half, len(edges))

    def ranking(self) -> list[tuple[str, Estimate]]:
        return sorted(((n, self.score(n)) for n in self.names), key=lambda item: -item[1].mean)

    def as_dict(self) -> dict:
        return {
            "ranking": [{"name": n, "edge_points_per_hand": e.as_dict()} for n, e in self.ranking()],
            "matches": [
                {"a": a, "b": b, "diff_points_per_hand": r.diff_points_per_hand.as_dict()}
                for (a, b), r in self.matches.items()
            ],
        }


def tournament(names: Sequence[str], progress_callback=None, **match_args) -> TournamentResult:
    """Round robin: a paired match between every two strategies."""
    if len(set(names)) < 2:
        raise ValueError("a tournament needs at least two different strategies")
    results = {}
    for a, b in itertools.combinations(names, 2):
        results[(a, b)] = match(a, b, **match_args)
        if progress_callback:
            progress_callback(a, b)
    return TournamentResult(list(names), results)


def tournament_text(result: TournamentResult) -> str:
    width = max(len(n) for n in result.names) + 2
    lines = ["row minus column, points per hand (paired, 95% interval); * = significant"]
    lines.append(" " * width + "".join(f"{n[:15]:>17}" for n in result.names))
    for row in result.names:
        cells = []
        for col in result.names:
            if row == col:
                cells.append(f"{'-':>17}")
                continue
            r = result.matches.get((row, col))
            d = r.diff_points_per_hand if r else result.matches[(col, row)].diff_points_per_hand
            sign = 1 if r else -1
            mark = "*" if d.low > 0 or d.high < 0 else " "
            cells.append(f"{sign * d.mean:>+9.2f} ±{d.half_width:.2f}{mark}")
        lines.append(f"{row:<{width}}" + "".join(cells))
    lines.append("ranking by average edge:")
    for place, (name, edge) in enumerate(result.ranking(), 1):
        lines.append(f"  {place}. {name:<{width}} {edge.mean:+.3f} ±{edge.half_width:.3f} points per hand")
    return "\n".join(lines)
