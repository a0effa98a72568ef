"""Worker processes with a per-task deadline, that survive a task crashing or hanging its worker.

Why not concurrent.futures or multiprocessing.Pool: libcst's native parser can crash the process
on pathologically nested input (a segmentation fault, measured on a 20,000-link attribute chain)
and a task can run far past any reasonable time. A crashed worker breaks a ProcessPoolExecutor
(every pending task fails) and makes multiprocessing.Pool wait forever. Here each worker has its
own pipe and runs one task at a time; the parent waits on all pipes with the nearest deadline as
the timeout, kills a worker whose task ran past its deadline, notices one that died, reports that
task as failed ("timed out after N s", "crashed: signal 11") and starts a fresh worker.

Workers are forked, so they start in milliseconds with the parent's modules already imported.
Where fork is unavailable, `available()` is False and the caller runs tasks in its own process.
The time limit is the worker's own (deadline.py: CPU time, and a clock limit behind it); the
parent's deadline only catches a worker that cannot stop itself.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import wait
from typing import Any

from padlint.run import deadline

KILL_GRACE = 2.0  # seconds past the worker's own clock limit before the parent kills it
# A worker keeps what it read for one file (other modules' definitions, parsed) for the next ones; on a
# large project that grows by a megabyte or more a file (bench/: 90 MB at the fork, 250 MB after 1,700
# files). One that has grown by this much since its fork retires after its task, and a fresh fork
# takes its place: a small project never meets it, a large one keeps the workers' memory bounded.
WORKER_GROWTH_MB = 90.0


def _resident_mb() -> float | None:
    """This process's resident memory now (Linux /proc), None where it cannot be read."""
    try:
        with open("/proc/self/statm", encoding="ascii") as fh:
            pages = int(fh.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return None


@dataclass
class Failure:
    """A task that did not return: `reason` is one line ("timed out after 20 s of CPU time")."""

    reason: str
    timed_out: bool = False


def available() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def _serve(conn, function: Callable[[Any], Any]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    import faulthandler

    faulthandler.disable()  # a crash is reported by the parent, in one line
    deadline.no_core_files()  # a worker the kernel stops (SIGXCPU) leaves no core file behind
    at_fork = _resident_mb()
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        task, timeout = message
        result: tuple[bool, Any]
        try:
            with deadline.kernel_cpu_limit(timeout), deadline.limited(timeout):
                result = (True, function(task))
        except deadline.Timeout as exc:
            result = (False, Failure(exc.reason, timed_out=True))
        except BaseException as exc:  # noqa: BLE001 - reported to the parent, never lost
            result = (False, one_line(exc))
        now = _resident_mb()
        retire = at_fork is not None and now is not None and now - at_fork > WORKER_GROWTH_MB
        conn.send((*result, retire))
        if retire:
            return


def one_line(exc: BaseException, limit: int = 200) -> str:
    """`KeyError: ...`: the error on one line of bounded length (a key that is a syntax node prints as
    hundreds of lines)."""
    text = " ".join(str(exc).split())
    text = text if len(text) <= limit else text[: limit - 3] + "..."
    return f"{type(exc).__name__}: {text}"


class _Worker:
    def __init__(self, context, function):
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child, function), daemon=True)
        self.process.start()
        child.close()
        self.task: tuple[int, Any] | None = None
        self.deadline = 0.0

    def give(self, index: int, task: Any, timeout: float | None) -> None:
        self.task = (index, task)
        # The worker stops itself at its limits (deadline.py); this one, a little later, is for a
        # worker stuck where no signal handler runs (native code): it is killed.
        self.deadline = time.monotonic() + deadline.wall_limit(timeout) + KILL_GRACE if timeout else float("inf")
        self.conn.send((task, timeout))

    def stop(self, kill: bool = False) -> None:
        if kill:
            self.process.kill()
        else:
            try:
                self.conn.send(None)
            except OSError:
                pass
        self.process.join(timeout=5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.conn.close()


def run(
    function: Callable[[Any], Any], tasks: Iterable[Any], jobs: int, timeout: float | None
) -> Iterator[tuple[int, Any, bool]]:
    """Run `function(task)` for each task in `jobs` forked workers, in any order.

    Yields (index of the task, its result or a Failure, ok). An exception inside `function` is
    ok=False with a one-line "Type: message" string; a crash or a deadline is a Failure.
    """
    context = multiprocessing.get_context("fork")
    source = iter(enumerate(tasks))
    workers: list[_Worker] = []
    idle: list[_Worker] = []
    pending = True
    try:
        while True:
            while pending and (idle or len(workers) < jobs):
                item = next(source, None)
                if item is None:
                    pending = False
                    break
                worker = idle.pop() if idle else _Worker(context, function)
                if worker not in workers:
                    workers.append(worker)
                worker.give(item[0], item[1], timeout)
            busy = [w for w in workers if w.task is not None]
            if not busy:
                return
            nearest = min(w.deadline for w in busy)  # inf: no time limit (`--timeout 0`)
            ready = wait(
                [w.conn for w in busy],
                timeout=None if nearest == float("inf") else max(0.0, nearest - time.monotonic()),
            )
            for worker in busy:
                index = worker.task[0]  # type: ignore[index]
                if worker.conn in ready:
                    try:
                        ok, result, retire = worker.conn.recv()
                    except (EOFError, OSError):
                        worker.process.join(timeout=5)
                        code = worker.process.exitcode
                        why = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
                        workers.remove(worker)
                        worker.stop(kill=True)
                        if code == -getattr(signal, "SIGXCPU", 0) and timeout:  # deadline.kernel_cpu_limit
                            yield index, Failure(f"timed out after {timeout:g} s of CPU time", timed_out=True), False
                        else:
                            yield index, Failure(f"padlint's worker crashed ({why})"), False
                        continue
                    worker.task = None
                    if retire:  # grown too large (WORKER_GROWTH_MB): a fresh fork takes its place
                        workers.remove(worker)
                        worker.stop()
                    else:
                        idle.append(worker)
                    yield index, result, ok
                elif time.monotonic() >= worker.deadline:
                    workers.remove(worker)
                    worker.stop(kill=True)
                    limit = deadline.wall_limit(timeout or 0)
                    yield index, Failure(f"timed out after {limit:g} s", timed_out=True), False
    finally:
        for worker in workers:
            worker.stop(kill=worker.task is not None)


CGROUP_ROOT = "/sys/fs/cgroup"


def default_jobs() -> int:
    """One worker per core this process may use: its CPU affinity, capped by a cgroup CPU quota (a
    CI container limited to 2 CPUs on a 64-core host must not fork 64 workers: each holds its own
    copy of the analysis, and 64 of them exhaust the container's memory)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    quota = cgroup_cpu_quota()
    if quota is not None:
        cores = min(cores, math.ceil(quota))
    return max(1, cores)


def cgroup_cpu_quota(root: str | None = None) -> float | None:
    """How many CPUs this process's cgroup quota allows (cgroup v2 `cpu.max` of its cgroup and
    every cgroup above it, the smallest; else v1 `cpu.cfs_quota_us / cpu.cfs_period_us`); None
    without a quota or where there are no cgroups. Written out rather than taken from a library:
    two small files, and loky, which reads them too, would add its import to every run."""
    root = root or CGROUP_ROOT
    v2 = [_read_v2(path) for path in _cgroup_v2_dirs(root)]
    quotas = [q for q in v2 if isinstance(q, float)]
    if quotas or any(q == "max" for q in v2):
        return min(quotas) if quotas else None
    try:
        with open(os.path.join(root, "cpu", "cpu.cfs_quota_us"), encoding="ascii") as fh:
            quota_us = int(fh.read())
        with open(os.path.join(root, "cpu", "cpu.cfs_period_us"), encoding="ascii") as fh:
            period_us = int(fh.read())
    except (OSError, ValueError):
        return None
    return _cpus(quota_us, period_us)  # v1 says -1 for no quota


def _read_v2(directory: str) -> float | str | None:
    """The CPUs of `directory`'s cpu.max, "max" for no quota, None if there is no such file."""
    try:
        with open(os.path.join(directory, "cpu.max"), encoding="ascii") as fh:
            quota, period = fh.read().split()[:2]
        return "max" if quota == "max" else _cpus(int(quota), int(period))
    except (OSError, ValueError):
        return None


def _cpus(quota: int, period: int) -> float | None:
    """CPUs a quota of `quota` out of every `period` microseconds allows; None for no quota."""
    return quota / period if quota > 0 and period > 0 else None


def _cgroup_v2_dirs(root: str) -> list[str]:
    """The process's own cgroup v2 directory (from /proc/self/cgroup) and each one above it, up to
    the root (inside a container, the root is the container's own cgroup)."""
    found = []
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("0::/"):
                    parts = [p for p in line.strip()[4:].split("/") if p and p != ".."]
                    found += [os.path.join(root, *parts[:i]) for i in range(len(parts), 0, -1)]
    except OSError:
        pass
    return found + [root]
