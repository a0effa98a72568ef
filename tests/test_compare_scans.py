"""bench/compare_scans.py lists what a rescan changed: findings gone, new, and kept with another fix."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "compare_scans.py"


def _module():
    spec = importlib.util.spec_from_file_location("compare_scans", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _report(directory: Path, name: str, items: list[tuple[str, int, str, str | None]]) -> None:
    directory.mkdir(exist_ok=True)
    found = [
        {
            "code": code,
            "filename": f"/src/{name}/{path}",
            "location": {"row": row},
            "fix": {"message": fix} if fix else None,
        }
        for path, row, code, fix in items
    ]
    (directory / f"{name}.json").write_text(json.dumps(found))


def test_gone_new_and_retitled_fixes_are_listed(tmp_path):
    before, after = tmp_path / "before", tmp_path / "after"
    _report(
        before,
        "org+repo",
        [("a.py", 3, "PAD002", "Set -100"), ("b.py", 9, "PAD003", None), ("c.py", 1, "PAD000", None)],
    )
    _report(after, "org+repo", [("a.py", 3, "PAD002", "Set -100 (unsafe)"), ("d.py", 5, "PAD004", "Use a pad")])
    lines = _module().compare(before, after)
    assert "gone     org+repo b.py:9 PAD003" in lines
    assert "new      org+repo d.py:5 PAD004  fix: Use a pad" in lines
    assert any(
        line.startswith("fix      org+repo a.py:3 PAD002") and "now: Set -100 (unsafe)" in line for line in lines
    )
    assert lines[-1] == "findings 2 -> 2 in 1 repositories"


def test_an_unchanged_scan_lists_only_the_totals(tmp_path):
    for side in ("before", "after"):
        _report(tmp_path / side, "org+repo", [("a.py", 3, "PAD002", "Set -100")])
    assert _module().compare(tmp_path / "before", tmp_path / "after") == ["findings 1 -> 1 in 1 repositories"]
