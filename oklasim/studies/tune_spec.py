"""What decides a tune (``oklasim.studies.tune``): the family and its searched dimensions, the panel of opponents,
the rules, the seed and the rungs, the objective and how the panel's figures make it (``TuneSpec``); and the seeds
it derives, every one for a single use. Its report reads it too (``tune_result``)."""

from __future__ import annotations

import hashlib
import json
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from oklasim.analysis.stats import Estimate
from oklasim.errors import OklasimError
from oklasim.game.rules import Rules
from oklasim.sim.engine import stream_key
from oklasim.strategies.registry import Strategy, resolve, split_strategies
from oklasim.studies.tune_space import Dimension, dimensions, expand_panel

REDUCTION_FACTOR = 2  # successive halving keeps the better half at each rung; rungs double the deals
_SEARCH, _HELD_OUT, _SAMPLER = 0, 1, 2  # purposes in seed derivation: never the same stream twice


@dataclass(frozen=True)
class Objective:
    """What a candidate's result on one deal is, and how the report words and prints it."""

    describes: str  # the result on one deal, in words
    unit: str  # what a deal is
    figures: str  # the held-out table's figures
    games: bool  # games to the target score, a share won (in %, gains in percentage points); else hands

    def value(self, e: Estimate) -> str:
        return e.bracketed(".2f", 100, "%") if self.games else e.bracketed()

    def gain(self, e: Estimate) -> str:
        return e.bracketed("+.2f", 100, " pp") if self.games else e.bracketed()


OBJECTIVES = {
    "points": Objective("the paired points/hand difference against each opponent", "deals",
                        "paired points/hand vs the opponent", games=False),
    "games": Objective("the share of games to the target score won against each opponent, over the seatings of "
                       "each game", "games", "games won", games=True),
}


@dataclass(frozen=True)
class Aggregate:
    """How a candidate's figures against the opponents make its objective."""

    describes: str  # in "the ... over the panel of"
    of_values: Callable[[Sequence[float]], float]
    worst_row: bool  # the held-out table shows the worst case beside the panel mean
    over_baseline: bool = False  # the figures are the candidate's gains over the defaults on the same deals


AGGREGATES = {
    "mean": Aggregate("mean", lambda values: float(np.mean(values)), worst_row=False),
    "min": Aggregate("worst case", lambda values: float(min(values)), worst_row=True),
    # No opponent against whom the candidate does worse than the defaults: the worst of its paired gains.
    "min-gain": Aggregate("worst gain over the defaults", lambda values: float(min(values)), worst_row=True,
                          over_baseline=True),
}


@dataclass(frozen=True)
class TuneSpec:
    """Everything that decides a tune's search; two runs with equal specs play the same candidates."""

    family: str
    panel: tuple[str, ...]
    rules: Rules
    dimensions: tuple[Dimension, ...]
    fixed: tuple[tuple[str, float], ...]
    seed: int
    hands_per_rung: int  # deals: hands, or games under the games objective
    rungs: int
    strategy_paths: tuple[str, ...] = ()
    objective: str = "points"
    aggregate: str = "mean"

    @classmethod
    def create(cls, family: str, against: str | Sequence[str], rules: Rules | str | None = None,
               params: dict[str, tuple[float, float] | None] | None = None, fixed: dict[str, float] | None = None,
               seed: int = 0, hands_per_rung: int = 1000, rungs: int = 4, strategy_paths: Sequence[str] = (),
               objective: str = "points", aggregate: str = "mean"):
        paths = tuple(str(p) for p in strategy_paths)
        if objective not in OBJECTIVES:
            raise OklasimError(f"unknown objective {objective!r}; objectives: {', '.join(OBJECTIVES)}")
        if aggregate not in AGGREGATES:
            raise OklasimError(f"unknown aggregate {aggregate!r}; aggregates: {', '.join(AGGREGATES)}")
        stream_key(seed)  # checks it
        check_count(hands_per_rung, 2, "hands per rung")
        check_count(rungs, 1, "rungs")
        against = split_strategies(against) if isinstance(against, str) else against
        if not [a for a in against if a.strip()]:
            raise OklasimError("the panel of opponents is empty: give --against A,B,...")
        dims = dimensions(family, dict(params or {}), dict(fixed or {}), paths)
        opponents = expand_panel(against)
        resolved = [resolve(a, extra_paths=paths) for a in opponents]
        panel = tuple(r.name for r in resolved)
        if len({r.canonical() for r in resolved}) < len(panel):
            raise OklasimError(f"an opponent is named twice in the panel: {', '.join(opponents)}")
        return cls(family, panel, Rules.of(rules), dims, tuple(sorted((fixed or {}).items())), int(seed),
                   int(hands_per_rung), int(rungs), paths, objective, aggregate)

    def identity(self) -> dict:
        """What must match for a folder's study to be continued (strategy paths may differ between machines)."""
        return {
            "family": self.family, "rules": self.rules.to_dict(),
            # every parameter spelled out by number (Strategy.key, the same key as before choices had names): "eaai"
            # and "eaai(tie_break=random)" are one opponent, and a changed default
            # in a strategy file makes another study
            "panel": [resolve(a, extra_paths=self.strategy_paths).key() for a in self.panel],
            "dimensions": [d.as_dict() for d in self.dimensions], "fixed": dict(self.fixed), "seed": self.seed,
            "hands_per_rung": self.hands_per_rung, "rungs": self.rungs, "objective": self.objective,
            # the mean, the only aggregate before min, stays out: the studies begun then keep their folder and key
            **({"aggregate": self.aggregate} if self.aggregate != "mean" else {}),
        }

    def digest(self) -> str:
        return hashlib.sha256(json.dumps(self.identity(), sort_keys=True).encode()).hexdigest()[:10]

    @property
    def kind(self) -> Objective:
        return OBJECTIVES[self.objective]

    @property
    def over_panel(self) -> Aggregate:
        return AGGREGATES[self.aggregate]

    def rung_deals(self) -> list[int]:
        """Deals (hands or games) per opponent a candidate has played by the end of each rung."""
        return [self.hands_per_rung * REDUCTION_FACTOR**k for k in range(self.rungs)]

    def search_seed(self, rung: int, opponent: int) -> int:
        return derived_seed(self.seed, _SEARCH, rung, opponent)

    def held_out_seed(self, opponent: int) -> int:
        return derived_seed(self.seed, _HELD_OUT, 0, opponent)

    def sampler_seed(self, trial: int) -> int:
        """The seed of the sampler that proposes the ``trial``-th candidate."""
        return derived_seed(self.seed, _SAMPLER, trial, 0)

    def values(self, params: dict[str, float]) -> dict[str, float]:
        """The parameter values of a trial's ``params`` (``Dimension.value``)."""
        return {d.name: d.value(params[d.name]) for d in self.dimensions}

    def strategy(self, values: dict[str, float]) -> Strategy:
        return resolve(self.family, dict(self.fixed) | values, self.strategy_paths)

    def baseline(self) -> Strategy:
        return resolve(self.family, dict(self.fixed), self.strategy_paths)


def check_count(value, least: int, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < least:
        raise OklasimError(f"{what} must be a whole number of at least {least}, got {value!r}")


def derived_seed(seed: int, purpose: int, rung: int, opponent: int) -> int:
    """A 63-bit seed for one use; SeedSequence mixes its words so that no two uses share a stream."""
    return int(np.random.SeedSequence([seed, purpose, rung, opponent]).generate_state(1, np.uint64)[0] >> np.uint64(1))
