"""Jupyter notebooks: one virtual module for the engine, and the fixed cells written back in place.

The code cells are concatenated into one module, so values flow across cells as they do when the
notebook runs top to bottom. Each cell is preceded by a marker comment line (`# padlint-cell N`, N
the 1-based index of the cell among *all* cells of the notebook), which lets us find the cells
again in any fixed text: fixes never touch comment lines between statements. IPython syntax that is
not Python (`%magic`, `!shell`, ...) is replaced line for line by placeholders, so rows still
match, and restored on the way back (notebook_magics.py).

Writing back uses plain `json` and splices: the byte span of each changed cell's `source` value is
found with a small position-aware scan and only that span is replaced, serialised in the file's own
style (list of lines or one string, its indentation, ASCII escaping or not; notebook_json.py).
Everything else (key order, indentation, metadata, outputs, the trailing newline or its absence)
stays byte for byte. nbformat would re-serialise the whole document (sorted keys, indent 1, its own
validation), which changes notebooks written by other tools. The rows of the virtual module and the
cells they belong to are notebook_cells.py's.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace

from padlint.files.notebook_cells import MARKER, CellMap, split_cells
from padlint.files.notebook_json import NotebookError, dump_source, source_spans
from padlint.files.notebook_magics import lines_of as _lines
from padlint.files.notebook_magics import mask_magics, reindent, restore
from padlint.types import Diagnostic, Edit, Fix, Location


@dataclass
class _Cell:
    index: int  # 1-based, among all cells
    span: tuple[int, int]  # where its `source` value is in the JSON text
    raw: object  # the `source` value as read (list of lines or string)
    text: str  # the source as one string
    virtual: str  # the text the engine sees (magics replaced)
    magics: dict[int, str]  # placeholder number -> original line (without line end)
    added_newline: bool  # a "\n" was added so the next marker starts a line
    broken: str | None = None  # not Python even with its magics masked (the engine sees none of it)
    indent: str = ""  # removed from the start of its lines, as IPython does (the engine sees them dedented)

    def restored(self, segment: str) -> str:
        """The cell's text for a segment of the virtual module: IPython lines and indentation back."""
        return reindent(restore(segment, self.magics), restore(self.virtual, self.magics), self.text, self.indent)

    def shift(self, row: int) -> int:
        """Columns the engine's row `row` (1-based, in the cell as read) lost to the dedent."""
        lines = _lines(self.text)
        return (
            len(self.indent) if self.indent and 0 < row <= len(lines) and lines[row - 1].startswith(self.indent) else 0
        )


# --- the notebook ---------------------------------------------------------------------------------


class Notebook:
    """A parsed notebook: its JSON text, its code cells, and how to write changed cells back."""

    def __init__(self, data: bytes, target_version: str | None = None):
        self.target_version = target_version  # the code's Python: which parser's refusal counts
        self.bom = data.startswith(b"\xef\xbb\xbf")
        try:
            self.json_text = data[3 if self.bom else 0 :].decode("utf-8")
            document = json.loads(self.json_text)
        except UnicodeDecodeError as exc:
            raise NotebookError(f"not valid UTF-8 ({exc.reason})") from None
        except json.JSONDecodeError as exc:
            raise NotebookError(f"not valid JSON: {exc}") from None
        if not isinstance(document, dict) or not isinstance(document.get("cells"), list):
            if isinstance(document, dict) and "worksheets" in document:
                raise NotebookError(
                    "nbformat 3 notebooks are not supported (convert with `jupyter nbconvert --to notebook`)"
                )
            raise NotebookError("not a Jupyter notebook (no `cells` list)")
        spans = source_spans(self.json_text)
        self.cells: list[_Cell] = []
        if not _is_python(document):
            return  # an R or Julia notebook: nothing for us to lint
        counter = [0]
        for number, cell in enumerate(document["cells"]):
            if not isinstance(cell, dict) or cell.get("cell_type") != "code" or number not in spans:
                continue
            raw = cell.get("source", "")
            text = "".join(raw) if isinstance(raw, list) else str(raw)
            virtual, magics, broken, indent = mask_magics(text, counter, target_version)
            added = not virtual.endswith(("\n", "\r"))
            self.cells.append(_Cell(number + 1, spans[number], raw, text, virtual, magics, added, broken, indent))
        self.ascii_only = self.json_text.isascii()

    def virtual_text(self) -> str:
        """The module the engine lints: every code cell after its marker line."""
        return "".join(f"{MARKER}{c.index}\n{c.virtual}{chr(10) if c.added_newline else ''}" for c in self.cells)

    def cell_errors(self) -> list[tuple[int, str, int, int]]:
        """(cell, message, row, column) of each code cell that does not parse on its own, its rows
        counted in the cell: Jupyter compiles cells one at a time, so one broken cell (a placeholder
        such as `<your-api-key>`, an unclosed bracket) stops neither the notebook nor its linting."""
        from padlint.engine import SourceError, parse
        from padlint.files.source import quiet_parser
        from padlint.grammar import cpython_grammar

        found = []
        for cell in self.cells:
            if cell.broken is None:
                continue
            try:
                parse(cell.broken)
            except SourceError as exc:
                found.append((cell.index, f"cannot parse: {exc}", exc.row, exc.column + cell.shift(exc.row)))
                continue
            # libcst takes what CPython refuses: CPython's reason (a cell counts as broken on that
            # only when the notebook's Python is not newer than this one: padlint.grammar).
            try:
                with quiet_parser():
                    compile(cell.broken, f"<cell {cell.index}>", "exec", dont_inherit=True)
            except SyntaxError as exc:
                row = exc.lineno or 1
                message = f"cannot parse: invalid syntax ({cpython_grammar()}): {exc.msg}"
                found.append((cell.index, message, row, (exc.offset or 1) + cell.shift(row)))
            except ValueError as exc:  # a NUL character
                found.append((cell.index, f"cannot parse: {exc}", 1, 1))
        return found

    def original_columns(self, diagnostics: list[Diagnostic], virtual: str) -> list[Diagnostic]:
        """Findings in `virtual` (rows of the virtual module) with the columns of the notebook's
        text: a cell IPython dedents is linted dedented, and reported where its code really is."""
        cells = {c.index: c for c in self.cells if c.indent}
        if not cells:
            return diagnostics
        rows = CellMap(virtual)
        out = []
        for d in diagnostics:
            cell_index, _ = rows.locate(d.location.row)
            cell = cells.get(cell_index) if d.cell is None and cell_index is not None else None
            out.append(_shifted(d, cell, rows) if cell is not None else d)
        return out

    def display_text(self, virtual: str) -> str:
        """`virtual` with the IPython lines back in place of their placeholders (same rows): the
        text a report quotes."""
        cells = split_cells(virtual)
        known = {c.index: c for c in self.cells}
        return "".join(
            f"{MARKER}{index}\n{known[index].restored(text) if index in known else text}"
            for index, text in cells.items()
        )

    def encode(self, virtual: str) -> bytes:
        """The notebook's bytes with the cells of `virtual` (a fixed virtual text) written back."""
        new_texts = split_cells(virtual)
        out = self.json_text
        for cell in sorted(self.cells, key=lambda c: c.span[0], reverse=True):
            segment = new_texts.get(cell.index)
            if segment is None or segment == cell.virtual + ("\n" if cell.added_newline else ""):
                continue  # unchanged: keep its bytes
            if cell.added_newline and segment.endswith("\n"):
                segment = segment[:-1]
            text = cell.restored(segment)
            if text == cell.text:
                continue
            start, end = cell.span
            out = out[:start] + dump_source(self.json_text, start, end, text, cell.raw, self.ascii_only) + out[end:]
        data = out.encode("utf-8")
        return b"\xef\xbb\xbf" + data if self.bom else data


def _shifted(d: Diagnostic, cell: _Cell, rows: CellMap) -> Diagnostic:
    """`d` (virtual rows, in a dedented cell) with its columns and its fix's edits moved right by
    the indentation its rows lost; an edit's new lines get that indentation too."""

    def at(loc: Location) -> Location:
        return Location(loc.row, loc.column + cell.shift(rows.locate(loc.row)[1]))

    fix = d.fix
    if fix is not None:
        edits = []
        for edit in fix.edits:
            indented = (
                edit.content.replace("\n", "\n" + cell.indent)
                if cell.shift(rows.locate(edit.location.row)[1])
                else edit.content
            )
            edits.append(Edit(indented, at(edit.location), at(edit.end_location)))
        fix = Fix(fix.applicability, fix.message, tuple(edits))
    return replace(d, location=at(d.location), end_location=at(d.end_location), fix=fix)


def _is_python(document: dict) -> bool:
    metadata = document.get("metadata")
    if not isinstance(metadata, dict):
        return True
    for key, field_name in (("language_info", "name"), ("kernelspec", "language")):
        info = metadata.get(key)
        if isinstance(info, dict) and isinstance(info.get(field_name), str):
            return info[field_name].lower() in ("python", "python3", "ipython", "ipython3")
    return True


def decode_notebook(data: bytes, path: str | None, target_version: str | None = None):
    """A SourceFile whose text is the notebook's virtual module (see padlint.files.source)."""
    from padlint.files.source import SourceFile, SourceReadError

    try:
        notebook = Notebook(data, target_version)
    except NotebookError as exc:
        raise SourceReadError(f"cannot read notebook: {exc}") from None
    digest = hashlib.sha256(data).hexdigest()
    return SourceFile(notebook.virtual_text(), "utf-8", False, "\n", digest, path, notebook=notebook)
