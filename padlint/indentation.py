"""Code CPython reads that libcst refuses: a line indented with spaces and then a tab.

CPython puts a tab to the next multiple of 8 columns (and checks that no block's indentation depends
on the tab size); libcst compares the characters and may find no outer block for a dedent. Such a file
is read with each line's indentation expanded as CPython expands it: the same code, every row where it
was. Its findings are placed back in the text as written and carry no fix: the edits would be written
for the expanded text.
"""

from __future__ import annotations

import ast
import dataclasses

from padlint.types import Diagnostic, Location

TABS_NO_FIX = (
    "this file indents lines with spaces and tabs mixed, which libcst cannot parse as written: it was read with "
    "those tabs expanded, so no edit is written to it; change it by hand (or indent with spaces only)"
)


def expanded(source: str) -> tuple[str, dict[int, int]] | None:
    """The source with each line's indentation tabs expanded to 8 columns, and how many columns each
    changed row grew; None when no line indents with a tab or CPython does not read the source."""
    if "\t" not in source or not _cpython_reads(source):
        return None
    lines = source.splitlines(keepends=True)
    grown: dict[int, int] = {}
    for row, line in enumerate(lines, 1):
        body = line.lstrip(" \t")
        indent = line[: len(line) - len(body)]
        if "\t" in indent and body.strip():
            lines[row - 1] = indent.expandtabs(8) + body
            grown[row] = len(indent.expandtabs(8)) - len(indent)
    return ("".join(lines), grown) if grown else None


def _cpython_reads(source: str) -> bool:
    try:
        ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    return True


def as_written(diagnostics: list[Diagnostic], grown: dict[int, int]) -> list[Diagnostic]:
    """Findings of the expanded text, placed in the text as written (a column inside a changed row's
    indentation stays at its start); without fixes, which are written for the expanded text."""

    def back(location: Location) -> Location:
        shift = grown.get(location.row, 0)
        return Location(location.row, max(1, location.column - shift)) if shift else location

    return [
        dataclasses.replace(
            d,
            location=back(d.location),
            end_location=back(d.end_location),
            fix=None,
            no_fix="; ".join(p for p in (TABS_NO_FIX, d.no_fix) if p) if d.fix is not None else d.no_fix,
        )
        for d in diagnostics
    ]
