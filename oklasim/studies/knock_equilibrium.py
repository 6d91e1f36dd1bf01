"""An equilibrium of the knock-rule game: both seats choose a rule of the same family, per knock limit.

The game: two players who draw and discard alike (``greedy``'s play) each
pick a knock rule "knock with deadwood <= T up to the G-th own draw, then only
gin"; the payoff is the first player's points minus the other's per hand,
played in both seatings, so the game is symmetric and zero-sum and its value
is 0. A hand's knock limit is dealt before anyone decides, so the game splits
into one game per knock limit: the rule at one limit never meets the other.

Solved by the double oracle: a few opponent *policies* (a rule per limit,
the ``policy`` strategy) are played against every rule of the grid on the
same deals; per limit the game restricted to those policies is solved
(fictitious play, exact enough on a handful of columns); every grid rule's
payoff against that mix is then known, and the best responses, one per limit,
form the next policy to add. It stops when no rule gains more than
``tolerance`` against the mix at any limit, or after ``rounds``.

Exploitability is the most any grid rule gains against the mix. It is
measured on the deals the mix was solved on and again on fresh deals (every
grid rule against the mix's policies): the mix was fitted to the first, and
the best of many noisy rules leans high on both, so the fresh figure's upper
end is a conservative bound.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..rules import Rules
from ..stats import Estimate, mean_ci
from .knock_answers import ASAP, canonical, distinct_rules
from .paired_pool import Pairing, play_pairings

FP_ITERATIONS = 5_000


def policy_spec(rules_by_limit: dict[int, tuple[int, int]]) -> str:
    """The ``policy`` strategy that plays ``{knock limit: (threshold, gin_after_draws)}`` (any legal knock elsewhere)."""
    settings = [f"at_{limit}={100 * t + g}" for limit, (t, g) in sorted(rules_by_limit.items())
                if 1 <= limit <= 10 and (t, g) != ASAP]
    return f"policy({', '.join(settings)})" if settings else "policy"


def symmetric_equilibrium(payoff: np.ndarray, iterations: int = FP_ITERATIONS) -> np.ndarray:
    """A mixed equilibrium of the symmetric zero-sum game ``payoff`` (row's gain), by fictitious play.

    The empirical mix of best responses to the running mix converges to an equilibrium; its exploitability
    within this matrix shrinks like 1/sqrt(iterations) or faster.
    """
    n = payoff.shape[0]
    counts = np.zeros(n)
    counts[0] = 1.0
    against = payoff[:, 0].copy()  # payoff @ counts, kept up to date
    for _ in range(iterations):
        best = int(np.argmax(against))
        counts[best] += 1.0
        against += payoff[:, best]
    return counts / counts.sum()


@dataclass
class LimitSolution:
    """The equilibrium at one knock limit, on the deals it was solved on."""

    limit: int
    mix: dict[tuple[int, int], float]  # rule -> weight
    best_response: tuple[int, int]
    exploitability: Estimate  # best response's gain against the mix, on the solving deals (biased upwards)
    confirmed: Estimate | None = None  # the best gain of any grid rule against the same mix on fresh deals
    confirmed_response: tuple[int, int] | None = None  # the rule that gains it


@dataclass
class Solution:
    columns: list[dict[int, tuple[int, int]]]  # the opponent policies played, rule per limit
    weights: dict[int, np.ndarray]  # per limit, the weight of each column
    by_limit: dict[int, LimitSolution] = field(default_factory=dict)
    rounds: int = 0


def _column_rules(column: dict[int, tuple[int, int]], limit: int) -> tuple[int, int]:
    return canonical(column.get(limit, ASAP), limit)


def solve(grid: list[tuple[int, int]], rules: Rules, hands: int, seed: int, workers, rounds: int,
          tolerance: float) -> Solution:
    """Double oracle over ``grid`` (which must hold ASAP) on ``hands`` deals of ``seed``."""
    columns: list[dict[int, tuple[int, int]]] = [{}]  # start: everyone knocks at once
    column_nets: list[np.ndarray] = []  # per column, nets[rule, deal] of every grid rule against it
    for round_number in range(1, rounds + 1):
        nets, limits_of_deal = play_pairings(
            [Pairing(rules, f"threshold(threshold={t}, gin_after_draws={g})", policy_spec(columns[-1])) for t, g in grid],
            hands, seed, workers)
        column_nets.append(nets)
        solution = _solve_restricted(grid, columns, column_nets, limits_of_deal)
        solution.rounds = round_number
        # Another policy is worth playing only where a rule not yet played gains against the mix.
        improvable = [limit for limit, found in solution.by_limit.items()
                      if found.exploitability.mean > tolerance
                      and canonical(found.best_response, limit) not in {_column_rules(c, limit) for c in columns}]
        if not improvable or round_number == rounds:
            break
        columns.append({limit: solution.by_limit[limit].best_response for limit in solution.by_limit})
    return solution


def _solve_restricted(grid, columns, column_nets, limits_of_deal) -> Solution:
    index_of = {rule: i for i, rule in enumerate(grid)}
    limits = sorted(int(x) for x in np.unique(limits_of_deal))
    solution = Solution(list(columns), {})
    for limit in limits:
        deals = limits_of_deal == limit
        # row: the column's own rule at this limit; entry: its payoff against the other column
        rows = [index_of[_find(grid, _column_rules(c, limit), limit)] for c in columns]
        payoff = np.array([[column_nets[j][rows[i], deals].mean() for j in range(len(columns))]
                           for i in range(len(columns))])
        payoff = (payoff - payoff.T) / 2  # the same games seen from both sides: equal up to rounding
        weights = symmetric_equilibrium(payoff)
        solution.weights[limit] = weights
        against_mix = sum(w * nets[:, deals] for w, nets in zip(weights, column_nets))  # [rule, deal]
        candidates = distinct_rules(grid, limit)
        best = candidates[int(np.argmax(against_mix[candidates].mean(axis=1)))]
        mix: dict[tuple[int, int], float] = {}
        for c, w in zip(columns, weights):
            rule = _column_rules(c, limit)
            mix[rule] = mix.get(rule, 0.0) + float(w)
        solution.by_limit[limit] = LimitSolution(limit, mix, grid[best], mean_ci(against_mix[best]))
    return solution


def _find(grid, rule, limit) -> tuple[int, int]:
    """The grid rule that plays as ``rule`` at this limit."""
    return next(r for r in grid if canonical(r, limit) == rule)


def confirm(solution: Solution, grid: list[tuple[int, int]], rules: Rules, hands: int, seed: int, workers) -> None:
    """Every grid rule against every policy the mix uses, on fresh deals: per limit, the best gain against the mix.

    The maximum over the grid is taken again on these deals, so the figure leans high (conservative for a bound
    on exploitability); when the best is the mix's own rule it is exactly 0.
    """
    used = [j for j in range(len(solution.columns)) if any(w[j] > 0 for w in solution.weights.values())]
    pairings = [Pairing(rules, f"threshold(threshold={t}, gin_after_draws={g})", policy_spec(solution.columns[j]))
                for j in used for t, g in grid]
    nets, limits_of_deal = play_pairings(pairings, hands, seed, workers)
    nets = nets.reshape(len(used), len(grid), -1)
    for limit, found in solution.by_limit.items():
        deals = limits_of_deal == limit
        against_mix = sum(solution.weights[limit][j] * nets[k][:, deals] for k, j in enumerate(used))
        candidates = distinct_rules(grid, limit)
        best = candidates[int(np.argmax(against_mix[candidates].mean(axis=1)))]
        found.confirmed_response = grid[best]
        found.confirmed = mean_ci(against_mix[best])
