"""The first command that must compile kernels says so at once, then shows how far it has got.

numba reports every compilation it cannot read from the cache as a ``numba:compile`` event. On a terminal the
first one of a command prints the notice on stderr, and a line below it counts the kernels compiled and the time
spent until the command ends. Elsewhere (a pipe, a log file, a test) the same notice and the count at the end go
to the ``oklasim`` logger, shown with ``-v``. A command that finds everything cached says nothing.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from contextlib import contextmanager

import click
import numba
from numba.core import event

import oklasim._kernels  # noqa: F401 - sets the cache directory the notice names

# Measured on the 2-core development machine with an empty cache: the engine and simple 1-2 minutes, expert about
# one more, the advisor's kernels about two more (oklasim compile does all of them at once on every core).
NOTICE = ("compiling the game kernels once: up to about {minutes} minutes the first time a command needs them "
          "(`oklasim compile` does them all at once on every core); cached in {where}")
MINUTES = 3
TICK_SECONDS = 1.0
log = logging.getLogger("oklasim")


class CompileNotice(event.Listener):
    """A numba event listener that announces the first compilation and counts the kernels compiled since."""

    def __init__(self, where: str, live: bool):
        self.where, self.live = where, live
        self.lock = threading.Lock()
        self.depth = 0  # compilations in progress: a kernel compiles the kernels it calls inside its own
        self.compiled = 0
        self.started: float | None = None
        self.stop = threading.Event()
        self.ticker: threading.Thread | None = None

    def on_start(self, ev) -> None:
        with self.lock:
            self.depth += 1
            if self.started is None:
                self.started = time.monotonic()
                notice = NOTICE.format(minutes=MINUTES, where=self.where)
                if self.live:
                    click.echo(notice, err=True)
                    self.ticker = threading.Thread(target=self._tick, daemon=True)
                    self.ticker.start()
                else:
                    log.info(notice)

    def on_end(self, ev) -> None:
        with self.lock:
            self.depth -= 1
            self.compiled += 1

    def _progress(self) -> str:
        return f"  compiled {self.compiled} kernels in {time.monotonic() - self.started:.0f} s"

    def _tick(self) -> None:
        while not self.stop.wait(TICK_SECONDS):
            click.echo("\r" + self._progress(), err=True, nl=False)

    def close(self) -> None:
        self.stop.set()
        if self.ticker is not None:
            self.ticker.join()
            click.echo("\r" + self._progress(), err=True)
        elif self.started is not None:
            log.info(self._progress().strip())


@contextmanager
def compile_notice():
    """Announce (and on a terminal, follow) any kernel compiled inside this block."""
    notice = CompileNotice(numba.config.CACHE_DIR, sys.stderr.isatty())
    with event.install_listener("numba:compile", notice):
        try:
            yield notice
        finally:
            notice.close()
