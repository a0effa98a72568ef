"""Compare two padlint JSON scans of the same repositories: unchanged, appeared and disappeared findings.

Usage: python bench/earlier/diff.py BEFORE_DIR AFTER_DIR
Each directory holds one `NAME.json` per repository (`padlint check --output-format json`). Findings are
matched on (path, notebook cell, rule) and the nearest line within `LINE_DRIFT`; a matched finding whose
message or fix changed is listed as changed, so a fix that turned unsafe or different is seen too.
"""

import json
import sys
from pathlib import Path
from typing import Any

Finding = dict[str, Any]
LINE_DRIFT = 3  # a rule may anchor a finding a line or two apart after a change of wording


def _place(finding: Finding) -> tuple[str, str, int | None]:
    return finding["filename"], finding["code"], finding.get("cell")


def _row(finding: Finding) -> int:
    return int(finding["location"]["row"])


def _fix_signature(finding: Finding) -> tuple[str, str] | None:
    fix = finding.get("fix")
    if not fix:
        return None
    return fix.get("applicability", ""), json.dumps(fix.get("edits"), sort_keys=True)


def _describe(kind: str, repository: str, finding: Finding) -> str:
    cell = f" cell {finding['cell']}" if finding.get("cell") else ""
    text = f"{kind} {repository} {finding['filename']}{cell}:{_row(finding)} {finding['code']}\n   {finding['message']}"
    fix = finding.get("fix")
    if fix:
        text += f"\n   fix [{fix.get('applicability')}] {fix.get('message')}"
        for edit in fix.get("edits", []):
            start, end = edit["location"], edit["end_location"]
            text += f"\n      {start['row']}:{start['column']}-{end['row']}:{end['column']} -> {edit['content']!r}"
    return text


def compare(
    before: list[Finding], after: list[Finding]
) -> tuple[int, list[Finding], list[Finding], list[tuple[Finding, Finding]]]:
    """Return (unchanged count, appeared, disappeared, changed pairs (before, after))."""
    unmatched = list(after)
    unchanged, disappeared, changed = 0, [], []
    for old in before:
        candidates = [new for new in unmatched if _place(new) == _place(old)]
        nearest = min(candidates, key=lambda new: abs(_row(new) - _row(old)), default=None)
        # a parse note (PAD000) may now point at the offending line instead of the cell's first
        if nearest is None or (abs(_row(nearest) - _row(old)) > LINE_DRIFT and old["code"] != "PAD000"):
            disappeared.append(old)
            continue
        unmatched.remove(nearest)
        unchanged += 1
        if _fix_signature(old) != _fix_signature(nearest) or old["message"] != nearest["message"]:
            changed.append((old, nearest))
    return unchanged, unmatched, disappeared, changed


def main(before_dir: Path, after_dir: Path) -> None:
    totals = [0, 0, 0, 0, 0]
    details: list[str] = []
    for after_path in sorted(after_dir.glob("*.json")):
        repository = after_path.stem
        before_path = before_dir / after_path.name
        if not before_path.exists():
            print(f"{repository}: no scan before", file=sys.stderr)
            continue
        try:
            before, after = json.loads(before_path.read_text()), json.loads(after_path.read_text())
        except json.JSONDecodeError:  # a scan still writing its report
            print(f"{repository}: scan not finished", file=sys.stderr)
            continue
        unchanged, appeared, disappeared, changed = compare(before, after)
        counts = [len(before), len(after), unchanged, len(appeared), len(disappeared)]
        totals = [total + count for total, count in zip(totals, counts)]
        print(
            f"{repository:32s} before={counts[0]:3d} after={counts[1]:3d} same={unchanged:3d} +{counts[3]} -{counts[4]}"
        )
        details += [_describe("APPEARED", repository, finding) for finding in appeared]
        details += [_describe("DISAPPEARED", repository, finding) for finding in disappeared]
        for old, new in changed:
            if old["code"] != "PAD000":  # parse notes only change their wording
                details += [_describe("CHANGED", repository, new), _describe("  WAS", repository, old)]
    before, after, same, appeared, disappeared = totals
    print(f"TOTAL before={before} after={after} same={same} +{appeared} -{disappeared}")
    print("\n\n".join(details))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
