"""Bradley-Terry ratings from pairwise game wins: every entrant on one scale, with intervals.

The model: A beats B with chance ``1 / (1 + 10 ** ((r_B - r_A) / 400))`` (Elo's scale; the mean rating is 0).
The ratings are the maximum-likelihood fit, with half a win and half a loss added to every pairing played, so that
an entrant that won or lost every game still gets a finite rating. The intervals come from the likelihood's
curvature, widened by the lack of fit when the pairings disagree with one scale more than chance allows (strategy
strength need not be transitive): they cover that uncertainty too, not only the luck of the games.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from statistics import NormalDist

import numpy as np

from oklasim.analysis.stats import Estimate
from oklasim.errors import OklasimError

ELO = 400 / math.log(10)  # rating points per unit of log-odds
PRIOR_GAMES = 0.5  # added to each side of every pairing played


@dataclass(frozen=True)
class Rating:
    name: str
    rating: Estimate  # Elo points, the mean of the entrants at 0
    games: int  # games it played

    def beats(self, other: Rating) -> float:
        """The model's chance that this entrant wins a game against ``other``."""
        return 1 / (1 + 10 ** ((other.rating.mean - self.rating.mean) / 400))


@dataclass(frozen=True)
class Ladder:
    ratings: tuple[Rating, ...]  # strongest first
    misfit: float  # Pearson chi-square per degree of freedom (1: the pairings fit one scale as well as chance allows)
    names: tuple[str, ...]  # the entrants in the order of ``covariance``
    covariance: np.ndarray  # of the ratings, in Elo points squared (widened by the misfit)
    z: float  # the intervals' normal quantile

    def __getitem__(self, name: str) -> Rating:
        return next(r for r in self.ratings if r.name == name)

    def gap(self, a: str, b: str) -> Estimate:
        """A's rating minus B's, with its interval: narrower than the two ratings' own, which share the mean."""
        i, j = self.names.index(a), self.names.index(b)
        mean = self[a].rating.mean - self[b].rating.mean
        half = self.z * math.sqrt(max(self.covariance[i, i] + self.covariance[j, j] - 2 * self.covariance[i, j], 0))
        return Estimate(mean, mean - half, mean + half, min(self[a].games, self[b].games))


def bradley_terry(names: Sequence[str], results: Iterable[tuple[str, str, float, int]],
                  confidence: float = 0.95) -> Ladder:
    """The ladder of ``names`` from ``(a, b, games a won, games played)`` per pairing."""
    index = {name: i for i, name in enumerate(names)}
    pairs = []
    for a, b, wins, games in results:
        if a not in index or b not in index or a == b:
            raise OklasimError(f"a pairing {a!r} against {b!r}: both must be different entrants of {list(names)}")
        if games <= 0 or not 0 <= wins <= games:
            raise OklasimError(f"{a} against {b}: {wins} wins of {games} games is not a result")
        pairs.append((index[a], index[b], float(wins), float(games)))
    _check_connected(names, pairs)
    theta = _fit(len(names), pairs)
    information, chi2 = _information(len(names), pairs, theta)
    dof = len(pairs) - (len(names) - 1)
    misfit = chi2 / dof if dof > 0 else 1.0
    covariance = np.linalg.pinv(information) * max(1.0, misfit) * ELO**2
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    played = np.zeros(len(names))
    for i, j, _, n in pairs:
        played[i] += n
        played[j] += n
    ratings = []
    for i, name in enumerate(names):
        half = z * math.sqrt(max(covariance[i, i], 0.0))
        mean = theta[i] * ELO
        ratings.append(Rating(name, Estimate(mean, mean - half, mean + half, int(played[i])), int(played[i])))
    return Ladder(tuple(sorted(ratings, key=lambda r: -r.rating.mean)), misfit, tuple(names), covariance, z)


def _check_connected(names: Sequence[str], pairs: list) -> None:
    """Every entrant reachable from the first through pairings played: else no common scale exists."""
    reached, frontier = {0}, [0]
    while frontier:
        i = frontier.pop()
        for a, b, _, _ in pairs:
            for x, y in ((a, b), (b, a)):
                if x == i and y not in reached:
                    reached.add(y)
                    frontier.append(y)
    apart = [names[i] for i in range(len(names)) if i not in reached]
    if apart:
        raise OklasimError(f"no pairing links {', '.join(apart)} to {names[0]}: they cannot share one ladder")


def _chances(pairs: list, theta: np.ndarray) -> np.ndarray:
    return np.array([1 / (1 + math.exp(theta[j] - theta[i])) for i, j, _, _ in pairs])


def _fit(k: int, pairs: list) -> np.ndarray:
    """Newton's method on the log-likelihood with the prior games; the ratings' mean held at 0."""
    theta = np.zeros(k)
    for _ in range(100):
        p = _chances(pairs, theta)
        gradient = np.zeros(k)
        for (i, j, wins, games), pij in zip(pairs, p):
            surplus = wins + PRIOR_GAMES - (games + 2 * PRIOR_GAMES) * pij
            gradient[i] += surplus
            gradient[j] -= surplus
        information, _ = _information(k, pairs, theta, PRIOR_GAMES)
        step = np.linalg.pinv(information) @ gradient
        theta = theta + step
        theta -= theta.mean()
        if np.max(np.abs(step)) < 1e-12:
            break
    return theta


def _information(k: int, pairs: list, theta: np.ndarray, prior: float = 0.0) -> tuple[np.ndarray, float]:
    """The Fisher information of the ratings, and the fit's Pearson chi-square over the games played."""
    information = np.zeros((k, k))
    chi2 = 0.0
    for (i, j, wins, games), p in zip(pairs, _chances(pairs, theta)):
        n = games + 2 * prior
        w = n * p * (1 - p)
        information[i, i] += w
        information[j, j] += w
        information[i, j] -= w
        information[j, i] -= w
        chi2 += (wins - games * p) ** 2 / (games * p * (1 - p))
    return information, chi2
