"""A notebook's JSON read and written by position: where each code cell's `source` value is in the
text (a small position-aware scan over `json`'s own scanners), and a new `source` value serialised
in the file's own style (a list of lines or one string, the file's indentation, ASCII escaping or
not), so that writing a fixed cell back replaces that span alone (notebook.py).
"""

from __future__ import annotations

import json
import re

from padlint.files.notebook_magics import lines_of as _lines

_WS = re.compile(r"[ \t\n\r]*")


class NotebookError(ValueError):
    """The file is not a notebook we can read (not JSON, or not nbformat 4)."""


def _skip(text: str, i: int) -> int:
    blanks = _WS.match(text, i)
    assert blanks is not None  # `[ \t\n\r]*` always matches
    return blanks.end()


_DECODER = json.JSONDecoder()


def _walk_object(text: str, i: int, visit) -> int:
    """Walk the object at text[i]; visit(key, start) returns where the value ends, or None to skip
    it. Returns the index after the object."""
    if text[i : i + 1] != "{":
        raise NotebookError("expected a JSON object")
    i = _skip(text, i + 1)
    while text[i : i + 1] != "}":
        if text[i : i + 1] != '"':
            raise NotebookError("expected a key")
        key, i = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]  # public, not in typeshed
        i = _skip(text, i)
        if text[i : i + 1] != ":":
            raise NotebookError("expected ':'")
        start = _skip(text, i + 1)
        end = visit(key, start)
        i = _skip(text, end if end is not None else _DECODER.raw_decode(text, start)[1])
        if text[i : i + 1] == ",":
            i = _skip(text, i + 1)
        elif text[i : i + 1] != "}":
            raise NotebookError("expected ',' or '}'")
    return i + 1


def source_spans(text: str) -> dict[int, tuple[int, int]]:
    """Cell number (0-based) -> (start, end) of its `source` value in the JSON text."""
    spans: dict[int, tuple[int, int]] = {}

    def cell_visit(number: int):
        def visit(key: str, start: int):
            if key != "source":
                return None
            _, end = _DECODER.raw_decode(text, start)
            spans[number] = (start, end)
            return end

        return visit

    def top_visit(key: str, start: int):
        if key != "cells" or text[start : start + 1] != "[":
            return None
        i = _skip(text, start + 1)
        number = 0
        while text[i : i + 1] != "]":
            if text[i : i + 1] == "{":
                i = _walk_object(text, i, cell_visit(number))
            else:
                _, i = _DECODER.raw_decode(text, i)
            number += 1
            i = _skip(text, i)
            if text[i : i + 1] == ",":
                i = _skip(text, i + 1)
        return i + 1

    try:
        _walk_object(text, _skip(text, 0), top_visit)
    except (json.JSONDecodeError, IndexError) as exc:
        raise NotebookError(str(exc)) from None
    return spans


def dump_source(json_text: str, start: int, end: int, text: str, raw: object, ascii_only: bool) -> str:
    """`text` as the `source` value at json_text[start:end], written as that value is (`raw`: a list
    of lines or one string), laid out as the file lays out its source lists."""
    if not isinstance(raw, list):
        return json.dumps(text, ensure_ascii=ascii_only)
    items = [json.dumps(line, ensure_ascii=ascii_only) for line in _lines(text)]
    if not items:
        return "[]"
    opening, separator, closing = _list_layout(json_text, start, end)
    return "[" + opening + separator.join(items) + closing + "]"


def _list_layout(json_text: str, start: int, end: int) -> tuple[str, str, str]:
    """Whitespace after "[", between items and before "]" as the file writes source lists."""
    original = json_text[start:end]
    first = _skip(original, 1)
    if original[first : first + 1] != "]":
        _, first_end = _DECODER.raw_decode(original, first)
        after = _skip(original, first_end)
        opening = original[1:first]
        if original[after : after + 1] == ",":
            separator = original[first_end : _skip(original, after + 1)]
        else:
            separator = "," + opening
        body_end = len(original) - 1  # the closing "]"
        closing = original[len(original[:body_end].rstrip(" \t\r\n")) : body_end]
        return opening, separator, closing
    # An empty list: indent like the key's line, one level deeper, as the writer would.
    line_start = json_text.rfind("\n", 0, start) + 1
    key_line = json_text[line_start:start]
    indent = key_line[: len(key_line) - len(key_line.lstrip())]
    if "\n" not in json_text[:start]:
        return "", ", ", ""  # a one-line document
    newline = "\r\n" if "\r\n" in json_text[:start] else "\n"
    unit = _indent_unit(json_text)
    return newline + indent + unit, "," + newline + indent + unit, newline + indent


def _indent_unit(text: str) -> str:
    match = re.search(r"\{\r?\n([ \t]+)\"", text)
    return match.group(1) if match else " "
