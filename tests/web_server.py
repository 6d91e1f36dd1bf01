"""An ``oklasim serve`` application on a real loopback socket, served by uvicorn in a thread of the test process
(so a test can patch what the server calls and watch the order in which requests end)."""

from __future__ import annotations

import threading
from contextlib import contextmanager

import uvicorn
from processes import free_port, wait_for


@contextmanager
def serving(app):
    """The app on ``http://127.0.0.1:PORT`` for the ``with`` block: yields that base address."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        assert wait_for(lambda: server.started, 30), "the server did not start"
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(30)
