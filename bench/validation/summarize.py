"""Precision per rule and fix verdicts from the hand-judged findings table (findings.csv).

Usage: python bench/validation/summarize.py [findings.csv]

Each row of findings.csv is one finding that padlint reported on a validation repository, judged by
hand. `scan` says which padlint it came from (`before`: the pinned commit, `after`, `after2`, ..., `now`,
`now2`: later mains, each judged against the one before);
`verdict` is real / false alarm / uncertain; `fix_verdict` starts with right / wrong / ineffective /
moot / unneeded / n/a. Precision counts uncertain findings as not real (and prints them apart).
"""

from __future__ import annotations

import csv
import sys
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent


def load(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def fix_outcome(row: dict[str, str]) -> str | None:
    """The first word of a judged fix (`right`, `wrong`, ...); None where no edit was offered."""
    if row["fix"].startswith(("none", "display-only")):
        return None
    return row["fix_verdict"].split(":")[0].split(" ")[0].strip()


def precision_table(rows: list[dict[str, str]], scan: str, selection: str) -> list[str]:
    per_rule: dict[str, Counter[str]] = defaultdict(Counter)
    for row in rows:
        if row["scan"] == scan and row["selection"] == selection:
            per_rule[row["rule"]][row["verdict"]] += 1
    lines = [
        f"{scan}, {selection} rules:",
        "| rule | findings | real | false alarm | uncertain | precision |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    total: Counter[str] = Counter()
    for rule in sorted(per_rule):
        counts = per_rule[rule]
        total += counts
        lines.append(_line(rule, counts))
    lines.append(_line("all", total))
    return lines


def _line(label: str, counts: Counter[str]) -> str:
    n = sum(counts.values())
    share = f"{100 * counts['real'] / n:.0f}%" if n else "-"
    return f"| {label} | {n} | {counts['real']} | {counts['false alarm']} | {counts['uncertain']} | {share} |"


def fix_table(rows: list[dict[str, str]], scan: str) -> list[str]:
    outcomes: Counter[tuple[str, str]] = Counter()
    for row in rows:
        outcome = fix_outcome(row) if row["scan"] == scan else None
        if outcome is not None:
            outcomes[(row["fix"].split(":")[0], outcome)] += 1
    lines = [f"{scan}, fixes offered (edits; display-only advice excluded):", "| label | verdict | count |"]
    lines.append("| --- | --- | ---: |")
    lines += [f"| {label} | {outcome} | {n} |" for (label, outcome), n in sorted(outcomes.items())]
    return lines


def main(argv: list[str]) -> int:
    rows = load(Path(argv[1]) if len(argv) > 1 else HERE / "findings.csv")
    scans = list(dict.fromkeys(row["scan"] for row in rows))  # in the order the table records them
    selections = sorted({row["selection"] for row in rows})
    for scan in scans:
        for selection in selections:
            print("\n".join(precision_table(rows, scan, selection)), end="\n\n")
        print("\n".join(fix_table(rows, scan)), end="\n\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
