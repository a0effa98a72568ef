"""Project hygiene a user relies on: one version, pins that name real releases, a license."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from padlint import __version__
from padlint.report.sarif import _semantic_version

ROOT = Path(__file__).resolve().parents[1]

# A version pinned in an example: pre-commit's `rev: vX` under padlint's repo, the Action's `@vX`, `git+...@vX`.
PRECOMMIT_REPO = re.compile(r"repo:\s*https://github\.com/padlint/padlint\s*\n\s*rev:\s*v(\d+\.\d+\.\d+)")


def _released() -> set[str]:
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    return set(re.findall(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$", changelog, re.MULTILINE))


def _doc_texts() -> dict[str, str]:
    paths = [ROOT / "README.md", ROOT / "action.yml", *sorted((ROOT / "docs").rglob("*.md"))]
    return {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in paths}


def test_every_pinned_padlint_version_is_a_release_in_the_changelog():
    released = _released()
    assert released, "CHANGELOG.md lists no release"
    pinned = []
    for name, text in _doc_texts().items():
        for match in PRECOMMIT_REPO.finditer(text):
            pinned.append((name, match.group(1)))
        for match in re.finditer(r"(?:padlint/padlint@|padlint\.git@|padlint@)v(\d+\.\d+\.\d+)", text):
            pinned.append((name, match.group(1)))
    assert pinned, "the integration docs show no pinned version: this test checks nothing"
    assert [(n, v) for n, v in pinned if v not in released] == []


def test_the_version_has_one_source():
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib

    pyproject_text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    project = tomllib.loads(pyproject_text)["project"]
    assert "version" not in project, "pyproject.toml writes a version of its own"
    pyproject = pyproject_text
    assert 'dynamic = ["version"]' in pyproject and 'attr = "padlint.__version__"' in pyproject
    shown = subprocess.run(
        [sys.executable, "-m", "padlint", "--version"], capture_output=True, text=True, check=True
    ).stdout
    assert shown.split() == ["padlint,", "version", __version__]


def test_a_development_version_is_not_listed_as_released():
    if ".dev" in __version__:
        assert __version__.split(".dev")[0] not in _released()
    else:
        assert __version__ in _released()


def test_sarif_semantic_version_is_semver():
    semver = re.compile(r"^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$")
    assert _semantic_version("0.2.0.dev0") == "0.2.0-dev0"
    assert _semantic_version("1.4.2") == "1.4.2"
    assert semver.match(_semantic_version(__version__))


def test_license_matches_the_declared_one():
    assert 'license = { text = "MIT" }' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")


def test_ci_runs_exactly_the_readme_test_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```console\n(.*?)```", readme, re.DOTALL)
    commands = [line for block in blocks for line in block.splitlines() if "pytest" in line]
    assert len(commands) == 1, f"the README should show one test command, found {commands}"
    ci_lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    assert commands[0].strip() in ci_lines
