"""The strategy registry: families found on disk, their parameters and presets, resolved by name.

A *family* is one file declaring ``FAMILY`` and a ``decide_nb`` kernel (see
``oklasim.strategy_api``). A *strategy* is a family with its parameter
values. Names resolve as

* ``family`` (its defaults), e.g. ``greedy``;
* a preset, by its own name when that is unique (``asap``) or as
  ``family:preset``;
* either of those followed by parameter settings, ``random(knock_probability=0.2)``,
  or with ``overrides`` from ``--param name=value``.

Families are looked up among the shipped ones (``oklasim/strategies/families/``,
imported as modules of the package), in the folders and files listed in
``OKLASIM_STRATEGY_PATH`` (separated by ``os.pathsep``) and in any
``extra_paths`` given (``--strategy-path``). Loading a family compiles
nothing; its kernel is compiled (or read from the cache) when a strategy of
it is resolved to play.
"""

from __future__ import annotations

import difflib
import hashlib
import importlib.util
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numba
import numpy as np

from oklasim.errors import OklasimError
from oklasim.strategy_api import Family, Written, spelled_number

SHIPPED = Path(__file__).resolve().parent / "families"
SHIPPED_PACKAGE = "oklasim.strategies.families"
STRATEGY_PACKAGE = "oklasim_strategies"  # the namespace of the strategy files loaded from paths
_SPEC = re.compile(r"^\s*([\w:.-]+)\s*(?:\((.*)\))?\s*$")
_NUMBER = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")
_OPTION = re.compile(r"^[A-Za-z_][\w-]*$")


@dataclass(frozen=True)
class LoadedFamily:
    family: Family
    decide: Any  # the numba dispatcher compiled with DECIDE_SIGNATURE
    source: Path


@dataclass(frozen=True)
class Strategy:
    """A family with concrete parameter values: what plays a seat."""

    name: str  # as the user wrote it, normalised
    family: str
    values: tuple[tuple[str, float], ...]
    kernel: Any  # the family's decision kernel, maybe not compiled yet: play it through ``decide``
    source: Path
    uses_drawn_card: bool = True  # the family's declaration (``Family.uses_drawn_card``)
    confirms_discard: bool = False  # ``Family.confirms_discard``
    spellings: tuple[str, ...] = ()  # each value as a setting reads it back (``Param.spelled``: a choice by name)

    def compile(self):
        """The decision kernel, compiled now (or read from the cache) if not yet done: resolving a name to check
        or print it compiles nothing."""
        return _compiled(self.kernel, self.source)

    @property
    def decide(self):
        """The decision kernel, ready to play (``compile``)."""
        return self.compile()

    def vector(self) -> np.ndarray:
        """Its parameters' values in declared order, as its kernel reads them (``parameter_matrix`` seats them)."""
        return np.array([v for _, v in self.values], dtype=np.float64)

    def canonical(self) -> str:
        """A name that resolves to exactly this strategy: the family with every parameter spelled out (a choice by
        its option's name)."""
        if not self.values:
            return self.family
        return f"{self.family}({', '.join(f'{k}={text}' for (k, _), text in zip(self.values, self.spellings))})"

    def key(self) -> str:
        """The family and every parameter by number, as ``canonical`` spelled them before choices had names: what
        run ids and study keys are made of, so that they stay as they were."""
        if not self.values:
            return self.family
        return f"{self.family}({', '.join(f'{k}={spelled_number(v)}' for k, v in self.values)})"

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "family": self.family, "params": dict(self.values), "source": str(self.source)}


def _strategy_package() -> None:
    """A namespace for strategy modules: numba's cache imports a function's module by name when it loads."""
    if STRATEGY_PACKAGE not in sys.modules:
        package = ModuleType(STRATEGY_PACKAGE)
        package.__path__ = []
        sys.modules[STRATEGY_PACKAGE] = package


def _load_module(path: Path) -> ModuleType:
    if path.parent == SHIPPED:  # a module of the package: imported as such, so its cache is found wherever installed
        return importlib.import_module(f"{SHIPPED_PACKAGE}.{path.stem}")
    _strategy_package()
    # The path's hash keeps two files of the same name (a user's simple.py) apart.
    name = f"{STRATEGY_PACKAGE}.{path.stem}_{hashlib.sha1(str(path).encode()).hexdigest()[:8]}"
    if name in sys.modules and Path(sys.modules[name].__file__ or "") == path:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise OklasimError(f"cannot load strategy file {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # the user's code: any error it raises is a bad strategy file, told in one line
        del sys.modules[name]
        where = f" (line {exc.lineno})" if isinstance(exc, SyntaxError) and exc.lineno else ""
        raise OklasimError(f"strategy file {path} cannot be loaded{where}: {type(exc).__name__}: {exc}") from None
    return module


def family_module(path: str | Path) -> ModuleType:
    """The module of the strategy file at ``path``, the same object the registry loads.

    For strategies built on others (``mc`` plays its rollouts with ``simple``
    and ``greedy``): importing the file any other way would compile a
    second copy of its kernels.
    """
    return _load_module(Path(path).resolve())


def _strategy_files(extra_paths: tuple[str, ...] = ()) -> list[Path]:
    places = [SHIPPED]
    places += [Path(p) for p in os.environ.get("OKLASIM_STRATEGY_PATH", "").split(os.pathsep) if p]
    places += [Path(p) for p in extra_paths]
    files: list[Path] = []
    for place in places:
        if place.is_dir():
            files += sorted(p for p in place.glob("*.py") if not p.name.startswith("_"))
        elif place.suffix == ".py" and place.is_file():
            files.append(place)
        else:
            raise OklasimError(f"strategy path {place} is neither a folder nor a .py file")
    return [f.resolve() for f in files]


_CACHE: dict[tuple[str, ...], dict[str, LoadedFamily]] = {}


def _declares_the_signature(decide) -> bool:
    """Whether ``decide`` is (or will be, at first use) compiled with ``DECIDE_SIGNATURE``, without compiling it."""
    from oklasim._kernels.linking import DECIDE_SIGNATURE, LazyDispatcher

    if numba.config.DISABLE_JIT:
        return True
    if isinstance(decide, LazyDispatcher):
        return decide.fixed_signature == DECIDE_SIGNATURE
    return DECIDE_SIGNATURE.args in getattr(decide, "signatures", ())


def _compiled(kernel, source: Path):
    """A family's kernel, compiled (or read from the cache) now if its file deferred that (``decide_kernel``)."""
    from oklasim._kernels.linking import LazyDispatcher

    if isinstance(kernel, LazyDispatcher):
        try:
            kernel.compile_now()
        except numba.core.errors.NumbaError as exc:
            reason = next((line.strip() for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
            raise OklasimError(f"strategy file {source}: decide_nb does not compile: {reason}") from None
    return kernel


def families(extra_paths: tuple[str, ...] | list[str] = ()) -> dict[str, LoadedFamily]:
    """All strategy families found, by name (nothing is compiled)."""
    key = tuple(str(p) for p in extra_paths)
    if key not in _CACHE:
        found: dict[str, LoadedFamily] = {}
        for path in _strategy_files(tuple(key)):
            module = _load_module(path)
            family = getattr(module, "FAMILY", None)
            decide = getattr(module, "decide_nb", None)
            if not isinstance(family, Family) or decide is None:
                raise OklasimError(f"strategy file {path} must define FAMILY = Family(...) and decide_nb")
            if not _declares_the_signature(decide):
                raise OklasimError(f"strategy file {path}: decide_nb must be decorated with @decide_kernel() or "
                                   "@njit(DECIDE_SIGNATURE, cache=True) (see oklasim/strategy_api.py)")
            if family.name in found and found[family.name].source != path:
                raise OklasimError(f"strategy {family.name!r} is defined twice: {found[family.name].source} and {path}")
            found[family.name] = LoadedFamily(family, decide, path)
        _CACHE[key] = found
    return _CACHE[key]


def _where(spec: str) -> str:
    """What a setting was given in: an option (``--fix``) or a strategy's name."""
    return spec if spec.startswith("--") else f"strategy {spec!r}"


def _parse_settings(text: str, spec: str) -> dict[str, float | str]:
    """``name=number`` or ``name=option, ...`` as a dict (a number as a float, an option's name as text); a name
    given twice is an error, not a silent choice of the last."""
    settings: dict[str, float | str] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, sep, value = (part.strip() for part in item.partition("="))
        if name in settings:
            raise OklasimError(f"{_where(spec)}: {name} given more than once; give each parameter once")
        if not sep or not (_NUMBER.match(value) or _OPTION.match(value)):
            raise OklasimError(f"{_where(spec)}: write parameters as name=number or name=option, got {item!r}")
        settings[name] = Written(value) if _NUMBER.match(value) else value
    return settings


def resolve(spec: str, overrides: dict[str, float | str] | None = None, extra_paths=()) -> Strategy:
    """The strategy a name such as ``greedy``, ``asap``, ``threshold:gin_only`` or ``random(knock_probability=0.3)`` means."""
    match = _SPEC.match(spec)
    if not match:
        raise OklasimError(f"cannot read strategy {spec!r}; write e.g. 'greedy' or 'random(knock_probability=0.3)'")
    base, settings_text = match.group(1), match.group(2) or ""
    known = families(tuple(extra_paths))
    family_name, _, preset = base.partition(":")
    if not preset and family_name not in known:
        owners = [name for name, lf in known.items() if family_name in lf.family.presets]
        if len(owners) == 1:
            family_name, preset = owners[0], base
        elif len(owners) > 1:
            raise OklasimError(f"preset {base!r} exists in {', '.join(owners)}; write family:{base}")
    if family_name not in known:
        raise OklasimError(f"unknown strategy {base!r}{_suggestion(base, known)} (`oklasim strategies` lists them all)")
    loaded = known[family_name]
    values = {p.name: p.default for p in loaded.family.params}
    by_name = {p.name: p for p in loaded.family.params}
    if preset:
        if preset not in loaded.family.presets:
            choices = ", ".join(loaded.family.presets) or "none"
            raise OklasimError(f"strategy {family_name} has no preset {preset!r} (presets: {choices})")
        values.update({k: by_name[k].parse(v, family_name) for k, v in loaded.family.presets[preset].items()})
    settings = _parse_settings(settings_text, spec) | dict(overrides or {})
    for name, value in settings.items():
        if name not in by_name:
            choices = ", ".join(by_name) or "none"
            raise OklasimError(f"strategy {family_name} has no parameter {name!r} (parameters: {choices})")
        values[name] = by_name[name].parse(value, family_name)
    written = (f"{k}={v}" if isinstance(v, str) else f"{k}={v:g}" for k, v in settings.items())
    label = base + (f"({', '.join(written)})" if settings else "")
    ordered = tuple((p.name, values[p.name]) for p in loaded.family.params)
    return Strategy(label, family_name, ordered, loaded.decide, loaded.source, loaded.family.uses_drawn_card,
                    loaded.family.confirms_discard, tuple(p.spelled(values[p.name]) for p in loaded.family.params))


def _suggestion(name: str, known: dict[str, LoadedFamily]) -> str:
    """": did you mean 'greedy'?" for the names closest to ``name`` (families, presets with or without theirs)."""
    usable = [*known, *(f"{f}:{p}" for f, lf in known.items() for p in lf.family.presets),
              *dict.fromkeys(p for lf in known.values() for p in lf.family.presets)]
    close = difflib.get_close_matches(name, usable, n=3, cutoff=0.6)
    return f": did you mean {' or '.join(map(repr, close))}?" if close else ""


def names(extra_paths=()) -> list[str]:
    """Every usable name: families, then presets."""
    known = families(tuple(extra_paths))
    out = sorted(known)
    for name, lf in sorted(known.items()):
        out += [f"{name}:{preset}" for preset in lf.family.presets]
    return out


def parse_overrides(items: tuple[str, ...] | list[str], option: str = "--param") -> dict[str, float | str]:
    """``option name=value`` items (``--param``, ``--fix``) as a dict; a name given twice is an error, not a
    silent choice."""
    return _parse_settings(",".join(items), option)


def with_overrides(specs: list[str], overrides: dict[str, float | str], extra_paths=()) -> list[Strategy]:
    """Resolve ``specs``, setting each override on every strategy that has that parameter."""
    seats = [resolve(spec, extra_paths=extra_paths) for spec in specs]
    for name in overrides:
        if not any(name in dict(s.values) for s in seats):
            raise OklasimError(f"no strategy among {', '.join(s.name for s in seats)} has a parameter {name!r}")
    return [
        resolve(spec, {k: v for k, v in overrides.items() if k in dict(s.values)}, extra_paths)
        for spec, s in zip(specs, seats)
    ]


def split_strategies(text: str) -> list[str]:
    """Split "a,b(x=1,y=2)" at the commas outside parentheses."""
    parts, depth, current = [], 0, ""
    for char in text:
        depth += (char == "(") - (char == ")")
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    parts.append(current.strip())
    if depth != 0 or not all(parts):
        raise OklasimError(f"cannot read the strategy list {text!r}; write e.g. 'simple,greedy'")
    return parts


def history_traits(declared: Strategy | Family) -> int:
    """The ``advise_history_nb.TRAIT_*`` bits of what a family declares, for weighing its play."""
    from oklasim._kernels.advise_history_nb import TRAIT_CONFIRMS_DISCARD, TRAIT_DRAWN_BLIND

    return ((TRAIT_DRAWN_BLIND if not declared.uses_drawn_card else 0)
            | (TRAIT_CONFIRMS_DISCARD if declared.confirms_discard else 0))
