"""The per-file time limit (`--timeout`), counted in CPU time of the process doing the work.

A limit on the clock skipped files nondeterministically: on a loaded machine (a CI runner shared with
other jobs, pre-commit next to a build) a file that needs 7 s of CPU took over 20 s on the clock and
was reported as timed out, its findings lost, while the same file passed on a quiet machine. The
CPU the analysis spends is the same on both, however many other processes share the cores.

Three limits, from the gentlest:
- `ITIMER_PROF` raises Timeout in the interpreter after `timeout` s of CPU: the task stops cleanly.
- In a worker, `RLIMIT_CPU` a little above it: native code that never returns to the interpreter
  (where no signal handler runs) is stopped by the kernel (SIGXCPU), and the pool reports it.
- `ITIMER_REAL` at WALL_FACTOR times the allowance, for a task that makes no progress at all and so
  spends no CPU (blocked); generous, so that only such a task ever meets it.
"""

from __future__ import annotations

import math
import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

WALL_FACTOR = 10  # on the clock, a task may take this many times its CPU allowance
CPU_GRACE = 2  # seconds of CPU past the allowance before the kernel stops a worker (RLIMIT_CPU)


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


def no_core_files() -> None:
    """This process dumps no core when a signal ends it (a worker: SIGXCPU's default action)."""
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_CORE, (0, resource.getrlimit(resource.RLIMIT_CORE)[1]))
    except (ImportError, ValueError, OSError):
        pass


def cpu_seconds_used() -> float:
    times = os.times()
    return times.user + times.system


@contextmanager
def kernel_cpu_limit(timeout: float | None) -> Iterator[None]:
    """In a worker process: the kernel ends this process (SIGXCPU) once the task has spent `timeout`
    + CPU_GRACE s of CPU, also inside native code. Never in the parent (it would end padlint)."""
    try:
        import resource
    except ImportError:  # not POSIX
        resource = None  # type: ignore[assignment]
    if not timeout or resource is None or not hasattr(resource, "RLIMIT_CPU"):
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    limit = math.ceil(cpu_seconds_used() + timeout + CPU_GRACE)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


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
