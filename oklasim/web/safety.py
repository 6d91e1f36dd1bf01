"""What keeps a local server safe: the page token, file names kept inside their folders, bounded requests.

Every state-changing request (POST) carries the token embedded in the pages (header ``X-Oklasim-Token``), so a
page of another site cannot make the browser act here; every file name a request gives is resolved and must
stay inside its configured folder (no ``..``, no absolute path, no symlink out); request bodies are bounded.
"""

from __future__ import annotations

import re
import secrets
from pathlib import Path

from oklasim.errors import OklasimError

TOKEN_HEADER = "X-Oklasim-Token"
MAX_BODY = 64 * 1024  # bytes: the largest form is a history of a hand, well under a kilobyte
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")  # one folder or file name a request may create


class Refused(OklasimError):
    """A request refused before it does anything: its HTTP status and one line."""

    def __init__(self, status: int, reason: str):
        super().__init__(reason)
        self.status = status


def new_token() -> str:
    return secrets.token_urlsafe(32)


def check_token(sent: str | None, token: str) -> None:
    if not sent or not secrets.compare_digest(sent.encode(), token.encode()):
        raise Refused(403, "missing or wrong page token: reload the page")


def is_local(host: str) -> bool:
    return host in LOCAL_HOSTS


def inside(root: Path, relative: str) -> Path:
    """``root/relative``, resolved, if it stays inside ``root``; ``Refused`` (404) otherwise. Symlinks are followed
    and the target must be inside too."""
    parts = Path(relative).parts
    if "\x00" in relative or Path(relative).is_absolute() or ".." in parts:
        raise Refused(404, f"no such file: {relative!r}")
    base = root.resolve()
    target = (base / relative).resolve()
    if target != base and not target.is_relative_to(base):
        raise Refused(404, f"no such file: {relative!r}")
    return target


def new_name(text: str, what: str) -> str:
    """A name a request gives for something it creates (a run folder): one plain name, no path."""
    if not isinstance(text, str) or not NAME.match(text) or ".." in text:
        raise Refused(400, f"{what} {text!r}: letters, digits, '_', '-' and '.', at most 64, no path")
    return text


def bounded_int(value, what: str, low: int, high: int) -> int:
    """A whole number within [low, high] from a form or JSON value; ``Refused`` (400) in one line otherwise."""
    try:
        number = int(str(value).strip().replace(",", "").replace("_", ""))
    except ValueError:
        raise Refused(400, f"{what} {value!r}: a whole number from {low:,} to {high:,}") from None
    if not low <= number <= high:
        raise Refused(400, f"{what} {number:,}: from {low:,} to {high:,}")
    return number


class BodyLimit:
    """ASGI middleware: a request body over ``limit`` bytes is refused (413) before the application reads it."""

    def __init__(self, app, limit: int = MAX_BODY):
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            return await self._refuse(scope, send)
        seen = 0

        async def limited():
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:
                raise Refused(413, f"request body over {self.limit:,} bytes")
            return message

        return await self.app(scope, limited, send)

    async def _refuse(self, scope, send):
        from oklasim.web.errors import error_response  # errors shows what safety refuses: imported when needed

        response = error_response(scope["path"], 413, f"request body over {self.limit:,} bytes", scope["method"])
        await response(scope, None, send)
