"""Run an oklasim command in its own session, signal it, and find the processes it left behind (by PID)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

OKLASIM = [sys.executable, "-m", "oklasim.cli"]


def start(*args: str, cwd: Path | None = None) -> subprocess.Popen:
    """``oklasim ARGS`` in a new session (its id is the driver's PID), output captured."""
    return subprocess.Popen([*OKLASIM, *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def session_pids(session: int) -> set[int]:
    """Live (not zombie) processes of a session."""
    out = subprocess.run(["ps", "-o", "pid=,stat=", "-s", str(session)], capture_output=True, text=True).stdout
    return {int(pid) for pid, stat in (line.split()[:2] for line in out.splitlines()) if not stat.startswith("Z")}


def wait_for(condition, timeout: float, step: float = 0.1) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return condition()


def signal_and_collect(process: subprocess.Popen, sig: int, group: bool = False, timeout: float = 30):
    """Send ``sig`` (to the whole session's group when ``group``, as a terminal's Ctrl-C does); return
    (exit code, stderr, PIDs of the session still alive after a bounded wait). Survivors are killed."""
    if group:
        os.killpg(process.pid, sig)
    else:
        process.send_signal(sig)
    try:
        _, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        _, err = process.communicate()
    wait_for(lambda: not session_pids(process.pid), timeout)
    left = session_pids(process.pid)
    for pid in left:  # never leave them running, even when the test fails
        os.kill(pid, signal.SIGKILL)
    return process.returncode, err, left


def descendants(pid: int) -> dict[int, str]:
    """Every live process below ``pid``, with its command line."""
    out = subprocess.run(["ps", "-ww", "-eo", "pid=,ppid=,stat=,args="], capture_output=True, text=True).stdout
    parent, command = {}, {}
    for line in out.splitlines():
        child, ppid, stat, args = (line.split(None, 3) + [""])[:4]
        if not stat.startswith("Z") and not args.startswith("ps -ww"):  # not zombies, not this listing
            parent[int(child)], command[int(child)] = int(ppid), args
    found, frontier = {}, {pid}
    while frontier:
        frontier = {c for c, p in parent.items() if p in frontier and c not in found}
        found.update({c: command[c] for c in frontier})
    return found


def free_port() -> int:
    """A port nothing listens on now (for a server a test starts)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def answers(url: str) -> bool:
    """The page at ``url`` answers 200."""
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except OSError:
        return False
