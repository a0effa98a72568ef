"""padlint as a user runs it, next to the ast floor and semgrep, in one table (`bench.py --side-by-side`).

The corpus (the pinned packages of bench/requirements.txt plus examples/) is copied into one
directory, and each measurement is a separate process started from here:

  ast floor        one process reads and `ast.parse`s every file padlint's discovery finds there
  padlint cold     `padlint check DIR` with an empty cache (default --jobs: one per core)
  padlint -j1      the same with `--jobs 1`
  no prefilter     the cold run with the first look switched off (`--no-prefilter`): what it buys
  padlint warm     `padlint check DIR` again on the cache the cold run left (nothing changed)
  small file       `padlint check --force-exclude FILE` on examples/buggy_collator.py, as pre-commit
                   runs it: interpreter start included, empty cache
  its floor        `python -c pass` and `python -c "import libcst"`: what a one-file run that needs
                   the analysis cannot go below on this machine (the interpreter, the parser's import)
  semgrep          `semgrep --config bench/semgrep DIR` (three rules, if semgrep is installed)

Wall time is measured around the process; CPU time (user + system) comes from os.wait4, which
counts the process and every worker it waited for; peak memory is the largest sum of PSS
(proportional set size, so pages that forked workers share with their parent count once) over the
process tree, sampled every 20 ms from /proc (Linux), else the largest single process's maxrss.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SMALL_FILE = ROOT / "examples" / "buggy_collator.py"
SMALL_RUNS = 5
AST_SCRIPT = """
import ast, sys
for path in open(sys.argv[1], encoding="utf-8").read().splitlines():
    with open(path, "rb") as fh:
        data = fh.read()
    try:
        ast.parse(data)
    except (SyntaxError, ValueError):
        pass
"""


def build_corpus(files, directory: Path) -> Path:
    """Write every corpus file (bench.SourceFile: label, text) under `directory`, once."""
    marker = directory / ".complete"
    if marker.exists() and marker.read_text() == str(len(files)):
        return directory
    shutil.rmtree(directory, ignore_errors=True)
    for f in files:
        target = directory / f.label
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(f.text, encoding="utf-8")
    (directory / ".semgrepignore").write_text("# scan everything, like the other tools\n")
    marker.write_text(str(len(files)))
    return directory


def _tree(pid: int) -> list[int]:
    pids, stack = [], [pid]
    while stack:
        p = stack.pop()
        pids.append(p)
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as fh:
                    stack.extend(int(c) for c in fh.read().split())
        except OSError:
            pass
    return pids


def _pss_kb(pid: int) -> int:
    total = 0
    for p in _tree(pid):
        try:
            with open(f"/proc/{p}/smaps_rollup") as fh:
                for line in fh:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1])
                        break
        except OSError:
            pass
    return total


def measure(
    name: str, cmd: list[str], files: int, lines: int, env: dict | None = None, cwd: Path | None = None
) -> dict:
    """Run `cmd`; its wall and CPU seconds, peak memory (MB) and exit code."""
    sampled = os.path.exists("/proc/self/smaps_rollup")
    start = time.perf_counter()
    err = tempfile.TemporaryFile()  # a file, not a pipe: a chatty run must never block on stderr
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, env=env, cwd=cwd)
    peak_kb = 0
    while True:
        done, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if done:
            break
        if sampled:
            peak_kb = max(peak_kb, _pss_kb(proc.pid))
        time.sleep(0.02)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    err.seek(0)
    stderr = err.read().decode(errors="replace")
    err.close()
    if not sampled or not peak_kb:
        peak_kb = usage.ru_maxrss
    return {
        "name": name,
        "files": files,
        "lines": lines,
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "peak_mb": peak_kb / 1024,
        "exit": proc.returncode,
        "stderr": stderr[-2000:],
    }


def find_semgrep(explicit: str | None) -> str | None:
    return explicit or shutil.which("semgrep")


def run(files, corpus_dir: Path | None, semgrep: str | None, quick: bool = False) -> list[dict]:
    """Every measurement over `files` (bench.SourceFile); the rows of the table. `quick` leaves out
    the two slowest rows (no prefilter, --jobs 1), which the bounds do not need."""
    sys.path.insert(0, str(ROOT))
    from padlint.config import Settings
    from padlint.files.discovery import discover

    directory = build_corpus(files, corpus_dir or Path(tempfile.gettempdir()) / "padlint-bench-corpus")
    found = discover([str(directory)], Settings(root=directory)).files
    lines = sum(f.lines for f in files)
    py = sys.executable
    work = Path(tempfile.mkdtemp(prefix="padlint-bench-")).resolve()
    rows = []
    try:
        listing = work / "files.txt"
        listing.write_text("\n".join(os.path.abspath(p) for p in found), encoding="utf-8")
        rows.append(measure("ast floor (1 process)", [py, "-c", AST_SCRIPT, str(listing)], len(found), lines))
        padlint = [py, "-m", "padlint", "check", str(directory), "--exit-zero", "--output-format", "concise"]
        # Bytecode caching on, as in any installed environment (pip compiles on install); some shells
        # set PYTHONDONTWRITEBYTECODE, which would make every start compile padlint from source.
        base_env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env = {**base_env, "PADLINT_CACHE_DIR": str(work / "cache-cold"), "PYTHONPATH": str(ROOT), "CI": "1"}
        subprocess.run(
            [py, "-c", "import padlint.cli.main, padlint.engine, padlint.run.cache, padlint.run.pool"],
            env=env,
            check=False,
        )  # write the bytecode once, outside the measurements
        rows.append(measure("padlint cold", padlint, len(found), lines, env, cwd=work))
        rows.append(measure("padlint warm", padlint, len(found), lines, env, cwd=work))
        if not quick:
            env_np = {**env, "PADLINT_CACHE_DIR": str(work / "cache-noprefilter")}
            rows.append(
                measure("padlint cold, no prefilter", padlint + ["--no-prefilter"], len(found), lines, env_np, cwd=work)
            )
            env1 = {**env, "PADLINT_CACHE_DIR": str(work / "cache-j1")}
            rows.append(measure("padlint cold --jobs 1", padlint + ["--jobs", "1"], len(found), lines, env1, cwd=work))
        small = work / "small" / SMALL_FILE.name
        small.parent.mkdir()
        shutil.copy(SMALL_FILE, small)
        small_lines = SMALL_FILE.read_text(encoding="utf-8").count("\n")
        script = Path(py).with_name("padlint")
        entry = [str(script)] if script.exists() else [py, "-m", "padlint"]
        runs = []
        for i in range(SMALL_RUNS):  # a fraction of a second is noisy: the median of several, each cold
            env_small = {**env, "PADLINT_CACHE_DIR": str(work / f"cache-small-{i}")}
            runs.append(
                measure(
                    f"1 small file (median of {SMALL_RUNS})",
                    entry + ["check", "--force-exclude", small.name],
                    1,
                    small_lines,
                    env_small,
                    cwd=small.parent,
                )
            )
        rows.append(sorted(runs, key=lambda r: r["wall"])[SMALL_RUNS // 2])
        for name, code in (("python start", "pass"), ("python + import libcst", "import libcst")):
            starts = [measure(f"{name} (median of {SMALL_RUNS})", [py, "-c", code], 0, 0) for _ in range(SMALL_RUNS)]
            rows.append(sorted(starts, key=lambda r: r["wall"])[SMALL_RUNS // 2])
        binary = find_semgrep(semgrep)
        if binary:
            cmd = [
                binary,
                "scan",
                "--config",
                str(HERE / "semgrep"),
                "--metrics=off",
                "--quiet",
                "--disable-version-check",
                "--no-git-ignore",
                "--json",
                "--output",
                str(work / "semgrep.json"),
                str(directory),
            ]
            rows.append(measure("semgrep (3 rules)", cmd, len(found), lines, cwd=work))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    floor = rows[0]["wall"]
    semgrep_wall = next((r["wall"] for r in rows if r["name"].startswith("semgrep")), None)
    for row in rows:
        row["vs_floor"] = row["wall"] / floor if floor else None
        row["semgrep_speedup"] = (
            semgrep_wall / row["wall"] if semgrep_wall and row["name"].startswith("padlint") else None
        )
    return rows


def first_look(files) -> str:
    """Where the first look sends the corpus with the default rules: nothing (skipped), a reduced
    text (the defs no padding step reaches cut to stubs), or the whole file."""
    from padlint.config import SYNTAX_ERROR_CODE, Settings, resolve_selection
    from padlint.look.prefilter import look_plan, may_fire

    codes = resolve_selection(Settings(root=ROOT), "x.py") - {SYNTAX_ERROR_CODE}
    lines = sum(f.lines for f in files)
    words = [f for f in files if may_fire(f.text, codes)]
    plans = [(f, look_plan(f.text, codes)) for f in words]
    whole = [f for f, plan in plans if plan is True]
    reduced = [(f, plan) for f, plan in plans if isinstance(plan, str)]
    kept = sum(sum(1 for line in plan.splitlines() if line.strip()) for _, plan in reduced)

    def share(group) -> str:
        return f"{len(group)} files ({sum(f.lines for f in group) / lines:.0%} of the lines)"

    return (
        f"first look (default rules), {len(files)} files: the words pass {share(words)}; the analysis "
        f"reads {share(whole)} whole and {len(reduced)} reduced to {kept / lines:.0%} of the corpus's lines "
        f"(non-blank, docstrings included); the rest is only syntax-checked"
    )


def print_table(rows: list[dict]) -> None:
    print(
        f"| {'run':<28} | {'files':>5} | {'lines':>9} | {'wall s':>7} | {'cpu s':>7} | {'peak MB':>7} "
        f"| {'÷ ast floor':>11} | {'semgrep ÷ padlint':>17} |"
    )
    print(f"|{'-' * 30}|{'-' * 6}:|{'-' * 10}:|{'-' * 8}:|{'-' * 8}:|{'-' * 8}:|{'-' * 12}:|{'-' * 18}:|")
    for r in rows:
        ratio = f"{r['vs_floor']:.2f}x" if r["vs_floor"] is not None else ""
        speed = f"{r['semgrep_speedup']:.1f}x" if r["semgrep_speedup"] else ""
        print(
            f"| {r['name']:<28} | {r['files']:>5} | {r['lines']:>9,} | {r['wall']:>7.2f} | {r['cpu']:>7.2f} "
            f"| {r['peak_mb']:>7.0f} | {ratio:>11} | {speed:>17} |"
        )
    for r in rows:
        failed = r["exit"] not in (0, None) and not ("small file" in r["name"] and r["exit"] == 1)
        if failed or (r["stderr"].strip() and not r["name"].startswith("semgrep")):
            print(f"\n{r['name']}: exit {r['exit']}\n{r['stderr'].strip()}", file=sys.stderr)
