"""The per-file time limit (`--timeout`), counted in CPU time of the process doing the work.

A limit on the clock skipped files nondeterministically: on a loaded machine (a CI runner shared with
other jobs, pre-commit next to a build) a file that needs 7 s of CPU took over 20 s on the clock and
was reported as timed out, its findings lost, while the same file passed on a quiet machine. The
CPU the analysis spends is the same on both. A task that makes no progress at all (blocked, or
stuck in native code that never returns to the interpreter) uses no CPU, so a clock limit of
WALL_FACTOR times the allowance stays behind it; the pool kills a worker that does not answer
even then (pool.py).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

WALL_FACTOR = 3  # on the clock, a task may take this many times its CPU allowance


class Timeout(BaseException):
    """Raised when a task runs out of time; a BaseException so that no `except Exception` in the
    engine swallows it. `reason` is one line for the report ("timed out after 20 s of CPU time")."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def usable() -> bool:
    """Interval timers exist (POSIX) and this is the main thread (signals are delivered there)."""
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def wall_limit(timeout: float) -> float:
    return timeout * WALL_FACTOR


@contextmanager
def limited(timeout: float | None) -> Iterator[None]:
    """Raise Timeout in the body once this process has spent `timeout` s of CPU on it, or
    wall_limit(timeout) s have passed on the clock. No limit for a falsy timeout or where the
    timers are not usable."""
    if not timeout or not usable():
        yield
        return

    def out_of_cpu(signum, frame):
        raise Timeout(f"timed out after {timeout:g} s of CPU time")

    def out_of_clock(signum, frame):
        raise Timeout(f"timed out after {wall_limit(timeout):g} s")

    previous = signal.signal(signal.SIGPROF, out_of_cpu), signal.signal(signal.SIGALRM, out_of_clock)
    signal.setitimer(signal.ITIMER_PROF, timeout)
    signal.setitimer(signal.ITIMER_REAL, wall_limit(timeout))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGPROF, previous[0])
        signal.signal(signal.SIGALRM, previous[1])
