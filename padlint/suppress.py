"""Inline suppressions: `# noqa`, `# noqa: PAD001, PAD002`, `# padlint: ignore[PAD001]`.

A suppression comment counts when it ends the first or the last line of the flagged statement (so
it survives a formatter that splits a call over several lines), or stands alone on the line just
above the statement. Comments are found with `tokenize`, so `"# noqa"` inside a string never counts.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass
from typing import Literal

from padlint.types import Diagnostic

_NOQA = re.compile(r"#\s*noqa(?!\w)(?P<colon>\s*:\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*)?)?", re.IGNORECASE)
_IGNORE = re.compile(r"#\s*padlint\s*:\s*ignore\[(?P<codes>[^\]]*)\]", re.IGNORECASE)
_CODE = re.compile(r"[A-Z]+[0-9]+", re.IGNORECASE)


@dataclass(frozen=True)
class _Directive:
    codes: frozenset[str] | None  # None: every code (a bare noqa comment)
    own_line: bool  # the comment is alone on its line (nothing but blanks before it)

    def covers(self, code: str) -> bool:
        return self.codes is None or code.upper() in self.codes


def parse_comment(comment: str) -> frozenset[str] | None | Literal[False]:
    """The codes a comment suppresses: a frozenset, None for all codes, False for no directive."""
    found: set[str] = set()
    directive = False
    for match in _NOQA.finditer(comment):
        directive = True
        if match.group("colon") is None:
            return None  # a bare noqa comment (even `noqa because ...`): silences everything
        found.update(code.upper() for code in _CODE.findall(match.group("codes") or ""))
    for match in _IGNORE.finditer(comment):
        directive = True
        found.update(code.upper() for code in _CODE.findall(match.group("codes")))
    return frozenset(found) if directive else False


def _comments(source: str) -> dict[int, _Directive]:
    """Suppression directives by (1-based) row."""
    directives: dict[int, _Directive] = {}
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    try:
        for tok in tokens:
            if tok.type != tokenize.COMMENT:
                continue
            codes = parse_comment(tok.string)
            if codes is False:
                continue
            row, col = tok.start
            directives[row] = _Directive(codes, own_line=not tok.line[:col].strip())
    except (tokenize.TokenError, SyntaxError):
        # The engine has parsed the file with libcst, which accepts syntax that this Python's
        # tokenizer may not; keep the comments found up to that point.
        pass
    return directives


def _rows(diagnostic: Diagnostic) -> tuple[int, int]:
    first, last = diagnostic.statement_rows
    if first <= 0 or last <= 0:
        return diagnostic.location.row, diagnostic.location.row
    return first, last


def is_suppressed(diagnostic: Diagnostic, directives: dict[int, _Directive]) -> bool:
    first, last = _rows(diagnostic)
    for row in {first, last}:
        directive = directives.get(row)
        if directive is not None and not directive.own_line and directive.covers(diagnostic.code):
            return True
    above = directives.get(first - 1)
    return above is not None and above.own_line and above.covers(diagnostic.code)


def filter_suppressed(source: str, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """The diagnostics that no suppression comment in `source` silences (order kept)."""
    if not diagnostics or ("noqa" not in source.lower() and "padlint" not in source.lower()):
        return list(diagnostics)  # the common case: no comment can match, skip tokenizing
    directives = _comments(source)
    return [d for d in diagnostics if not is_suppressed(d, directives)]


def noqa_row(diagnostic: Diagnostic) -> int:
    """The row where a `# noqa` for this diagnostic goes: the end of its statement."""
    return _rows(diagnostic)[1]


# --- PAD100 unused-noqa (opt-in): suppressions that suppress nothing -------------------------------

UNUSED_NOQA = "PAD100"
_UNUSED_NAME = "unused-noqa"


@dataclass(frozen=True)
class _Comment:
    row: int
    column: int  # 0-based start of the comment token
    text: str
    own_line: bool


def _comment_tokens(source: str) -> list[_Comment]:
    found = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT and parse_comment(tok.string) is not False:
                row, col = tok.start
                found.append(_Comment(row, col, tok.string, not tok.line[:col].strip()))
    except (tokenize.TokenError, SyntaxError):
        pass
    return found


def _pad_codes(comment: str) -> set[str]:
    codes: set[str] = set()
    for match in _NOQA.finditer(comment):
        codes.update(c.upper() for c in _CODE.findall(match.group("codes") or ""))
    for match in _IGNORE.finditer(comment):
        codes.update(c.upper() for c in _CODE.findall(match.group("codes")))
    return {c for c in codes if c.startswith("PAD")}


def _used_codes(directives: dict[int, _Directive], diagnostics: list[Diagnostic]) -> dict[int, set[str]]:
    """Row of a directive -> the codes of the findings it suppressed."""
    used: dict[int, set[str]] = {}
    for d in diagnostics:
        first, last = _rows(d)
        for row in {first, last}:
            directive = directives.get(row)
            if directive is not None and not directive.own_line and directive.covers(d.code):
                used.setdefault(row, set()).add(d.code.upper())
        above = directives.get(first - 1)
        if above is not None and above.own_line and above.covers(d.code):
            used.setdefault(first - 1, set()).add(d.code.upper())
    return used


def _without_codes(comment: str, drop: set[str]) -> str:
    """The comment with `drop` removed from its noqa / padlint-ignore lists (empty lists go)."""

    def keep(codes: str) -> list[str]:
        return [c for c in re.split(r"[\s,]+", codes.strip()) if c and c.upper() not in drop]

    def noqa(match: re.Match) -> str:
        if match.group("codes") is None:
            return match.group(0)
        rest = keep(match.group("codes"))
        if not rest:
            return ""
        start, end = match.span("codes")
        whole = match.group(0)
        base = match.start()
        return whole[: start - base] + ", ".join(rest) + whole[end - base :]

    def ignore(match: re.Match) -> str:
        rest = keep(match.group("codes"))
        if not rest:
            return ""
        return match.group(0).replace(match.group("codes"), ", ".join(rest), 1)

    out = _IGNORE.sub(ignore, _NOQA.sub(noqa, comment)).strip()
    return "" if out in ("", "#") else out


def _unused_fix(comment: _Comment, drop: set[str], source_lines: list[str]):
    from padlint.types import Applicability, Edit, Fix, Location

    new = _without_codes(comment.text, drop)
    row, col = comment.row, comment.column
    if new:
        edit = Edit(new, Location(row, col + 1), Location(row, col + len(comment.text) + 1))
        return Fix(Applicability.SAFE, "Remove the unused code from the suppression comment", (edit,))
    if comment.own_line:  # the line holds nothing else: delete it
        edit = Edit("", Location(row, 1), Location(row + 1, 1))
    else:
        line = source_lines[row - 1] if row - 1 < len(source_lines) else ""
        code_end = len(line[:col].rstrip())
        edit = Edit("", Location(row, code_end + 1), Location(row, col + len(comment.text) + 1))
    return Fix(Applicability.SAFE, "Remove the unused suppression comment", (edit,))


def report_unused_suppressions(
    source: str, diagnostics: list[Diagnostic], kept: list[Diagnostic], filename: str, select
) -> list[Diagnostic]:
    """`kept` plus a PAD100 finding for each padlint code in a suppression comment that suppressed
    none of `diagnostics` (all findings, before suppression), or that is not a padlint code.

    Only codes of selected rules are judged (a deselected rule cannot have fired). Codes of other
    tools and bare `# noqa` are left alone, and so is a comment that names PAD100 itself.
    """
    if select is not None and UNUSED_NOQA not in select:
        return kept
    if "noqa" not in source.lower() and "padlint" not in source.lower():
        return kept
    from padlint.config import SYNTAX_ERROR_CODE
    from padlint.rules import RULES_BY_CODE
    from padlint.rules.base import DOCS_BASE
    from padlint.types import Location

    directives = _comments(source)
    used = _used_codes(directives, diagnostics)
    lines = re.split(r"\r\n|\r|\n", source)  # the tokenizer's rows (str.splitlines splits on more)
    found: list[Diagnostic] = []
    for comment in _comment_tokens(source):
        codes = _pad_codes(comment.text)
        if UNUSED_NOQA in codes:
            continue
        unknown = {c for c in codes if c not in RULES_BY_CODE and c != SYNTAX_ERROR_CODE}
        judged = {c for c in codes - unknown if select is None or c in select}
        unused = judged - used.get(comment.row, set())
        if not unknown and not unused:
            continue
        parts = [
            f"{kind}: {', '.join(f'`{c}`' for c in sorted(group))}"
            for kind, group in (("unused", unused), ("unknown", unknown))
            if group
        ]
        found.append(
            Diagnostic(
                code=UNUSED_NOQA,
                name=_UNUSED_NAME,
                filename=filename,
                message=f"suppression comment that suppresses nothing ({'; '.join(parts)})",
                location=Location(comment.row, comment.column + 1),
                end_location=Location(comment.row, comment.column + len(comment.text) + 1),
                url=f"{DOCS_BASE}{UNUSED_NOQA}.md",
                fix=_unused_fix(comment, unused | unknown, lines),
                statement_rows=(comment.row, comment.row),
            )
        )
    if not found:
        return kept
    return sorted(kept + filter_suppressed(source, found), key=Diagnostic.sort_key)
