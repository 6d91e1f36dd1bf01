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

Every part deals one knock limit at a time (``play_by_limit``): each limit
gets its own full sample. Exploitability is the most any grid rule gains
against the mix. The best of many noisy rules leans high when it is picked
and measured on the same deals, so it is measured three ways: on the solving
deals (fitted, biased), on fresh deals over the whole grid (the best rule
picked there, still biased upwards), and honestly: the best *deviation* (a
rule outside the mix) picked on those fresh deals has its gain measured on
a third sample, sized from its measured spread to reach a chosen half-width.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from oklasim.analysis.stats import Z95, Estimate, mean_ci
from oklasim.game.rules import Rules
from oklasim.studies.knock_answers import ASAP, canonical, distinct_rules
from oklasim.studies.paired_pool import Pairing, play_by_limit

FP_ITERATIONS = 5_000
MIX_SHOWN = 0.005  # a rule with less weight is not reported as part of the mix, so it counts as a deviation


def rule_strategy(rule: tuple[int, int]) -> str:
    """The ``threshold`` strategy playing a grid rule (threshold, gin_after_draws)."""
    return f"threshold(threshold={rule[0]}, gin_after_draws={rule[1]})"


def play_grid(rows: list[tuple[Rules, str]], grid: list[tuple[int, int]], played: dict[int, list[int]], hands: int,
              seed: int, workers) -> tuple[np.ndarray, np.ndarray]:
    """Grid rules against each row's opponent (rules, strategy), ``hands`` deals per knock limit of ``played``.

    ``played`` gives per limit the indices of the rules to play; every grid rule that plays alike at that
    limit (``canonical``) gets the same nets, the others NaN. Returns ``nets[row, rule, deal]`` and the
    deals' knock limits (the limits' blocks of ``hands`` deals one after another).
    """
    limits = sorted(played)
    distinct = {limit: list({canonical(grid[i], limit): i for i in played[limit]}.values()) for limit in limits}
    by_limit = play_by_limit({limit: [Pairing(rules, rule_strategy(grid[i]), opponent) for rules, opponent in rows
                                      for i in distinct[limit]] for limit in limits}, hands, seed, workers)
    nets = np.full((len(rows), len(grid), len(limits) * hands), np.nan)
    for block, limit in enumerate(limits):
        values = by_limit[limit].reshape(len(rows), len(distinct[limit]), hands)
        for column, index in enumerate(distinct[limit]):
            alike = [r for r, rule in enumerate(grid) if canonical(rule, limit) == canonical(grid[index], limit)]
            nets[:, alike, block * hands:(block + 1) * hands] = values[:, column, None, :]
    return nets, np.repeat(np.array(limits, dtype=np.int64), hands)


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
    deviation: tuple[int, int] | None = None  # the best rule outside the mix on the fresh deals (None: none left)
    deviation_sd: float = 0.0  # the spread of its per-deal gain there
    exploit: Estimate | None = None  # its gain against the mix on a third sample: the honest exploitability


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
    """Double oracle over ``grid`` (which must hold ASAP) on ``hands`` deals of ``seed`` per knock limit."""
    columns: list[dict[int, tuple[int, int]]] = [{}]  # start: everyone knocks at once
    column_nets: list[np.ndarray] = []  # per column, nets[rule, deal] of every grid rule against it
    every_rule = {limit: distinct_rules(grid, limit) for limit in rules.knock_limits()}
    for round_number in range(1, rounds + 1):
        nets, limits_of_deal = play_grid([(rules, policy_spec(columns[-1]))], grid, every_rule, hands, seed, workers)
        column_nets.append(nets[0])
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
    on exploitability); when the best is the mix's own rule it is exactly 0. The best rule outside the mix
    found here is the deviation that ``exploit`` measures on a third sample.
    """
    used = _used_columns(solution)
    every_rule = {limit: distinct_rules(grid, limit) for limit in solution.by_limit}
    nets, limits_of_deal = play_grid([(rules, policy_spec(solution.columns[j])) for j in used], grid, every_rule,
                                     hands, seed, workers)
    for limit, found in solution.by_limit.items():
        deals = limits_of_deal == limit
        against_mix = sum(solution.weights[limit][j] * nets[k][:, deals] for k, j in enumerate(used))
        candidates = distinct_rules(grid, limit)
        means = against_mix[candidates].mean(axis=1)
        best = candidates[int(np.argmax(means))]
        found.confirmed_response = grid[best]
        found.confirmed = mean_ci(against_mix[best])
        played = {rule for rule, weight in found.mix.items() if weight >= MIX_SHOWN}
        outside = [k for k, i in enumerate(candidates) if canonical(grid[i], limit) not in played]
        if outside:
            deviation = candidates[max(outside, key=lambda k: means[k])]
            found.deviation = grid[deviation]
            found.deviation_sd = float(against_mix[deviation].std(ddof=1))


def exploit(solution: Solution, rules: Rules, seed: int, workers, half_width: float, max_hands: int) -> None:
    """The deviation found on fresh deals, against the mix on a third sample: the honest exploitability.

    Per limit the sample is sized so the 95% interval's half-width reaches ``half_width``:
    n = (Z95 sd / half_width)^2 with sd the spread measured on the fresh deals, at most ``max_hands``.
    A limit whose every rule is in the mix (gin only) has nothing to deviate to: exactly 0.
    """
    used = _used_columns(solution)
    wanted = {limit: found for limit, found in solution.by_limit.items() if found.deviation is not None}
    sizes = {limit: max(2, min(max_hands, math.ceil((Z95 * found.deviation_sd / half_width) ** 2)))
             for limit, found in wanted.items()}
    played = play_by_limit({limit: [Pairing(rules, rule_strategy(found.deviation), policy_spec(solution.columns[j]))
                                    for j in used] for limit, found in wanted.items()}, sizes, seed, workers)
    for limit, found in solution.by_limit.items():
        if limit in wanted:
            found.exploit = mean_ci(sum(solution.weights[limit][j] * played[limit][k] for k, j in enumerate(used)))
        else:
            found.exploit = Estimate(0.0, 0.0, 0.0, 0)


def _used_columns(solution: Solution) -> list[int]:
    return [j for j in range(len(solution.columns)) if any(w[j] > 0 for w in solution.weights.values())]
