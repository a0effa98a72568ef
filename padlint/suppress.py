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

from padlint.types import Diagnostic

_NOQA = re.compile(r"#\s*noqa(?!\w)(?P<colon>\s*:\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*)?)?", re.IGNORECASE)
_IGNORE = re.compile(r"#\s*padlint\s*:\s*ignore\[(?P<codes>[^\]]*)\]", re.IGNORECASE)
_CODE = re.compile(r"[A-Z]+[0-9]+", re.IGNORECASE)


@dataclass(frozen=True)
class _Directive:
    codes: frozenset[str] | None  # None: every code (a bare `# noqa`)
    own_line: bool  # the comment is alone on its line (nothing but blanks before it)

    def covers(self, code: str) -> bool:
        return self.codes is None or code.upper() in self.codes


def parse_comment(comment: str) -> frozenset[str] | None | bool:
    """The codes a comment suppresses: a frozenset, None for all codes, False for no directive."""
    found: set[str] = set()
    directive = False
    for match in _NOQA.finditer(comment):
        directive = True
        if match.group("colon") is None:
            return None  # bare `# noqa` (even `# noqa because ...`): silences everything
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
