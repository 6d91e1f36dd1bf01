"""A bounded load on loopback: pages keep answering while the advisor samples for seconds.

The check is the order of events, not a stopwatch (the suite runs on loaded machines): the advisor's clock stands
still until every page load has ended, so it samples on (on every core, as it would for seconds) while all of them
are served, and stops at its time budget once the test moves its clock past it. The latencies are printed
(``pytest -s``) for the record.
"""

import statistics
import threading
import time

import httpx
import pytest
from advisor_clock import fake_clock
from test_web_api import TOKEN
from web_server import serving

from oklasim._kernels import advise_rollouts_nb as R
from oklasim.web.app import Config, create_app
from oklasim.web.safety import TOKEN_HEADER

LOADS = 50
# Sampled to the end of its time budget: every action kept (no race), a precision it cannot reach, and no sample
# budget (the time decides).
ADVICE = {"hand": "2h 3h 4h 7s 7d 7h Jc Qc Kc 5d Ks", "upcard": "9c", "pile": "9c 8d 4s", "opponent": "simple",
          "seed": 1, "max_seconds": 4, "precision": 0.0001, "race": False}

pytestmark = pytest.mark.slow  # the advisor samples for seconds


def test_pages_answer_while_the_advisor_runs(tmp_path, monkeypatch):
    app = create_app(Config(runs=tmp_path / "runs", reports=tmp_path / "reports"), token=TOKEN)
    sampling, answered = threading.Event(), threading.Event()
    clock = fake_clock(monkeypatch)  # the budget is spent when the test says so, not by the machine's speed
    kernel = R.advise_batch_nb

    def watched(*args):
        sampling.set()
        return kernel(*args)

    monkeypatch.setattr(R, "advise_batch_nb", watched)
    with serving(app) as url, httpx.Client(base_url=url, headers={TOKEN_HEADER: TOKEN}, timeout=60) as http:
        assert http.get("/play").status_code == 200  # warm: the strategies' registry is loaded
        advice = {}

        def ask():
            advice["response"] = http.post("/api/advise", json=ADVICE, timeout=900)  # a cold cache compiles first
            answered.set()

        asking = threading.Thread(target=ask)
        asking.start()
        assert sampling.wait(900)  # a cold cache compiles first
        seconds, during = [], []
        for _ in range(LOADS):
            started = time.perf_counter()
            assert http.get("/play").status_code == 200
            seconds.append(time.perf_counter() - started)
            during.append(not answered.is_set())
        clock.now += ADVICE["max_seconds"]  # the budget is spent: the advisor stops at its next look at the clock
        asking.join(900)
    assert advice["response"].status_code == 200, advice["response"].text
    assert advice["response"].json()["stop_reason"] == "time"
    assert all(during), f"{during.count(False)} of {LOADS} page loads ended only after the advice"
    p95 = statistics.quantiles(seconds, n=20)[-1]
    print(f"\n{LOADS} loads of /play while the advisor ran: median {1000 * statistics.median(seconds):.1f} ms, "
          f"p95 {1000 * p95:.1f} ms, max {1000 * max(seconds):.1f} ms")
