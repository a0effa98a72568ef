"""Fix code that fits the project's line length: long statements broken at their brackets, black-style.

Fixes write a handful of statement shapes (`name = call(...)`, `name = (a < b).long()`); breaking
them at the last bracket that holds something, one top-level item per line with a trailing comma
where there are several, is what black and ruff's formatter would write for them.
"""

from __future__ import annotations

import io
import tokenize

INDENT = "    "
OPENERS, CLOSERS = "([{", ")]}"
# Where a too-long expression breaks, loosest first (black's delimiter priorities).
PRIORITY = (
    ("for", "if", "else"),
    ("or",),
    ("and",),
    ("<", ">", "==", "!=", "<=", ">=", "in", "is"),
    ("|",),
    ("^",),
    ("&",),
    ("+", "-"),
    ("*", "/", "//", "%", "@"),
)


def wrap(line: str, width: int) -> list[str]:
    """`line` (one statement, no newline, no indentation) as lines of at most `width` characters where
    its brackets allow; the continuation lines are indented by four spaces per level."""
    if len(line) <= width or "\n" in line:
        return [line]  # fits, or copied from the file with its own line breaks
    pair = _split_pair(line, width)
    if pair is None:
        return _parenthesized(line, width)
    open_at, close_at = pair
    head, body, tail = line[: open_at + 1], line[open_at + 1 : close_at].strip(), line[close_at:]
    lines = [head]
    for item in _body_lines(body, width - len(INDENT)):
        lines.extend(INDENT + sub for sub in wrap(item, width - len(INDENT)))
    lines.append(tail)
    return lines


def _parenthesized(line: str, width: int) -> list[str]:
    """`x = a if c else b` with no bracket to break at: the value in parentheses, as black writes it."""
    for token in _tokens(line):
        if token.start[0] != 1:
            break
        if token.type == tokenize.OP and token.string in OPENERS:
            return [line]  # brackets, but none worth breaking at
        if (token.type == tokenize.OP and token.string == "=") or (
            token.type == tokenize.NAME and token.string == "return"
        ):
            head, value = line[: token.end[1]].rstrip(), line[token.end[1] :].strip()
            # An item of a call or a list (`padding_value=a if c else b,`): its comma stays outside the
            # parentheses, which would make it a tuple; a keyword's `=` takes no space before `(`.
            comma = "," if value.endswith(",") else ""
            value = value.removesuffix(",").rstrip()
            if not value:
                return [line]
            opener = (
                f"{head} ("
                if token.string == "return" or line[token.start[1] - 1 : token.start[1]] == " "
                else f"{head}("
            )
            return [opener, *(INDENT + sub for sub in _body_lines(value, width - len(INDENT))), ")" + comma]
    return [line]


def _body_lines(body: str, width: int) -> list[str]:
    """A bracket's body as lines: one per item when it has commas, else split before its loosest
    delimiter (`for`/`if` of a comprehension, `or`, `and`, a comparison, `+`...) when it is too long."""
    items = [body] if len(_delimited(body, ("for",), keep=True)) > 1 else _delimited(body, ",")
    if len(items) > 1 or body.endswith(","):
        return [item + "," for item in items if item]
    if len(body) <= width:
        return [body]
    for delimiters in PRIORITY:
        parts = _delimited(body, delimiters, keep=True)
        if len(parts) > 1:
            return parts
    return [body]


def _tokens(code: str) -> list[tokenize.TokenInfo]:
    """The tokens of `code` up to where it stops being complete Python (an open bracket at the end)."""
    tokens = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            tokens.append(token)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return tokens


def _split_pair(line: str, width: int) -> tuple[int, int] | None:
    """Offsets of the depth-0 bracket pair to break at: the last one with something inside (empty `()`
    trailers skipped) whose opening line fits, else the last one."""
    depth, opened, pairs = 0, -1, []
    for token in _tokens(line):
        if token.type != tokenize.OP or token.start[0] != 1:
            continue
        at = token.start[1]
        if token.string in OPENERS:
            if depth == 0:
                opened = at
            depth += 1
        elif token.string in CLOSERS:
            depth -= 1
            if depth == 0 and line[opened + 1 : at].strip():
                pairs.append((opened, at))
    fitting = [(o, c) for o, c in pairs if o + 1 <= width and len(line) - c <= width]
    return fitting[-1] if fitting else (pairs[-1] if pairs else None)


def _delimited(body: str, delimiters, keep: bool = False) -> list[str]:
    """`body` cut at its depth-0 delimiters: dropped (commas) or starting the next part (`keep`)."""
    depth, start, parts = 0, 0, []
    for token in _tokens(body):
        if token.start[0] != 1 or token.type not in (tokenize.OP, tokenize.NAME):
            continue
        at = token.start[1]
        if token.string in OPENERS:
            depth += 1
        elif token.string in CLOSERS:
            depth -= 1
        elif depth == 0 and token.string in delimiters and at > 0:
            parts.append(body[start:at].strip())
            start = at if keep else at + len(token.string)
    parts.append(body[start:].strip())
    return [p for p in parts if p] if keep else parts


def requote(code: str, quote: str) -> str:
    """`code` with its plain one-line string literals in `quote` (`'` or `"`) where that needs no escaping."""
    return "".join(_requote_line(line, quote) for line in code.splitlines(keepends=True))


def _requote_line(line: str, quote: str) -> str:
    other = "'" if quote == '"' else '"'
    if other not in line:
        return line
    body = line.lstrip()
    indent = line[: len(line) - len(body)]
    out, last = [], 0
    for token in _tokens(body):
        if token.type != tokenize.STRING or token.start[0] != 1 or token.end[0] != 1:
            continue
        text = token.string
        prefix = len(text) - len(text.lstrip("rRbBuU"))
        literal = text[prefix:]
        if not literal.startswith(other) or literal.startswith(other * 3) or quote in literal or "\\" in literal:
            continue
        out.append(body[last : token.start[1]] + text[:prefix] + quote + literal[1:-1] + quote)
        last = token.end[1]
    return indent + "".join(out) + body[last:]
