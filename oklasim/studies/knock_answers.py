"""Choosing knock rules honestly from paired nets: best rule, tied set, robust answers, advice in words.

Inputs are per-deal nets (a rule's points minus the opponent's, averaged
over both seatings) of every rule of the grid on the same deals, so any two
rules compare by a paired difference. Per knock limit:

* the best rule against one opponent, and the *tied set*: every rule whose
  paired difference to the best has a 95% interval reaching 0;
* against the panel's *mix* (each opponent equally likely): the same on the
  per-deal average over the panel;
* *max-min*: the rule whose worst opponent hurts least; a rule is tied with it
  unless the best beats it significantly against the rule's own worst opponent
  (the best's worst case is no better than its result there).

Rules that play alike at a limit (thresholds at or above it) are one rule there.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from oklasim.analysis.stats import Estimate, mean_ci

NEVER = 99
ASAP = (10, NEVER)
MIX = "mix"
MAXMIN = "max-min"


def canonical(rule: tuple[int, int], limit: int) -> tuple[int, int]:
    """The plainest rule playing exactly as ``rule`` at this knock limit."""
    threshold, gin_after = rule
    threshold = min(threshold, limit)
    if threshold == 0:
        return 0, NEVER  # only gin from the first draw: the draw count no longer matters
    return (threshold if threshold < limit else 10), gin_after


def distinct_rules(rules: list[tuple[int, int]], limit: int) -> list[int]:
    """Indices of the first rule of each distinct behaviour at this limit (ASAP first when present)."""
    seen, keep = set(), []
    for index in sorted(range(len(rules)), key=lambda i: rules[i] != ASAP):
        key = canonical(rules[index], limit)
        if key not in seen:
            seen.add(key)
            keep.append(index)
    return sorted(keep)


@dataclass(frozen=True)
class Choice:
    """One answer at one knock limit: the best rule, the rules tied with it, its figures."""

    best: int  # index into the rule list
    tied: tuple[int, ...]  # indices, best included
    points: Estimate  # the best rule's points per hand against the answer's opponent(s)
    gain: Estimate  # the best rule minus knocking at once, paired, against the same opponent(s)
    against: str  # whom the figures are against


def _tied_by_difference(values: np.ndarray, candidates: list[int], best: int) -> list[int]:
    """Candidates whose paired difference to ``best`` (rows of values) has an interval reaching 0."""
    return [i for i in candidates if i == best or mean_ci(values[best] - values[i]).low <= 0]


def best_against(values: np.ndarray, candidates: list[int], asap: int, against: str) -> Choice:
    """The best candidate on ``values[rule, deal]`` (one opponent, or the per-deal panel mix)."""
    means = values[candidates].mean(axis=1)
    best = candidates[int(np.argmax(means))]
    tied = _tied_by_difference(values, candidates, best)
    return Choice(best, tuple(tied), mean_ci(values[best]), mean_ci(values[best] - values[asap]), against)


def max_min(panel: np.ndarray, names: list[str], candidates: list[int], asap: int) -> Choice:
    """The candidate with the best worst case over ``panel[opponent, rule, deal]``."""
    means = panel[:, candidates].mean(axis=2)  # [opponent, candidate]
    worst = means.min(axis=0)
    position = int(np.argmax(worst))
    best = candidates[position]
    weakest = int(np.argmin(means[:, position]))
    tied = [best]
    for j, rule in enumerate(candidates):
        own_worst = int(np.argmin(means[:, j]))
        if rule != best and mean_ci(panel[own_worst, best] - panel[own_worst, rule]).low <= 0:
            tied.append(rule)
    return Choice(best, tuple(sorted(tied)), mean_ci(panel[weakest, best]),
                  mean_ci(panel[weakest, best] - panel[weakest, asap]), names[weakest])


def agrees(selected: Estimate, confirmed: Estimate) -> bool:
    """Whether two independent estimates of one gain agree: their difference's 95% interval holds 0."""
    return abs(selected.mean - confirmed.mean) <= float(np.hypot(selected.half_width, confirmed.half_width))


# -- the advice in words ---------------------------------------------------------------------------------


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def rule_words(rule: tuple[int, int], limit: int) -> str:
    """One rule in words, e.g. 'knock with 5 or less up to your 7th draw; after that hold for gin'."""
    if limit == 0:
        return "only gin is allowed: hold for gin"
    threshold, gin_after = canonical(rule, limit)
    if threshold == 0:
        return "hold for gin"
    knock = "knock as soon as you can" if threshold >= limit else f"knock with {threshold} or less"
    if gin_after >= NEVER:
        return knock
    return f"{knock} up to your {_ordinal(gin_after)} draw; after that hold for gin"


def _span(values: list[int], word) -> str:
    low, high = min(values), max(values)
    return word(low) if low == high else f"{word(low)}-{word(high)}"


def advice_over(rules: list[tuple[int, int]], limit: int) -> str:
    """Advice that holds for every rule of a tied set (``rules[0]`` the best measured); says when it is within noise."""
    if limit == 0:
        return "only gin is allowed: hold for gin"
    forms = list(dict.fromkeys(canonical(rule, limit) for rule in rules))
    if len(forms) == 1:
        return rule_words(forms[0], limit)
    knocking = [f for f in forms if f[0] > 0]
    thresholds = sorted({min(t, limit) for t, _ in knocking})
    parts = []
    if len(knocking) < len(forms):
        parts.append("hold for gin")
    if knocking:
        knock = ("knock as soon as you can" if thresholds == [limit] else
                 f"knock with {_span(thresholds, str)} or less" + (" (or any legal knock)" if limit in thresholds else ""))
        stops = sorted({g for _, g in knocking if g < NEVER})
        if stops:
            stop = f" up to your {_span(stops, _ordinal)} draw, then hold for gin"
            if any(g >= NEVER for _, g in knocking):
                stop += " (or never hold for gin)"
            knock += stop
        parts.append(knock)
    best = rule_words(forms[0], limit)
    return f"{' or '.join(parts)}; these {len(forms)} rules are within noise of each other (best measured: {best})"
