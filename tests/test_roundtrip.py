"""Round trip on real code: `padlint check --fix --unsafe-fixes` over a temporary copy of real
collator-heavy code (installed transformers, trl and peft files that pad, plus examples/ and the
executable fix fixtures). Every file still parses, a second run changes nothing, and the diff
touches only the statements that were flagged (or adds an import the fix needs).
"""

from __future__ import annotations

import difflib
import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from padlint.config import Settings, with_cli
from padlint.look.prefilter import parses as _parses
from padlint.run.runner import Options, check_files

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("transformers", "trl", "peft")
# Real files with fixable findings when this was written (see bench/README.md): fixes on real code.
WITH_FINDINGS = (
    ("transformers", "generation/utils.py"),
    ("accelerate", "test_utils/training.py"),
    ("transformers", "models/reformer/modeling_reformer.py"),
)
PADDING_CODE = re.compile(r"pad_sequence\(|padding=(True|\"max_length\"|\"longest\")|\.pad\(|padding_value=")
PER_PACKAGE = 15  # files per package: enough real collators, and the test stays near a minute
IMPORT_LINE = re.compile(r"^\s*(import \w+|from [\w.]+ import [\w, ]+)\s*$")

pytestmark = pytest.mark.slow


def _real_files() -> dict[str, Path]:
    chosen: dict[str, Path] = {}
    for name in PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            continue
        base = Path(next(iter(spec.submodule_search_locations)))
        hits = [
            p
            for p in sorted(base.rglob("*.py"))
            if p.stat().st_size < 200_000 and PADDING_CODE.search(p.read_text(encoding="utf-8", errors="replace"))
        ]
        # Collators and trainers first (the code padlint is for), then a spread of the rest.
        hits.sort(key=lambda p: (not re.search(r"collat|trainer|data", p.name), str(p)))
        for path in hits[:PER_PACKAGE]:
            chosen[f"{name}/{path.relative_to(base).as_posix()}"] = path
    for name, relative in WITH_FINDINGS:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            path = Path(next(iter(spec.submodule_search_locations))) / relative
            if path.is_file():
                chosen[f"{name}/{relative}"] = path
    return chosen


def _padlint(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "padlint", "check", "--no-cache", "--exit-zero", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )


def _touched_rows(old: str, new: str) -> list[tuple[int, int, list[str]]]:
    """(first, last) original rows of each change, with the lines inserted there."""
    a, b = old.splitlines(), new.splitlines()
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            out.append((i1 + 1, max(i2, i1 + 1), b[j1:j2] if tag == "insert" else []))
    return out


def test_fix_round_trip_on_real_code(tmp_path):
    real = _real_files()
    if not real:
        pytest.skip("transformers, trl and peft are not installed (pip install -r bench/requirements.txt)")
    work = tmp_path / "corpus"
    for label, path in real.items():
        (work / label).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, work / label)
    shutil.copytree(ROOT / "examples", work / "examples")
    shutil.copytree(ROOT / "tests" / "fixtures" / "exec", work / "exec")
    files = sorted(p for p in work.rglob("*.py"))
    before = {p: p.read_text(encoding="utf-8") for p in files}

    settings = with_cli(Settings(root=work), unsafe_fixes=True)
    # No per-file deadline in either run: it is wall-clock, and with the suite on every core a large file
    # (transformers' generation utilities) can pass it in one run and not the other; what is checked
    # here is the edits.
    options = Options(cache=False, timeout=None)
    flagged = check_files([str(p) for p in files], settings, options, lambda m: None, lambda m: None)
    rows: dict[str, list[tuple[int, int]]] = {}
    for d in flagged.diagnostics:
        rows.setdefault(d.filename, []).append(d.statement_rows)
        # A fix may also edit the statement that consumes the value (PAD003 passes the kept mask at the
        # model call): those rows are the ones its own edits declare, never any others.
        for edit in d.fix.edits if d.fix is not None else ():
            rows[d.filename].append((edit.location.row, edit.end_location.row))

    first = _padlint("--fix", "--unsafe-fixes", "--timeout", "0", ".", cwd=work)
    assert first.returncode == 0, first.stderr
    assert "internal error" not in first.stderr, first.stderr
    changed = [p for p in files if p.read_text(encoding="utf-8") != before[p]]
    assert changed, "the corpus should have fixable findings"
    real_changed = [p for p in changed if p.relative_to(work).parts[0] in PACKAGES + ("accelerate",)]
    if not real_changed:
        print("note: no installed file had a fixable finding; the fixes ran on examples/ and fixtures only")

    for path in files:
        after = path.read_text(encoding="utf-8")
        if _parses(before[path]):
            assert _parses(after), f"{path.relative_to(work)} no longer parses"
        if after == before[path]:
            continue
        spans = rows.get(str(path), [])
        for first_row, last_row, inserted in _touched_rows(before[path], after):
            in_flagged = any(start - 1 <= first_row and last_row <= end + 1 for start, end in spans)
            imports_only = inserted and all(IMPORT_LINE.match(line) or not line.strip() for line in inserted)
            assert in_flagged or imports_only, (
                f"{path.relative_to(work)}: rows {first_row}-{last_row} changed outside flagged statements and declared edits {spans}"
            )

    snapshot = {p: p.read_bytes() for p in files}
    second = _padlint("--fix", "--unsafe-fixes", "--timeout", "0", ".", cwd=work)
    assert second.returncode == 0, second.stderr
    assert {p: p.read_bytes() for p in files} == snapshot, "a second --fix changed files again"
