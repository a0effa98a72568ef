"""The rows of a notebook's virtual module and the cells they belong to: the marker line before each
cell (`# padlint-cell N`), the cells of a (fixed) virtual text, findings with their rows counted in
their cell, and diffs per cell. Text only: neither the notebook's JSON (notebook_json.py) nor the
Notebook (notebook.py) is needed here, so reports and diffs import this alone.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import replace

from padlint.files.notebook_magics import lines_of as _lines
from padlint.types import Diagnostic, Edit, Fix, Location

MARKER = "# padlint-cell "
_MARKER_LINE = re.compile(r"^# padlint-cell (\d+)$")
_LINE_REF = re.compile(r"\b(?:line (\d+)|error at (\d+)(?=:\d))")  # rows named in messages


def split_cells(virtual: str) -> dict[int, str]:
    """Cell index -> the text after its marker line, up to the next marker (line ends kept)."""
    cells: dict[int, str] = {}
    current: int | None = None
    parts: list[str] = []
    for line in _lines(virtual):
        match = _MARKER_LINE.match(line.rstrip("\r\n"))
        if match:
            if current is not None:
                cells[current] = "".join(parts)
            current, parts = int(match.group(1)), []
        elif current is not None:
            parts.append(line)
    if current is not None:
        cells[current] = "".join(parts)
    return cells


class CellMap:
    """Virtual rows -> (cell, row in the cell), from the marker lines of a virtual text."""

    def __init__(self, virtual: str):
        self.markers: list[tuple[int, int]] = []  # (virtual row of the marker, cell index)
        for row, line in enumerate(_lines(virtual), start=1):
            match = _MARKER_LINE.match(line.rstrip("\r\n"))
            if match:
                self.markers.append((row, int(match.group(1))))

    def locate(self, row: int) -> tuple[int | None, int]:
        cell, start = None, 0
        for marker_row, index in self.markers:
            if marker_row >= row:
                break
            cell, start = index, marker_row
        return cell, row - start

    def to_cell(self, d: Diagnostic) -> Diagnostic:
        """The diagnostic with rows counted within its cell and `cell` set."""
        cell, row = self.locate(d.location.row)
        if cell is None:
            return d
        start = d.location.row - row  # the marker's row

        def loc(at: Location) -> Location:
            return Location(max(at.row - start, 1), at.column)

        fix = d.fix
        if fix is not None:
            fix = Fix(
                fix.applicability,
                fix.message,
                tuple(Edit(e.content, loc(e.location), loc(e.end_location)) for e in fix.edits),
            )
        first, last = d.statement_rows
        rows = (first - start, last - start) if first > 0 and last > 0 else d.statement_rows
        return replace(
            d,
            location=loc(d.location),
            end_location=loc(d.end_location),
            fix=fix,
            cell=cell,
            statement_rows=rows,
            message=self._message(d.message, cell),
            no_fix=self._message(d.no_fix, cell) if d.no_fix else d.no_fix,
        )

    def _message(self, message: str, cell: int) -> str:
        """Rules name other rows as `line N` (of the virtual module): say the cell's line."""

        def cell_line(match: re.Match) -> str:
            if match.group(2) is not None:  # libcst's "error at ROW:COLUMN"
                return f"error at {self.locate(int(match.group(2)))[1]}"
            other, row = self.locate(int(match.group(1)))
            if other is None:
                return match.group(0)
            return f"line {row}" if other == cell else f"line {row} of cell {other}"

        parts = message.split("`")  # never inside quoted code
        return "`".join(_LINE_REF.sub(cell_line, p) if i % 2 == 0 else p for i, p in enumerate(parts))


def cell_text(virtual: str, cell: int) -> str:
    """The text of one cell as the engine saw it (magics as placeholders)."""
    return split_cells(virtual).get(cell, "")


def to_cells(diagnostics: list[Diagnostic], sources: Mapping[str, str]) -> list[Diagnostic]:
    """Notebook diagnostics with cell-relative rows; others unchanged."""
    maps: dict[str, CellMap] = {}
    out = []
    for d in diagnostics:
        source = sources.get(d.filename)
        if d.cell is not None or not source or not source.startswith(MARKER):
            out.append(d)
            continue
        if d.filename not in maps:
            maps[d.filename] = CellMap(source)
        out.append(maps[d.filename].to_cell(d))
    return out


def cell_diff(filename: str, old: str, new: str) -> str:
    """A unified diff per changed cell, headed `path:cell N`, with rows counted in the cell."""
    before, after = split_cells(old), split_cells(new)
    chunks = []
    for index in sorted(set(before) | set(after)):
        a, b = before.get(index, ""), after.get(index, "")
        if a == b:
            continue
        name = f"{filename}:cell {index}"
        lines = difflib.unified_diff(a.splitlines(True), b.splitlines(True), name, name)
        chunks.append("".join(line if line.endswith("\n") else line + "\n" for line in lines))
    return "".join(chunks)
