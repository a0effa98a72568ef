"""Baselines: record today's findings, then fail only on new ones.

A finding is identified by its file, its code and the normalised source of the statement that holds
it (tokens joined by single spaces, comments dropped), never by its line number, so inserting or
deleting lines elsewhere, reformatting the statement or adding a comment to it leaves the baseline
valid. Each entry has a count: three identical findings in one file need three entries, and a
fourth copy of the same statement is new.

The same statement key gives the stable fingerprints of the `gitlab` and `sarif` formats.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import tokenize
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from padlint.types import Diagnostic

FORMAT_VERSION = 1
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)?")
_SKIPPED = frozenset(
    {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
)


class BaselineError(Exception):
    """The baseline file cannot be read or written: a one-line reason (the CLI exits 2)."""


def normalise(code: str) -> str:
    """Source text reduced to its tokens, one space apart; comments and layout dropped."""
    try:
        tokens = [t.string for t in tokenize.generate_tokens(io.StringIO(code).readline) if t.type not in _SKIPPED]
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return " ".join(code.split())
    return " ".join(tokens)


def statement_source(d: Diagnostic, sources: Mapping[str, str]) -> str:
    """The normalised text of the statement that holds `d` (its flagged rows for a bare finding)."""
    source = sources.get(d.filename, "")
    if d.cell is not None and source:
        from padlint.files.notebook_cells import cell_text

        source = cell_text(source, d.cell)
    first, last = d.statement_rows
    if first <= 0 or last <= 0:
        first, last = d.location.row, d.end_location.row
    lines = [m.group(0) for m in _LINE.finditer(source) if m.group(0)]
    text = "".join(lines[first - 1 : last])
    return normalise(text) if text else d.message


def fingerprints(diagnostics: Iterable[Diagnostic], sources: Mapping[str, str]) -> list[str]:
    """A stable fingerprint per finding: sha256 of path, code, statement and which copy it is."""
    seen: Counter = Counter()
    out = []
    for d in diagnostics:
        key = (d.filename.replace(os.sep, "/"), d.code, statement_source(d, sources))
        seen[key] += 1
        payload = "\0".join((*key, str(seen[key])))
        out.append(hashlib.sha256(payload.encode("utf-8")).hexdigest())
    return out


@dataclass
class BaselineResult:
    kept: list[Diagnostic]  # findings that are not in the baseline
    matched: int  # findings the baseline accounted for
    stale: int  # baseline entries that no finding matched any more


def _key_path(filename: str, base_dir: str) -> str:
    if filename == "-":
        return filename
    return os.path.relpath(os.path.abspath(filename), base_dir).replace(os.sep, "/")


def _entries(diagnostics: Iterable[Diagnostic], sources: Mapping[str, str], base_dir: str) -> Counter:
    return Counter((_key_path(d.filename, base_dir), d.code, statement_source(d, sources)) for d in diagnostics)


def read_baseline(path: str) -> Counter:
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except FileNotFoundError:
        raise BaselineError(f"{path}: No such file (create it with --write-baseline)") from None
    except OSError as exc:
        raise BaselineError(f"{path}: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise BaselineError(f"{path}: not valid JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("padlint-baseline") != FORMAT_VERSION:
        raise BaselineError(f"{path}: not a padlint baseline (version {FORMAT_VERSION})")
    counts: Counter = Counter()
    try:
        for entry in data["findings"]:
            counts[(entry["path"], entry["code"], entry["statement"])] += int(entry.get("count", 1))
    except (KeyError, TypeError, ValueError):
        raise BaselineError(f"{path}: malformed entry in `findings`") from None
    return counts


def apply_baseline(
    diagnostics: list[Diagnostic], sources: Mapping[str, str], path: str, checked: Iterable[str] | None = None
) -> BaselineResult:
    """Drop the findings the baseline at `path` records (each entry as many times as its count).

    `checked` are the files that were linted: only their entries can be stale (pre-commit checks
    a few files; the others' entries are not stale for that). None: no stale count.
    """
    remaining = read_baseline(path)
    base_dir = os.path.dirname(os.path.abspath(path))
    kept, matched = [], 0
    for d in diagnostics:
        key = (_key_path(d.filename, base_dir), d.code, statement_source(d, sources))
        if remaining[key] > 0:
            remaining[key] -= 1
            matched += 1
        else:
            kept.append(d)
    linted = {_key_path(f, base_dir) for f in checked or ()}
    stale = sum(n for (p, _, _), n in remaining.items() if p in linted and n > 0)
    return BaselineResult(kept, matched, stale)


def write_baseline(
    diagnostics: list[Diagnostic], sources: Mapping[str, str], path: str, checked: Iterable[str] | None = None
) -> int:
    """Write every finding to the baseline at `path`; returns how many it records.

    Entries of files that were not linted this time (not in `checked`) are kept from the existing
    baseline, so writing it from a run on a few files does not forget the others.
    """
    base_dir = os.path.dirname(os.path.abspath(path))
    counts = _entries(diagnostics, sources, base_dir)
    if checked is not None and os.path.exists(path):
        linted = {_key_path(f, base_dir) for f in checked}
        counts.update({key: n for key, n in read_baseline(path).items() if key[0] not in linted})
    findings = [
        {"path": p, "code": code, "statement": statement, "count": n}
        for (p, code, statement), n in sorted(counts.items())
    ]
    text = json.dumps({"padlint-baseline": FORMAT_VERSION, "findings": findings}, indent=2, ensure_ascii=False)
    try:
        directory = os.path.dirname(os.path.abspath(path))
        os.makedirs(directory, exist_ok=True)
        tmp = f"{path}.padlint-tmp"
        with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text + "\n")
        os.replace(tmp, path)
    except OSError as exc:
        raise BaselineError(f"{path}: {exc.strerror or exc}") from None
    return sum(counts.values())
