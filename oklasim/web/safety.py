"""What keeps a local server safe: the page token, file names kept inside their folders, bounded requests.

Every state-changing request (POST) carries the token embedded in the pages (header ``X-Oklasim-Token``), so a
page of another site cannot make the browser act here; every file name a request gives is resolved and must
stay inside its configured folder (no ``..``, no absolute path, no symlink out); request bodies are bounded, in
size, in JSON nesting and in the digits of a number; no other site may frame a page (clickjacking).
"""

from __future__ import annotations

import json
import re
import secrets
from pathlib import Path

from oklasim.errors import OklasimError

TOKEN_HEADER = "X-Oklasim-Token"
MAX_BODY = 64 * 1024  # bytes: the largest form is a history of a hand, well under a kilobyte
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")  # one folder or file name a request may create
MAX_DEPTH = 8  # JSON nesting: every form is one object of plain values
MAX_DIGITS = 30  # of a JSON number: past any budget, seed or count a request may give
NO_FRAMING = ((b"x-frame-options", b"DENY"), (b"content-security-policy", b"frame-ancestors 'none'"))


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


def shown(value, width: int = 40) -> str:
    """A value as a message quotes it: its repr, cut short (a refused value may be as long as the body)."""
    text = repr(value) if not isinstance(value, int) or abs(value) < 10**width else "a very long number"
    return text if len(text) <= width else text[: width - 3] + "..."


def bounded_int(value, what: str, low: int, high: int) -> int:
    """A whole number within [low, high] from a form or JSON value; ``Refused`` (400) in one line otherwise."""
    try:
        text = str(value).strip().replace(",", "").replace("_", "")  # str() of a huge int raises ValueError too
        if len(text) > MAX_DIGITS:
            raise ValueError
        number = int(text)
    except ValueError:
        raise Refused(400, f"{what} {shown(value)}: a whole number from {low:,} to {high:,}") from None
    if not low <= number <= high:
        raise Refused(400, f"{what} {number:,}: from {low:,} to {high:,}")
    return number


def read_json(raw: bytes):
    """A request body's JSON, bounded: ``Refused`` (400) in one line when it is not JSON, nests deeper than
    ``MAX_DEPTH`` or has a number of more than ``MAX_DIGITS`` digits (either would cost the parser, or the code
    after it, far more than the body's size suggests)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused(400, "the request body is not JSON (not UTF-8)") from None
    depth = _depth(text)
    if depth > MAX_DEPTH:
        raise Refused(400, f"the request body nests {depth} deep: at most {MAX_DEPTH}")
    try:
        return json.loads(text, parse_int=_number(int), parse_float=_number(float), parse_constant=_no_constant)
    except json.JSONDecodeError:
        raise Refused(400, "the request body is not JSON") from None


def _depth(text: str) -> int:
    """The deepest nesting of arrays and objects in JSON text (brackets inside strings not counted)."""
    deepest = depth = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _number(kind):
    def parse(text: str):
        if len(text.lstrip("-")) > MAX_DIGITS:
            raise Refused(400, f"a number of {len(text)} characters in the request body: at most {MAX_DIGITS}")
        return kind(text)

    return parse


def _no_constant(name: str):
    raise Refused(400, f"{name} is not a JSON number")


class Framing:
    """ASGI middleware: every response forbids framing by any page (``X-Frame-Options`` and the
    ``frame-ancestors`` policy), so another site cannot show these pages under its own clicks."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def framed(message):
            if message["type"] == "http.response.start":
                message["headers"] = _no_framing(list(message.get("headers", [])))
            await send(message)

        await self.app(scope, receive, framed)


def _no_framing(headers: list) -> list:
    names = {name.lower(): k for k, (name, _) in enumerate(headers)}
    for name, value in NO_FRAMING:
        if name not in names:
            headers.append((name, value))
        elif name == b"content-security-policy" and b"frame-ancestors" not in headers[names[name]][1]:
            k = names[name]
            headers[k] = (headers[k][0], headers[k][1] + b"; " + value)  # a page's own policy, framing added
    return headers


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
