"""The command line as a ruff user reaches for it: subcommands and paths told apart, suggestions that
never name hidden options, --quiet, --silent, --show-settings, --show-files and --watch."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from samples import BUGGY

from padlint.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
FIXED = BUGGY.replace("torch.ones_like(input_ids)", "(input_ids != pad_id).long()")


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("PADLINT_OUTPUT_FORMAT", "FORCE_COLOR", "PADLINT_CACHE_DIR"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "collate.py").write_text(BUGGY)
    (tmp_path / "clean.py").write_text("x = 1\n")
    return tmp_path


def run(*args: str):
    return CliRunner().invoke(main, list(args))


# --- subcommands, paths and suggestions ----------------------------------------------------------


def test_an_unknown_subcommand_is_an_error_not_a_missing_path(project):
    result = run("lintt", "collate.py")  # a made-up subcommand
    assert result.exit_code == 2
    assert "unrecognized subcommand 'lintt'" in result.stderr
    assert "No such file" not in result.output and "PAD001" not in result.output
    typo = run("chek")
    assert typo.exit_code == 2 and "did you mean 'check'?" in typo.stderr


@pytest.mark.parametrize(
    "args",
    [("collate.py",), (".",), ("--output-format", "concise", "collate.py"), ("-q", "collate.py")],
)
def test_the_documented_path_forms_still_mean_check(project, args):
    result = run(*args)
    assert result.exit_code == 1 and "PAD001" in result.stdout


def test_a_folder_named_like_a_word_is_still_a_path(project):
    (project / "pipelines").mkdir()
    (project / "pipelines" / "collate.py").write_text(BUGGY)
    assert run("pipelines").exit_code == 1
    missing = run("nope.py")  # looks like a file: a missing file, not a subcommand
    assert missing.exit_code == 2 and "nope.py: No such file or directory" in missing.stderr


def test_did_you_mean_never_names_a_hidden_option(project):
    result = run("check", "--no-prefilte", "collate.py")  # one letter short of the hidden switch
    assert result.exit_code == 2 and "No such option '--no-prefilte'" in result.stderr
    assert "--no-prefilter" not in result.stderr
    visible = run("check", "--fi", "collate.py")
    assert "--fix" in visible.stderr


# --- --quiet and --silent ------------------------------------------------------------------------


def test_quiet_prints_the_findings_and_nothing_else(project):
    for fmt in ("full", "concise"):
        result = run("check", "-q", "--output-format", fmt, "collate.py", "nope")
        assert result.exit_code == 2
        assert "PAD001" in result.stdout and "Found" not in result.stdout and "fixable" not in result.stdout
        assert result.stderr.splitlines() == ["padlint: error: nope: No such file or directory"]  # errors stay
    clean = run("check", "--quiet", "clean.py")
    assert clean.exit_code == 0 and clean.output == ""
    (project / "empty").mkdir()
    assert run("check", "--quiet", "empty").output == ""  # no "No Python files" warning
    stats = run("check", "-q", "--statistics", "collate.py")
    assert stats.exit_code == 1 and "PAD001" in stats.stdout and "Found" not in stats.stdout


def test_silent_prints_nothing_and_the_exit_code_tells(project):
    for args, code in ((("collate.py",), 1), (("clean.py",), 0), (("nope.py",), 2), (("--diff", "collate.py"), 1)):
        result = run("check", "--silent", *args)
        assert (result.exit_code, result.output) == (code, ""), args
    fixed = run("check", "-s", "--fix", "--unsafe-fixes", "collate.py")
    assert fixed.output == "" and "ones_like" not in (project / "collate.py").read_text()


# --- --show-settings and --show-files ------------------------------------------------------------


def test_show_settings_prints_what_a_check_would_use(project):
    (project / "pyproject.toml").write_text(
        '[tool.padlint]\nignore = ["PAD002"]\ntarget-version = "py311"\n'
        '[tool.padlint.per-file-ignores]\n"tests/**" = ["PAD001"]\n'
    )
    result = run("check", "--show-settings", "--extend-select", "PAD100", "collate.py")
    assert result.exit_code == 0
    out = result.stdout
    assert 'Resolved settings for: "collate.py"' in out
    assert f"Settings path: {project / 'pyproject.toml'}" in out
    select = next(line for line in out.splitlines() if line.startswith("select = "))
    assert '"PAD001"' in select and '"PAD100"' in select and '"PAD002"' not in select
    assert 'per-file-ignores = {"tests/**" = ["PAD001"]}' in out
    assert 'target-version = "py311"' in out and "timeout = 20.0" in out
    assert "PAD001" not in out.split("[tool.padlint]")[0]  # nothing was linted
    (project / "pyproject.toml").write_text('[tool.padlint]\nselect = "PAD001"\n')
    assert run("check", "--show-settings").exit_code == 2


def test_show_files_lists_what_would_be_checked(project):
    (project / "sub").mkdir()
    (project / "sub" / "nb.ipynb").write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
    (project / "sub" / "notes.txt").write_text("no\n")
    (project / "build").mkdir()
    (project / "build" / "gen.py").write_text("x = 1\n")  # excluded by default
    result = run("check", "--show-files")
    assert result.exit_code == 0
    expected = [project / "clean.py", project / "collate.py", project / "sub" / "nb.ipynb"]
    assert result.stdout.splitlines() == [str(p.resolve()) for p in expected]
    narrowed = run("check", "--show-files", "--extend-exclude", "sub", ".")
    assert len(narrowed.stdout.splitlines()) == 2
    assert run("check", "--show-files", "nope.py").exit_code == 2


# --- --watch -------------------------------------------------------------------------------------


def _read_until(proc: subprocess.Popen, marker: str, seen: list[str], timeout: float = 120) -> None:
    """Read the watcher's stdout into `seen` until a line contains `marker` (in a thread, so that a
    watcher that never prints fails the test instead of hanging it)."""
    done = threading.Event()

    def pump() -> None:
        for line in proc.stdout:  # type: ignore[union-attr]
            seen.append(line)
            if marker in line:
                done.set()
                return

    threading.Thread(target=pump, daemon=True).start()
    assert done.wait(timeout), "".join(seen)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals end the watcher")
def test_watch_checks_again_when_a_file_changes(project):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PADLINT_NO_PROGRESS": "1"}
    env.pop("PADLINT_OUTPUT_FORMAT", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "padlint", "check", "--watch", "--output-format", "concise", "collate.py"],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        seen: list[str] = []
        _read_until(proc, "Found 1 error.", seen)
        assert any(": PAD001" in line for line in seen)
        time.sleep(0.1)  # a modification time the next poll tells apart
        (project / "collate.py").write_text(FIXED)
        after: list[str] = []
        _read_until(proc, "All checks passed!", after)
        assert not any(": PAD0" in line for line in after)
        assert proc.poll() is None  # still watching
    finally:
        proc.terminate()
        _, stderr = proc.communicate(timeout=30)
    assert "Starting padlint in watch mode..." in stderr and "File change detected..." in stderr


def test_watch_is_refused_where_it_cannot_work(project):
    result = CliRunner().invoke(main, ["check", "--watch", "-"], input="x = 1\n")
    assert result.exit_code == 2 and "--watch" in result.stderr


def test_repeated_list_flags_add_up(tmp_path):
    """`--extend-exclude a --extend-exclude b` excludes both (as ruff does): keeping only the last one
    would lint a vendored folder the user asked to leave out. The same holds for --select."""
    source = (Path(__file__).parent.parent / "examples" / "buggy_collator.py").read_text(encoding="utf-8")
    for folder in ("vendored_a", "vendored_b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "collator.py").write_text(source, encoding="utf-8")
    (tmp_path / "collator.py").write_text(source, encoding="utf-8")
    runner = CliRunner()
    args = ["check", str(tmp_path), "--no-cache", "--output-format", "concise"]
    excluded = runner.invoke(main, [*args, "--extend-exclude", "vendored_a", "--extend-exclude", "vendored_b"])
    assert "vendored_" not in excluded.output and str(tmp_path / "collator.py") in excluded.output
    one = runner.invoke(main, [*args, "--select", "PAD001"])
    both = runner.invoke(main, [*args, "--select", "PAD001", "--select", "PAD002"])
    assert "PAD002" not in one.output and "PAD001" in one.output
    assert "PAD001" in both.output and "PAD002" in both.output


def test_diffs_come_in_path_order_whichever_worker_finishes_first(tmp_path):
    # The first file in path order is the slowest to analyse: with two workers the others finish first.
    slow = "\n\n".join(BUGGY.replace("def ", f"def v{i}_", 1) for i in range(60))
    (tmp_path / "a_slow.py").write_text(slow)
    for name in "bcdefg":
        (tmp_path / f"{name}_quick.py").write_text(BUGGY)
    done = subprocess.run(
        [sys.executable, "-m", "padlint", "check", "--no-cache", "--diff", "--jobs", "2", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    shown = [line[4:] for line in done.stdout.splitlines() if line.startswith("--- ")]
    assert len(shown) == 7, done.stdout + done.stderr
    assert shown == sorted(shown)
