"""What a tune reports: the held-out figures of the tuned candidate and the baseline against each opponent, the
panel's mean or worst case, as a table, as ``result.json`` and as ``result.md`` (``oklasim.studies.tune``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from oklasim.analysis.stats import Estimate
from oklasim.game.rules import PRESETS, Rules
from oklasim.studies.tune_spec import TuneSpec

WORST_NOTE = ("the lowest of the opponents' figures, its interval from the lowest low to the lowest high: it holds "
              "when every opponent's does")


def panel_mean(estimates: Sequence[Estimate]) -> Estimate:
    """The equal-weight average over the panel; opponents play independent deals, so variances add."""
    mean = float(np.mean([e.mean for e in estimates]))
    half = float(np.sqrt(sum(e.half_width**2 for e in estimates))) / len(estimates)
    return Estimate(mean, mean - half, mean + half, sum(e.n for e in estimates))


def panel_worst(estimates: Sequence[Estimate]) -> Estimate:
    """The worst case over the panel: the lowest mean, between the lowest low and the lowest high (where the worst
    case lies whenever every opponent's interval holds, whichever opponent is the worst)."""
    return Estimate(min(e.mean for e in estimates), min(e.low for e in estimates), min(e.high for e in estimates),
                    sum(e.n for e in estimates))


@dataclass(frozen=True)
class OpponentFigures:
    """Against one opponent, on the held-out deals: each side's paired result and the tuned one's gain."""

    name: str
    tuned: Estimate
    baseline: Estimate
    gain: Estimate

    def as_dict(self) -> dict:
        return {"opponent": self.name, "tuned": self.tuned.as_dict(), "baseline": self.baseline.as_dict(),
                "gain": self.gain.as_dict()}


def _rules_name(rules: Rules) -> str:
    return next((name for name in PRESETS if Rules.preset(name) == rules), "custom")


@dataclass(frozen=True)
class TuneResult:
    """The tuned values and their held-out check; the panel figures average the opponents' (equal weights)."""

    spec: TuneSpec
    values: dict[str, float]  # every parameter of the tuned candidate
    baseline_values: dict[str, float]
    opponents: tuple[OpponentFigures, ...]
    trials: dict[str, float]  # finished, complete, pruned, best (trial number), search_value
    held_out_deals: int
    seconds: float
    history: tuple[dict, ...]  # every finished trial: number, state, params, objective by deals played

    @property
    def tuned(self) -> Estimate:
        return panel_mean([o.tuned for o in self.opponents])

    @property
    def baseline(self) -> Estimate:
        return panel_mean([o.baseline for o in self.opponents])

    @property
    def gain(self) -> Estimate:
        return panel_mean([o.gain for o in self.opponents])

    @property
    def worst(self) -> tuple[Estimate, Estimate]:
        """The worst case over the panel of the tuned candidate and of the baseline."""
        return (panel_worst([o.tuned for o in self.opponents]), panel_worst([o.baseline for o in self.opponents]))

    @property
    def worst_gain(self) -> Estimate:
        """The lowest of the per-opponent gains over the defaults (the objective of ``min-gain``)."""
        return panel_worst([o.gain for o in self.opponents])

    @property
    def strategy(self) -> str:
        """The tuned candidate as a name every command accepts."""
        return self.spec.strategy(self.values).canonical()

    def seeds(self) -> dict[str, list[int]]:
        search = [self.spec.search_seed(k, i) for k in range(self.spec.rungs) for i in range(len(self.spec.panel))]
        return {"search": search, "held_out": [self.spec.held_out_seed(i) for i in range(len(self.spec.panel))]}

    def as_dict(self) -> dict:
        return {
            "spec": self.spec.identity(), "strategy": self.strategy, "values": self.values,
            "baseline_values": self.baseline_values, "trials": self.trials,
            "objective": f"{self.spec.over_panel.describes} over the panel of {self.spec.kind.describes}",
            "aggregate": self.spec.aggregate, "held_out_deals_per_opponent": self.held_out_deals,
            "tuned": self.tuned.as_dict(), "baseline": self.baseline.as_dict(), "gain": self.gain.as_dict(),
            "worst": {"tuned": self.worst[0].as_dict(), "baseline": self.worst[1].as_dict(),
                      "gain": self.worst_gain.as_dict()},
            "opponents": [o.as_dict() for o in self.opponents], "seeds": self.seeds(), "seconds": self.seconds,
            "history": list(self.history),
        }

    def _rows(self) -> list[tuple[str, str, str, str]]:
        kind = self.spec.kind
        rows = [(o.name, o.tuned, o.baseline, o.gain) for o in self.opponents]
        rows.append(("panel mean", self.tuned, self.baseline, self.gain))
        shown = [(name, kind.value(a), kind.value(b), kind.gain(g)) for name, a, b, g in rows]
        if self.spec.over_panel.worst_row:  # no gain: the worst cases of the two may be against different opponents
            shown.append(("panel worst", *(kind.value(e) for e in self.worst), ""))
        if self.spec.over_panel.over_baseline:
            shown.append(("worst gain", "", "", kind.gain(self.worst_gain)))
        return shown

    def _header(self) -> str:
        t, s = self.trials, self.spec
        return (f"{s.family} tuned against {', '.join(s.panel)} (rules: {_rules_name(s.rules)}), seed {s.seed}: "
                f"{t['finished']} trials, {t['complete']} played every rung, {t['pruned']} stopped early")

    def text(self) -> str:
        s = self.spec
        name = max([len("parameter"), *(len(d.name) for d in s.dimensions)]) + 2  # long names keep their columns
        lines = [self._header(), f"  {'parameter':<{name}}{'default':>12}{'tuned':>12}  searched"]
        for d in s.dimensions:
            lines.append(f"  {d.name:<{name}}{d.spelled(self.baseline_values[d.name]):>12}"
                         f"{d.spelled(self.values[d.name]):>12}  {d.range_text()}")
        lines.append(f"  tuned strategy: {self.strategy}")
        lines.append(f"held-out check on {self.held_out_deals:,} fresh {s.kind.unit} per opponent, each in every "
                     f"seating ({s.kind.figures}, 95% intervals):")
        lines.append(f"  {'opponent':<26}{'tuned':<28}{'default':<28}gain")
        lines += [f"  {name[:25]:<26}{a:<28}{b:<28}{g}" for name, a, b, g in self._rows()]
        deals, value = s.rung_deals()[-1], self.trials["search_value"]
        if s.over_panel.over_baseline:
            shown = f"{100 * value:+.2f} pp of games won" if s.kind.games else f"{value:+.3f}"
        else:
            shown = f"{100 * value:.2f}% of games won" if s.kind.games else f"{value:+.3f}"
        if s.over_panel.worst_row:
            lines.append(f"  (panel worst: {WORST_NOTE})")
        lines.append(f"best candidate: trial {self.trials['best']}, search objective ({s.over_panel.describes}) "
                     f"{shown} on {deals:,} {s.kind.unit} per opponent ({self.seconds:.1f} s)")
        return "\n".join(lines)

    def markdown(self) -> str:
        s = self.spec
        lines = [f"# Tuning `{s.family}`", "", self._header() + ".", "",
                 f"Objective: the {s.over_panel.describes} over the panel of {s.kind.describes} "
                 "(each deal played with the candidate in every seat). Search: Optuna TPE, successive halving "
                 f"over rungs of {', '.join(f'{d:,}' for d in s.rung_deals())} {s.kind.unit} per opponent.", "",
                 "| parameter | default | tuned | searched |", "|---|---:|---:|---|"]
        lines += [f"| `{d.name}` | {d.spelled(self.baseline_values[d.name])} | {d.spelled(self.values[d.name])} | "
                  f"{d.range_text()} |" for d in s.dimensions]
        lines += ["", f"Tuned strategy: `{self.strategy}`", "",
                  f"Held-out check on {self.held_out_deals:,} fresh {s.kind.unit} per opponent (seeds the search never "
                  f"used), {s.kind.figures} with 95% intervals:", "",
                  "| opponent | tuned | default | gain |", "|---|---|---|---|"]
        lines += [f"| {name} | {a} | {b} | {g} |" for name, a, b, g in self._rows()]
        if s.over_panel.worst_row:
            lines += ["", f"Panel worst: {WORST_NOTE}."]
        return "\n".join(lines) + "\n"
