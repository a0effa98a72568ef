"""What the server lints: an open Python file or notebook, as the engine sees it and as the editor holds it.

A Python file is linted as it is. A notebook document (LSP 3.17 notebook sync) becomes the virtual
module `padlint check` lints (padlint.files.notebook): its cells are written out as an nbformat 4
document and read back by the same code, so magics, cell markers and cells that do not parse are
handled as on the command line. Findings go back to the cell they are in, and a changed virtual text
(a fix, a noqa comment) back to new cell texts, through the notebook writer that `--fix` uses.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

from padlint.types import Diagnostic


@dataclass(frozen=True)
class Part:
    """One text the editor holds: a Python file, or one cell of a notebook."""

    uri: str
    text: str
    version: int | None


@dataclass(frozen=True)
class Finding:
    """A diagnostic as shown in its part and, for fixes and noqa comments, as the engine found it."""

    part: Part
    shown: Diagnostic  # rows and columns in `part.text`
    found: Diagnostic | None  # rows and columns in the engine text; None for a cell linted on its own


class PythonDocument:
    """An open `.py` file (or an unsaved buffer): the engine lints its text as it is."""

    def __init__(self, uri: str, path: str, text: str, version: int | None):
        self.uri = uri
        self.path = path  # where settings are looked up from, and the file name in findings
        self.part = Part(uri, text, version)
        self.parts: tuple[Part, ...] = (self.part,)
        self.engine_text = text
        self.notebook = None

    def place(self, found: Diagnostic) -> Finding:
        return Finding(self.part, found, found)

    def cell_errors(self) -> list[Finding]:
        return []

    def changed_parts(self, new_engine_text: str) -> list[tuple[Part, str]]:
        """(part, its new text) for each part that `new_engine_text` changes."""
        return [(self.part, new_engine_text)] if new_engine_text != self.part.text else []


class NotebookDocument:
    """An open notebook: its cells in order, the code cells linted as one virtual module."""

    def __init__(self, uri: str, path: str, cells: list[tuple[Part, bool]], target_version: str | None = None):
        """`cells`: every cell of the notebook in order, with whether it is Python code;
        `target_version`: the Python the project's code is for (which cells parse)."""
        from padlint.files.notebook import Notebook
        from padlint.files.notebook_cells import CellMap

        self.uri = uri
        self.path = path
        self.parts = tuple(part for part, _ in cells)
        document = {
            "cells": [_cell_json(part.text, is_code) for part, is_code in cells],
            "metadata": {"language_info": {"name": "python"}},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
        self.notebook = Notebook(json.dumps(document, indent=1).encode("utf-8"), target_version)
        self.engine_text = self.notebook.virtual_text()
        self._cells = CellMap(self.engine_text)

    def _part(self, cell: int | None) -> Part | None:
        return self.parts[cell - 1] if cell is not None and 0 < cell <= len(self.parts) else None

    def place(self, found: Diagnostic) -> Finding | None:
        # A cell IPython dedents is linted dedented: its findings go back to where its code is.
        (at_columns,) = self.notebook.original_columns([found], self.engine_text)
        shown = self._cells.to_cell(at_columns)
        part = self._part(shown.cell)
        return Finding(part, shown, found) if part is not None else None

    def cell_errors(self) -> list[Finding]:
        """PAD000 for each code cell that does not parse on its own (the other cells are linted)."""
        from padlint.run.worker import invalid_file_diagnostic

        found = []
        for cell, message, row, column in self.notebook.cell_errors():
            part = self._part(cell)
            if part is not None:
                shown = replace(invalid_file_diagnostic(self.path, message, row, column), cell=cell)
                found.append(Finding(part, shown, None))
        return found

    def changed_parts(self, new_engine_text: str) -> list[tuple[Part, str]]:
        """(cell, its new text) for each cell that `new_engine_text` (a fixed virtual module) changes."""
        written = json.loads(self.notebook.encode(new_engine_text).decode("utf-8"))
        changed = []
        for part, cell in zip(self.parts, written["cells"]):
            source = cell.get("source", "")
            text = "".join(source) if isinstance(source, list) else source
            if text != part.text:
                changed.append((part, text))
        return changed


def _cell_json(text: str, is_code: bool) -> dict:
    if is_code:
        return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": text}
    return {"cell_type": "markdown", "metadata": {}, "source": text}


Document = PythonDocument | NotebookDocument
