"""Time padlint's engine against plain `ast.parse` on real code, and list every finding.

The corpus is the .py files of the installed transformers, trl, peft, datasets and accelerate packages
(pinned in bench/requirements.txt), plus examples/.
All files are read into memory first; then, in this one process,

  (a) `ast.parse` of every file (the floor: no linter can parse Python for less), and
  (b) `padlint.engine.lint_source` of every file (parse, analysis, rules, suppressions),

are timed (with --libcst, also `libcst.parse_module` alone, between the two). Run from the repository root:

    python bench/bench.py              # the whole corpus
    python bench/bench.py --limit 200  # a quick run on 200 files (a fixed sample)
    python bench/bench.py --json       # machine-readable output
    python bench/bench.py --libcst     # also time libcst's parser alone
    python bench/bench.py --side-by-side  # padlint as users run it vs the ast floor and semgrep (one table)
    python bench/bench.py --side-by-side --quick  # the same without the two slowest rows
    python bench/bench.py --breakdown     # where a cold scan's CPU goes, step by step, vs the ast floor

Exit codes: 0 done; 1 the engine crashed on at least one file (listed); 2 the engine is not
implemented yet (NotImplementedError), or nothing to measure.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import random
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("transformers", "trl", "peft", "datasets", "accelerate")  # pinned in bench/requirements.txt


def pinned_versions() -> dict[str, str]:
    """name -> version from bench/requirements.txt (`name==version` lines)."""
    pins = {}
    for line in (ROOT / "bench" / "requirements.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if "==" in line:
            name, version = line.split("==", 1)
            pins[name.strip().lower()] = version.strip()
    return pins


def version_mismatches() -> list[str]:
    """Installed corpus packages whose version is not the pinned one (the numbers would not compare)."""
    from importlib.metadata import PackageNotFoundError, version

    out = []
    for name, pinned in pinned_versions().items():
        if name not in PACKAGES:
            continue
        try:
            installed = version(name)
        except PackageNotFoundError:
            continue
        if installed != pinned:
            out.append(f"{name} {installed} (pinned: {pinned})")
    return out


@dataclass
class SourceFile:
    label: str  # what is printed: "transformers/data/data_collator.py", "examples/buggy_collator.py"
    text: str
    lines: int


def package_dir(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def collect(limit: int | None) -> tuple[list[SourceFile], list[str], dict[str, int]]:
    """The corpus, the packages that are missing, and how many files each source gave."""
    paths: list[tuple[str, Path]] = []
    missing: list[str] = []
    per_source: dict[str, int] = {}
    for name in PACKAGES:
        base = package_dir(name)
        if base is None:
            missing.append(name)
            continue
        found = sorted(base.rglob("*.py"))
        per_source[name] = len(found)
        paths += [(f"{name}/{p.relative_to(base).as_posix()}", p) for p in found]
    examples = sorted((ROOT / "examples").glob("*.py"))
    per_source["examples"] = len(examples)
    example_paths = [(f"examples/{p.name}", p) for p in examples]
    if limit is not None:
        # A fixed sample across all packages, so a quick run is comparable between runs.
        random.Random(0).shuffle(paths)
        paths = sorted(paths[: max(0, limit - len(example_paths))])
    files = []
    for label, path in example_paths + paths:
        text = path.read_text(encoding="utf-8", errors="replace")
        files.append(SourceFile(label, text, text.count("\n") + (0 if text.endswith("\n") else 1)))
    return files, missing, per_source


def rates(files: int, lines: int, seconds: float) -> dict:
    return {
        "files": files,
        "lines": lines,
        "seconds": round(seconds, 3),
        "files_per_s": round(files / seconds, 1) if seconds else None,
        "lines_per_s": round(lines / seconds) if seconds else None,
    }


def time_ast(files: list[SourceFile]) -> tuple[dict, list[str]]:
    failed = []
    start = time.perf_counter()
    for f in files:
        try:
            ast.parse(f.text, filename=f.label)
        except (SyntaxError, ValueError) as exc:
            failed.append(f"{f.label}: {exc}")
    seconds = time.perf_counter() - start
    return rates(len(files), sum(f.lines for f in files), seconds), failed


def time_libcst(files: list[SourceFile]) -> dict:
    """libcst.parse_module alone: the part of padlint's time that is parsing."""
    import libcst

    start = time.perf_counter()
    for f in files:
        try:
            libcst.parse_module(f.text)
        except Exception:  # ParserSyntaxError; padlint reports these as source errors
            pass
    return rates(len(files), sum(f.lines for f in files), time.perf_counter() - start)


def time_padlint(files: list[SourceFile]) -> dict:
    from padlint.engine import SourceError, lint_source

    findings, source_errors, crashes, per_file = [], [], [], []
    start = time.perf_counter()
    for f in files:
        t0 = time.perf_counter()
        try:
            diagnostics = lint_source(f.text, f.label)
        except NotImplementedError:
            raise
        except SourceError as exc:
            source_errors.append(f"{f.label}: {exc}")
            continue
        except Exception as exc:  # a crash is a bug in padlint: record it and go on
            crashes.append(
                {
                    "file": f.label,
                    "error": f"{type(exc).__name__}: {exc}",
                    "where": traceback.format_exc(limit=-3).strip().splitlines()[-3:],
                }
            )
            continue
        finally:
            per_file.append((time.perf_counter() - t0, f.label, f.lines))
        for d in diagnostics:
            findings.append(
                {
                    "file": f.label,
                    "row": d.location.row,
                    "code": d.code,
                    "message": d.message,
                    "fix": d.fix.applicability.value if d.fix else None,
                }
            )
    seconds = time.perf_counter() - start
    result = rates(len(files), sum(f.lines for f in files), seconds)
    per_file.sort(reverse=True)
    result["slowest"] = [{"file": label, "lines": lines, "seconds": round(s, 3)} for s, label, lines in per_file[:5]]
    result["findings"] = findings
    result["source_errors"] = source_errors
    result["crashes"] = crashes
    return result


def print_report(report: dict) -> None:
    corpus = report["corpus"]
    print(
        f"corpus: {corpus['files']} files, {corpus['lines']} lines "
        f"({', '.join(f'{k} {v}' for k, v in corpus['per_source'].items())})"
    )
    if corpus["missing"]:
        print(f"missing packages (pip install {' '.join(corpus['missing'])}): {', '.join(corpus['missing'])}")
    print()
    print(f"{'':10} {'files':>7} {'lines':>9} {'files/s':>9} {'lines/s':>10} {'wall s':>8}")
    for name in ("ast", "libcst", "padlint"):
        r = report.get(name)
        if r:
            print(
                f"{name:10} {r['files']:>7} {r['lines']:>9} {r['files_per_s']:>9} "
                f"{r['lines_per_s']:>10} {r['seconds']:>8}"
            )
    if report.get("ratio") is not None:
        print(f"padlint / ast wall time: {report['ratio']}x")
    if report.get("ast_failures"):
        print(f"ast.parse failed on {len(report['ast_failures'])} files")
    p = report.get("padlint")
    if not p:
        return
    print("\nslowest files for padlint:")
    for s in p["slowest"]:
        print(f"  {s['seconds']:>7}s  {s['lines']:>6} lines  {s['file']}")
    if p["source_errors"]:
        print(f"\nsource errors ({len(p['source_errors'])}): files padlint could not parse")
        for e in p["source_errors"]:
            print(f"  {e}")
    if p["crashes"]:
        print(f"\nengine crashes ({len(p['crashes'])}):")
        for c in p["crashes"]:
            print(f"  {c['file']}: {c['error']}")
            for line in c["where"]:
                print(f"      {line}")
    print(f"\nfindings ({len(p['findings'])}):")
    for d in p["findings"]:
        fix = f" [fix: {d['fix']}]" if d["fix"] else ""
        print(f"{d['file']}:{d['row']}: {d['code']} {d['message']}{fix}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--limit",
        type=int,
        default=None,
        metavar="N",
        help="check only N files (examples/ plus a fixed sample of the packages)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--libcst",
        action="store_true",
        help="also time libcst.parse_module alone (how much of padlint's time is parsing)",
    )
    parser.add_argument(
        "--side-by-side",
        action="store_true",
        help="time padlint as a user runs it (cold, warm, --jobs 1, one small file) next to the "
        "ast floor and semgrep, in one table (see bench/side_by_side.py)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="with --side-by-side: leave out the no-prefilter and --jobs 1 rows (the slowest; no bound needs them)",
    )
    parser.add_argument(
        "--breakdown",
        action="store_true",
        help="where a cold scan's CPU time goes, step by step, next to the ast floor (see bench/breakdown.py)",
    )
    parser.add_argument(
        "--corpus-dir",
        metavar="DIR",
        help="where --side-by-side copies the corpus (default: padlint-bench-corpus in the temporary directory)",
    )
    parser.add_argument("--semgrep", metavar="PATH", help="the semgrep executable (default: semgrep on PATH)")
    args = parser.parse_args(argv)

    sys.path.insert(0, str(ROOT))  # run against this checkout, installed or not
    files, missing, per_source = collect(args.limit)
    report: dict = {
        "corpus": {
            "files": len(files),
            "lines": sum(f.lines for f in files),
            "per_source": per_source,
            "missing": missing,
        }
    }
    if missing and not args.json:
        print(
            f"note: {', '.join(missing)} not installed; run `pip install {' '.join(missing)}` for the full corpus",
            file=sys.stderr,
        )
    if not files:
        print("nothing to measure", file=sys.stderr)
        return 2

    for mismatch in version_mismatches():
        print(f"note: {mismatch}: pip install -r bench/requirements.txt for comparable numbers", file=sys.stderr)
    if args.breakdown:
        import breakdown

        rows = breakdown.measure(files)
        if args.json:
            print(json.dumps({"corpus": report["corpus"], "steps": rows}, indent=2))
        else:
            breakdown.print_breakdown(rows)
        return 0
    if args.side_by_side:
        import side_by_side

        rows = side_by_side.run(
            files, Path(args.corpus_dir) if args.corpus_dir else None, args.semgrep, quick=args.quick
        )
        if args.json:
            print(json.dumps({"corpus": report["corpus"], "rows": rows}, indent=2))
        else:
            print(
                f"corpus: {report['corpus']['files']} files, {report['corpus']['lines']:,} lines "
                f"({', '.join(f'{k} {v}' for k, v in per_source.items())})\n"
            )
            side_by_side.print_table(rows)
            print("\n" + side_by_side.first_look(files))
        return 0
    report["ast"], report["ast_failures"] = time_ast(files)
    if args.libcst:
        report["libcst"] = time_libcst(files)
    status = 0
    try:
        # Load libcst and the rules before timing, so (b) measures linting, not imports.
        import padlint.engine  # noqa: F401
        import padlint.rules  # noqa: F401

        report["padlint"] = time_padlint(files)
    except NotImplementedError:
        report["padlint"] = None
        report["error"] = "padlint.engine.lint_source raised NotImplementedError: the engine is not written yet"
        status = 2
    except ImportError as exc:
        report["padlint"] = None
        report["error"] = f"padlint cannot be imported: {exc}"
        status = 2
    else:
        report["ratio"] = round(report["padlint"]["seconds"] / report["ast"]["seconds"], 1)
        if report["padlint"]["crashes"]:
            status = 1

    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_report(report)
        if "error" in report:
            print(f"\nerror: {report['error']}", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
