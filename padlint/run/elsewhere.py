"""Writing (or showing) the part of a fix that edits another file than the finding's.

A fix whose harm is repaired in the module that calls this one (rules/elsewhere.py) carries edits of
that module, positioned in its text as the analysis read it. The runner holds back each file whose
applied fixes have such edits, and settles them together once every file of the run was handled:
  - every other file is checked first: unchanged on disk since the analysis read it, not changed by
    its own fixes in this run (its positions would be stale), decodable as it was read, and still
    parsing once edited; the edits of several fixes in one file must not overlap;
  - only then is anything written: the other files, then the file the finding is in (each
    atomically); `--diff` shows the same changes and writes nothing.
When a check fails nothing of those fixes is written: the file keeps its findings, and a warning
says why (running `--fix` again, once the other file's own fixes are in, applies them).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from padlint.types import Diagnostic, Edit

if TYPE_CHECKING:
    from padlint.files.source import SourceFile
    from padlint.run.runner import _Job


@dataclass
class Held:
    """A file whose fixes also edit other files, as its worker returned it."""

    job: _Job
    found: list[Diagnostic]
    new_text: str
    fixed: list[Diagnostic]
    read: dict | None

    def elsewhere(self) -> dict[str, list[Edit]]:
        edits: dict[str, list[Edit]] = {}
        for diagnostic in self.fixed:
            for edit in diagnostic.fix.elsewhere if diagnostic.fix is not None else ():
                listed = edits.setdefault(edit.filename or "", [])
                if edit not in listed:
                    listed.append(edit)
        return edits


@dataclass
class Planned:
    """Another file's new text, and what it takes to write it."""

    path: str
    text: str
    new_text: str
    source: SourceFile
    holders: list[Held] = field(default_factory=list)


def has_elsewhere(fixed: list[Diagnostic]) -> bool:
    return any(d.fix is not None and d.fix.elsewhere for d in fixed)


def settle(
    held: list[Held], changed: set[str], target_version: str | None
) -> tuple[list[Planned], list[tuple[Held, str]]]:
    """(the other files to write, the held files refused with the reason). `changed`: absolute paths
    of the files this run's own fixes changed."""
    refused: dict[int, str] = {}
    by_path: dict[str, list[tuple[Held, list[Edit]]]] = {}
    for holder in held:
        for path, edits in holder.elsewhere().items():
            by_path.setdefault(path, []).append((holder, edits))
    planned: dict[str, Planned] = {}
    for path, parts in by_path.items():
        reason = None
        source = None
        if os.path.abspath(path) in changed:
            reason = "its own fixes changed it in this run; run --fix again"
        else:
            source, reason = _read_as_analysed(path, parts, target_version)
        new_text = None
        if reason is None and source is not None:
            new_text = apply_edits(source.text, [e for _, edits in parts for e in edits])
            reason = None if new_text is not None else "fixes would edit the same place of it"
        if reason is None and new_text is not None and not _parses(new_text):
            reason = "the edited code would not parse"
        for holder, _ in parts:
            if reason is not None:
                refused.setdefault(id(holder), f"the fix also edits {_shown(path)}, but {reason}")
        if reason is None and source is not None and new_text is not None:
            planned[path] = Planned(path, source.text, new_text, source, [h for h, _ in parts])
    # A file refused for one of its other files writes none of them (a plan shared with it goes too).
    dropped = True
    while dropped:
        dropped = False
        for path, plan in list(planned.items()):
            if any(id(h) in refused for h in plan.holders):
                for holder in plan.holders:
                    refused.setdefault(id(holder), f"the fix also edits {_shown(path)}, which another fix could not")
                del planned[path]
                dropped = True
    refusals = [(h, refused[id(h)]) for h in held if id(h) in refused]
    return list(planned.values()), refusals


def _read_as_analysed(path: str, parts, target_version: str | None):
    from padlint.analysis import reads
    from padlint.files.reading import decode_source
    from padlint.files.source import SourceReadError, read_bytes

    try:
        data = read_bytes(path)
        source = decode_source(data, path, target_version)
    except SourceReadError as exc:
        return None, f"it cannot be read ({exc})"
    digest = reads.digest(data)
    if any((holder.read or {}).get(os.path.abspath(path)) != digest for holder, _ in parts):
        return None, "it changed on disk since it was read; run --fix again"
    if source.notebook is not None or source.has_bom or source.encoding.lower().replace("_", "-") != "utf-8":
        return None, "its encoding is not plain UTF-8"  # positions were worked out in its UTF-8 text
    return source, None


def _parses(text: str) -> bool:
    from padlint import engine

    try:
        engine.parse(text)
    except engine.SourceError:
        return False
    return True


def apply_edits(text: str, edits: list[Edit]) -> str | None:
    """`edits` (rows and columns of `text`) applied at once; None where two of them overlap."""
    from padlint.engine import _line_offsets

    offsets = _line_offsets(text)

    def offset(row: int, column: int) -> int:
        return offsets[row - 1] + column - 1 if row - 1 < len(offsets) else len(text)

    spans = sorted({(offset(*_rc(e.location)), offset(*_rc(e.end_location)), e.content) for e in edits})
    for (start, end, content), (next_start, next_end, next_content) in zip(spans, spans[1:]):
        if next_start < end or (start == end == next_start == next_end and content != next_content):
            return None
    for start, end, content in reversed(spans):
        text = text[:start] + content + text[end:]
    return text


def _rc(location) -> tuple[int, int]:
    return location.row, location.column


def _shown(path: str) -> str:
    """A path as the user would name it: relative to the working directory when under it."""
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def write_all(planned: list[Planned], error: Callable[[str], None]) -> bool:
    """Write the other files (each atomically); False after the first that cannot be written."""
    from padlint.files.source import SourceWriteError, write_source_atomic

    for plan in planned:
        try:
            write_source_atomic(plan.path, plan.new_text, plan.source)
        except SourceWriteError as exc:
            error(f"{_shown(plan.path)}: not fixed: {exc}")
            return False
    return True


def diffs(planned: list[Planned]) -> list[str]:
    from padlint.fixes.diff import unified_diff

    return [unified_diff(_shown(plan.path), plan.text, plan.new_text) for plan in planned]
