"""The command line invoked in-process (click's runner), and the shape every refused command must have."""

from __future__ import annotations

from click.testing import CliRunner

from oklasim.cli import FriendlyGroup, main
from oklasim.cli.advise import advise_command


def cli(*args):
    """``oklasim ARGS...``; arguments that are not strings (paths, numbers) are written as text."""
    return CliRunner().invoke(main, [str(a) for a in args])


def advise_cli(*args):
    """``oklasim advise ARGS...`` through a group holding only that command, as the entry point runs it."""
    group = FriendlyGroup()
    group.add_command(advise_command)
    return CliRunner().invoke(group, ["advise", *args])


def one_line_error(result, *fragments):
    """A failed command that said what was wrong in one line, with no traceback."""
    assert result.exit_code != 0, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error:"), result.output
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
