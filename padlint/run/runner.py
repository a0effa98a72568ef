"""Lint many files: read, first look, cache, worker processes, time limits, fixes written back.

cli.py hands over the discovered files and the settings and gets a RunResult back to report. Per
file, in the parent process: read and decode (source.py), resolve the enabled codes, look the
result up in the cache (cache.py), take the cheap first look (prefilter.py); only files that may
have a finding go to libcst, in forked workers (pool.py) with a per-file deadline, each running
worker.analyse. Workers are pure: they return findings and fixed text, and the parent writes fixes
(atomically, refusing a file that changed on disk since it was read).
"""

from __future__ import annotations

import hashlib
import itertools
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from padlint.config import DEFAULT_TIMEOUT, SYNTAX_ERROR_CODE, Settings
from padlint.line_length import project_line_length
from padlint.run import elsewhere
from padlint.run.worker import analyse, analyse_in_process, invalid_file_diagnostic, too_deeply_nested
from padlint.types import Diagnostic

if TYPE_CHECKING:
    from padlint.files.source import SourceFile

Say = Callable[[str], None]


@dataclass
class Options:
    mode: str = "lint"  # "lint", "fix" or "diff"
    jobs: int | None = None  # worker processes; None: one per core
    cache: bool = True  # lint results only; --fix and --diff never use it
    timeout: float | None = DEFAULT_TIMEOUT  # seconds per file; None or 0: no limit
    prefilter: bool = True
    in_process: bool = False  # no workers (also used where fork is unavailable)


@dataclass
class RunResult:
    """Everything one `check` run accumulates across files."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)  # texts the diagnostics point into
    fixed: list[Diagnostic] = field(default_factory=list)
    diffs: list[str] = field(default_factory=list)
    failed: bool = False  # something deserves exit code 2
    stats: dict[str, int] = field(default_factory=dict)  # files read, cached, skipped, parsed


@dataclass
class _Job:
    filename: str
    source: SourceFile
    select: frozenset[str]  # rule codes (PAD000 aside)
    report_invalid: bool
    key: str | None = None  # cache entry to fill
    stdin: bool = False
    look: str = "full"  # what the worker does first: "full", "sharp" or "syntax" (see analyse)
    line_length: int = 88  # the project's, for the code fixes write
    # Other files the word look read to decide (a helper module it imports): the result depends on them too.
    looked_at: dict[str, str] = field(default_factory=dict)


class Runner:
    def __init__(self, settings: Settings, options: Options, warn: Say, error: Say):
        self.settings = settings
        self.options = options
        self.warn = warn
        self.error = error
        self.result = RunResult(stats={"files": 0, "cached": 0, "skipped": 0, "parsed": 0})
        self.cache = None
        self.stdout_bytes: bytes | None = None  # what a fix of stdin writes out
        self._selection: frozenset[str] | None = None  # the same for every file without per-file-ignores
        self.held: list[elsewhere.Held] = []  # files whose fixes also edit other files, settled last
        self.changed: set[str] = set()  # absolute paths of files this run's own fixes changed
        if options.cache and options.mode == "lint":
            from padlint.run.cache import Cache, cache_dir

            self.cache = Cache(
                cache_dir(settings.root), settings.unsafe_fixes, options.prefilter, settings.target_version
            )

    # -- preparing one file
    def prepare(self, filename: str, data: bytes | None = None) -> _Job | None:
        """Read one file and settle it here if possible; a _Job if libcst must look at it."""
        from padlint.config import resolve_selection
        from padlint.files.reading import decode_source
        from padlint.files.source import SourceReadError, read_bytes

        self.result.stats["files"] += 1
        if self.settings.per_file_ignores or self._selection is None:
            self._selection = resolve_selection(self.settings, filename)
        selection = self._selection
        report_invalid = SYNTAX_ERROR_CODE in selection
        select = frozenset(selection - {SYNTAX_ERROR_CODE})
        stdin = data is not None
        line_length = project_line_length(os.path.dirname(os.path.abspath(filename)))
        key = None
        try:
            if data is None:
                data = read_bytes(filename)
            if self.cache is not None and not stdin:
                # Looked up before decoding: a warm run decodes only the files it has findings for.
                key = self.cache.key(hashlib.sha256(data).hexdigest(), selection, line_length)
                cached = self.cache.get(key, filename)
                if cached is not None:
                    self.result.stats["cached"] += 1
                    source = decode_source(data, filename, self.settings.target_version) if cached else None
                    self._found(filename, source.text if source else "", cached, source)
                    return None
            source = decode_source(data, filename, self.settings.target_version)
        except SourceReadError as exc:
            if report_invalid:
                self.result.diagnostics.append(
                    invalid_file_diagnostic(filename, f"cannot read: {exc}", exc.row, exc.column)
                )
            return None
        job = _Job(filename, source, select, report_invalid, key=key, stdin=stdin, line_length=line_length)
        if self.options.prefilter:
            from padlint.analysis import reads
            from padlint.look import prefilter

            # The word look is cheap enough for this process; the sharp look and the syntax check
            # of skipped files run in the workers, in parallel.
            # Skipping a file because the modules it imports do not pad is a result that depends on
            # them: the files the word look read key the cached result as the analysis's reads do.
            try:
                with reads.recording() as looked_at:
                    may_fire = prefilter.may_fire(source.text, select, filename)
            except Exception as exc:  # a bug in the look must cost no file: the analysis decides alone
                self.warn(
                    f"{filename}: internal error in the first look ({type(exc).__name__}: {exc}); analysed in full"
                )
                job.look = "full"
                return job
            job.looked_at = dict(looked_at)
            job.look = "sharp" if may_fire else "syntax"
            if job.look == "syntax" and not report_invalid:
                self.result.stats["skipped"] += 1
                self._store(job, [])
                return None
            if job.look == "syntax" and prefilter.parses(source.text):
                # The syntax check of a file no rule can fire on (the stdlib's symbol table) is cheap
                # enough to run here: a run over files without padding code starts no worker, and the
                # text is not sent to one. A file that fails it goes on, for libcst's message.
                self.result.stats["skipped"] += 1
                self.apply(job, self._cell_errors(job), source.text, [], None)
                return None
        return job

    # -- running the jobs
    def run(self, jobs: Iterable[_Job]) -> None:
        queue = iter(jobs)
        first = next(queue, None)
        if first is None:
            return  # everything was settled by the cache or the first look: no workers, no engine
        jobs = itertools.chain([first], queue)
        from padlint.run import deadline, pool

        unsafe = self.settings.unsafe_fixes
        mode = self.options.mode
        held: dict[int, _Job] = {}

        def tasks() -> Iterator[tuple]:
            for index, job in enumerate(jobs):
                if index == 0 and job.look == "full":
                    import padlint.engine  # noqa: F401  (once, before forking: workers inherit it)
                held[index] = job
                yield (
                    job.filename,
                    job.source.text,
                    job.select,
                    mode,
                    unsafe,
                    job.look,
                    job.report_invalid,
                    job.line_length,
                    not job.stdin,  # a fix of stdin writes one text: none that edits other files
                )

        timeout = self.options.timeout or None
        if self.options.in_process or not pool.available():
            for index, task in enumerate(tasks()):
                try:
                    outcome: tuple | pool.Failure | str = analyse_in_process(task, timeout)
                    ok = True
                except deadline.Timeout as exc:
                    outcome, ok = pool.Failure(exc.reason, timed_out=True), False
                except Exception as exc:  # a bug in a rule must not hide the other files' results
                    outcome, ok = f"{type(exc).__name__}: {exc}", False
                self.finish(held.pop(index), outcome, ok)
            self.settle_elsewhere()
            return
        jobs_wanted = self.options.jobs or pool.default_jobs()
        for index, outcome, ok in pool.run(analyse, tasks(), jobs_wanted, timeout):
            self.finish(held.pop(index), outcome, ok)
        self.settle_elsewhere()

    def finish(self, job: _Job, outcome, ok: bool) -> None:
        from padlint.run import pool

        text = job.source.text
        if not ok:
            if isinstance(outcome, pool.Failure) and not outcome.timed_out and too_deeply_nested(text):
                outcome = ("invalid", "cannot parse: too deeply nested to parse", 1, 1)
            elif isinstance(outcome, pool.Failure) and outcome.timed_out:
                self._invalid(job, f"skipped: {outcome.reason}", 1, 1, store=False)
                if not job.report_invalid:
                    self.warn(f"{job.filename}: skipped: {outcome.reason}")
                return
            else:
                reason = outcome.reason if isinstance(outcome, pool.Failure) else outcome
                self.error(f"{job.filename}: internal error: {reason}")
                self.result.failed = True
                return
        if outcome[0] == "invalid":
            self.result.stats["parsed"] += 1
            self._invalid(job, outcome[1], outcome[2], outcome[3])
            return
        _, found, new_text, fixed, fix_error, parsed, read = outcome
        found = self._cell_errors(job) + found
        self.result.stats["parsed" if parsed else "skipped"] += 1
        if fix_error:
            self.warn(f"{job.filename}: {fix_error}")
        self.apply(job, found, new_text, fixed, read)

    def _invalid(self, job: _Job, message: str, row: int, column: int, store: bool = True) -> None:
        found = [invalid_file_diagnostic(job.filename, message, row, column)] if job.report_invalid else []
        found = self._cell_errors(job) + found
        if store:
            self._store(job, found)
        self._found(job.filename, job.source.text, found, job.source)

    def _cell_errors(self, job: _Job) -> list[Diagnostic]:
        """PAD000 for the cells of a notebook that do not parse on their own (the rest is linted)."""
        notebook = getattr(job.source, "notebook", None)
        if notebook is None or not job.report_invalid:
            return []
        return [
            replace(invalid_file_diagnostic(job.filename, message, row, column), cell=cell)
            for cell, message, row, column in notebook.cell_errors()
        ]

    def apply(
        self, job: _Job, found: list[Diagnostic], new_text: str, fixed: list[Diagnostic], read: dict | None = None
    ) -> None:
        from padlint.files.source import SourceWriteError, encode_source, write_source_atomic

        source = job.source
        text = source.text
        mode = self.options.mode
        if new_text != text and mode != "lint" and elsewhere.has_elsewhere(fixed):
            # written (or shown) with the other files its fixes edit, once every file was handled
            self.held.append(elsewhere.Held(job, found, new_text, fixed, read))
            return
        if new_text != text and not job.stdin:
            self.changed.add(os.path.abspath(job.filename))
        if new_text != text and mode == "fix":
            try:
                if job.stdin:
                    self.stdout_bytes = encode_source(new_text, source)
                else:
                    write_source_atomic(job.filename, new_text, source)
            except SourceWriteError as exc:
                self.error(f"{job.filename}: not fixed: {exc}")
                self.result.failed = True
                outcome = analyse(
                    (job.filename, text, job.select, "lint", False, "full", job.report_invalid, job.line_length)
                )
                found, new_text, fixed = (outcome[1], text, []) if outcome[0] == "ok" else ([], text, [])
        elif new_text != text:
            from padlint.fixes.diff import unified_diff

            notebook = getattr(source, "notebook", None)
            shown = (
                (text, new_text) if notebook is None else (notebook.display_text(text), notebook.display_text(new_text))
            )
            self.result.diffs.append(unified_diff(job.filename, *shown))  # notebook cells as written
        if mode == "lint":
            self._store(job, found, read)
        self.result.fixed.extend(fixed)
        self._found(job.filename, new_text, found, source)

    def settle_elsewhere(self) -> None:
        """Write (or show) the files held back for the other files their fixes edit (elsewhere.py)."""
        if not self.held:
            return
        held, self.held = self.held, []
        # a held file is changed by its own fixes as well: another fix's positions in it would be stale
        changed = self.changed | {os.path.abspath(h.job.filename) for h in held}
        planned, refused = elsewhere.settle(held, changed, self.settings.target_version)
        written = self.options.mode != "fix" or elsewhere.write_all(planned, self.error)
        if not written:
            refused += [(h, "another file it edits could not be written") for p in planned for h in p.holders]
            planned = []
        for holder, reason in refused:
            job = holder.job
            self.warn(f"{job.filename}: not fixed: {reason}")
            outcome = analyse(
                (job.filename, job.source.text, job.select, "lint", False, "full", job.report_invalid, job.line_length)
            )
            self._found(job.filename, job.source.text, outcome[1] if outcome[0] == "ok" else [], job.source)
        refused_ids = {id(h) for h, _ in refused}
        for holder in held:
            if id(holder) not in refused_ids:
                job = holder.job
                self.apply(
                    job, holder.found, holder.new_text, [d for d in holder.fixed if not (d.fix and d.fix.elsewhere)]
                )
                self.result.fixed.extend(d for d in holder.fixed if d.fix is not None and d.fix.elsewhere)
        if self.options.mode == "diff":
            self.result.diffs.extend(elsewhere.diffs(planned))  # after the diffs of the files they go with

    def _found(self, filename: str, text: str, found: list[Diagnostic], source=None) -> None:
        notebook = getattr(source, "notebook", None)
        if found and notebook is not None:
            found = notebook.original_columns(found, text)  # the cache keeps the engine's columns
        self.result.diagnostics.extend(found)
        if found:
            # A notebook's report quotes its cells with their IPython lines, not the placeholders.
            self.result.sources[filename] = notebook.display_text(text) if notebook is not None else text

    def _store(self, job: _Job, found: list[Diagnostic], read: dict | None = None) -> None:
        if self.cache is not None and job.key is not None:
            self.cache.put(job.key, found, {**job.looked_at, **(read or {})} or None)


def check_files(files: Iterable[str], settings: Settings, options: Options, warn: Say, error: Say) -> RunResult:
    """Lint, fix or diff every file (in `options.mode`); findings and what happened, to report."""
    runner = Runner(settings, options, warn, error)
    runner.run(job for job in (runner.prepare(f) for f in files) if job is not None)
    return runner.result


def check_stdin(
    data: bytes, filename: str, settings: Settings, options: Options, warn: Say, error: Say
) -> tuple[RunResult, bytes | None]:
    """One text from stdin named `filename`: the result and, in fix mode, the bytes to write out."""
    options = Options(**{**options.__dict__, "cache": False})
    runner = Runner(settings, options, warn, error)
    job = runner.prepare(filename, data)
    if job is not None:
        runner.run([job])
    return runner.result, runner.stdout_bytes
