"""Human output: `full` (header, code frame, help, docs link) and `concise` (one line each), plus
ruff's closing summary. Colour comes from rich, imported only when colouring (stdout is a terminal),
so plain runs such as pre-commit hooks do not pay for importing it.
"""

from __future__ import annotations

import re

from padlint.escape import printable  # file names, messages and code frames come from scanned files
from padlint.report import ReportContext, fix_is_applicable, position, source_of
from padlint.types import Applicability, Diagnostic

CONTEXT_LINES = 2  # lines shown above and below the flagged range
MAX_RANGE_LINES = 6  # a longer flagged range shows its first and last lines around a "..."

_NEWLINE = re.compile(r"\r\n|\r|\n")  # Python's own line breaks (str.splitlines knows more)

# A line is a list of (text, style) pieces; style names are rich styles, ignored without colour.
Piece = tuple[str, str]
Line = list[Piece]


def _plural(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} {word if n == 1 else (plural or word + 's')}"


def summary(diagnostics: list[Diagnostic], context: ReportContext) -> list[str]:
    """ruff's closing lines: the count, then what --fix / --unsafe-fixes would do."""
    remaining = len(diagnostics)
    if not context.summary:
        return []
    if remaining == 0 and context.fixed == 0:
        return [] if context.failed else ["All checks passed!"]
    if context.fix_mode:
        total = remaining + context.fixed
        lines = [f"Found {_plural(total, 'error')} ({context.fixed} fixed, {remaining} remaining)."]
    else:
        lines = [f"Found {_plural(remaining, 'error')}."]
    fixable = sum(fix_is_applicable(d, context.unsafe_fixes) for d in diagnostics)
    hidden = 0
    if not context.unsafe_fixes:
        hidden = sum(d.fix is not None and d.fix.applicability is Applicability.UNSAFE for d in diagnostics)
    hint = f"{_plural(hidden, 'hidden fix', 'hidden fixes')} can be enabled with the `--unsafe-fixes` option"
    if fixable and hidden:
        lines.append(f"[*] {fixable} fixable with the `--fix` option ({hint}).")
    elif fixable:
        lines.append(f"[*] {fixable} fixable with the `--fix` option.")
    elif hidden:
        lines.append(f"No fixes available ({hint}).")
    return lines


def _marker(d: Diagnostic, context: ReportContext) -> str:
    return " [*]" if fix_is_applicable(d, context.unsafe_fixes) else ""


def _header(d: Diagnostic, context: ReportContext) -> Line:
    return [
        (d.filename, "bold"),
        (f":{position(d)}: ", ""),
        (d.code, "bold red"),
        (_marker(d, context), "cyan"),
        (f" {d.message}", ""),
    ]


def format_concise(diagnostics: list[Diagnostic], context: ReportContext) -> str:
    lines = [_plain(_header(d, context)) for d in diagnostics] + summary(diagnostics, context)
    return "\n".join(lines) + "\n" if lines else ""


def _underline(line: str, start: int, end: int) -> str:
    """Carets under characters [start, end) of `line` (0-based), keeping tabs so they align."""
    start = min(max(start, 0), len(line))
    end = max(end, start + 1)
    pad = "".join("\t" if ch == "\t" else " " for ch in line[:start])
    return pad + "^" * (end - start)


def _frame(d: Diagnostic, source: str) -> list[Line]:
    if not source:
        return []  # the file could not be read: nothing to show
    rows = _NEWLINE.split(source)
    if source.endswith(("\n", "\r")):
        rows.pop()  # the empty "line" after the last newline
    first = d.location.row
    last = max(d.end_location.row, first)
    if not rows or first > len(rows):
        return []
    last = min(last, len(rows))
    shown = list(range(max(1, first - CONTEXT_LINES), min(len(rows), last + CONTEXT_LINES) + 1))
    if last - first + 1 > MAX_RANGE_LINES:  # keep the ends of a long range, drop its middle
        shown = [r for r in shown if r <= first + 1 or r >= last - 1]
    width = len(str(shown[-1]))
    gutter = " " * width + " |"
    out: list[Line] = [[(gutter, "blue")]]
    previous = None
    for row in shown:
        if previous is not None and row != previous + 1:
            out.append([(" " * width + " ...", "blue")])
        previous = row
        text = rows[row - 1]
        out.append([(f"{row:>{width}} | ", "blue"), (text, "")])
        if row == first:
            end = d.end_location.column - 1 if last == first else len(text.rstrip())
            out.append([(gutter + " ", "blue"), (_underline(text, d.location.column - 1, end), "bold red")])
        elif row == last:
            indent = len(text) - len(text.lstrip())
            out.append([(gutter + " ", "blue"), (_underline(text, indent, d.end_location.column - 1), "bold red")])
    out.append([(gutter, "blue")])
    return out


def _help(d: Diagnostic, context: ReportContext) -> list[Line]:
    out: list[Line] = []
    if d.fix is not None:
        if d.fix.applicability is Applicability.SAFE:
            note = "safe fix"
        elif d.fix.applicability is Applicability.UNSAFE:
            note = "unsafe fix" if context.unsafe_fixes else "unsafe fix; use --unsafe-fixes"
        else:
            note = "suggestion"
        out.append([("help", "bold cyan"), (f": {d.fix.message} ({note})", "")])
    elif d.no_fix:
        out.append([("help", "bold cyan"), (f": no automatic fix: {d.no_fix}", "")])
    if d.url:
        out.append([("docs", "bold"), (f": {d.url}", "")])
    return out


def format_full(diagnostics: list[Diagnostic], context: ReportContext) -> str:
    lines: list[Line] = []
    for d in diagnostics:
        lines.append(_header(d, context))
        lines.extend(_frame(d, source_of(d, context)))
        lines.extend(_help(d, context))
        lines.append([])
    lines.extend([[(text, "bold" if i == 0 else "")] for i, text in enumerate(summary(diagnostics, context))])
    if not lines:
        return ""  # an error ended the run before any finding (no "All checks passed!")
    return _render_color(lines) if context.color else "\n".join(_plain(line) for line in lines) + "\n"


def _plain(line: Line) -> str:
    return "".join(printable(text) for text, _ in line)


def _render_color(lines: list[Line]) -> str:
    import io

    from rich.console import Console
    from rich.text import Text

    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, soft_wrap=True, highlight=False, markup=False, emoji=False)
    for line in lines:
        text = Text()
        for piece, style in line:
            text.append(printable(piece), style=style or None)
        console.print(text)
    return buffer.getvalue()
