"""Where a cold scan's CPU time goes, step by step (`bench.py --breakdown`).

Every file goes through the steps a worker takes (worker.analyse), in this one process, each step
timed on its own: the word look, the sharp look (scopes and reach), the syntax check of files no
rule can fire on, the analysis of the reduced texts (and, apart, libcst's parse of them and the
stdlib's `ast.parse` of them, for comparison), the syntax check of the reduced files, the whole-file
analyses. Next to it, the ast floor measured in the same process, and what that leaves for the
analysis if the cold scan is to take no longer than the floor on this machine's cores.

The steps are timed one file at a time with `time.process_time`, so the sum is close to, not
equal to, the CPU of `padlint check` (which also reads, hashes and caches in its parent). The files
are passed as labels, not paths: the modules they import are not read, so the cross-module work of
the first look and of the analysis is not in these numbers (only in `--side-by-side`).
"""

from __future__ import annotations

import ast
import os
import time


def _cpu(fn, *args):
    start = time.process_time()
    try:
        result = fn(*args)
    except Exception as exc:  # a file that does not parse: its time counts, its result is the error
        result = exc
    return result, time.process_time() - start


def measure(files) -> list[tuple[str, int, float]]:
    """(step, files, CPU seconds) over `files` (bench.SourceFile), default rules."""
    import libcst

    from padlint import engine
    from padlint.config import SYNTAX_ERROR_CODE, Settings, resolve_selection
    from padlint.look import prefilter

    codes = frozenset(resolve_selection(Settings(root=os.getcwd()), "x.py") - {SYNTAX_ERROR_CODE})
    steps: dict[str, list] = {}

    def add(step: str, seconds: float) -> None:
        entry = steps.setdefault(step, [0, 0.0])
        entry[0] += 1
        entry[1] += seconds

    for f in files:
        _, seconds = _cpu(ast.parse, f.text)
        add("ast floor: ast.parse of every file", seconds)
    for f in files:
        words, seconds = _cpu(prefilter.may_fire, f.text, codes)
        add("words (in the parent)", seconds)
        plan = False
        if words is True:
            plan, seconds = _cpu(prefilter.look_plan, f.text, codes)
            add("sharp look: scopes and reach", seconds)
        if plan is False:
            _, seconds = _cpu(prefilter.parses, f.text)
            add("syntax check of the files no rule can fire on", seconds)
        elif plan is True:
            _, seconds = _cpu(engine.lint_source, f.text, f.label, codes)
            add("analysis of whole files", seconds)
        else:
            found, seconds = _cpu(engine.may_have_findings, plan, f.label, codes)
            add("analysis of reduced texts", seconds)
            _, seconds = _cpu(libcst.parse_module, plan)
            add("  libcst.parse_module of the reduced texts (part of the above)", seconds)
            _, seconds = _cpu(ast.parse, plan)
            add("  ast.parse of the reduced texts (for comparison, not run by padlint)", seconds)
            _, seconds = _cpu(prefilter.parses, f.text)
            add("syntax check of the reduced files (the stubs hide bodies)", seconds)
            if found is True:
                _, seconds = _cpu(engine.lint_source, f.text, f.label, codes)
                add("whole analysis after a finding in the reduced text", seconds)
    return [(step, count, seconds) for step, (count, seconds) in steps.items()]


def print_breakdown(rows: list[tuple[str, int, float]]) -> None:
    floor = next(seconds for step, _, seconds in rows if step.startswith("ast floor"))
    steps = [(s, n, t) for s, n, t in rows if not s.startswith(("ast floor", "  "))]
    total = sum(t for _, _, t in steps)
    analysis = sum(t for s, _, t in steps if "analysis" in s)
    print(f"| {'step (one process, default rules)':<70} | {'files':>5} | {'cpu s':>6} |")
    print(f"|{'-' * 72}|{'-' * 6}:|{'-' * 7}:|")
    for step, count, seconds in rows:
        print(f"| {step:<70} | {count:>5} | {seconds:>6.2f} |")
    print(f"| {'total of the steps (the ast floor and the comparisons aside)':<70} | {'':>5} | {total:>6.2f} |")
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    left = cores * floor - (total - analysis)
    print(
        f"\nOn {cores} cores, a cold scan as fast as the ast floor has at most {cores} x {floor:.2f} = "
        f"{cores * floor:.2f} CPU-s (no parent, perfect scaling). The steps other than the analyses take "
        f"{total - analysis:.2f} of them, which leaves {left:.2f} CPU-s for the analyses; they take "
        f"{analysis:.2f} now."
    )
