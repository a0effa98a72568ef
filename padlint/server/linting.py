"""Lint and fix one open document with the engine, settings and suppressions of `padlint check`.

Each document is linted as `padlint check` lints a file: the `[tool.padlint]` of the nearest
pyproject.toml above the document's own path (read again on every lint, so an edited configuration
applies at once), its per-file ignores, the prefilter, the per-file time limit, PAD000 for a text that
does not parse. One task goes to the worker function of `padlint check` (run/worker.py), run here
in this process.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from padlint.config import SYNTAX_ERROR_CODE, Settings, resolve_selection
from padlint.config_file import load_settings
from padlint.line_length import project_line_length
from padlint.server.documents import Document, Finding
from padlint.types import Diagnostic


@dataclass
class Linted:
    """The findings of one lint, placed in the parts of the document, or why there are none."""

    findings: list[Finding] = field(default_factory=list)
    problem: str | None = None  # a lint that could not finish (timed out, internal error): tell the user


def settings_for(path: str | None, fallback: Path) -> Settings:
    """The settings `padlint check PATH` would use. Raises ConfigError for a bad configuration."""
    return load_settings(start=Path(path) if path else fallback)


def _task(document: Document, settings: Settings, mode: str) -> tuple:
    """The worker's task for this document: what run/worker.py's analyse takes for one file."""
    from padlint.look import prefilter

    selection = resolve_selection(settings, document.path)
    select = frozenset(selection - {SYNTAX_ERROR_CODE})
    look = "sharp" if prefilter.may_fire(document.engine_text, select) else "syntax"
    folder = str(settings.root) if document.path == "-" else os.path.dirname(os.path.abspath(document.path))
    return (
        document.path,
        document.engine_text,
        select,
        mode,
        settings.unsafe_fixes,
        look,
        SYNTAX_ERROR_CODE in selection,  # report_invalid
        project_line_length(folder),  # the fixes' code keeps to the project's line length
    )


def _run(task: tuple, timeout: float) -> tuple:
    """The worker function (run/worker.py), in this process, within the per-file time limit."""
    from padlint.run.deadline import Timeout
    from padlint.run.worker import analyse_in_process

    try:
        return analyse_in_process(task, timeout or None)
    except Timeout as exc:
        return ("timeout", f"skipped: {exc.reason}")
    except Exception as exc:  # a bug in a rule: say so, and keep serving the other documents
        return ("error", f"internal error: {type(exc).__name__}: {exc}")


def lint(document: Document, settings: Settings) -> Linted:
    from padlint.run.worker import invalid_file_diagnostic

    task = _task(document, settings, "lint")
    report_invalid = task[6]
    outcome = _run(task, settings.timeout)
    found: list[Diagnostic] = []
    problem = None
    if outcome[0] == "ok":
        found = outcome[1]
    elif outcome[0] == "invalid" and report_invalid:
        found = [invalid_file_diagnostic(document.path, *outcome[1:])]
    elif outcome[0] == "timeout":
        # As `padlint check` does: PAD000 where it is enabled, a warning otherwise.
        found = [invalid_file_diagnostic(document.path, outcome[1])] if report_invalid else []
        problem = None if report_invalid else f"{document.path}: {outcome[1]}"
    elif outcome[0] == "error":
        problem = f"{document.path}: {outcome[1]}"
    placed = [document.place(d) for d in found]
    findings = (document.cell_errors() if report_invalid else []) + [f for f in placed if f is not None]
    return Linted(findings, problem)


def fix_all(document: Document, settings: Settings) -> str | None:
    """The engine text with every applicable fix applied (unsafe ones too if the settings say so), as
    `padlint check --fix` writes it; None when nothing changes or the fixes cannot be applied."""
    outcome = _run(_task(document, settings, "fix"), settings.timeout)
    if outcome[0] != "ok" or outcome[4] is not None:  # does not parse, timed out, or a fix was refused
        return None
    new_text = outcome[2]
    return new_text if new_text != document.engine_text else None


def fix_one(document: Document, found: Diagnostic) -> str | None:
    """The engine text with the fix of one finding applied."""
    from padlint.engine import apply_fixes

    if found.fix is None:
        return None
    new_text, applied = apply_fixes(document.engine_text, [found])
    return new_text if applied and new_text != document.engine_text else None


def with_noqa(document: Document, found: Diagnostic) -> str | None:
    """The engine text with a `# noqa: CODE` comment for one finding, where `--add-noqa` writes it."""
    from padlint.adoption.noqa import add_noqa

    new_text, added = add_noqa(document.engine_text, [found])
    return new_text if added else None
