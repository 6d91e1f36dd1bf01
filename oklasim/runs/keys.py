"""The one key of a stored result: "reuse it while what it depends on is unchanged".

A run folder, a tournament's match file, a study's stored part each record the
key of the facts their results depend on (rules, strategies, seed, size,
options, code version...). Equal facts give equal keys; any change gives a new
key, and the stored result is recomputed instead of reused.

>>> result_key({"seed": 1, "count": 10}) == result_key({"count": 10, "seed": 1})
True
>>> len(result_key({"seed": 1}))
16
"""

from __future__ import annotations

import hashlib
import json


def result_key(facts: dict) -> str:
    """16 hex digits of the facts (JSON values; tuples count as lists, key order does not matter)."""
    return hashlib.sha256(json.dumps(facts, sort_keys=True).encode()).hexdigest()[:16]
