"""The runner: result cache (keys, corruption, concurrency), worker processes (deadlines, crashes),
per-file time limits, --jobs, and what `padlint check` prints while using them."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from samples import BUGGY  # noqa: E402  (tests/samples.py)

from padlint.cli.main import main
from padlint.config import Settings
from padlint.run import pool
from padlint.run.cache import Cache
from padlint.run.runner import Options, check_files


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PADLINT_CACHE_DIR", raising=False)
    (tmp_path / "buggy.py").write_text(BUGGY)
    (tmp_path / "clean.py").write_text("x = 1\n")
    return tmp_path


def _check(*args: str):
    return CliRunner().invoke(main, ["check", "--output-format", "concise", *args])


def _run(tmp_path: Path, **options):
    settings = Settings(root=tmp_path)
    files = sorted(str(p) for p in tmp_path.glob("*.py"))
    errors: list[str] = []
    result = check_files(files, settings, Options(**options), warn=errors.append, error=errors.append)
    return result, errors


# ---- cache ----------------------------------------------------------------------------------------
def test_second_run_is_served_from_the_cache_with_the_same_output(project):
    first = _check("buggy.py", "clean.py")
    assert (project / ".padlint_cache" / ".gitignore").read_text().splitlines()[-1] == "*"
    result, _ = _run(project)
    assert result.stats["cached"] == 2 and result.stats["parsed"] == 0
    assert _check("buggy.py", "clean.py").output == first.output
    assert first.exit_code == 1


def test_configuration_is_part_of_the_key(project):
    assert "PAD001" in _check("buggy.py").output
    # Ruff's #1589/#12721: a cached result must not survive a change of the rules that ran.
    assert _check("buggy.py", "--select", "PAD002").exit_code == 0
    (project / "pyproject.toml").write_text('[tool.padlint]\nignore = ["PAD001"]\n')
    assert _check("buggy.py").exit_code == 0
    (project / "pyproject.toml").write_text('[tool.padlint]\nper-file-ignores = {"other.py" = ["PAD001"]}\n')
    assert "PAD001" in _check("buggy.py").output


def test_content_is_part_of_the_key(project):
    assert _check("buggy.py").exit_code == 1
    (project / "buggy.py").write_text(BUGGY.replace("torch.ones_like(input_ids)", "input_ids.ne(pad_id)"))
    assert _check("buggy.py").exit_code == 0


_TRAIN_STEP = """\
import torch.nn.functional as F
from torch.nn.utils.rnn import pad_sequence

from .consts import LABEL_PAD


def loss_of(logits, targets):
    labels = pad_sequence(targets, batch_first=True, padding_value=-100)
    return F.cross_entropy(logits.flatten(0, 1), labels.flatten(), ignore_index=LABEL_PAD)
"""


def test_an_imported_constant_that_changes_invalidates_the_importers_entry(project):
    # The findings of train.py depend on consts.py, which the analysis reads: its cached "clean"
    # must not outlive a change there (the loss then ignores -1 while the labels are padded with -100).
    package = project / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "consts.py").write_text("LABEL_PAD = -100\n")
    (package / "train.py").write_text(_TRAIN_STEP)
    assert _check("pkg/train.py").output == "All checks passed!\n"
    assert _check("pkg/train.py").output == "All checks passed!\n"  # served from the cache
    (package / "consts.py").write_text("LABEL_PAD = -1  # changed\n")
    stale = _check("pkg/train.py")
    assert "PAD007" in stale.output and stale.exit_code == 1
    assert _check("pkg/train.py", "--no-cache").output == stale.output
    (package / "consts.py").write_text("LABEL_PAD = -100\n")
    assert _check("pkg/train.py").exit_code == 0
    (package / "consts.py").unlink()  # a file that is gone no longer holds what was read
    assert _check("pkg/train.py").output == _check("pkg/train.py", "--no-cache").output


def test_a_corrupt_or_truncated_entry_is_a_miss(project):
    _check("buggy.py")
    entries = [
        p
        for p in (project / ".padlint_cache").rglob("*")
        if p.is_file() and p.parent.name != ".padlint_cache" and p.name not in (".gitignore", "CACHEDIR.TAG")
    ]
    assert entries
    for entry in entries:
        entry.write_bytes(b'[{"code": "PAD0')
    result = _check("buggy.py")
    assert result.exit_code == 1 and "PAD001" in result.output
    assert "PAD001" in _check("buggy.py").output  # and it was rewritten


def test_no_cache_and_the_cache_dir_variable(project, monkeypatch):
    _check("buggy.py", "--no-cache")
    assert not (project / ".padlint_cache").exists()
    monkeypatch.setenv("PADLINT_CACHE_DIR", str(project / "elsewhere"))
    _check("buggy.py")
    assert (project / "elsewhere" / ".gitignore").exists() and not (project / ".padlint_cache").exists()


def test_fix_and_diff_never_use_the_cache(project):
    _check("buggy.py", "--fix")
    _check("buggy.py", "--diff")
    assert not (project / ".padlint_cache").exists()


def test_two_concurrent_runs_share_a_cache_dir(project):
    for i in range(30):
        (project / f"m{i}.py").write_text(BUGGY.replace("collate", f"collate{i}"))
    env = {**os.environ, "PADLINT_CACHE_DIR": str(project / "shared")}
    cmd = [sys.executable, "-m", "padlint", "check", "--output-format", "concise", "--jobs", "1", "."]
    runs = [
        subprocess.Popen(cmd, cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outputs = [r.communicate(timeout=120) for r in runs]
    again = subprocess.run(cmd, cwd=project, env=env, capture_output=True, text=True, timeout=120)
    for out, err in outputs + [(again.stdout, again.stderr)]:
        assert err == "" and out.count("PAD001") == 31
    assert outputs[0][0] == outputs[1][0] == again.stdout


def test_cache_entries_round_trip_every_field(tmp_path):
    from padlint.engine import lint_source

    found = lint_source(BUGGY, "x.py")
    assert found and found[0].fix is not None
    cache = Cache(tmp_path, unsafe_fixes=False, prefilter=True)
    key = cache.key("0" * 64, {"PAD001"})
    cache.put(key, found)
    assert cache.get(key, "x.py") == found
    assert [d.statement_rows for d in cache.get(key, "x.py")] == [d.statement_rows for d in found]


def _clean(*args: str):
    return CliRunner().invoke(main, ["clean", *args])


def test_clean_removes_the_cache_and_the_next_run_rebuilds_it(project):
    first = _check("buggy.py", "clean.py")
    sub = project / "pkg"
    sub.mkdir()
    (project / "pyproject.toml").write_text("[tool.padlint]\n")
    result = _clean(str(sub))  # from a subfolder: the project root's cache
    assert result.exit_code == 0 and "2 entries" in result.output
    assert not (project / ".padlint_cache").exists()
    again = _clean()
    assert again.exit_code == 0 and again.output.startswith("No cache at")
    assert _check("buggy.py", "clean.py").output == first.output
    result, _ = _run(project)
    assert result.stats["cached"] == 2


def test_clean_path_without_config_removes_that_folders_cache_not_the_cwds(project, monkeypatch):
    other = project / "other"
    other.mkdir()
    (other / "buggy.py").write_text(BUGGY)
    monkeypatch.chdir(other)
    _check("buggy.py")  # no [tool.padlint] anywhere: other/ is the project, its cache is other/.padlint_cache
    monkeypatch.chdir(project)
    _check("buggy.py")  # and this one's is ./.padlint_cache
    assert (other / ".padlint_cache").is_dir() and (project / ".padlint_cache").is_dir()
    result = _clean(str(other))
    assert result.exit_code == 0 and "1 entry" in result.output and "other" in result.output
    assert not (other / ".padlint_cache").exists()
    assert (project / ".padlint_cache").is_dir()  # the current folder's cache is left alone
    assert _clean(str(other / "buggy.py")).output.startswith("No cache at")  # a file: its folder


def test_clean_keeps_what_padlint_did_not_write(project, monkeypatch):
    shared = project / "shared"
    shared.mkdir()
    (shared / "notes.txt").write_text("mine\n")
    (shared / "v2").mkdir()
    (shared / "v2" / "data.bin").write_text("not an entry\n")
    monkeypatch.setenv("PADLINT_CACHE_DIR", str(shared))
    _check("buggy.py")
    result = _clean()
    assert result.exit_code == 0 and "1 entry (other files there were kept)" in result.output
    assert sorted(p.name for p in shared.iterdir()) == ["notes.txt", "v2"]
    assert (shared / "v2" / "data.bin").exists()


def test_clean_refuses_a_folder_that_is_not_a_cache(project, monkeypatch):
    # PADLINT_CACHE_DIR set by mistake to a folder of one's own: nothing there is removed.
    mine = project / "mine"
    (mine / "v1" / "ab").mkdir(parents=True)
    (mine / "v1" / "ab" / "thesis.tex").write_text("keep\n")
    monkeypatch.setenv("PADLINT_CACHE_DIR", str(mine))
    result = _clean()
    assert result.exit_code == 2 and "does not look like padlint's cache" in result.output
    assert (mine / "v1" / "ab" / "thesis.tex").read_text() == "keep\n"


# ---- workers and time limits ------------------------------------------------------------------------
def _sleep_or_crash(task):
    if task == "sleep":
        time.sleep(30)
    if task == "spin":
        while True:
            pass
    if task == "spin in native code":  # summed in C for hours: no signal handler runs meanwhile
        sum(range(10**13))
    if task == "wait a little":  # longer than the limit on the clock, hardly any CPU: a loaded machine
        time.sleep(1.5)
    if task == "crash":
        os.kill(os.getpid(), 11)
    if task == "raise":
        raise ValueError("bad")
    return task * 2


@pytest.mark.skipif(not pool.available(), reason="needs fork")
def test_pool_survives_hangs_crashes_and_exceptions():
    start = time.monotonic()
    tasks = ["a", "sleep", "b", "crash", "raise", "c", "spin", "wait a little", "spin in native code"]
    results = {i: (r, ok) for i, r, ok in pool.run(_sleep_or_crash, tasks, 2, 0.5)}
    assert time.monotonic() - start < 30
    assert results[0] == ("aa", True) and results[2] == ("bb", True) and results[5] == ("cc", True)
    # The limit is CPU time: a task that waits past it on the clock (a busy machine) still finishes;
    # one that computes past it is stopped, also inside native code (the kernel's CPU limit); one
    # that never progresses is stopped by the clock, at ten times the limit.
    assert results[7] == ("wait a little" * 2, True)
    assert isinstance(results[6][0], pool.Failure) and results[6][0].timed_out
    assert results[6][0].reason == "timed out after 0.5 s of CPU time"
    assert isinstance(results[8][0], pool.Failure) and results[8][0].timed_out  # SIGXCPU, or the clock
    assert results[8][0].reason in ("timed out after 0.5 s of CPU time", "timed out after 5 s")
    assert isinstance(results[1][0], pool.Failure) and results[1][0].timed_out
    assert results[1][0].reason == "timed out after 5 s"
    assert isinstance(results[3][0], pool.Failure) and "signal 11" in results[3][0].reason
    assert results[4] == ("ValueError: bad", False)


_HELD: list[bytearray] = []


def _grow_and_say_who(megabytes):
    _HELD.append(bytearray(megabytes * 2**20))  # what a worker keeps from one file for the next
    return os.getpid()


@pytest.mark.skipif(not pool.available() or not os.path.exists("/proc/self/statm"), reason="needs fork and /proc")
def test_a_worker_that_has_grown_too_large_is_replaced(monkeypatch):
    """A worker keeps what it read for one file for the next; once it has grown by more than
    WORKER_GROWTH_MB since its fork it retires, and a fresh fork finishes the run: every task still
    gets its result, from more than one process."""
    monkeypatch.setattr(pool, "WORKER_GROWTH_MB", 50.0)
    pids = [r for _, r, ok in pool.run(_grow_and_say_who, [30] * 6, 1, None) if ok]
    assert len(pids) == 6 and len(set(pids)) >= 2
    monkeypatch.setattr(pool, "WORKER_GROWTH_MB", 10_000.0)
    pids = [r for _, r, ok in pool.run(_grow_and_say_who, [30] * 3, 1, None) if ok]
    assert len(pids) == 3 and len(set(pids)) == 1


def _slow_lint(original):
    def lint(text, filename="-", select=None, line_length=None):
        if "slow" in filename:
            while True:  # an analysis that never ends, computing
                pass
        if "waits" in filename:
            time.sleep(1.5)  # a file analysed while the machine is busy: slow on the clock only
        return original(text, filename, select, line_length)

    return lint


@pytest.mark.parametrize("in_process", [False, True], ids=["worker", "in-process"])
def test_a_file_past_the_time_limit_is_reported_and_skipped(project, monkeypatch, in_process):
    from padlint import engine

    (project / "slow.py").write_text(BUGGY)
    (project / "waits.py").write_text(BUGGY)
    monkeypatch.setattr(engine, "lint_source", _slow_lint(engine.lint_source))
    start = time.monotonic()
    result, errors = _run(project, cache=False, timeout=1.0, in_process=in_process)
    assert time.monotonic() - start < 30
    assert not errors and not result.failed
    by_file = {(Path(d.filename).name, d.code, d.message) for d in result.diagnostics}
    assert ("slow.py", "PAD000", "skipped: timed out after 1 s of CPU time") in by_file
    assert any(name == "buggy.py" and code == "PAD001" for name, code, _ in by_file)
    assert any(name == "waits.py" and code == "PAD001" for name, code, _ in by_file)


def test_timeout_option_and_config_key(project):
    assert _check("--timeout", "-1", "buggy.py").exit_code == 2
    (project / "pyproject.toml").write_text('[tool.padlint]\ntimeout = "soon"\n')
    result = _check("buggy.py")
    assert result.exit_code == 2 and "'timeout' in [tool.padlint] must be a number" in result.output
    (project / "pyproject.toml").write_text("[tool.padlint]\ntimeout = 5\n")
    assert _check("buggy.py").exit_code == 1


@pytest.mark.parametrize("where", ["option", "config"])
def test_timeout_zero_means_no_limit_with_workers(project, where):
    # `--timeout 0` once crashed the worker pool (an infinite deadline passed to wait()).
    for i in range(3):
        (project / f"m{i}.py").write_text(BUGGY)
    args = ["--timeout", "0"] if where == "option" else []
    if where == "config":
        (project / "pyproject.toml").write_text("[tool.padlint]\ntimeout = 0\n")
    result = _check(*args, "--jobs", "2", "--no-cache", ".")
    assert result.exit_code == 1 and "internal error" not in result.output
    assert result.output.count("PAD001") == 4  # buggy.py and m0-m2.py


def test_jobs_option(project):
    for i in range(6):
        (project / f"m{i}.py").write_text(BUGGY)
    one = _check("--jobs", "1", "--no-cache", ".")
    two = _check("-j", "2", "--no-cache", ".")
    assert one.output == two.output and one.output.count("PAD001") == 7
    assert _check("--jobs", "0", ".").exit_code == 2


def _cgroup(tmp_path, files: dict[str, str]):
    root = tmp_path / "cgroup"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return str(root)


@pytest.mark.parametrize(
    "files, cpus",
    [
        ({"cpu.max": "200000 100000\n"}, 2.0),  # cgroup v2, a container limited to 2 CPUs
        ({"cpu.max": "150000 100000\n"}, 1.5),
        ({"cpu.max": "max 100000\n"}, None),  # v2, no limit
        ({"cpu/cpu.cfs_quota_us": "50000\n", "cpu/cpu.cfs_period_us": "100000\n"}, 0.5),  # v1
        ({"cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n"}, None),  # v1, no limit
        ({"cpu.max": "garbage\n"}, None),
        ({}, None),  # no cgroups (macOS, a bare chroot)
    ],
)
def test_cgroup_cpu_quota(tmp_path, files, cpus):
    assert pool.cgroup_cpu_quota(_cgroup(tmp_path, files)) == cpus


def test_default_jobs_follows_a_container_cpu_limit(tmp_path, monkeypatch):
    # A CI container limited to 2 CPUs on a 64-core host: 2 workers, not 64 (64 would exhaust memory).
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(64)), raising=False)
    monkeypatch.setattr(pool, "CGROUP_ROOT", _cgroup(tmp_path, {"cpu.max": "150000 100000\n"}))
    assert pool.default_jobs() == 2  # 1.5 CPUs of quota: two workers share them
    monkeypatch.setattr(pool, "CGROUP_ROOT", _cgroup(tmp_path / "v1", {"cpu/cpu.cfs_quota_us": "-1\n"}))
    assert pool.default_jobs() == 64
    monkeypatch.setattr(pool, "CGROUP_ROOT", _cgroup(tmp_path / "small", {"cpu.max": "20000 100000\n"}))
    assert pool.default_jobs() == 1


def test_in_process_and_worker_runs_agree(project):
    for i in range(4):
        (project / f"m{i}.py").write_text(BUGGY)
    (project / "broken.py").write_text("def f(:\n")
    worker, _ = _run(project, cache=False)
    here, _ = _run(project, cache=False, in_process=True)
    assert sorted(map(repr, worker.diagnostics)) == sorted(map(repr, here.diagnostics))


_SAMPLES = """
def generate(max_len, tokenizer, example, fix_length=False):
    input_ids = tokenizer.encode(example["text"])[:max_len]
    labels = list(input_ids)
    if fix_length and max_len > len(input_ids):
        gap = max_len - len(input_ids)
        input_ids = input_ids + [tokenizer.pad_token_id] * gap
        labels = labels + [tokenizer.pad_token_id] * gap
    return {"input_ids": input_ids, "attention_mask": [1] * len(input_ids), "labels": labels}
"""

_ENTRY = """
from functools import partial

from src.samples import generate


def prepare(rows, tokenizer):
    return rows.map(partial(generate, 512, tokenizer{flag}))
"""


def test_a_caller_added_below_the_module_invalidates_its_entry(project):
    # samples.py is clean while every caller leaves `fix_length` False; the callers are found by
    # listing the folders below it, so a script added there must drop the cached "clean".
    entry_points = project / "src" / "entry_point"
    entry_points.mkdir(parents=True)
    (project / "src" / "samples.py").write_text(_SAMPLES)
    (entry_points / "train.py").write_text(_ENTRY.format(flag=""))
    assert _check("src/samples.py").output == "All checks passed!\n"
    assert _check("src/samples.py").output == "All checks passed!\n"  # served from the cache
    (entry_points / "train_fixed_length.py").write_text(_ENTRY.format(flag=", fix_length=True"))
    now = _check("src/samples.py")
    assert "PAD006" in now.output and now.output == _check("src/samples.py", "--no-cache").output
    (entry_points / "train_fixed_length.py").unlink()
    assert _check("src/samples.py").output == "All checks passed!\n"
