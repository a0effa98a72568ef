"""Compare two scans of the same repositories, one JSON report per repository in each directory.

    python bench/compare_scans.py BEFORE_DIR AFTER_DIR

Each directory holds NAME.json files as bench/scan_repositories.sh writes them (`padlint check
--output-format json`). A finding is keyed by its file (the path inside the repository), line and rule;
for each repository the findings that appeared or disappeared are listed, and so are those kept whose
fix title changed (a fix offered, withdrawn, or retitled). Parse reports (PAD000) are left out, as in the
sets' counts. Exit status 0 either way: this reports, it does not judge.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

Key = tuple[str, int, str]


def findings(report: Path, name: str) -> dict[Key, str | None]:
    """(path in the repository, line, rule) -> the fix title (None: no fix)."""
    text = report.read_text(encoding="utf-8").strip() if report.exists() else ""
    found: dict[Key, str | None] = {}
    for item in json.loads(text or "[]"):
        if item["code"] == "PAD000":
            continue
        path = item["filename"].split(name + "/", 1)[-1]
        fix = item.get("fix")
        found[(path, item["location"]["row"], item["code"])] = fix["message"] if fix else None
    return found


def compare(before: Path, after: Path) -> list[str]:
    lines = []
    names = sorted({p.stem for p in before.glob("*.json")} | {p.stem for p in after.glob("*.json")})
    totals = [0, 0]
    for name in names:
        old, new = findings(before / f"{name}.json", name), findings(after / f"{name}.json", name)
        totals[0] += len(old)
        totals[1] += len(new)
        for key in sorted(old.keys() - new.keys()):
            lines.append(f"gone     {name} {key[0]}:{key[1]} {key[2]}")
        for key in sorted(new.keys() - old.keys()):
            lines.append(f"new      {name} {key[0]}:{key[1]} {key[2]}  fix: {new[key]}")
        for key in sorted(old.keys() & new.keys()):
            if old[key] != new[key]:
                lines.append(f"fix      {name} {key[0]}:{key[1]} {key[2]}\n  was: {old[key]}\n  now: {new[key]}")
    lines.append(f"findings {totals[0]} -> {totals[1]} in {len(names)} repositories")
    return lines


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    before, after = (Path(a) for a in argv)
    for directory in (before, after):
        if not directory.is_dir():
            print(f"compare_scans: {directory} is not a directory", file=sys.stderr)
            return 2
    print("\n".join(compare(before, after)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
