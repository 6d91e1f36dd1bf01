"""The advisor's form: the fields a page sends, read as ``oklasim advise`` reads its options, and bounded.

Every field of ``oklasim.advise.Request`` may be sent (as text, as a form gives it, or as JSON values) except
``workers`` (the server's) and a rules file: ``rules`` is a preset's name. The budgets are checked by
``Request.check_options`` like on the command line, and held tighter here: a page waits for its answer.
"""

from __future__ import annotations

import math
import threading
from typing import Any

from oklasim.advise.request import FIELDS
from oklasim.errors import OklasimError
from oklasim.game.rules import PRESETS
from oklasim.web.safety import Refused

MAX_SECONDS = 120.0  # a page's time budget (the command line allows an hour)
MAX_SAMPLES = 1_000_000
MAX_UNTIMED_SAMPLES = 100_000  # without a time budget the sample budget alone bounds the work
NOT_FROM_PAGES = ("workers",)

ADVISOR = threading.Lock()  # the advisor uses every core: requests (and the table's coach) queue rather than share


def fields_of(sent: dict[str, Any]) -> dict[str, Any]:
    """The advise keyword arguments a page's values mean; ``Refused`` (400) in one line for anything else."""
    if not isinstance(sent, dict):
        raise Refused(400, "send the advise fields as a JSON object")
    unknown = sorted(set(sent) - set(FIELDS) | set(sent) & set(NOT_FROM_PAGES))
    if unknown:
        raise Refused(400, f"unknown or refused field(s) {', '.join(unknown)}")
    values = {}
    for name, raw in sent.items():
        value = _value(name, raw)
        if value is not None or name == "max_seconds":
            values[name] = value
    if values.get("rules") is not None and values["rules"] not in PRESETS:
        raise Refused(400, f"rules {values['rules']!r}: one of the presets {', '.join(PRESETS)}")
    if values.get("precision") == 0:
        values["precision"] = None  # as on the command line: stop on separation alone
    _check_budgets(values)
    return values


def _value(name: str, raw: Any) -> Any:
    """One field's value: blank is unset; numbers read by the field's kind."""
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None
    kind = FIELDS[name].metadata["kind"]
    if kind in (int, float) and isinstance(raw, str):
        try:
            return kind(raw.strip().replace(",", "").replace("_", ""))
        except ValueError:
            what = "a whole number" if kind is int else "a number"
            raise Refused(400, f"{name} {raw!r}: {what}") from None
    if kind is bool and isinstance(raw, str):
        return raw.strip().lower() in ("1", "true", "yes", "on")
    if kind is None and not isinstance(raw, str):
        raise Refused(400, f"{name}: text, e.g. cards as 'As 2s'")
    return raw


def _check_budgets(values: dict[str, Any]) -> None:
    seconds = values.get("max_seconds", FIELDS["max_seconds"].default)
    samples = values.get("max_samples", FIELDS["max_samples"].default)
    if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, (int, float))
                                or not 0 < seconds <= MAX_SECONDS):
        raise Refused(400, f"max_seconds {seconds!r}: a positive number of seconds, at most {MAX_SECONDS:g} here")
    cap = MAX_SAMPLES if seconds is not None else MAX_UNTIMED_SAMPLES
    if samples is None and seconds is not None:  # the time budget decides
        return
    if isinstance(samples, bool) or not isinstance(samples, int) or not 1 <= samples <= cap:
        why = "" if seconds is not None else " without a time budget"
        raise Refused(400, f"max_samples {samples!r}: a whole number of worlds from 1 to {cap:,}{why}")


def advise_json(sent: dict[str, Any]) -> dict[str, Any]:
    """``oklasim advise --json`` for a page's fields."""
    from oklasim.advise import advise

    values = fields_of(sent)
    if not values.get("hand"):
        raise OklasimError("give your hand")
    with ADVISOR:
        return finite(advise(**values).to_dict())


def finite(value: Any) -> Any:
    """The advice with every infinite or undefined figure (an interval of a few worlds) as null: JSON has none."""
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
