"""No process outlives its command: pool workers die with the driver, and signals stop the driver cleanly.

A local pool's workers are forked by multiprocessing's forkserver, not by the
driver, and each holds pipes that keep the forkserver and the resource tracker
alive. Were the driver killed, nothing would tell them: all four would live
on. So on Linux the forkserver asks the kernel to kill it when the driver dies
and each worker, from the moment it is forked, to kill it when the
forkserver dies (``PR_SET_PDEATHSIG``, immediate even in the middle of a
kernel call); elsewhere a worker thread polls the driver. Once the workers are gone the resource tracker sees its last
client go and exits by itself.

Ctrl-C reaches the whole process group: the workers ignore it and the driver
alone decides (it kills its workers; see ``batch``). SIGTERM and SIGHUP make
the driver raise ``KeyboardInterrupt`` too, so a killed run still marks its
manifest "interrupted" and leaves no worker behind.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
POLL_SECONDS = 0.5


def die_with_parent() -> bool:
    """Have the kernel kill this process when its parent dies; False where that is not available."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def ignore_interrupts() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def without_interrupts(start):
    """``start()`` with Ctrl-C blocked: the processes it starts inherit the mask and never see one, not even
    while their interpreter starts, and nor do the processes they fork. The driver alone handles Ctrl-C."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        return start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)  # a Ctrl-C that came meanwhile reaches the driver now


def launch_forkserver() -> None:
    """Start multiprocessing's forkserver, if not yet running, deaf to Ctrl-C."""
    from multiprocessing import forkserver, resource_tracker

    # The resource tracker first: starting it unblocks Ctrl-C in the caller when done, which would undo ours.
    resource_tracker.ensure_running()
    without_interrupts(forkserver.ensure_running)


def start_forkserver() -> None:
    """Run in the forkserver as it starts (``oklasim.runs._forkserver``): it dies with the driver, and each child
    it forks dies with it from its first instant (a worker killed while it starts up must not hang on)."""
    ignore_interrupts()  # its children inherit this
    if die_with_parent():
        os.register_at_fork(after_in_child=die_with_parent)


def start_worker(driver_pid: int) -> None:
    """A pool worker's initializer: ignore Ctrl-C and die with the driver."""
    ignore_interrupts()
    if not die_with_parent():
        threading.Thread(target=_exit_when_gone, args=(driver_pid,), daemon=True).start()
    if not _alive(driver_pid):  # the driver died before the line above took effect
        os._exit(1)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _exit_when_gone(pid: int) -> None:
    while _alive(pid):
        time.sleep(POLL_SECONDS)
    os._exit(1)


STOPPING_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _raise_interrupt(signum, frame) -> None:
    raise KeyboardInterrupt(f"signal {signal.Signals(signum).name}")


def ignore_outside_commands() -> None:
    """Ignore Ctrl-C, SIGTERM and SIGHUP in this process, except while a command works.

    The command line's entry point sets this first; a command then turns the same signals into
    ``KeyboardInterrupt`` while it works (``interrupt_on_termination``), so that it stops its workers and marks its
    run, and restores the ignore when done. Left is only the interpreter's exit, everything already written, a
    fraction of a second that a signal must not turn into a silent kill (the interpreter keeps an ignore through
    its teardown, where it would reset a handler to the default)."""
    for sig in STOPPING_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)


def interrupt_on_termination():
    """Make Ctrl-C, SIGTERM and SIGHUP raise ``KeyboardInterrupt`` in the driver; returns a function restoring the
    old handlers.

    polars, when first imported, installs a Ctrl-C handler that restarts an interrupted system call
    (pola-rs/polars#21739): a Ctrl-C at a prompt would wait for the end of the line. It is imported first, so
    that the handler installed here replaces it. Only the main thread can install handlers; elsewhere this does
    nothing."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    import polars  # noqa: F401 - see above

    old = {sig: signal.signal(sig, _raise_interrupt) for sig in STOPPING_SIGNALS}
    return lambda: [signal.signal(sig, handler) for sig, handler in old.items()]


def kill_pool(pool, timeout: float = 5.0) -> None:
    """Stop a ProcessPoolExecutor now: kill its workers (a running shard is lost, not waited for)."""
    processes = list((getattr(pool, "_processes", None) or {}).values())  # the executor's own worker table
    for process in processes:
        process.kill()
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.join(timeout)
