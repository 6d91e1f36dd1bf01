"""What a strategy file needs: the decision signature, the layout constants and the kit.

A strategy file (any path given with ``--strategy-path`` or listed in
``OKLASIM_STRATEGY_PATH``; the shipped families are the package's
``oklasim/strategies/families/``) defines

* ``FAMILY = Family(name=..., doc=..., params=(Param(...), ...), presets={...})``
* ``decide_nb``, decorated with ``@decide_kernel()`` (compiled when the
  strategy is first played) or ``@njit(DECIDE_SIGNATURE, cache=True)``
  (compiled when the file is loaded): ``decide_nb(kind, view, params) -> int``.

A family that keeps memory between its decisions declares its slots (``Family(memory=N)``, read and written at
``view[FAMILY.memory_start + k]``, zeroed at each deal; ``Family(game_memory=N)`` at
``view[FAMILY.game_memory_start + k]``, zeroed at each game) and the families it hands decisions to on the same view
(``delegates=(...)``), whose slots then come before its own.

``kind`` is one of the ``D_*`` decisions; ``view`` is the seat's int64 row
(``V_*`` slots: its hand, the discard pile, what others took and threw, the
hand's turns in order (``log_turn_nb(view, i)`` for ``i`` below
``V_LOG_TURNS``), the scores, the rules); ``params`` holds the family's parameters in declared
order. The engine checks every answer and stops with a clear error on an
illegal one. See ``oklasim/strategies/families/simple.py`` for a short, complete example.

Two declarations of ``Family`` let ``oklasim advise`` weigh an opponent's
history faster (``oklasim/_kernels/advise_history_nb.py``):
``uses_drawn_card=False`` (its knock and discard never read ``V_DRAWN``)
and ``confirms_discard=True`` (it answers ``D_CONFIRM_DISCARD``: 1 when
``V_ASKED`` is the card its ``D_DISCARD`` would throw, else 0, as
``families/expert.py`` does by stopping its search once that card
loses). Tests check both on every shipped family that declares them.

A strategy that calls another strategy's kernel (``families/mc.py``)
holds a copy of that code in its compiled cache: compile it inside
``cache_depends_on(path, ...)`` so that an edit of those files recompiles it.
"""

import hashlib
import warnings
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numba
import numpy as np

from oklasim._kernels.cards_nb import (
    BIT,
    FULL_DECK,
    N_CARDS,
    N_RANKS,
    N_SUITS,
    RANK_COLUMN,
    RANK_MASK,
    card_index_nb,
    card_value_nb,
    count_cards_nb,
    high_card_key_nb,
    rank_of_nb,
    suit_of_nb,
    suit_pattern_nb,
)
from oklasim._kernels.kit_nb import (
    allowed_discards_nb,
    always_melded_nb,
    beside_nb,
    best_discard_nb,
    best_knock_nb,
    deadwood_with_card_melded_nb,
    highest_card_nb,
    highest_deadwood_card_nb,
    in_any_meld_nb,
    knock_deadwood_nb,
    knock_if_at_most_nb,
    least_deadwood_discard_nb,
    loose_cards_nb,
    mask_value_nb,
    meld_or_knock_take_nb,
    meld_outs_nb,
    melded_in_some_optimal_nb,
    min_deadwood_discards_nb,
    neighbours_nb,
    nth_card_nb,
    pile_top_nb,
    rand_below_nb,
    rand_unit_nb,
    random_card_nb,
    rank_count_nb,
    take_lowers_deadwood_nb,
)
from oklasim._kernels.engine_nb import log_turn_nb
from oklasim._kernels.opponents_nb import (
    MAX_KNOCK_THRESHOLD,
    OPPONENT_DEADWOOD_CARDS,
    OPPONENT_DRAWS_SCALE,
    arrangement_exposure_nb,
    discard_danger_nb,
    expected_opponent_deadwood_nb,
    knock_timing_log_likelihood_nb,
    least_exposed_arrangement_nb,
    opponent_draws_nb,
    opponents_discards_nb,
    opponents_holding_nb,
    opponents_knock_timing_nb,
    opponents_known_nb,
    opponents_showings_nb,
    scored_discard_nb,
    undercut_risk_nb,
    unseen_in_hands_fraction_nb,
    unseen_nb,
)
from oklasim._kernels.layout import *  # noqa: F403 - the V_*, D_*, R_* names are the interface
from oklasim._kernels.layout import MAX_SEATS, N_GAME_MEMORY, N_MEMORY, V_GAME_MEMORY, V_MEMORY
from oklasim._kernels.linking import DECIDE_SIGNATURE, lazy_njit, stack_array_nb
from oklasim._kernels.melds_nb import (
    deadwood_after_discard_fast_nb,
    deadwood_after_discard_nb,
    deadwood_after_each_discard_nb,
    deadwood_nb,
)
from oklasim.errors import OklasimError


def spelled_number(value: float) -> str:
    """A parameter value as it reads back to exactly the same float: whole numbers without ".0"."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


class Written(float):
    """A number as a person wrote it in a setting (``name=2``), told apart from the values the program passes:
    only a written number for a choice parameter is warned about."""


@dataclass(frozen=True)
class Param:
    """One strategy parameter: its name, default, allowed range and meaning; or a choice among named options
    (``Param.choice``), whose value in the kernel's ``params`` is the index of the option chosen."""

    name: str
    default: float
    low: float
    high: float
    help: str
    # Whether `oklasim tune` searches it in whole numbers; None: when the default and both bounds are whole.
    integer: bool | None = None
    # The range `oklasim tune` searches unless told otherwise, where it is narrower than the allowed one: where
    # the values differ in play (a count of draws past the longest hand plays like any other such count).
    search: tuple[float, float] | None = None
    # The options' names, in the order of their indexes (a choice parameter: written, shown and tuned by name).
    choices: tuple[str, ...] = ()

    @classmethod
    def choice(cls, name: str, default: str, choices: Sequence[str], help: str) -> "Param":
        """A parameter choosing one of ``choices`` by name (``mc(continuation=expert)``); the kernel reads the index
        of the one chosen, in the order given."""
        if default not in choices:
            raise OklasimError(f"parameter {name}: default {default!r} is not one of {', '.join(choices)}")
        return cls(name, float(choices.index(default)), 0, len(choices) - 1, help, integer=True,
                   choices=tuple(choices))

    def __post_init__(self) -> None:
        if self.search is not None and not self.low <= self.search[0] < self.search[1] <= self.high:
            raise OklasimError(f"parameter {self.name}: search range {self.search} is not within {self.low:g}.."
                               f"{self.high:g}")

    def check(self, value: float, family: str) -> float:
        if not self.low <= value <= self.high:
            raise OklasimError(
                f"strategy {family}: {self.name}={value:g} is outside {self.low:g}..{self.high:g} ({self.help})"
            )
        return float(value)

    def parse(self, value: float | str, family: str, where: str = "") -> float:
        """The value ``params`` holds for a setting: a number, or an option's name for a choice. A choice written
        as its number (``Written``) still works, with a warning, for this release. ``where``: the option the setting
        came in (``--fix``), named in an error; the strategy by default."""
        where = where or f"strategy {family}"
        if not self.choices:
            if isinstance(value, str):
                raise OklasimError(f"{where}: {self.name}={value}: write a number ({self.help})")
            return self.check(value, family)
        if isinstance(value, str):
            if value not in self.choices:
                raise OklasimError(f"{where}: {self.name}={value} is not one of {', '.join(self.choices)}")
            return float(self.choices.index(value))
        if not float(value).is_integer():
            raise OklasimError(f"{where}: {self.name}={value:g}: write one of {', '.join(self.choices)}")
        index = self.check(value, family)
        if not isinstance(value, Written):  # a value the program holds (a tuned or stored one), not a spelling
            return index
        warnings.warn(f"strategy {family}: {self.name}={value:g} by number is deprecated and will stop working in "
                      f"the next release; write {self.name}={self.choices[int(index)]}", FutureWarning, stacklevel=2)
        return index

    def spelled(self, value: float) -> str:
        """``value`` as a setting reads it back: an option's name, or the number (``spelled_number``)."""
        return self.choices[int(value)] if self.choices else spelled_number(value)

    def range_text(self) -> str:
        return "|".join(self.choices) if self.choices else f"{self.low:g}..{self.high:g}"


# The slots a family may keep between its decisions, by the name of its declaration: (the view field, how many).
# V_MEMORY is zeroed at each deal, V_GAME_MEMORY at each game.
MEMORY_AREAS = {"memory": ("V_MEMORY", N_MEMORY), "game_memory": ("V_GAME_MEMORY", N_GAME_MEMORY)}


@dataclass(frozen=True)
class Family:
    """A strategy family as a file declares it."""

    name: str
    doc: str
    params: tuple[Param, ...] = ()
    presets: dict[str, dict[str, float]] = field(default_factory=dict)
    # False declares that its knock and discard answers never read V_DRAWN (the card just drawn): the advisor then
    # replays those answers once per turn of a history, not once per card the family may have drawn there.
    uses_drawn_card: bool = True
    # True declares that it answers D_CONFIRM_DISCARD (is V_ASKED the card D_DISCARD would throw?) exactly as its
    # D_DISCARD answers: the advisor then asks that, which may stop early, to weigh a world by the family's discards.
    confirms_discard: bool = False
    # The V_MEMORY slots its kernel keeps between decisions (zeroed at each deal), from ``view[memory_start]`` on.
    memory: int = 0
    # The V_GAME_MEMORY slots it keeps for the whole game (zeroed at each game), from ``view[game_memory_start]`` on:
    # what it learns of its opponents across hands.
    game_memory: int = 0
    # The families it hands decisions to on the same view (``mc`` to its continuations): their slots come first and
    # its own after theirs, so that none overwrites another's.
    delegates: tuple["Family", ...] = ()

    def __post_init__(self) -> None:
        for area, (label, size) in MEMORY_AREAS.items():
            if getattr(self, area) < 0 or self.slots_end(area) > size:
                raise OklasimError(f"strategy {self.name}: its {area.replace('_', ' ')} ends at slot "
                                   f"{self.slots_end(area)}, past the {size} slots of {label}")
            users = [f for f in self.composition() if getattr(f, area)]
            for i, first in enumerate(users):
                for second in users[i + 1 :]:
                    if max(first.slots_base(area), second.slots_base(area)) < min(first.slots_end(area),
                                                                                  second.slots_end(area)):
                        raise OklasimError(f"strategy {self.name}: the {area.replace('_', ' ')} of {first.name} "
                                           f"({first.slots_text(area)}) and of {second.name} "
                                           f"({second.slots_text(area)}) overlap, and it hands decisions to both on "
                                           "the same view")

    def indexes(self, *names: str) -> tuple[int, ...]:
        """The places of the parameters ``names`` in ``params``, for the kernel's index constants
        (``THRESHOLD, LATE_STOCK = FAMILY.indexes("threshold", "late_stock")``): generated from the declaration, so
        that adding or moving a parameter never leaves a constant pointing at another."""
        places = {param.name: i for i, param in enumerate(self.params)}
        unknown = [name for name in names if name not in places]
        if unknown:
            raise OklasimError(f"strategy {self.name} has no parameter {', '.join(unknown)} (parameters: "
                               f"{', '.join(places)})")
        return tuple(places[name] for name in names)

    def defaults(self) -> np.ndarray:
        """Its parameters' defaults in declared order: the ``params`` its kernel reads when played as it ships."""
        return np.array([param.default for param in self.params], dtype=np.float64)

    def slots_base(self, area: str = "memory") -> int:
        """Its first slot of ``area`` (``MEMORY_AREAS``), after those of every family it hands decisions to."""
        return max((d.slots_end(area) for d in self.delegates), default=0)

    def slots_end(self, area: str = "memory") -> int:
        return self.slots_base(area) + getattr(self, area)

    @property
    def memory_base(self) -> int:
        return self.slots_base("memory")

    @property
    def memory_end(self) -> int:
        return self.slots_end("memory")

    @property
    def memory_start(self) -> int:
        """The view slot of its first memory slot: ``view[memory_start + k]``, k below ``memory``."""
        return V_MEMORY + self.memory_base

    @property
    def game_memory_start(self) -> int:
        """The view slot of its first game memory slot: ``view[game_memory_start + k]``, k below ``game_memory``."""
        return V_GAME_MEMORY + self.slots_base("game_memory")

    def composition(self) -> list["Family"]:
        """It and every family it hands decisions to, directly or through another, each once."""
        found = [self]
        for delegate in self.delegates:
            found += [f for f in delegate.composition() if all(f is not g for g in found)]
        return found

    def slots_text(self, area: str = "memory") -> str:
        return f"{MEMORY_AREAS[area][0]} slots {self.slots_base(area)}..{self.slots_end(area) - 1}"


def parameter_matrix(rows: Sequence[np.ndarray]) -> np.ndarray:
    """The (MAX_SEATS, width) parameter matrix the kernels take, row i seat i's parameters (``Strategy.vector``),
    each padded with zeros to the longest: its width follows the families playing, so that a family's next parameter
    never touches the layout. Fewer rows than MAX_SEATS: the first repeats, as the engine seats it (those seats never play)."""
    if not 1 <= len(rows) <= MAX_SEATS:
        raise OklasimError(f"a parameter matrix takes 1 to {MAX_SEATS} rows, got {len(rows)}")
    rows = list(rows) + [rows[0]] * (MAX_SEATS - len(rows))
    matrix = np.zeros((MAX_SEATS, max(len(row) for row in rows)), dtype=np.float64)
    for seat, row in enumerate(rows):
        matrix[seat, : len(row)] = row
    return matrix


# Own draws in a long two-player hand (31 stock cards shared, and a few pile draws): the search range of a
# parameter that counts draws, beyond which every value plays alike (``Param.search``).
LONGEST_HAND_DRAWS = 20


@contextmanager
def cache_depends_on(*paths):
    """Cache the numba functions decorated in this block under a key of the given source files too.

    numba checks only a function's own file before it reuses cached code;
    a function that links another file's kernel in (``oklasim._kernels.linking.decide_function``)
    would keep running the old code after that file changed.
    """
    digest = hashlib.sha256()
    for path in paths:
        digest.update(Path(path).read_bytes())
    saved = numba.config.CACHE_DIR
    numba.config.CACHE_DIR = str(Path(saved) / f"depends-{digest.hexdigest()[:16]}")
    try:
        yield
    finally:
        numba.config.CACHE_DIR = saved


def decide_kernel(**options):
    """The decorator of a strategy's ``decide_nb``: ``@decide_kernel()`` compiles it with ``DECIDE_SIGNATURE``
    (or loads it from the cache) when the strategy is first played, not when its file is loaded, so that listing
    the strategies compiles nothing. ``options`` are numba's, e.g. ``decide_kernel(error_model="numpy")``."""
    return lazy_njit(DECIDE_SIGNATURE, **options)
