"""The request: every field of ``advise``, written once; the file form and the command line are derived from it.

Each field carries its command-line spelling and help in its metadata, so
that ``oklasim advise --help``, the JSON/TOML file form and the keyword
arguments of ``advise`` can never disagree.
"""

from __future__ import annotations

import json
import math
import numbers
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from oklasim.errors import OklasimError, read_text


def _field(default, help: str, *, flag: str | None = None, kind: Any = None, choices: tuple[str, ...] | None = None,
           shown: str | None = None):
    """A request field: its default, help text, command-line flag and value type (None: text)."""
    meta = {"help": help, "flag": flag, "kind": kind, "choices": choices, "shown": shown}
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class Request:
    """What the player knows, whom it plays and how hard to look. Cards are text ("As 2s") or indices."""

    hand: Any = _field(None, "Your 10 cards (before your draw) or 11 (after it).")
    upcard: Any = _field(None, "The first upcard, which set the knock limit.")
    limit: int | None = _field(None, "The knock limit, if you do not give the upcard (0 = gin only).", kind=int)
    pile: Any = _field((), "The discard pile, bottom first.")
    opponent_took: Any = _field((), "Cards the opponent took from the pile this hand (one thrown back since, now on "
                                    "the pile or in your hand, too); with 3-4 players one group per opponent from "
                                    "your left, separated by '|': '8c | | Td'.")
    took: Any = _field(None, "The card you just took from the pile (it may not go straight back).")
    stock: int | None = _field(None, "Cards left in the stock (checked against the other counts).", kind=int)
    scores: Any = _field(None, "Game scores, yours then the opponent's: '40,65' (3-4 players: then the others' "
                               "from your left).", kind="scores")
    rules: Any = _field(None, "Rules preset or TOML file.", shown="seeds")
    players: int | None = _field(None, "Players at the table, 2-4; the others are your opponents, from your left.",
                                 kind=int, shown="the rules'")
    passed: int = _field(0, "First turn: players who passed the upcard so far (0 to the players).", kind=int)
    dealer: str | None = _field(None, "Who dealt (when the moment does not say); 'opponent' with two players, else "
                                      "left, across (four) or right.",
                                choices=("me", "opponent", "left", "across", "right"))
    history: Any = _field(None, "The hand so far, turn by turn: 'opp stock 8d; me pile 4s; ...' (see "
                                "oklasim.advise.history); the worlds are then weighted by how likely the opponent "
                                "was to play so.")
    slip: float = _field(0.003, "Where its play weighs the worlds: the chance the opponent strays from its strategy "
                                "at a decision (0: it never does).", kind=float)
    window: int = _field(3, "With a history: the opponent's latest turns replayed to weigh the worlds, its hand "
                            "before them drawn as played (0: every turn, its hand uniform: the exact posterior, "
                            "with fewer effective worlds).", kind=int)
    played_draws: int = _field(3, "With a history: at most this many of the opponent's stock draws before the "
                                  "window shape its hand there, each a least-deadwood draw (0: that hand uniform). "
                                  "The defaults of window, slip and this were chosen by calibration "
                                  "(reports/advise_calibration).", kind=int)
    opponent: Any = _field("expert", "The opponent's strategy: it plays the hand on, and with a history weighs the "
                                     "worlds.")
    me: Any = _field("expert", "The strategy that plays on for you after this decision.")
    plan: str | None = _field(None, "Your plan for playing on, in place of --me: 'gin' (hold for gin), 'knock' "
                                    "(knock at the first chance) or 'knock N' (once your deadwood is N or less); "
                                    "expert draws and discards for you.")
    seed: int = _field(0, "Random seed; the same seed gives the same answer.", kind=int)
    precision: float | None = _field(1.0, "Stop when the open actions are within this many points (0: on separation "
                                          "only); finer than the model's own bias (about a point) buys nothing.",
                                     kind=float)
    win_precision: float = _field(0.01, "With scores: stop when the chances to win are within this.", kind=float)
    max_samples: int | None = _field(None, "Most worlds to sample [the time budget decides; 200,000 without one]; "
                                              "with too few effective ones among them there is no recommendation.",
                              flag="samples", kind=int)
    max_seconds: float | None = _field(10.0, "Time budget for sampling, in seconds (at most 3600).", flag="seconds",
                                       kind=float)
    discards: int = _field(6, "Sensible discards weighed when playing on.", kind=int)
    confidence: float = _field(0.95, "Confidence of the intervals and of the separation test.", kind=float)
    objective: str | None = _field(None, "What to maximise.", choices=("points", "win"),
                                   shown="win with --scores, else points")
    prior: str = _field("played", "Without a history, how the opponent's unknown cards are drawn: 'played' (improved "
                                  "by least-deadwood draws, weighted by how likely the opponent was to make its "
                                  "latest discard) or 'uniform'.",
                        choices=("played", "uniform"))
    opponent_draws: int | None = _field(None, "The opponent's stock draws this hand (default: estimated).", kind=int)
    race: bool = _field(True, "Stop sampling actions that are behind with confidence (default), or sample all to the "
                              "end.", kind=bool)
    workers: int | None = _field(None, "Threads.", kind=int, shown="all cores")

    def continuation(self) -> str | Any:
        """The strategy that plays on for me: the plan's, or ``me``."""
        if self.plan is None:
            return self.me
        if self.me != FIELDS["me"].default:
            raise FieldError("give {plan} or the strategy that plays on for you ({me}), not both")
        return plan_strategy(self.plan)

    @classmethod
    def from_fields(cls, values: dict[str, Any], where: str = "advise") -> Request:
        """A request from named values; ``ValueError`` names any unknown one."""
        unknown = sorted(set(values) - set(FIELD_NAMES))
        if unknown:
            raise OklasimError(f"{where}: unknown field(s) {', '.join(unknown)}; known: {', '.join(FIELD_NAMES)}")
        return cls(**values)

    def merged(self, values: dict[str, Any]) -> Request:
        return replace(self, **values)

    def check_options(self) -> None:
        """Refuse nonsense budgets and settings in one line (the position is checked by ``read_position``)."""
        if not _number(self.confidence) or not 0 < self.confidence < 1:
            raise FieldError("{confidence} {value!r}: a probability between 0 and 1", value=self.confidence)
        if self.max_samples is not None and (not _whole(self.max_samples) or not 1 <= self.max_samples <= MAX_SAMPLES):
            raise FieldError("{max_samples} {value!r}: a whole number of worlds, at least 1 and at most {most:,}",
                             value=self.max_samples, most=MAX_SAMPLES)
        if self.max_seconds is not None and (not _number(self.max_seconds) or not 0 < self.max_seconds <= MAX_SECONDS):
            raise FieldError("{max_seconds} {value!r}: a positive number of seconds, at most {most} (an hour)",
                             value=self.max_seconds, most=MAX_SECONDS)
        if self.precision is not None and (not _number(self.precision) or self.precision <= 0):
            raise FieldError("{precision} {value!r}: a positive number of points (or none: stop on separation alone)",
                             value=self.precision)
        if not _number(self.win_precision) or not 0 < self.win_precision < 1:
            raise FieldError("{win_precision} {value!r}: a chance between 0 and 1", value=self.win_precision)
        if not _whole(self.discards) or not 1 <= self.discards <= MAX_DISCARDS:
            raise FieldError("{discards} {value!r}: try at least one discard when playing on, at most {most} (a "
                             "hand's cards)", value=self.discards, most=MAX_DISCARDS)
        if self.workers is not None and (not _whole(self.workers) or not 1 <= self.workers <= MAX_WORKERS):
            raise FieldError("{workers} {value!r}: a whole number of threads, at least 1 and at most {most}",
                             value=self.workers, most=MAX_WORKERS)
        if not _whole(self.seed) or self.seed < 0:
            raise FieldError("{seed} {value!r}: a whole number, 0 or more", value=self.seed)
        if self.opponent_draws is not None and (not _whole(self.opponent_draws)
                                                or not 0 <= self.opponent_draws <= MAX_TURNS):
            raise FieldError("{opponent_draws} {value!r}: a number of stock draws, 0 or more (at most {most})",
                             value=self.opponent_draws, most=MAX_TURNS)
        if not _whole(self.window) or not 0 <= self.window <= MAX_TURNS:
            raise FieldError("{window} {value!r}: a number of turns, 0 (all) or more (at most {most})",
                             value=self.window, most=MAX_TURNS)
        if not _number(self.slip) or not 0 <= self.slip < 0.5:
            raise FieldError("{slip} {value!r}: a chance from 0 to below 0.5", value=self.slip)
        if not _whole(self.played_draws) or not 0 <= self.played_draws <= MAX_TURNS:
            raise FieldError("{played_draws} {value!r}: a number of draws, 0 or more (at most {most})",
                             value=self.played_draws, most=MAX_TURNS)
        for name in ("objective", "prior", "dealer"):
            value, choices = getattr(self, name), FIELDS[name].metadata["choices"]
            if value is not None and value not in choices:
                raise FieldError("{%s} {value!r}: one of {choices}" % name, value=value, choices=", ".join(choices))


# The ranges of the budgets and settings: wide enough for any real use, narrow enough that no value can overflow a
# timer or an array, or keep the advisor busy for days.
MAX_SECONDS = 3600
MAX_SAMPLES = 10**9
MAX_WORKERS = 256
MAX_DISCARDS = 11
MAX_TURNS = 100  # turns or draws of one hand: a stock of at most 31 cards, and few pile takes between its draws


def _number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)


def _whole(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def plan_strategy(plan: str) -> str:
    """The expert that plays ``plan``: hold for gin, or knock once the deadwood allows; ``ValueError`` otherwise."""
    words = str(plan).lower().split()
    if words == ["gin"]:
        return "expert(early_draws=0, gin_after_draws=0)"
    if words and words[0] == "knock" and len(words) <= 2:
        limit = words[1] if len(words) == 2 else "10"
        if not limit.isdigit() or int(limit) > 10:
            raise FieldError("{plan} {value!r}: 'knock N' takes a deadwood from 0 to 10", value=plan)
        return f"expert(early_draws=0, gin_after_draws=99, late_threshold={int(limit)}, max_undercut_risk=1)"
    raise FieldError("{plan} {value!r}: 'gin', 'knock' or 'knock N' (N = the most deadwood you knock with)", value=plan)


FIELDS = {f.name: f for f in fields(Request)}
FIELD_NAMES = tuple(FIELDS)


def flag_of(name: str) -> str:
    """How the command line spells a field: ``--seconds`` for ``max_seconds``, ``HAND`` for the hand."""
    if name == "hand":
        return "HAND"
    return "--" + (FIELDS[name].metadata["flag"] or name).replace("_", "-")


class FieldError(OklasimError):
    """Bad input in the request, its message naming each field as the caller spelt it.

    ``template`` names fields as ``{field}`` (``{max_seconds}``) and other
    parts as ``{key}`` of ``values`` (formatted as ``str.format`` does). The
    message names the fields as the Python arguments; ``spelt`` as another
    caller named them (the command line: ``flag_of``).
    """

    def __init__(self, template: str, **values: Any) -> None:
        clash = set(values) & set(FIELD_NAMES)
        if clash:
            raise TypeError(f"FieldError: {', '.join(sorted(clash))} is a field's name, not a value's")
        self.template, self.values = template, values
        super().__init__(self.spelt(str))

    def spelt(self, spelling: Callable[[str], str]) -> str:
        """The message with every field named by ``spelling(field)``."""
        return self.template.format(**{name: spelling(name) for name in FIELD_NAMES}, **self.values)


def load_request(path: str | Path) -> dict[str, Any]:
    """The fields of a request from a JSON or TOML file (the names of ``Request``; cards as text or lists)."""
    path = Path(path)
    text = read_text(path)
    try:
        data = json.loads(text) if path.suffix.lower() == ".json" else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise OklasimError(f"{path} is not valid {'JSON' if path.suffix.lower() == '.json' else 'TOML'}: {exc}") from None
    if not isinstance(data, dict):
        raise OklasimError(f"{path}: expected a table of fields")
    Request.from_fields(data, str(path))
    return data
