"""The pre-commit hook manifest at the repository root, checked with pre-commit itself.

`pre-commit try-repo` pip-installs this repository into a fresh environment of its own, so the second
test is slow (about a minute): it is what a user gets from `repo: <padlint>`, `hooks: - id: padlint`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / ".pre-commit-hooks.yaml"

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    # A hook or an outer git command may have set these; they would point pre-commit's git calls
    # at the wrong repository.
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "PRE_COMMIT"):
        env.pop(name, None)
    env["PRE_COMMIT_HOME"] = str(tmp_path / "pre-commit-home")
    env["PRE_COMMIT_COLOR"] = "never"
    return env


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


def test_manifest_declares_the_padlint_hook():
    hooks = yaml.safe_load(MANIFEST.read_text())
    assert [hook["id"] for hook in hooks] == ["padlint"]
    hook = hooks[0]
    assert hook["entry"] == "padlint check --force-exclude"
    assert hook["language"] == "python"
    assert hook["types_or"] == ["python", "pyi", "jupyter"]
    assert hook["require_serial"] is True


def test_manifest_is_valid(tmp_path):
    proc = _run([sys.executable, "-m", "pre_commit", "validate-manifest", str(MANIFEST)], ROOT, _env(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.slow
@needs_git
def test_try_repo_fails_on_buggy_collator_and_passes_on_clean_one(tmp_path):
    env = _env(tmp_path)
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(ROOT / "examples" / "buggy_collator.py", project / "collate_buggy.py")
    shutil.copy(ROOT / "examples" / "fixed_collator.py", project / "collate_clean.py")
    for args in (
        ["git", "init", "-q"],
        ["git", "config", "user.name", "padlint tests"],
        ["git", "config", "user.email", "tests@padlint.invalid"],
        ["git", "config", "commit.gpgsign", "false"],
        ["git", "add", "collate_buggy.py", "collate_clean.py"],
        ["git", "commit", "-q", "-m", "collators"],
    ):
        proc = _run(args, project, env)
        assert proc.returncode == 0, f"{args}: {proc.stderr}"

    try_repo = [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "padlint", "--files"]

    buggy = _run(try_repo + ["collate_buggy.py"], project, env)
    buggy_out = buggy.stdout + buggy.stderr
    assert buggy.returncode != 0, buggy_out
    assert "PAD001" in buggy_out, buggy_out
    assert "collate_buggy.py" in buggy_out, buggy_out

    clean = _run(try_repo + ["collate_clean.py"], project, env)
    clean_out = clean.stdout + clean.stderr
    assert clean.returncode == 0, clean_out
    assert "Passed" in clean_out, clean_out
    assert "PAD0" not in clean_out, clean_out
