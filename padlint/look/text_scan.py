"""Reading Python text without parsing it: names, brackets, call arguments, triple-quoted strings.

The small scanners the first look (first_look.py, padding_features.py, scopes.py, reach.py) is
built from. Each is conservative: where the text could fool it, it answers so that the look sees
more, never less.
"""

from __future__ import annotations

import bisect
import re


def is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def is_name_at(text: str, pos: int, name: str) -> bool:
    end = pos + len(name)
    return (pos == 0 or not is_word_char(text[pos - 1])) and (end == len(text) or not is_word_char(text[end]))


def triple_quote_checker(text: str):
    """A test for "is this position inside a triple-quoted string", by counting the quotes before it.

    Counting is only right when triple quotes never appear inside other strings; where the text
    could fool it (both kinds used, or a triple quote inside single quotes or escaped), every
    position counts as code: the look then sees more, never less.
    """
    has_double, has_single = '"""' in text, "'''" in text
    if not has_double and not has_single:
        return lambda pos: False
    if (has_double and has_single) or '\'"""' in text or '\\"""' in text or "\"'''" in text or "\\'''" in text:
        return lambda pos: False
    quote = '"""' if has_double else "'''"
    openings = [m.start() for m in re.finditer(quote, text)]
    if len(openings) % 2:
        return lambda pos: False  # unbalanced: something else is going on
    for start in openings[::2]:
        # The first triple quote that is not a delimiter (in a comment, in a one-line string) sits
        # where an opening one is expected: a `#` or an open quote before it on its line gives it away.
        head = text[text.rfind("\n", 0, start) + 1 : start]
        if "#" in head or head.count("'") % 2 or head.count('"') % 2:
            return lambda pos: False

    def inside(pos: int) -> bool:
        return bisect.bisect_left(openings, pos) % 2 == 1

    return inside


def call_arguments(text: str, open_paren: int, limit: int = 600) -> list[str] | None:
    """The top-level argument texts of the call whose `(` ends at `open_paren`; None if unclear."""
    read = _read_call(text, open_paren, limit)
    return read[0] if read is not None else None


def closing_paren(text: str, open_paren: int, limit: int = 600) -> int | None:
    """Where the call whose `(` ends at `open_paren` is closed (the `)`); None if unclear."""
    read = _read_call(text, open_paren, limit)
    return read[1] if read is not None else None


def _read_call(text: str, open_paren: int, limit: int) -> tuple[list[str], int] | None:
    depth = 1
    args: list[str] = []
    current: list[str] = []
    i = open_paren
    end = min(len(text), open_paren + limit)
    while i < end:
        ch = text[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                args.append("".join(current))
                return [a for a in args if a.strip()], i
        elif ch == "," and depth == 1:
            args.append("".join(current))
            current = []
            i += 1
            continue
        elif ch in "\"'#":
            return None  # strings and comments inside: not worth reading here
        current.append(ch)
        i += 1
    return None


def matching_bracket(text: str, at: int, step: int, limit: int = 300) -> int | None:
    """The bracket matching the `[` (step 1) or `]` (step -1) at `at`, if it is a square one and no
    string or comment comes in between; None if unclear."""
    opening, closing = ("([{", ")]}") if step == 1 else (")]}", "([{")
    depth = 0
    end = min(len(text), at + limit) if step == 1 else max(-1, at - limit)
    for i in range(at, end, step):
        ch = text[i]
        if ch in opening:
            depth += 1
        elif ch in closing:
            depth -= 1
            if depth == 0:
                return i if ch in "[]" else None
        elif ch in "\"'#":
            return None
    return None


def has_top_level_comma(item: str) -> bool:
    depth = 0
    for ch in item:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            return True
    return False


def is_float(item: str) -> bool:
    return bool(re.fullmatch(r"-?\d*\.\d*(e-?\d+)?", item)) and item not in (".", "-.")


def parenthesised_before(text: str, head: str) -> str:
    """The text of the bracketed expression that ends `head` (which ends with `)`)."""
    depth = 0
    for i in range(len(head) - 1, max(-1, len(head) - 2000), -1):
        ch = head[i]
        if ch == ")":
            depth += 1
        elif ch == "(":
            depth -= 1
            if depth == 0:
                return head[i:]
    return head[-2000:]
