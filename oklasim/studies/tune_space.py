"""What ``oklasim tune`` searches: the dimensions of a family's parameters and the range each is searched over
(the family's declared search range, the one asked for with ``--param NAME=LO..HI``, or all it allows), and the
shipped panel of opponents it may search against."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from oklasim.errors import OklasimError
from oklasim.strategies.registry import families
from oklasim.strategy_api import Param

_RANGE = re.compile(r"^\s*(-?[\d.]+(?:e-?\d+)?)\s*\.\.\s*(-?[\d.]+(?:e-?\d+)?)\s*$")

PANEL_NAME = "panel"  # in a list of opponents, stands for PANEL
# The panel to tune on and to be judged by (issue 35): one player of each style a strong player meets, so that a
# best response to one of them (as expert's defaults are to eaai) shows as a loss against another.
PANEL = (
    "eaai",  # the EAAI-21 baseline: takes only what melds, knocks at once
    "threshold:gin_only",  # holds for gin, always
    "threshold:early_then_gin",  # knocks in its first six own draws, then holds for gin
    "expert:early3_then_gin",  # expert's draws and discards; knocks in its first three own draws, then only gin
    "expert",  # self-play
    # The policy presets that play differently: seeds_maxmin is left out, it plays as seeds_mix at knock limit 10
    # (so under eaai rules) and close to it at the others.
    "policy:seeds_mix",  # per knock limit: gin only at 2, knocks early then holds for gin at 3-10
    "policy:seeds_equilibrium",  # knocks longer, and at once at knock limit 10
    "policy:ub25_mix",  # gin only up to limit 4, short early windows above: the most gin-seeking
)


@dataclass(frozen=True)
class Dimension:
    """One tuned parameter and the range searched.

    ``default``: the family's default where a declared search range of whole
    numbers leaves it out (``gin_after_draws`` searched over 0..20 own draws,
    beyond which every count plays alike, its default 99: never). It is then
    searched too, as one more step past the end of the range nearest it (21
    stands for 99), so that the defaults can be the first candidate.
    """

    name: str
    low: float
    high: float
    integer: bool
    default: float | None = None
    choices: tuple[str, ...] = ()  # a choice parameter's options: searched as a category, by name

    @property
    def _step(self) -> int | None:
        """The sampler's value standing for ``default``."""
        if self.default is None:
            return None
        return int(self.low) - 1 if self.default < self.low else int(self.high) + 1

    def suggest(self, trial) -> float | str:
        """The value an Optuna trial proposes (an option's name for a choice)."""
        if self.choices:
            return trial.suggest_categorical(self.name, list(self.choices))
        if not self.integer:
            return trial.suggest_float(self.name, self.low, self.high)
        ends = [int(self.low), int(self.high)] + ([self._step] if self.default is not None else [])
        return self.value(trial.suggest_int(self.name, min(ends), max(ends)))

    def value(self, proposed: float | str) -> float | str:
        """The parameter's value for a value the sampler proposed (``suggest``; a trial's ``params``)."""
        return int(self.default) if self.default is not None and proposed == self._step else proposed

    def proposal(self, value: float) -> float | str | None:
        """The sampler's value for a parameter value (None: not searched)."""
        if self.choices:
            return self.choices[int(value)]
        if value == self.default:
            return self._step
        if not self.low <= value <= self.high:
            return None
        return int(value) if self.integer else value

    def spelled(self, value: float) -> str:
        """A value of the parameter as a person reads it: an option's name, or the number."""
        return self.choices[int(value)] if self.choices else f"{value:g}"

    def range_text(self) -> str:
        if self.choices:
            return "|".join(self.choices)
        searched = f"{self.spelled(self.low)}..{self.spelled(self.high)}"
        return searched if self.default is None else f"{searched} or {self.spelled(self.default)}"

    def as_dict(self) -> dict:
        out = {"name": self.name, "low": self.low, "high": self.high, "integer": self.integer}
        out |= {"choices": list(self.choices)} if self.choices else {}  # absent before choices: the same study key
        return out if self.default is None else out | {"default": self.default}


def is_integer(param: Param) -> bool:
    """As the family declares it; undeclared, whole-number default and bounds mean a count, a threshold or a switch."""
    if param.integer is not None:
        return param.integer
    return all(float(v).is_integer() for v in (param.default, param.low, param.high))


def parse_range(text: str, param: str) -> tuple[float, float]:
    match_ = _RANGE.match(text)
    if not match_:
        raise OklasimError(f"--param {param}={text}: write a range as LOW..HIGH, e.g. {param}=0..10")
    return float(match_.group(1)), float(match_.group(2))


def dimensions(family: str, params: dict[str, tuple[float, float] | None], fixed: dict[str, float],
               extra_paths=()) -> tuple[Dimension, ...]:
    """The searched dimensions: the ``params`` named (None = the declared search range), or else every parameter
    with a range; a parameter in ``fixed`` is never searched. A parameter's search range is its ``search`` where
    the family declares one (where its values differ in play), else all it allows; a declared range holds the
    default too (``Dimension.default``), so that the defaults are the first candidate. A range given
    (``--param NAME=LO..HI``) is searched as given."""
    declared = {p.name: p for p in family_of(family, extra_paths).params}
    for name in [*params, *fixed]:
        if name not in declared:
            choices = ", ".join(declared) or "none"
            raise OklasimError(f"strategy {family} has no parameter {name!r} (parameters: {choices})")
    both = sorted(set(params) & set(fixed))
    if both:
        raise OklasimError(f"{', '.join(both)}: a parameter is either tuned (--param) or fixed (--fix), not both")
    for name, value in fixed.items():
        declared[name].parse(value, family, "--fix")
    chosen = params or {n: None for n, p in declared.items() if p.low < p.high and n not in fixed}
    found = []
    for name, narrowed in chosen.items():
        param = declared[name]
        if param.low == param.high:
            raise OklasimError(
                f"parameter {name} of {family} has no range (fixed at {param.default:g}): it cannot be tuned"
            )
        if param.choices:
            if narrowed is not None:
                raise OklasimError(f"--param {name}: {name} is a choice among {'|'.join(param.choices)}; tune it "
                                   "without a range (every option is tried)")
            found.append(Dimension(name, param.low, param.high, True, choices=param.choices))
            continue
        low, high = narrowed or param.search or (param.low, param.high)
        if not param.low <= low < high <= param.high:
            raise OklasimError(f"--param {name}={low:g}..{high:g}: need LOW < HIGH within {param.low:g}..{param.high:g}")
        integer = is_integer(param)
        if integer and not (float(low).is_integer() and float(high).is_integer()):
            raise OklasimError(f"--param {name}={low:g}..{high:g}: {name} takes whole numbers")
        default = None
        if narrowed is None and not low <= param.default <= high:
            if integer:
                default = float(param.default)
            else:  # a fraction: the range stretched to it
                low, high = min(low, param.default), max(high, param.default)
        found.append(Dimension(name, float(low), float(high), integer, default))
    if not found:
        raise OklasimError(f"strategy {family} has no parameter left to tune")
    return tuple(found)


def expand_panel(names: Sequence[str]) -> list[str]:
    """The opponents named, ``panel`` replaced by the members of PANEL."""
    return [member for name in names for member in (PANEL if name.strip() == PANEL_NAME else (name,))]


def family_of(name: str, extra_paths=()):
    known = families(tuple(extra_paths))
    if name not in known:
        raise OklasimError(f"unknown family {name!r}; families: {', '.join(sorted(known))}")
    return known[name].family
