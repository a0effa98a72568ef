"""The end of `padlint check`: the report printed (or the --diff summary, --show-fixes, a baseline
applied, --statistics or --output-file), and the exit code: 0 nothing remains (or everything was
fixed), 1 findings remain (or --diff would change something), 2 an error.
"""

from __future__ import annotations

import os
import sys

import click

from padlint.cli.commands import error as _error
from padlint.cli.commands import verbosity
from padlint.cli.commands import warning as _warning
from padlint.config import Settings
from padlint.escape import printable
from padlint.run.runner import RunResult as _Run
from padlint.types import Diagnostic


def _show_fixes(fixed: list[Diagnostic]) -> str:
    """ruff's --show-fixes block: per file, how many of each rule were fixed."""
    from collections import Counter

    if not fixed:
        return "No errors fixed.\n"
    by_file: dict[str, Counter] = {}
    for d in fixed:
        by_file.setdefault(d.filename, Counter())[(d.code, d.name)] += 1
    lines = [f"Fixed {len(fixed)} error{'s' if len(fixed) != 1 else ''}:"]
    for filename in sorted(by_file):
        lines.append(f"- {printable(filename)}:")
        for (code, name), count in sorted(by_file[filename].items()):
            lines.append(f"    {count} × {code} ({name})")
    return "\n".join(lines) + "\n"


def _wants_color(stream_is_tty: bool) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    return bool(os.environ.get("FORCE_COLOR")) or stream_is_tty


def _has_unsafe_fix(d: Diagnostic) -> bool:
    from padlint.types import Applicability

    return d.fix is not None and d.fix.applicability is Applicability.UNSAFE


def report_run(
    run: _Run,
    settings: Settings,
    mode: str,
    output_format: str,
    show_fixes: bool,
    exit_zero: bool,
    to_stderr: bool,
    extras=None,
) -> int:
    """Print the report and return the exit code."""
    from padlint.report import ReportContext, render

    level = verbosity()  # --quiet: the findings only; --silent: nothing
    run.diagnostics.sort(key=Diagnostic.sort_key)
    if extras is not None and extras.baseline and mode != "diff":
        done = extras.apply_baseline(run, _warning, _error, quiet=to_stderr or level != "normal")
        if done is not None:  # --write-baseline: nothing to report
            return done
    if mode == "diff":
        if level != "silent":
            # in path order (each diff starts `--- path`), whichever order the workers finished in
            click.echo("".join(sorted(run.diffs)), nl=False)
        count = len(run.fixed)
        hidden = 0 if settings.unsafe_fixes else sum(_has_unsafe_fix(d) for d in run.diagnostics)
        hint = f"{hidden} hidden fix{'es' if hidden != 1 else ''} can be enabled with the `--unsafe-fixes` option"
        if count and level == "normal":
            click.echo(
                f"Would fix {count} error{'s' if count != 1 else ''}" + (f" ({hint})." if hidden else "."), err=True
            )
        elif hidden and level == "normal":
            click.echo(f"No fixes available ({hint}).", err=True)
        if run.failed:
            return 2
        return 0 if exit_zero else int(bool(run.diffs))
    err = to_stderr
    to_file = extras is not None and extras.output_file
    color = not to_file and output_format == "full" and _wants_color((sys.stderr if err else sys.stdout).isatty())
    context = ReportContext(
        sources=run.sources,
        unsafe_fixes=settings.unsafe_fixes,
        fix_mode=mode == "fix",
        fixed=len(run.fixed),
        color=color,
        failed=run.failed,
        summary=level == "normal",
    )
    if extras is not None and (extras.statistics or to_file):
        if to_file or level != "silent":
            run.failed |= not extras.emit(run.diagnostics, context, err, _error)
    elif level != "silent":
        click.echo(render(output_format, run.diagnostics, context), nl=False, err=err, color=color or None)
    if show_fixes and mode == "fix" and level == "normal":
        click.echo(_show_fixes(run.fixed), nl=False, err=err or output_format == "json")
    if run.failed:
        return 2
    if exit_zero:
        return 0
    return 1 if run.diagnostics else 0
