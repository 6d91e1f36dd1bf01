"""The arguments of the advisor's rollout kernels (``advise_rollouts_nb.run_worlds_nb``), in five named bundles.

Each class is the one place that names and orders its bundle's fields:
Python and the kernels build the bundles with it, and the kernels read the
fields by name. ``advise_batch_nb``, called from Python, takes them as plain
tuples (``typed_as_tuple``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit, types
from numba.extending import typeof_impl


class Strategies(NamedTuple):
    """Who plays the worlds out, as DECIDE_TYPE kernels: for the deciding seat ``forced_fn`` (``forced_nb``) makes
    the column's first decisions and ``me_fn`` the rest, ``opp_fn`` plays every other seat; ``params`` is the
    (MAX_SEATS, width) matrix (``strategy_api.parameter_matrix``) of their parameters, row ``V_SEAT`` for the deciding seat's."""

    params: np.ndarray  # first: numba warns of an experimental feature at each tuple type that starts with a function
    me_fn: Any
    opp_fn: Any
    forced_fn: Any


class Question(NamedTuple):
    """What is weighed: the deciding seat's view row ``seat_view`` at decision ``kind``, the candidate columns
    ``cand[:n_cand]`` (those of ``active`` 0 are left unplayed), and with ``game_mode`` 1 the rest of the game,
    played on to its winner (``O_WIN``)."""

    seat_view: np.ndarray  # not ``view``: numba refuses any ``.view`` but numpy's
    kind: int
    cand: np.ndarray
    n_cand: int
    active: np.ndarray
    game_mode: int


class Sampling(NamedTuple):
    """How the worlds are drawn and weighed: world ``s`` from the streams of ``key``; the opponent's hand by
    ``prior``, the ``[draws, flags, last discard]`` of ``sample_world_nb``, or by ``guide`` (two players, a prior
    without repairs; its weights empty: none) from ``advise_guided_nb``; its weight (``advise_history_nb``) from
    ``evidence``, ``(turns, snapshots, (slip, knock_slip), traits)`` of the opponent's turns so far (none,
    ``no_evidence_nb``: every world weighs 1), a weight below ``cutoff`` > 0 kept or dropped by Russian roulette; each
    world played ``repeats`` times."""

    key: int
    prior: np.ndarray
    evidence: tuple
    cutoff: float
    guide: tuple
    repeats: int


class Batch(NamedTuple):
    """Which worlds are played: ``lo .. hi - 1``, by the threads that share ``claims`` (empty: by this call alone),
    until ``stop[0]`` is set (``advise_rollouts_nb.run_worlds_nb``)."""

    lo: int
    hi: int
    claims: np.ndarray
    stop: np.ndarray


class Outputs(NamedTuple):
    """Where world ``s``'s results go: ``out[s - lo, column, O_*]``, its weight in ``weights[s - lo]``, the opponent's
    hand in ``opponent_hands[s - lo]``, and the engine's error fields in ``status[ST_ERROR:]``."""

    out: np.ndarray
    weights: np.ndarray
    opponent_hands: np.ndarray
    status: np.ndarray


def typed_as_tuple(bundle, **field_types):
    """The numba type of ``bundle`` as ``advise_batch_nb`` takes it: a plain tuple of its fields' types, given by
    name; a bundle passed from Python is typed so too.

    numba would type a NamedTuple from Python as a named tuple, and it
    converts the strategies' dispatchers to DECIDE_TYPE only inside a plain
    tuple: the bundles cross as plain tuples, and ``advise_batch_nb`` names
    their fields again.
    """
    if set(field_types) != set(bundle._fields):
        raise TypeError(f"{bundle.__name__} has the fields {bundle._fields}, not {tuple(field_types)}")

    @typeof_impl.register(bundle)
    def typeof_bundle(value, context):
        fields = [typeof_impl(field, context) for field in value]
        return None if any(field is None for field in fields) else types.BaseTuple.from_types(fields)

    return types.Tuple([field_types[name] for name in bundle._fields])


@njit(cache=True)
def no_guide_nb():
    """The guide of worlds drawn from the prior alone (``oklasim.advise.worlds.NO_GUIDE``)."""
    return np.zeros(0, dtype=np.float64), np.zeros((0, 0), dtype=np.float64), 0.0
