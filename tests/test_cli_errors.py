"""The command line's errors: what oklasim means to refuse is one line; anything else is a bug, told in one line with
the way to its traceback (``--debug``); ``-v`` shows the run's events."""

import logging

import pytest
from click.testing import CliRunner

from oklasim.cli import main
from oklasim.errors import OklasimError
from oklasim.game import melds

HAND = "2h 3h 4h 7s 7d 7h Jc Qc Kc 5d"


def invoke(*args):
    return CliRunner().invoke(main, list(args))


def test_a_meant_error_is_its_message_alone():
    result = invoke("deadwood", "2h 2h")
    assert result.exit_code == 1 and result.output.strip().splitlines() == ["Error: duplicate card '2h' in '2h 2h'"]


@pytest.mark.parametrize("error", [ValueError("numpy said no"), TypeError("boom\nsecond line")])
def test_an_unexpected_error_is_one_line_that_says_it_is_a_bug(monkeypatch, error):
    """A library's ValueError is not one of ours: no longer passed off as bad input."""
    def broken(*args, **kwargs):
        raise error

    monkeypatch.setattr(melds, "deadwood", broken)
    result = invoke("deadwood", HAND)
    lines = result.output.strip().splitlines()
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    first = str(error).splitlines()[0]
    assert lines[-1] == (f"Error: internal error (a bug in oklasim): {type(error).__name__}: {first} "
                        "(run the command with oklasim --debug for the traceback)")


def test_debug_shows_the_traceback(monkeypatch):
    monkeypatch.setattr(melds, "deadwood", lambda *a, **k: 1 / 0)
    result = invoke("--debug", "deadwood", HAND)
    assert isinstance(result.exception, ZeroDivisionError)  # raised through: Python prints its traceback
    assert not isinstance(invoke("--debug", "deadwood", "2h 2h").exception, ZeroDivisionError)


def test_every_refusal_class_is_an_oklasim_error():
    from oklasim.agent.seat import ProtocolError
    from oklasim.sim.engine import IllegalDecision
    from oklasim.sim.board import IllegalMove

    for kind in (ProtocolError, IllegalDecision, IllegalMove):
        assert issubclass(kind, OklasimError) and issubclass(kind, ValueError)


def test_verbose_logs_the_runs_events(caplog):
    with caplog.at_level(logging.INFO, logger="oklasim"):
        result = invoke("-v", "simulate", "--hands", "2000", "--seed", "3")
    assert result.exit_code == 0, result.output
    messages = [r.getMessage() for r in caplog.records if r.name == "oklasim"]
    assert any(m.startswith("run ") and "shards to play on in-process" in m for m in messages), messages
    assert any(" complete after " in m for m in messages), messages
    logging.getLogger("oklasim").setLevel(logging.WARNING)  # as a command without -v leaves it


def test_quiet_by_default(caplog):
    invoke("-v", "rules")
    result = invoke("simulate", "--hands", "2000", "--seed", "3")
    assert result.exit_code == 0 and "oklasim:" not in result.output
    assert logging.getLogger("oklasim").level == logging.WARNING
