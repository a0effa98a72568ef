"""A fix never loses a line, and nothing in a scanned file can act on the machine or the terminal.

Fix safety: written only when the fixed text parses and fixing it again changes nothing; written
atomically with the mode bits kept; refused when the file changed on disk since it was read; a
file with nothing to fix keeps its bytes and its mtime. Security: scanned code is never imported
or run, links out of the scanned tree are not followed, and file names and contents cannot inject
GitHub workflow commands or terminal escape sequences into what padlint prints.
"""

from __future__ import annotations

import os
import stat
import textwrap

import pytest
from click.testing import CliRunner

from padlint.cli.main import main

BUGGY = textwrap.dedent(
    """\
    import torch
    from torch.nn.utils.rnn import pad_sequence


    def collate(rows):
        input_ids = pad_sequence(rows, batch_first=True, padding_value=0)
        attention_mask = torch.ones_like(input_ids)
        return {"input_ids": input_ids, "attention_mask": attention_mask}
    """
)


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check(*args: str):
    return CliRunner().invoke(main, ["check", "--no-cache", *args])


# ---- fix safety ---------------------------------------------------------------------------------------
def test_fix_keeps_mode_bits_and_leaves_no_temporary_file(project):
    target = project / "buggy.py"
    target.write_text(BUGGY)
    os.chmod(target, 0o751)
    result = check("--fix", "buggy.py")
    assert result.exit_code == 0, result.output
    assert "torch.ones_like(input_ids)" not in target.read_text()
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o751
    assert sorted(p.name for p in project.iterdir()) == ["buggy.py"]


@pytest.mark.parametrize(
    "content",
    [
        "x = 1\n",
        BUGGY.replace("torch.ones_like(input_ids)", "input_ids.ne(0).long()"),
        # A finding whose fix is unsafe: without --unsafe-fixes nothing may be written.
        "import torch\nfrom torch.nn.utils.rnn import pad_sequence\n\n\ndef collate(batch, pad_id):\n"
        "    input_ids = pad_sequence(load_rows(batch), batch_first=True, padding_value=pad_id)\n"
        "    attention_mask = torch.ones_like(input_ids)\n"
        '    return {"input_ids": input_ids, "attention_mask": attention_mask}\n',
    ],
    ids=["clean", "correct-mask", "unsafe-only"],
)
def test_fix_without_anything_to_fix_keeps_bytes_and_mtime(project, content):
    target = project / "module.py"
    target.write_bytes(content.replace("\n", "\r\n").encode())
    os.utime(target, ns=(1_000_000_000_000_000_000, 1_000_000_000_000_000_000))
    before = (target.read_bytes(), os.stat(target).st_mtime_ns)
    check("--fix", "module.py")
    assert (target.read_bytes(), os.stat(target).st_mtime_ns) == before


def test_fix_refuses_a_file_changed_on_disk_since_it_was_read(project, monkeypatch):
    from padlint import engine

    target = project / "buggy.py"
    target.write_text(BUGGY)
    edited = BUGGY.replace("def collate", "# edited in another window\ndef collate")
    original = engine.fix_source

    def fix_while_someone_edits(text, filename="-", select=None, **options):
        target.write_text(edited)  # another editor saves while padlint works on its copy
        return original(text, filename, select, **options)

    monkeypatch.setattr(engine, "fix_source", fix_while_someone_edits)
    result = check("--fix", "--output-format", "concise", "buggy.py")
    assert target.read_text() == edited
    assert (
        "padlint: error: buggy.py: not fixed: file changed on disk since it was read; not overwriting it"
        in result.stderr
    )
    assert result.exit_code == 2
    assert "PAD001" in result.stdout  # the finding is still reported, against the text that was read


def test_a_fix_that_would_not_parse_is_not_written(project, monkeypatch):
    from padlint import engine

    target = project / "buggy.py"
    target.write_text(BUGGY)
    original = engine.apply_fixes

    def break_it(source, diagnostics):
        text, applied = original(source, diagnostics)
        return text + "\ndef broken(:\n", applied

    monkeypatch.setattr(engine, "apply_fixes", break_it)
    result = check("--fix", "buggy.py")
    assert target.read_text() == BUGGY
    assert "a fix would produce code that does not parse" in result.stderr


def test_fixes_that_never_settle_are_not_written(project, monkeypatch):
    from padlint import engine

    target = project / "buggy.py"
    target.write_text(BUGGY)
    original = engine.apply_fixes
    counter = iter(range(10**6))

    def keep_changing(source, diagnostics):
        text, applied = original(source, diagnostics)
        return f"{source}# round {next(counter)}\n", applied  # every round changes the text again

    monkeypatch.setattr(engine, "apply_fixes", keep_changing)
    result = check("--fix", "buggy.py")
    assert target.read_text() == BUGGY
    assert "fixes did not settle" in result.stderr


# ---- security -------------------------------------------------------------------------------------------
def test_scanned_code_is_never_imported_or_run(project):
    marker = project / "PWNED"
    payload = f"open({str(marker)!r}, 'w').write('ran')\nimport os\nos.system('touch {marker}')\n"
    for name in ("evil.py", "__init__.py", "conftest.py", "setup.py", "__main__.py"):
        (project / name).write_text(payload + BUGGY)
    (project / "notebook.ipynb").write_text(
        '{"cells": [{"cell_type": "code", "metadata": {}, "source": ["'
        + payload.replace("\n", "\\n").replace('"', '\\"')
        + '"], "outputs": [], "execution_count": null}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'
    )
    for args in ((".",), ("--fix", "--unsafe-fixes", "."), ("--diff", ".")):
        check(*args)
    assert not marker.exists()


def test_links_out_of_the_scanned_tree_are_not_followed(tmp_path, monkeypatch):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "other.py").write_text(BUGGY)
    root = tmp_path / "root"
    root.mkdir()
    (root / "linked_dir").symlink_to(outside, target_is_directory=True)
    (root / "linked.py").symlink_to(outside / "other.py")
    (root / "inside.py").write_text("x = 1\n")
    monkeypatch.chdir(root)
    result = check("--output-format", "concise", ".")
    assert result.exit_code == 0 and "PAD001" not in result.stdout
    named = check("--output-format", "concise", "linked.py")  # named on the command line: asked for
    assert named.exit_code == 1 and "linked.py:7:" in named.stdout


def _unsafe_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("::") or "\x1b" in line or "\x9b" in line]


@pytest.mark.skipif(os.name != "posix", reason="newlines in file names need a POSIX file system")
def test_file_names_and_contents_cannot_inject_commands_or_escapes(project):
    evil = "evil\n::error file=x.py,line=1::injected\x1b]0;title\x07.py"
    (project / evil).write_text(BUGGY)
    (project / "escape.py").write_text(
        BUGGY.replace("def collate", 'BANNER = "\x1b[2J\x1b]8;;http://x\x07"\n\n\ndef collate')
    )
    (project / "bad\x1b[31m.py").write_bytes(b'print "\x1b[2Jgotcha"\n')
    for fmt in ("full", "concise"):
        result = check("--output-format", fmt, ".")
        assert result.exit_code == 1
        assert result.stdout.count("PAD001") >= 2
        assert _unsafe_lines(result.stdout) == [] and _unsafe_lines(result.stderr) == [], result.stdout
        assert "evil\\n::error file=x.py,line=1::injected\\x1b]0;title\\x07.py" in result.stdout
    result = check("--output-format", "json", ".")
    assert "\x1b" not in result.stdout and _unsafe_lines(result.stdout) == []
    (project / "missing\x1b[31m.py").write_text("x = 1\n")
    os.unlink(project / "missing\x1b[31m.py")
    result = check("missing\x1b[31m.py")
    assert result.exit_code == 2 and "\x1b" not in result.stderr and "missing\\x1b[31m.py" in result.stderr


def test_github_format_cannot_be_escaped_from(project):
    from padlint.report import FORMAT_NAMES

    if "github" not in FORMAT_NAMES:
        pytest.skip("no github format")
    (project / "evil\n::warning::x.py").write_text(BUGGY)
    result = check("--output-format", "github", ".")
    lines = result.stdout.splitlines()
    assert lines and all(line.startswith("::error ") for line in lines), lines
