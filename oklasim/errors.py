"""The errors oklasim means to report: a problem with what was asked (cards, rules, options, files, strategies,
events from another referee), each explained in one line by its message; and the one reader of a person's text
file (rules, a study, a position, a saved game), which says so in such a line when the file cannot be read.

The command line prints such an error as its one line and exits 1. Any other exception that escapes a command is
a bug in oklasim: the command says so in one line and ``oklasim --debug ...`` shows its traceback. Every class
here is a ``ValueError``, so code that caught the API's ``ValueError`` before keeps working.
"""

from __future__ import annotations

from pathlib import Path


class OklasimError(ValueError):
    """Bad input or a request oklasim refuses; the message says what was wrong and how to fix it."""


def read_text(path: str | Path) -> str:
    """The text of the file at ``path``; an ``OklasimError`` naming it when it cannot be read or is not UTF-8."""
    path = Path(path)
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise OklasimError(f"{path} is not UTF-8 text (byte {exc.start + 1} is {exc.object[exc.start]:#04x}); "
                           "save it as UTF-8") from None
    except OSError as exc:
        raise OklasimError(f"cannot read {path}: {exc.strerror or exc}") from None
