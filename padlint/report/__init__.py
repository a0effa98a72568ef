"""Reporters: one function per output format, looked up by name (`--output-format NAME`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from padlint.types import Applicability, Diagnostic


@dataclass
class ReportContext:
    """What a reporter needs besides the diagnostics."""

    sources: Mapping[str, str] = field(default_factory=dict)  # filename -> text the rows point into
    unsafe_fixes: bool = False  # unsafe fixes count as available ([*]) only with --unsafe-fixes
    fix_mode: bool = False  # --fix ran: the diagnostics are the ones that remain
    fixed: int = 0  # how many findings --fix fixed
    color: bool = False  # colour the full format (only when stdout is a terminal)
    failed: bool = False  # an error was reported (exit 2): never say "All checks passed!"
    summary: bool = True  # the closing lines ("Found 3 errors."); off with --quiet


def fix_is_applicable(diagnostic: Diagnostic, unsafe_fixes: bool) -> bool:
    """Would --fix apply this diagnostic's fix (with the current --unsafe-fixes setting)?"""
    fix = diagnostic.fix
    if fix is None:
        return False
    return fix.applicability is Applicability.SAFE or (fix.applicability is Applicability.UNSAFE and unsafe_fixes)


Formatter = Callable[[list[Diagnostic], ReportContext], str]


def _formats() -> dict[str, Formatter]:
    from padlint.report import ci, json_format, sarif, text

    return {
        "full": text.format_full,
        "concise": text.format_concise,
        "json": json_format.format_json,
        "json-lines": json_format.format_json_lines,
        "sarif": sarif.format_sarif,
        "github": ci.format_github,
        "gitlab": ci.format_gitlab,
    }


FORMAT_NAMES = ("full", "concise", "json", "json-lines", "sarif", "github", "gitlab")
HUMAN_FORMATS = ("full", "concise")  # the others are read by programs: no summary, no progress bar


def get_formatter(name: str) -> Formatter:
    return _formats()[name]


def render(name: str, diagnostics: list[Diagnostic], context: ReportContext) -> str:
    """The whole report for `diagnostics` in format `name` (a str ending in a newline, or "").

    Findings in notebooks arrive with rows of the notebook's virtual module; they are reported
    with their cell and the row within the cell.
    """
    if any(d.filename.endswith(".ipynb") and d.cell is None for d in diagnostics):
        from padlint.files.notebook_cells import to_cells

        diagnostics = sorted(to_cells(diagnostics, context.sources), key=Diagnostic.sort_key)
    return get_formatter(name)(diagnostics, context)


def source_of(d: Diagnostic, context: ReportContext) -> str:
    """The text `d`'s rows point into: the file, or for a notebook finding its cell."""
    source = context.sources.get(d.filename, "")
    if d.cell is not None and source:
        from padlint.files.notebook_cells import cell_text

        return cell_text(source, d.cell)
    return source


def position(d: Diagnostic) -> str:
    """`row:column`, or `cell N:row:column` in a notebook (ruff's notation)."""
    where = f"{d.location.row}:{d.location.column}"
    return where if d.cell is None else f"cell {d.cell}:{where}"
