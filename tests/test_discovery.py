"""Which files a scan lints: suffixes, default excludes, .gitignore, exclude settings, symlinks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from padlint.config import Settings
from padlint.files.discovery import discover


@pytest.fixture
def cli_tree(tmp_path, monkeypatch):
    """Work from inside tmp_path, as a user would, and return a helper that creates files."""
    monkeypatch.chdir(tmp_path)

    def make(*paths: str) -> None:
        for p in paths:
            path = tmp_path / p
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("x = 1\n")

    return make


def files(paths=(".",), **settings) -> list[str]:
    result = discover(list(paths), Settings(root=Path.cwd(), **settings))
    assert result.errors == []
    return result.files


def test_recurses_for_py_pyi_and_notebooks_sorted(cli_tree):
    cli_tree("b.py", "a/z.pyi", "a/y.py", "notes.txt", "data.json", "nb.ipynb", "a/deep/er/c.py")
    assert files() == ["a/deep/er/c.py", "a/y.py", "a/z.pyi", "b.py", "nb.ipynb"]


def test_default_excludes(cli_tree):
    cli_tree(
        "ok.py",
        ".venv/lib/x.py",
        "venv/x.py",
        "node_modules/x.py",
        "__pycache__/x.py",
        "build/x.py",
        "dist/x.py",
        ".tox/x.py",
        ".git/hooks/x.py",
        "lib/site-packages/x.py",
        "pkg/build/gen.py",
    )
    assert files() == ["ok.py"]


def test_display_paths_keep_the_given_prefix(cli_tree):
    cli_tree("src/pkg/a.py")
    assert files(["src"]) == ["src/pkg/a.py"]
    assert files(["./src/"]) == ["src/pkg/a.py"]
    assert files([os.path.abspath("src")]) == [os.path.abspath("src/pkg/a.py")]


def test_gitignore_files_at_every_level(cli_tree, tmp_path):
    cli_tree("keep.py", "gen_a.py", "out/x.py", "pkg/keep.py", "pkg/local.py", "pkg/gen_b.py", "pkg/gen_keep.py")
    (tmp_path / ".gitignore").write_text("gen_*.py\nout/\n")
    (tmp_path / "pkg" / ".gitignore").write_text("local.py\n!gen_keep.py\n")
    assert files() == ["keep.py", "pkg/gen_keep.py", "pkg/keep.py"]
    assert len(files(respect_gitignore=False)) == 7


def test_gitignore_above_the_scanned_folder_applies_inside_a_repository(cli_tree, tmp_path):
    cli_tree("src/a.py", "src/secret/b.py")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("src/secret/\n")
    assert files(["src"]) == ["src/a.py"]


def test_git_info_exclude_is_honoured(cli_tree, tmp_path):
    cli_tree("a.py", "scratch.py")
    (tmp_path / ".git" / "info").mkdir(parents=True)
    (tmp_path / ".git" / "info" / "exclude").write_text("scratch.py\n")
    assert files() == ["a.py"]


def test_exclude_replaces_defaults_and_extend_exclude_adds(cli_tree):
    cli_tree("a.py", "build/b.py", "gen/c.py", "legacy/d.py", "e_pb2.py")
    assert files(exclude=("gen",)) == ["a.py", "build/b.py", "e_pb2.py", "legacy/d.py"]
    assert files(extend_exclude=("legacy/", "*_pb2.py")) == ["a.py", "gen/c.py"]


def test_named_files_are_linted_even_if_excluded_unless_force_exclude(cli_tree, tmp_path):
    cli_tree("build/x.py", "gen_a.py", "ok.py")
    (tmp_path / ".gitignore").write_text("gen_*.py\n")
    named = ["build/x.py", "gen_a.py", "ok.py"]
    assert files(named) == named
    assert files(named, force_exclude=True) == ["ok.py"]


def test_a_named_excluded_directory_is_walked_unless_force_exclude(cli_tree):
    cli_tree("build/x.py", "build/sub/y.py")
    assert files(["build"]) == ["build/sub/y.py", "build/x.py"]
    assert files(["build"], force_exclude=True) == []


def test_missing_paths_are_errors_and_the_rest_is_scanned(cli_tree):
    cli_tree("a.py")
    result = discover(["nope.py", "a.py"], Settings(root=Path.cwd()))
    assert result.files == ["a.py"]
    assert result.errors == ["nope.py: No such file or directory"]


def test_each_file_once(cli_tree):
    cli_tree("src/a.py")
    assert files(["src", "src/a.py", "./src/a.py"]) == ["src/a.py"]


def test_symlink_loops_end(cli_tree, tmp_path):
    cli_tree("pkg/a.py")
    (tmp_path / "pkg" / "loop").symlink_to(tmp_path / "pkg")
    assert files(["pkg"]) == ["pkg/a.py"]


def test_directory_links_out_of_the_tree_are_not_followed(cli_tree, tmp_path):
    outside = tmp_path / "elsewhere"
    (outside / "lib").mkdir(parents=True)
    (outside / "lib" / "x.py").write_text("")
    cli_tree("proj/a.py")
    (tmp_path / "proj" / "vendored").symlink_to(outside / "lib")
    assert files(["proj"]) == ["proj/a.py"]


def test_directory_links_inside_the_tree_are_followed_once(cli_tree, tmp_path):
    cli_tree("proj/real/a.py")
    (tmp_path / "proj" / "alias").symlink_to(tmp_path / "proj" / "real")
    assert files(["proj"]) == ["proj/alias/a.py"]  # the same file, listed once


def test_named_notebook_is_listed(cli_tree, tmp_path):
    (tmp_path / "nb.ipynb").write_text("{}")
    result = discover(["nb.ipynb"], Settings(root=tmp_path))
    assert result.files == ["nb.ipynb"] and result.warnings == []


def test_notebook_checkpoints_are_excluded_by_default(cli_tree):
    cli_tree("nb.ipynb", ".ipynb_checkpoints/nb-checkpoint.ipynb")
    assert files() == ["nb.ipynb"]
