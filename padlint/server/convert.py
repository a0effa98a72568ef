"""padlint's records in LSP terms: positions, diagnostics, and a changed text as minimal text edits.

padlint counts rows from 1 and columns from 1 in characters (code points); LSP counts both from 0,
columns in the code units the client and server agreed on (UTF-16 unless the client offers another).
Lines end only at `\\n`, `\\r\\n` or `\\r` for both (not at the other breaks str.splitlines knows).
"""

from __future__ import annotations

import bisect
import difflib
import re
from collections.abc import Callable

from lsprotocol import types

from padlint.config import SYNTAX_ERROR_CODE
from padlint.suppress import UNUSED_NOQA
from padlint.types import Applicability, Diagnostic, Location

SOURCE = "padlint"
Units = Callable[[str], int]  # how many client code units a string takes
_NEWLINE = re.compile(r"\r\n|\r|\n")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)?")


class TextLines:
    """Where each line of a text starts, to turn padlint locations and offsets into LSP positions."""

    def __init__(self, text: str, units: Units):
        self.text = text
        self.units = units
        self.starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]

    def _line_text(self, line: int) -> str:
        end = self.starts[line + 1] if line + 1 < len(self.starts) else len(self.text)
        return self.text[self.starts[line] : end].rstrip("\r\n")

    def position(self, location: Location) -> types.Position:
        line = min(max(location.row - 1, 0), len(self.starts) - 1)
        content = self._line_text(line)
        return types.Position(line=line, character=self.units(content[: max(location.column - 1, 0)]))

    def position_at(self, offset: int) -> types.Position:
        line = bisect.bisect_right(self.starts, offset) - 1
        return types.Position(line=line, character=self.units(self.text[self.starts[line] : offset]))


def to_lsp(diagnostic: Diagnostic, lines: TextLines) -> types.Diagnostic:
    """As ruff's server shows findings: a warning (an error for a file that does not parse), the code
    linking to the rule page, and in `data` the rule name and what its fix is."""
    fix = diagnostic.fix
    return types.Diagnostic(
        range=types.Range(start=lines.position(diagnostic.location), end=lines.position(diagnostic.end_location)),
        message=diagnostic.message,
        severity=(
            types.DiagnosticSeverity.Error if diagnostic.code == SYNTAX_ERROR_CODE else types.DiagnosticSeverity.Warning
        ),
        code=diagnostic.code,
        code_description=types.CodeDescription(href=diagnostic.url) if diagnostic.url else None,
        source=SOURCE,
        tags=[types.DiagnosticTag.Unnecessary] if diagnostic.code == UNUSED_NOQA else None,
        data={
            "name": diagnostic.name,
            "fix": None if fix is None else {"applicability": fix.applicability.value, "title": fix.message},
        },
    )


def offers_fix(diagnostic: Diagnostic) -> bool:
    """Whether a quick fix is offered: safe and unsafe fixes (the user applies each one by hand), of
    this document alone (a fix that also edits another file is applied by `padlint check --fix`)."""
    fix = diagnostic.fix
    return fix is not None and fix.applicability in (Applicability.SAFE, Applicability.UNSAFE) and not fix.elsewhere


def text_edits(old: str, new: str, units: Units) -> list[types.TextEdit]:
    """Edits that turn `old` into `new`: the changed runs of lines, trimmed to the characters that
    differ, so an editor keeps its cursor, folds and marks on the lines a fix does not touch."""
    lines = TextLines(old, units)
    before = [m.group(0) for m in _LINE.finditer(old) if m.group(0)]
    after = [m.group(0) for m in _LINE.finditer(new) if m.group(0)]
    starts = lines.starts[: len(before)] + [len(old)]
    edits = []
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        start, end = starts[i1], starts[i2]
        replaced, replacement = old[start:end], "".join(after[j1:j2])
        head = _common_prefix(replaced, replacement)
        tail = _common_prefix(replaced[head:][::-1], replacement[head:][::-1])
        if start + head > 0 and old[start + head - 1 : start + head + 1] == "\r\n":
            head -= 1  # never split a CRLF: LSP has no position between its two characters
        if old[end - tail - 1 : end - tail + 1] == "\r\n":
            tail -= 1
        edits.append(
            types.TextEdit(
                range=types.Range(start=lines.position_at(start + head), end=lines.position_at(end - tail)),
                new_text=replacement[head : len(replacement) - tail],
            )
        )
    return edits


def _common_prefix(a: str, b: str) -> int:
    limit = min(len(a), len(b))
    i = 0
    while i < limit and a[i] == b[i]:
        i += 1
    return i
