"""Make text from scanned files safe to print: nothing in a file's name or contents may reach the
terminal or a CI log as a control sequence.

A file named `x\\n::error::pwned.py` would otherwise start a line with a GitHub workflow command,
and an ESC byte in a string literal shown in a code frame would be obeyed by the terminal (colour,
title, cursor moves, OSC 8 links). Every C0 and C1 control character except the tab, DEL, the
Unicode line and paragraph separators, and the bidirectional overrides of "Trojan Source"
(CVE-2021-42574) are shown as Python escapes instead: `\\x1b`, `\\n`, `\\u202e`.
"""

from __future__ import annotations

import re

_UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r"}


def _escape(match: re.Match[str]) -> str:
    ch = match.group(0)
    if ch in _NAMED:
        return _NAMED[ch]
    return f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}"


def printable(text: str) -> str:
    """`text` with every control character escaped (tabs kept). A no-op for ordinary text."""
    return _UNSAFE.sub(_escape, text) if _UNSAFE.search(text) else text
