"""Bad input never crashes a scan: each case of the matrix gets one clear line naming the file and the
reason, the rest of the scan goes on (a buggy file next to it is still reported), and the exit code
says what happened: 1 for findings (PAD000 included), 2 only for errors of padlint or the invocation.
"""

from __future__ import annotations

import builtins
import os

import pytest
from click.testing import CliRunner
from samples import BUGGY  # noqa: E402  (tests/samples.py)

import padlint.files.source
from padlint.cli.main import main


@pytest.fixture
def scan(tmp_path, monkeypatch):
    """Write `buggy.py` plus the case's files, run `padlint check`; (exit code, stdout, stderr)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "buggy.py").write_bytes(BUGGY.encode())

    def run(*args: str) -> tuple[int, str, str]:
        result = CliRunner().invoke(main, ["check", "--no-cache", "--output-format", "concise", *(args or (".",))])
        assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
        return result.exit_code, result.stdout, result.stderr

    return run


def lines_naming(output: str, name: str) -> list[str]:
    return [line for line in output.splitlines() if name in line]


def still_scanned(stdout: str) -> bool:
    return any(line.startswith("buggy.py:7:") and "PAD001" in line for line in stdout.splitlines())


def one_finding(stdout: str, name: str, reason: str) -> None:
    found = lines_naming(stdout, name)
    assert len(found) == 1, stdout
    assert f"{name}:" in found[0] and "PAD000" in found[0] and reason in found[0], found[0]


# ---- files that are not Python, or not text --------------------------------------------------------
@pytest.mark.parametrize(
    "name, content, reason",
    [
        ("py2.py", b'print "hello"\n', "cannot parse: invalid syntax"),
        (
            "conflict.py",
            b"x = 1\n<<<<<<< HEAD\ny = 2\n=======\ny = 3\n>>>>>>> branch\n",
            "cannot parse: invalid syntax",
        ),
        ("latin1.py", '# café\nname = "café"\n'.encode("latin-1"), "cannot read: not valid UTF-8: byte 0xe9 at line 1"),
        ("binary.py", b"x = 1\n\x00\x01\x02\xff", "cannot read: binary file (contains a NUL byte)"),
    ],
)
def test_unreadable_or_unparseable_file_is_one_pad000_line(scan, tmp_path, name, content, reason):
    (tmp_path / name).write_bytes(content)
    code, out, err = scan()
    one_finding(out, name, reason)
    assert still_scanned(out) and code == 1 and err == ""


def test_generated_module_over_the_size_limit(scan, tmp_path):
    body = "".join(f"VALUE_{i} = {i}  # generated\n" for i in range(400_000))
    (tmp_path / "generated.py").write_text(body)
    assert os.path.getsize(tmp_path / "generated.py") > 10 * 1024 * 1024
    code, out, err = scan()
    one_finding(out, "generated.py", "cannot read: file is larger than 8 MB")
    assert still_scanned(out) and code == 1


@pytest.mark.parametrize(
    "name, content",
    [
        ("latin1_cookie.py", '# -*- coding: latin-1 -*-\nname = "café"\n'.encode("latin-1")),
        ("empty.py", b""),
        ("bom_only.py", b"\xef\xbb\xbf"),
        ("crlf.py", b"import torch\r\nx = torch.ones(3)\r\n"),
        ("mixed.py", b"import torch\r\nx = 1\ny = 2\rz = 3\n"),
        ("tabs.py", b"def f(x):\n\tif x:\n\t\treturn 1\n\treturn 2\n"),
        ("nested_ok.py", ("x = " + "(" * 150 + "1" + ")" * 150 + "\n").encode()),
    ],
)
def test_valid_but_unusual_files_lint_cleanly(scan, tmp_path, name, content):
    (tmp_path / name).write_bytes(content)
    code, out, err = scan()
    assert lines_naming(out, name) == [] and err == ""
    assert still_scanned(out) and code == 1


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_findings_in_crlf_and_cr_files_point_at_the_right_line(scan, tmp_path, newline):
    (tmp_path / "buggy.py").write_bytes(BUGGY.replace("\n", newline).encode())
    code, out, _ = scan()
    assert still_scanned(out) and code == 1


@pytest.mark.parametrize(
    "name, expression",
    [
        ("parens.py", "(" * 3000 + "1" + ")" * 3000),  # libcst's parser crashes the process on this
        ("chain.py", "a" + ".b" * 20000),  # ...and runs for minutes on this
        ("subscripts.py", "a" + "[0]" * 20000),
    ],
)
def test_deeply_nested_expressions(scan, tmp_path, name, expression):
    (tmp_path / name).write_text(f"x = {expression}\n")
    code, out, err = scan()
    one_finding(out, name, "cannot parse: too deeply nested to parse")
    assert still_scanned(out) and code == 1 and err == ""


# ---- files that change under us, links, permissions, paths -------------------------------------------
def test_file_vanishes_between_discovery_and_reading(scan, tmp_path, monkeypatch):
    import padlint.files.discovery

    (tmp_path / "gone.py").write_text("x = 1\n")
    discover = padlint.files.discovery.discover

    def discover_then_delete(paths, settings):
        found = discover(paths, settings)
        (tmp_path / "gone.py").unlink()
        return found

    monkeypatch.setattr(padlint.files.discovery, "discover", discover_then_delete)
    code, out, err = scan()
    one_finding(out, "gone.py", "cannot read: No such file or directory")
    assert still_scanned(out) and code == 1


def test_file_becomes_unreadable_between_discovery_and_reading(scan, tmp_path, monkeypatch):
    # Root reads everything, so the permission error is simulated where the file is opened.
    (tmp_path / "locked.py").write_text("x = 1\n")

    def guarded_open(path, *args, **kwargs):
        if os.fspath(path).endswith("locked.py"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return builtins.open(path, *args, **kwargs)

    monkeypatch.setattr(padlint.files.source, "open", guarded_open, raising=False)
    code, out, err = scan()
    one_finding(out, "locked.py", "cannot read: Permission denied")
    assert still_scanned(out) and code == 1


def test_directory_without_permission_is_a_warning(scan, tmp_path, monkeypatch):
    import padlint.files.discovery

    (tmp_path / "private").mkdir()
    (tmp_path / "private" / "secret.py").write_text(BUGGY)
    real_scandir = os.scandir

    def guarded_scandir(path="."):
        if os.fspath(path).rstrip("/").endswith("private"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(padlint.files.discovery.os, "scandir", guarded_scandir)
    code, out, err = scan()
    assert lines_naming(err, "private") == ["padlint: warning: ./private: Permission denied"]
    assert still_scanned(out) and code == 1


def test_symlink_loops(scan, tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "back").symlink_to("..")
    (tmp_path / "a.py").symlink_to("b.py")
    (tmp_path / "b.py").symlink_to("a.py")
    code, out, err = scan()
    assert lines_naming(err, "sub/back") == [
        f"padlint: warning: ./sub/back: symbolic link loop (to {tmp_path.resolve()}); skipped"
    ]
    assert lines_naming(err, "a.py") == [
        "padlint: warning: ./a.py: Too many levels of symbolic links (symbolic link); skipped"
    ]
    assert still_scanned(out) and out.count("buggy.py:7:") == 1 and code == 1
    code, out, err = scan("a.py", "buggy.py")
    assert err.splitlines() == ["padlint: error: a.py: Too many levels of symbolic links (symbolic link)"]
    assert still_scanned(out) and code == 2


def test_nonexistent_path_on_the_command_line(scan):
    code, out, err = scan("nope.py", "buggy.py")
    assert err.splitlines() == ["padlint: error: nope.py: No such file or directory"]
    assert still_scanned(out) and code == 2


def test_a_crash_in_a_rule_is_one_error_line_and_exit_2(scan, tmp_path, monkeypatch):
    from padlint import engine

    (tmp_path / "boom.py").write_text(BUGGY)
    original = engine.lint_source

    def lint(text, filename="-", select=None, line_length=None):
        if filename.endswith("boom.py"):
            raise KeyError("rule bug")
        return original(text, filename, select, line_length)

    monkeypatch.setattr(engine, "lint_source", lint)
    code, out, err = scan()
    assert err.splitlines() == ["padlint: error: boom.py: internal error: KeyError: 'rule bug'"]
    assert still_scanned(out) and code == 2


def test_ignoring_pad000_silences_bad_files(scan, tmp_path):
    (tmp_path / "py2.py").write_bytes(b'print "hello"\n')
    (tmp_path / "binary.py").write_bytes(b"\x00\x01")
    code, out, err = scan("--ignore", "PAD000", ".")
    assert lines_naming(out, "py2.py") == [] and lines_naming(out, "binary.py") == []
    assert still_scanned(out) and code == 1


def test_a_crash_on_a_syntax_node_is_still_one_short_line(scan, tmp_path, monkeypatch):
    """A KeyError whose key is a libcst node prints hundreds of lines with `str()`: the report keeps one
    line of bounded length, and the other files are still scanned."""
    import libcst as cst

    from padlint import engine

    (tmp_path / "boom.py").write_text(BUGGY)
    original = engine.lint_source
    node = cst.parse_module("def f():\n" + "    x = 1\n" * 200)

    def lint(text, filename="-", select=None, line_length=None):
        if filename.endswith("boom.py"):
            raise KeyError(node.body[0])
        return original(text, filename, select, line_length)

    monkeypatch.setattr(engine, "lint_source", lint)
    code, out, err = scan()
    [line] = err.splitlines()
    assert line.startswith("padlint: error: boom.py: internal error: KeyError: FunctionDef(")
    assert line.endswith("...") and len(line) < 300
    assert still_scanned(out) and code == 2
