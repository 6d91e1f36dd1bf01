"""Fake clocks for the advisor's time budget (``oklasim.advise.rollouts.clock``): time that passes with the
advisor's work or its looks at the clock, never with the machine's speed, so that a budget's test holds on a slow
or loaded machine as on a fast one."""

from __future__ import annotations

import numpy as np
from processes import wait_for

from oklasim._kernels import advise_rollouts_nb as R
from oklasim.advise import rollouts


class FakeClock:
    """Seconds that pass only as told: ``tick`` at every reading (0: the clock stands still), plus what is added
    to ``now``."""

    def __init__(self, tick: float = 0.0):
        self.now, self.tick = 0.0, tick

    def __call__(self) -> float:
        now = self.now
        self.now += self.tick
        return now


def fake_clock(monkeypatch, tick: float = 0.0) -> FakeClock:
    """The advisor reads a ``FakeClock(tick)`` for the rest of the test."""
    clock = FakeClock(tick)
    monkeypatch.setattr(rollouts, "clock", clock)
    return clock


def _batch_argument(bundles: tuple, name: str):
    """The argument ``name`` of a call of the advisor's batch kernel, from the bundle that holds it (the workers pass
    the bundles by position)."""
    return next(getattr(bundle, name) for bundle in bundles if name in bundle._fields)


def seconds_per_world(monkeypatch, seconds: float) -> FakeClock:
    """The advisor's clock moves ``seconds`` for every world a batch finishes, as against an opponent of that steady
    speed, and does not move otherwise. For one worker only: the worlds of its batch are added when it returns."""
    clock = fake_clock(monkeypatch)
    kernel = R.advise_batch_nb

    def batch(*bundles):
        status = kernel(*bundles)
        clock.now += seconds * np.count_nonzero(_batch_argument(bundles, "weights") >= 0)  # -1: a world left unfinished
        return status

    monkeypatch.setattr(R, "advise_batch_nb", batch)
    return clock


def batches_held_until_stopped(monkeypatch) -> None:
    """Every batch waits for the advisor to stop it (its time budget spent) before playing its worlds: worlds
    slower than any budget, on any machine. A batch the advisor never stops fails the test."""
    kernel = R.advise_batch_nb

    def batch(*bundles):
        stop = _batch_argument(bundles, "stop")
        assert wait_for(lambda: stop[0] != 0, timeout=120, step=0.01), "the advisor never stopped the batch"
        return kernel(*bundles)

    monkeypatch.setattr(R, "advise_batch_nb", batch)
