"""Every refused or failed request answers in one line: JSON for the API (``/api/...``), a short page otherwise.

Each is logged in one line; an unexpected error is logged with its traceback but shown only as "internal error".
"""

from __future__ import annotations

import html
import logging

from starlette.responses import HTMLResponse, JSONResponse, Response

log = logging.getLogger("oklasim.web")

PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>oklasim: {status}</title>
<link rel="stylesheet" href="/static/oklasim.css"></head><body><main><h1>{status}</h1>
<p class="error">{message}</p><p><a href="/">back to the start page</a></p></main></body></html>"""


def error_response(path: str, status: int, message: str, method: str = "GET") -> Response:
    """The answer to a refused request, logged in one line."""
    log.warning("refused %s %s: %d %s", method, path, status, message)
    return rendered(path, status, message)


def rendered(path: str, status: int, message: str) -> Response:
    if path.startswith("/api/"):
        return JSONResponse({"error": message}, status_code=status)
    return HTMLResponse(PAGE.format(status=status, message=html.escape(message)), status_code=status)


async def on_refusal(request, exc) -> Response:
    """``OklasimError`` (bad cards, strategies, rules, names): 400 unless it carries its own status."""
    return error_response(request.url.path, getattr(exc, "status", 400), str(exc), request.method)


async def on_http_error(request, exc) -> Response:
    """Starlette's own refusals (no such page, method not allowed), in the same form."""
    return error_response(request.url.path, exc.status_code, str(exc.detail), request.method)


class Guard:
    """ASGI middleware, outermost: an unexpected error answers 500 "internal error" in one line and is logged in
    one line (its traceback at debug level, ``oklasim -vv serve``), never shown as a traceback page."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        started = False

        async def watched(message):
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except Exception as exc:
            first = next((line for line in str(exc).splitlines() if line.strip()), "")
            log.error("internal error on %s %s: %s: %s", scope["method"], scope["path"], type(exc).__name__, first)
            log.debug("traceback", exc_info=exc)
            if not started:
                response = rendered(scope["path"], 500, "internal error (a bug in oklasim; the server log says more)")
                await response(scope, receive, send)
