"""Adopting padlint on a large codebase: `--add-noqa` and `--statistics`.

`--add-noqa` writes `# noqa: CODE` where padlint looks for it (the end of the flagged statement's
last line, see padlint.suppress), merging the codes into a `# noqa: ...` or `# padlint: ignore[...]`
comment already there. Comments are located with `tokenize`, so nothing is ever written inside a
string; when the end of a statement's last line is inside one (or ends with a backslash), the first
line of the statement is used, and failing that an own-line comment above it.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections import defaultdict
from dataclasses import dataclass, field

from padlint.suppress import _IGNORE, _NOQA, noqa_row
from padlint.types import Diagnostic

NOT_ADDED = frozenset({"PAD000", "PAD100"})  # unparseable files; unused suppressions are fixed, not silenced
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)?")


@dataclass
class _Layout:
    comments: dict[int, tuple[int, str]] = field(default_factory=dict)  # row -> (column, text)
    unsafe_rows: set[int] = field(default_factory=set)  # rows whose end is inside a token


def _layout(source: str) -> _Layout:
    layout = _Layout()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT:
                layout.comments[tok.start[0]] = (tok.start[1], tok.string)
            elif tok.end[0] > tok.start[0] and tok.type not in (tokenize.NEWLINE, tokenize.NL):
                layout.unsafe_rows.update(range(tok.start[0], tok.end[0]))
    except (tokenize.TokenError, SyntaxError):
        pass
    return layout


def _merge(comment: str, codes: list[str]) -> str | None:
    """`comment` with `codes` added to its noqa / padlint-ignore list; None if it has neither."""
    noqa = _NOQA.search(comment)
    if noqa is not None and noqa.group("colon") is not None:
        present = set(re.findall(r"[A-Z]+[0-9]+", (noqa.group("codes") or "").upper()))
        missing = [c for c in codes if c not in present]
        if not missing:
            return comment
        if noqa.group("codes"):
            at = noqa.end("codes")
            return comment[:at] + ", " + ", ".join(missing) + comment[at:]
        at = noqa.end("colon")
        space = "" if comment[:at].endswith(" ") else " "
        return comment[:at] + space + ", ".join(missing) + comment[at:]
    ignore = _IGNORE.search(comment)
    if ignore is not None:
        present = set(re.findall(r"[A-Z]+[0-9]+", ignore.group("codes").upper()))
        missing = [c for c in codes if c not in present]
        if not missing:
            return comment
        at = ignore.end("codes")
        joiner = ", " if ignore.group("codes").strip() else ""
        return comment[:at] + joiner + ", ".join(missing) + comment[at:]
    return None


def _with_comment(line: str, row: int, codes: list[str], layout: _Layout) -> str:
    body = line.rstrip("\r\n")
    ending = line[len(body) :]
    existing = layout.comments.get(row)
    if existing is not None:
        column, comment = existing
        merged = _merge(comment, codes)
        if merged is not None:
            return body[:column] + merged + body[column + len(comment) :] + ending
    return body.rstrip() + "  # noqa: " + ", ".join(codes) + ending


def add_noqa(source: str, diagnostics: list[Diagnostic]) -> tuple[str, int]:
    """`source` with a noqa comment for every diagnostic, and how many lines got one."""
    wanted = [d for d in diagnostics if d.code not in NOT_ADDED]
    if not wanted:
        return source, 0
    layout = _layout(source)
    lines = [m.group(0) for m in _LINE.finditer(source) if m.group(0)]
    at_end: dict[int, set[str]] = defaultdict(set)  # row -> codes for a trailing comment
    above: dict[int, set[str]] = defaultdict(set)  # first row of a statement -> codes for a line above it
    for d in wanted:
        first = d.statement_rows[0] if d.statement_rows[0] > 0 else d.location.row
        for row in (noqa_row(d), first):
            if not 0 < row <= len(lines) or row in layout.unsafe_rows:
                continue
            if not lines[row - 1].rstrip("\r\n").endswith("\\"):  # never after a line continuation
                at_end[row].add(d.code)
                break
        else:
            above[first].add(d.code)
    for row in sorted(set(at_end) | set(above), reverse=True):  # bottom up: rows above stay valid
        if row in at_end:
            lines[row - 1] = _with_comment(lines[row - 1], row, sorted(at_end[row]), layout)
        if row in above:
            line = lines[row - 1]
            indent = line[: len(line) - len(line.lstrip(" \t"))]
            ending = line[len(line.rstrip("\r\n")) :] or "\n"
            lines.insert(row - 1, f"{indent}# noqa: {', '.join(sorted(above[row]))}{ending}")
    return "".join(lines), len(set(at_end) | set(above))


def add_noqa_to_files(files: list[str], settings, warn, error) -> tuple[int, bool]:
    """Add noqa comments in every file; returns (lines changed, whether a file could not be written)."""
    from padlint import engine
    from padlint.config import SYNTAX_ERROR_CODE, resolve_selection
    from padlint.files.reading import read_source
    from padlint.files.source import SourceReadError, SourceWriteError, write_source_atomic

    total, failed = 0, False
    for filename in files:
        select = frozenset(resolve_selection(settings, filename) - {SYNTAX_ERROR_CODE})
        try:
            source = read_source(filename, settings.target_version)
            found = engine.lint_source(source.text, filename, select)
        except (SourceReadError, engine.SourceError) as exc:
            warn(f"{filename}: skipped: {exc}")
            continue
        new_text, added = add_noqa(source.text, found)
        if not added:
            continue
        try:
            engine.parse(new_text)
            write_source_atomic(filename, new_text, source)
        except (engine.SourceError, SourceWriteError) as exc:
            error(f"{filename}: no noqa comments added: {exc}")
            failed = True
            continue
        total += added
    return total, failed


def format_statistics(diagnostics: list[Diagnostic], unsafe_fixes: bool, as_json: bool) -> str:
    """ruff's --statistics: one row per rule, most frequent first (code, name, count, fixable)."""
    import json

    from padlint.report import fix_is_applicable

    rows: dict[str, dict] = {}
    for d in diagnostics:
        row = rows.setdefault(
            d.code, {"code": d.code, "name": d.name, "count": 0, "fixable": False, "fixable_count": 0}
        )
        row["count"] += 1
        if fix_is_applicable(d, unsafe_fixes):
            row["fixable"] = True
            row["fixable_count"] += 1
    ordered = sorted(rows.values(), key=lambda r: (-r["count"], r["code"]))
    if as_json:
        return json.dumps(ordered, indent=2, ensure_ascii=False) + "\n"
    if not ordered:
        return ""
    count_width = max(len(str(r["count"])) for r in ordered)
    code_width = max(len(r["code"]) for r in ordered)
    any_fixable = any(r["fixable"] for r in ordered)
    out = []
    for r in ordered:
        marker = ("[*] " if r["fixable"] else "    ") if any_fixable else ""
        out.append(f"{r['count']:>{count_width}}\t{r['code']:<{code_width}}\t{marker}{r['name']}\n")
    return "".join(out)
