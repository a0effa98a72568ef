"""Reading and writing source files: encodings, BOM, newlines, refusals, atomic writes."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

import pytest

from padlint.files import source
from padlint.files.reading import read_source
from padlint.files.source import SourceReadError, SourceWriteError, write_source_atomic


def test_utf8_text_is_kept_exactly(tmp_path):
    path = tmp_path / "a.py"
    path.write_bytes("s = 'héllo'\r\nt = 1\n".encode())
    src = read_source(path)
    assert src.text == "s = 'héllo'\r\nt = 1\n"  # mixed newlines untouched
    assert (src.encoding, src.has_bom, src.newline) == ("utf-8", False, "\r\n")


def test_latin1_with_coding_cookie_round_trips(tmp_path):
    path = tmp_path / "legacy.py"
    original = "# -*- coding: latin-1 -*-\nname = 'café'\n"
    path.write_bytes(original.encode("latin-1"))
    src = read_source(path)
    assert src.text == original
    assert src.encoding == "iso-8859-1"
    write_source_atomic(path, src.text.replace("café", "thé"), src)
    assert path.read_bytes() == "# -*- coding: latin-1 -*-\nname = 'thé'\n".encode("latin-1")


def test_bom_is_dropped_from_text_and_written_back(tmp_path):
    path = tmp_path / "bom.py"
    path.write_bytes(b"\xef\xbb\xbfx = 1\n")
    src = read_source(path)
    assert src.text == "x = 1\n" and src.has_bom and src.encoding == "utf-8"
    write_source_atomic(path, "x = 2\n", src)
    assert path.read_bytes() == b"\xef\xbb\xbfx = 2\n"


@pytest.mark.parametrize(
    "before, fixed, after",
    [
        # A CRLF file stays CRLF when a fix inserts a line written with "\n".
        (b"a = 1\r\nb = 2\r\n", "a = 1\r\nfixed = 3\nb = 2\r\n", b"a = 1\r\nfixed = 3\r\nb = 2\r\n"),
        # A file with mixed endings is written as the fix left it (nothing to be consistent with).
        (b"a = 1\r\nb = 2\n", "a = 1\r\nb = 3\n", b"a = 1\r\nb = 3\n"),
    ],
)
def test_line_endings_survive_a_fix(tmp_path, before, fixed, after):
    path = tmp_path / "win.py"
    path.write_bytes(before)
    write_source_atomic(path, fixed, read_source(path))
    assert path.read_bytes() == after


def test_invalid_utf8_names_the_position(tmp_path):
    path = tmp_path / "bad.py"
    path.write_bytes(b"x = 1\ny = '\xff'\n")
    with pytest.raises(SourceReadError) as info:
        read_source(path)
    assert "not valid UTF-8" in str(info.value)
    assert (info.value.row, info.value.column) == (2, 6)


def test_binary_file_is_refused(tmp_path):
    path = tmp_path / "blob.py"
    path.write_bytes(b"\x00\x01\x02abc")
    with pytest.raises(SourceReadError, match="binary"):
        read_source(path)


def test_file_over_the_size_limit_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(source, "MAX_BYTES", 10)
    path = tmp_path / "big.py"
    path.write_text("x = 1\n" * 10)
    with pytest.raises(SourceReadError, match="larger than"):
        read_source(path)


def test_unknown_coding_cookie_is_a_read_error(tmp_path):
    path = tmp_path / "cookie.py"
    path.write_bytes(b"# coding: no-such-codec\nx = 1\n")
    with pytest.raises(SourceReadError, match="no-such-codec"):
        read_source(path)


def test_missing_file_is_a_read_error(tmp_path):
    with pytest.raises(SourceReadError, match="No such file"):
        read_source(tmp_path / "gone.py")


def test_atomic_write_keeps_mode_bits_and_leaves_no_temp_file(tmp_path):
    path = tmp_path / "script.py"
    path.write_text("x = 1\n")
    os.chmod(path, 0o751)
    src = read_source(path)
    write_source_atomic(path, "x = 2\n", src)
    assert path.read_text() == "x = 2\n"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o751
    assert sorted(p.name for p in tmp_path.iterdir()) == ["script.py"]


def test_refuses_to_overwrite_a_file_changed_on_disk(tmp_path):
    path = tmp_path / "a.py"
    path.write_text("x = 1\n")
    src = read_source(path)
    path.write_text("x = 1  # edited meanwhile\n")
    with pytest.raises(SourceWriteError, match="changed on disk"):
        write_source_atomic(path, "x = 2\n", src)
    assert path.read_text() == "x = 1  # edited meanwhile\n"


def test_text_that_the_encoding_cannot_hold_is_not_written(tmp_path):
    path = tmp_path / "legacy.py"
    path.write_bytes(b"# coding: latin-1\nx = 1\n")
    src = read_source(path)
    with pytest.raises(SourceWriteError, match="cannot be encoded"):
        write_source_atomic(path, "# coding: latin-1\nx = '\u2603'\n", src)
    assert path.read_bytes() == b"# coding: latin-1\nx = 1\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["legacy.py"]


def test_write_through_a_symlink_replaces_the_target(tmp_path):
    target = tmp_path / "real.py"
    target.write_text("x = 1\n")
    link = tmp_path / "link.py"
    link.symlink_to(target)
    src = read_source(link)
    write_source_atomic(link, "x = 2\n", src)
    assert link.is_symlink() and target.read_text() == "x = 2\n"


def test_failed_replace_leaves_the_original_and_no_temp_file(tmp_path, monkeypatch):
    path = tmp_path / "a.py"
    path.write_text("x = 1\n")
    src = read_source(path)

    def boom(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(SourceWriteError, match="No space left"):
        write_source_atomic(path, "x = 2\n", src)
    assert path.read_text() == "x = 1\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.py"]


@pytest.mark.parametrize("extra", [[], ["--no-prefilter"], ["--jobs", "1"]], ids=["default", "no-prefilter", "one-job"])
def test_parser_warnings_about_the_scanned_code_are_not_printed(tmp_path, extra):
    # CPython warns about `0x1for` and `1if`; the syntax check printed them on stderr as
    # `<padlint>:1: SyntaxWarning: invalid hexadecimal literal`, with no file name.
    (tmp_path / "odd.py").write_text("x = [0x1for x in range(3)]\ny = 1if True else 2\n")
    (tmp_path / "notebook.ipynb").write_text(
        json.dumps(
            {
                "cells": [
                    {
                        "cell_type": "code",
                        "metadata": {},
                        "outputs": [],
                        "execution_count": None,
                        "source": ["!echo hi\n", "z = [0x1for x in range(3)]\n"],
                    }
                ],
                "metadata": {},
                "nbformat": 4,
                "nbformat_minor": 5,
            }
        )
    )
    done = subprocess.run(
        [sys.executable, "-m", "padlint", "check", "--no-cache", *extra, "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONWARNINGS": "default"},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stderr == ""
