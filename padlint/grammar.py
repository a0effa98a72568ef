"""Which Python grammar decides that code does not parse (PAD000), and where the error is.

libcst's parser reads one grammar, the newest it knows, which accepts the code of every earlier
Python 3 (libcst 1.x ignores `PartialParserConfig.python_version` when parsing). So libcst's
refusal is the one that counts. CPython's own parser (`ast.parse`, `compile`, `symtable`) is used
where it is cheaper or knows more (notebook cells, the first look's syntax check), but it reads
the grammar of the Python running padlint: a notebook written for 3.12 (PEP 701 f-strings such as
`f"{x["key"]}"`) is refused by 3.11. Its refusal therefore counts only when the code's Python, the
`target-version` setting (ruff's names: `py310`, `py312`), is not newer than the running one.

libcst's error positions name the token after the one that broke the parse (`def f(:` was
reported at 2:1 with "error at 2:4"); `error_position` walks back to the offending token.
"""

from __future__ import annotations

import functools
import io
import re
import sys
import tokenize

from padlint.config import TARGET_VERSIONS

ERROR_AT = re.compile(r"error at (\d+):(\d+)")
_NOT_TOKENS = frozenset({tokenize.NL, tokenize.COMMENT, tokenize.ENCODING, tokenize.ENDMARKER})


def dotted(target: str) -> str:
    """`py312` -> `3.12`."""
    return f"{target[2]}.{target[3:]}"


def _key(target: str) -> tuple[int, int]:
    return int(target[2]), int(target[3:])


@functools.lru_cache(maxsize=1)
def known_targets() -> tuple[str, ...]:
    """The `target-version` values (ruff's names) whose grammar libcst says it knows: it refuses a
    `PartialParserConfig` for any other."""
    from libcst import PartialParserConfig

    known = []
    for target in TARGET_VERSIONS:
        try:
            PartialParserConfig(python_version=dotted(target))
        except ValueError:
            continue
        known.append(target)
    return tuple(known)


def newest_target() -> str:
    """The newest grammar libcst reads: the default `target-version`."""
    return known_targets()[-1]


def running_target() -> str:
    return f"py{sys.version_info[0]}{sys.version_info[1]}"


def cpython_refusal_counts(target: str | None) -> bool:
    """Whether a refusal by this interpreter's parser means the code's Python refuses it too: only
    when that Python (`target`; None: the newest libcst reads) is not newer than this one."""
    return _key(target or newest_target()) <= _key(running_target())


def libcst_accepts(text: str) -> bool:
    import libcst

    try:
        libcst.parse_module(text)
    except Exception:  # ParserSyntaxError, and the few other types libcst raises on odd input
        return False
    return True


def libcst_grammar() -> str:
    """How a PAD000 message names the grammar libcst refused the code with."""
    return f"libcst, Python {dotted(newest_target())} grammar"


def cpython_grammar() -> str:
    return f"CPython {sys.version_info[0]}.{sys.version_info[1]}"


def _names(token: tokenize.TokenInfo) -> set[str]:
    """What libcst's "expected one of ..." lists would call this token."""
    if token.type == tokenize.OP:
        return {token.string}
    if token.type == tokenize.NAME:
        return {token.string.upper()} if token.string in ("async", "await") else {token.string, "NAME"}
    return {_TOKEN_NAMES.get(token.type, tokenize.tok_name[token.type])}


_TOKEN_NAMES = {tokenize.ENDMARKER: "EOF"}
_OPENING, _CLOSING = "([{", ")]}"


def _expected(message: str) -> set[str]:
    """The token names after "expected one of" (or "expected") in libcst's message."""
    match = re.search(r"expected (?:one of )?(.*)$", message)
    return set(match.group(1).split(", ")) if match else set()


def error_position(source: str, message: str) -> tuple[int, int] | None:
    """The 1-based (row, column) of the token libcst's `error at ROW:COLUMN` message blames, or
    None when the message names no position (a tokenizer error).

    libcst names the token after the offending one (`def f(:` gives 2:0 for the `:` at 1:6). So
    the token before the named position is the offending one, unless libcst's list of expected
    tokens admits it: then the token after it is. An error named at the end of the file with a
    bracket still open is that bracket (CPython's "'(' was never closed")."""
    match = ERROR_AT.search(message)
    if match is None:
        return None
    named = (int(match.group(1)), int(match.group(2)))  # row 1-based, column 0-based (characters)
    tokens: list[tokenize.TokenInfo] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type not in _NOT_TOKENS:
                tokens.append(token)
    except (tokenize.TokenError, SyntaxError):  # unterminated code: the tokens read so far
        pass
    # The NEWLINE the tokenizer makes up at the end of a file without one is not libcst's.
    before = [token for token in tokens if token.start < named and (token.string or token.type == tokenize.DEDENT)]
    after = [token for token in tokens if token.start >= named and token.string]
    if not after and _unclosed(tokens):
        cpython = cpython_position(source, "was never closed")
        if cpython is not None:
            return cpython
    if not before:
        return named[0], named[1] + 1
    previous = before[-1]
    if _names(previous) & _expected(message):
        where = after[0].start if after else named  # the token after it
    else:
        where = previous.start
    return where[0], where[1] + 1


def _unclosed(tokens: list[tokenize.TokenInfo]) -> bool:
    depth = 0
    for token in tokens:
        if token.type == tokenize.OP and token.string in _OPENING:
            depth += 1
        elif token.type == tokenize.OP and token.string in _CLOSING:
            depth = max(depth - 1, 0)
    return depth > 0


def cpython_position(source: str, reason: str = "") -> tuple[int, int] | None:
    """Where CPython puts the error, when it refuses the code for `reason` (any reason: ""): for a
    tokenizer error libcst reports without a position (`unmatched ')'`, `unterminated string
    literal`), and a bracket left open."""
    from padlint.files.source import quiet_parser

    try:
        with quiet_parser():
            compile(source, "<padlint>", "exec", dont_inherit=True)
    except SyntaxError as exc:
        if reason.lower() in (exc.msg or "").lower() and exc.lineno:
            return exc.lineno, max(exc.offset or 1, 1)
    except (ValueError, RecursionError, MemoryError, OverflowError):
        pass
    return None
