"""The command line as a user meets it: exit codes, the three output formats, stdin, --fix, --diff,
configuration errors, per-file-ignores, .gitignore, force-exclude, encodings and suppressions."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from padlint.cli.main import main

BUGGY = textwrap.dedent(
    '''\
    """Collate token rows for fine-tuning."""
    import torch
    from torch.nn.utils.rnn import pad_sequence


    def collate(examples, pad_id):
        rows = [torch.tensor(ex["input_ids"]) for ex in examples]
        input_ids = pad_sequence(rows, batch_first=True, padding_value=pad_id)
        attention_mask = torch.ones_like(input_ids)
        return {"input_ids": input_ids, "attention_mask": attention_mask}
    '''
)
BUGGY_ROW = 9  # the all-ones mask over the padded batch: PAD001

CLEAN = textwrap.dedent(
    '''\
    """Collate token rows for fine-tuning."""
    import torch
    from torch.nn.utils.rnn import pad_sequence


    def collate(examples, pad_id):
        rows = [torch.tensor(ex["input_ids"]) for ex in examples]
        masks = [torch.ones(len(r), dtype=torch.long) for r in rows]
        input_ids = pad_sequence(rows, batch_first=True, padding_value=pad_id)
        attention_mask = pad_sequence(masks, batch_first=True, padding_value=0)
        return {"input_ids": input_ids, "attention_mask": attention_mask}
    '''
)

# Only the pad id is known here (the rows come from a helper), so the one fix is unsafe.
UNSAFE_ONLY = textwrap.dedent(
    """\
    import torch
    from torch.nn.utils.rnn import pad_sequence


    def collate(batch, pad_id):
        input_ids = pad_sequence(load_rows(batch), batch_first=True, padding_value=pad_id)
        attention_mask = torch.ones_like(input_ids)
        return {"input_ids": input_ids, "attention_mask": attention_mask}
    """
)

# Labels copied from max_length-padded ids with no -100 step: PAD002, with no fix offered.
# The padded ids leave the function alone: the mask has to be passed on by hand (no automatic fix).
NO_FIX = textwrap.dedent(
    """\
    def encode_texts(texts, tokenizer):
        return tokenizer(texts, padding=True, return_tensors="pt")["input_ids"]


    def predict(model, texts, tokenizer):
        return model(encode_texts(texts, tokenizer)).logits
    """
)

HEADER = re.compile(r"^(?P<path>[^:\n]+):(?P<row>\d+):(?P<col>\d+): (?P<code>PAD\d{3})(?P<star> \[\*\])? (?P<msg>.+)$")


@pytest.fixture
def cli_project(tmp_path, monkeypatch):
    """A project folder to run in; returns a helper that writes files into it."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("PADLINT_OUTPUT_FORMAT", raising=False)

    def write(name: str, text: str = BUGGY, data: bytes | None = None) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if data is not None:
            path.write_bytes(data)
        else:
            path.write_text(text)
        return path

    return write


def run(*args: str, stdin: bytes | None = None):
    return CliRunner().invoke(main, list(args), input=stdin, catch_exceptions=False)


def run_json(*args: str, stdin: bytes | None = None) -> tuple[int, list[dict]]:
    result = run("check", "--output-format", "json", *args, stdin=stdin)
    return result.exit_code, json.loads(result.stdout)


def headers(output: str) -> list[re.Match]:
    return [m for m in map(HEADER.match, output.splitlines()) if m]


# --- exit codes and output formats ----------------------------------------------------------------


def test_clean_file_exits_0(cli_project):
    cli_project("collate.py", CLEAN)
    result = run("check", "collate.py")
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "All checks passed!"


def test_a_missing_path_is_an_error_without_a_success_line(cli_project):
    cli_project("collate.py", CLEAN)
    for args in (("nope.py",), ("nope.py", "collate.py"), ("--output-format", "concise", "nope.py")):
        result = run("check", *args)
        assert result.exit_code == 2, args
        assert "All checks passed!" not in result.output, args
        assert "padlint: error: nope.py: No such file or directory" in result.stderr, args
    with_finding = run("check", "--output-format", "concise", "nope.py", "buggy.py")
    assert with_finding.exit_code == 2  # the error wins; the finding's file does not exist either


def test_warns_when_no_python_file_was_checked(cli_project):
    (Path.cwd() / "empty").mkdir()
    cli_project("vendor/collate.py", BUGGY)
    cli_project("notes.txt", "not python\n")
    for args in (("empty",), ("--force-exclude", "--extend-exclude", "vendor", "vendor"), ("--exclude", "*.py", ".")):
        result = run("check", *args)
        assert result.exit_code == 0, (args, result.output)
        assert "padlint: warning: No Python files found under the given path(s)" in result.stderr, args
    assert "No Python files" not in run("check", "vendor").stderr


def test_full_format_shows_header_code_frame_help_and_summary(cli_project):
    cli_project("collate.py")
    result = run("check", "collate.py")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    (header,) = headers(result.stdout)
    assert (header["path"], int(header["row"]), header["code"]) == ("collate.py", BUGGY_ROW, "PAD001")
    assert header["star"]  # a safe fix is available
    # The frame shows the flagged line with its number and a caret line under the flagged range.
    flagged = next(i for i, line in enumerate(lines) if re.match(rf"\s*{BUGGY_ROW} \| ", line))
    assert "torch.ones_like(input_ids)" in lines[flagged]
    carets = lines[flagged + 1]
    col = int(header["col"])
    assert carets.index("^") - carets.index("|") - 2 == col - 1
    assert re.match(rf"\s*{BUGGY_ROW - 2} \| ", lines[flagged - 2])  # two lines of context
    assert any(line.startswith("help: ") and line.endswith("(safe fix)") for line in lines)
    assert any(line.startswith("docs: http") for line in lines)
    assert "Found 1 error." in lines
    assert "[*] 1 fixable with the `--fix` option." in lines
    assert "\x1b[" not in result.stdout  # no colour when stdout is not a terminal


def test_full_format_colours_only_when_asked(cli_project, monkeypatch):
    cli_project("collate.py")
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert "\x1b[" in run("check", "collate.py").stdout


def test_concise_format_is_one_line_per_finding_plus_summary(cli_project):
    cli_project("a.py")
    cli_project("b.py")
    result = run("check", "--output-format", "concise", ".")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert [(m["path"], int(m["row"]), m["code"]) for m in map(HEADER.match, lines[:2])] == [
        ("a.py", BUGGY_ROW, "PAD001"),
        ("b.py", BUGGY_ROW, "PAD001"),
    ]
    assert lines[2:] == ["Found 2 errors.", "[*] 2 fixable with the `--fix` option."]


def test_json_format_has_rufflike_fields(cli_project):
    cli_project("src/collate.py")
    code, findings = run_json("src")
    assert code == 1
    (f,) = findings
    assert f["code"] == "PAD001" and f["name"] == "attention-mask-all-ones"
    assert f["filename"] == os.path.join("src", "collate.py")
    assert f["location"]["row"] == BUGGY_ROW and f["end_location"]["row"] >= BUGGY_ROW
    assert f["location"]["column"] >= 1
    assert f["fix"]["applicability"] == "safe" and f["fix"]["message"]
    for edit in f["fix"]["edits"]:
        assert set(edit) == {"content", "location", "end_location"}
    assert f["url"].endswith("PAD001.md")
    assert f["cell"] is None and f["noqa_row"] == BUGGY_ROW and f["confidence"]


def test_json_is_an_empty_list_when_clean(cli_project):
    cli_project("collate.py", CLEAN)
    result = run("check", "--output-format", "json", "collate.py")
    assert result.exit_code == 0 and json.loads(result.stdout) == []


def test_exit_zero(cli_project):
    cli_project("collate.py")
    assert run("check", "--exit-zero", "collate.py").exit_code == 0


def test_check_is_the_default_command(cli_project):
    cli_project("collate.py")
    result = run("--output-format", "concise", "collate.py")
    assert result.exit_code == 1 and headers(result.stdout)


# --- files that cannot be linted, and errors --------------------------------------------------------


def test_unparseable_file_is_pad000_and_the_scan_goes_on(cli_project):
    cli_project("broken.py", "def f(:\n    pass\n")
    cli_project("collate.py")
    code, findings = run_json(".")
    assert code == 1
    assert [(f["filename"], f["code"]) for f in findings] == [("broken.py", "PAD000"), ("collate.py", "PAD001")]
    assert findings[0]["name"] == "invalid-syntax" and findings[0]["message"].startswith("cannot parse: ")
    concise = run("check", "--output-format", "concise", "broken.py").stdout
    assert headers(concise)[0]["code"] == "PAD000"


def test_undecodable_file_is_pad000_with_the_reason(cli_project):
    cli_project("latin.py", data=b"x = '\xe9'\n")
    code, findings = run_json("latin.py")
    assert code == 1
    assert findings[0]["code"] == "PAD000"
    assert "not valid UTF-8" in findings[0]["message"]
    assert findings[0]["location"]["row"] == 1


def test_pad000_can_be_ignored(cli_project):
    cli_project("broken.py", "def f(:\n")
    assert run_json("--ignore", "PAD000", "broken.py") == (0, [])


def test_missing_path_is_an_error_exit_2_but_the_rest_is_reported(cli_project):
    cli_project("collate.py")
    result = run("check", "--output-format", "json", "nope.py", "collate.py")
    assert result.exit_code == 2
    assert result.stderr.strip() == "padlint: error: nope.py: No such file or directory"
    assert [f["filename"] for f in json.loads(result.stdout)] == ["collate.py"]


@pytest.mark.parametrize(
    "pyproject, message",
    [
        (
            '[tool.padlint]\nselct = ["PAD001"]\n',
            "padlint: error: pyproject.toml:2: 'selct' in [tool.padlint] is an unknown key",
        ),
        (
            '[tool.padlint]\nselect = ["PAD999"]\n',
            "padlint: error: pyproject.toml:2: 'select' in [tool.padlint] has an unknown rule code 'PAD999'",
        ),
    ],
)
def test_bad_configuration_exits_2_with_one_line(cli_project, pyproject, message):
    cli_project("collate.py")
    cli_project("pyproject.toml", pyproject)
    result = run("check", "collate.py")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [message]
    assert result.stdout == ""


def test_unknown_code_on_the_command_line_exits_2(cli_project):
    cli_project("collate.py")
    result = run("check", "--select", "PAD9", "collate.py")
    assert result.exit_code == 2 and result.stderr.splitlines() == [
        "padlint: error: --select: unknown rule code 'PAD9'"
    ]


def test_bad_option_is_a_usage_error_exit_2(cli_project):
    assert run("check", "--output-format", "xml", ".").exit_code == 2


def test_internal_error_in_one_file_exits_2_and_others_are_reported(cli_project, monkeypatch):
    from padlint import engine

    real = engine.lint_source

    def flaky(source, filename="-", select=None, line_length=None):
        if filename == "boom.py":
            raise RuntimeError("rule crashed")
        return real(source, filename, select, line_length)

    monkeypatch.setattr(engine, "lint_source", flaky)
    cli_project("boom.py")
    cli_project("collate.py")
    result = run("check", "--output-format", "json", ".")
    assert result.exit_code == 2
    assert "padlint: error: boom.py: internal error: RuntimeError: rule crashed" in result.stderr
    assert [f["filename"] for f in json.loads(result.stdout)] == ["collate.py"]


# --- selection and configuration ---------------------------------------------------------------------


def test_select_and_ignore(cli_project):
    cli_project("collate.py")
    assert run_json("--ignore", "PAD001", "collate.py") == (0, [])
    assert run_json("--select", "PAD002,PAD003", "collate.py") == (0, [])
    assert run_json("--select", "PAD00", "collate.py")[0] == 1


def test_per_file_ignores_from_pyproject(cli_project):
    cli_project("pyproject.toml", '[tool.padlint.per-file-ignores]\n"scripts/*.py" = ["PAD001"]\n')
    cli_project("scripts/collate.py")
    cli_project("pkg/collate.py")
    code, findings = run_json(".")
    assert [f["filename"] for f in findings] == [os.path.join("pkg", "collate.py")]


def test_explicit_config_file(cli_project):
    cli_project("collate.py")
    cli_project("cfg/pyproject.toml", '[tool.padlint]\nignore = ["PAD001"]\n')
    assert run_json("--config", "cfg/pyproject.toml", "collate.py") == (0, [])


def test_gitignore_is_honoured(cli_project):
    cli_project(".gitignore", "generated/\n")
    cli_project("generated/collate.py")
    cli_project("collate.py", CLEAN)
    assert run_json(".") == (0, [])
    assert run_json("--no-respect-gitignore", ".")[0] == 1


def test_force_exclude_applies_to_named_files(cli_project):
    cli_project("pyproject.toml", '[tool.padlint]\nextend-exclude = ["vendor/"]\n')
    cli_project("vendor/collate.py")
    assert run_json("vendor/collate.py")[0] == 1  # named explicitly: linted
    assert run_json("--force-exclude", "vendor/collate.py") == (0, [])


# --- suppressions ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "before, after",
    [
        ("attention_mask = torch.ones_like(input_ids)", "attention_mask = torch.ones_like(input_ids)  # noqa: PAD001"),
        ("attention_mask = torch.ones_like(input_ids)", "attention_mask = torch.ones_like(input_ids)  # noqa"),
        (
            "    attention_mask = torch.ones_like(input_ids)",
            "    # padlint: ignore[PAD001]\n    attention_mask = torch.ones_like(input_ids)",
        ),
        (
            "attention_mask = torch.ones_like(input_ids)",
            "attention_mask = torch.ones_like(\n        input_ids,\n    )  # noqa: E501, PAD001",
        ),
    ],
    ids=["noqa-code", "bare-noqa", "line-above", "end-of-multiline"],
)
def test_suppressed_findings_are_not_reported(cli_project, before, after):
    cli_project("collate.py", BUGGY.replace(before, after))
    assert run_json("collate.py") == (0, [])


def test_suppression_for_another_code_does_not_hide_the_finding(cli_project):
    line = "attention_mask = torch.ones_like(input_ids)"
    cli_project("collate.py", BUGGY.replace(line, line + "  # noqa: PAD002"))
    assert run_json("collate.py")[0] == 1


# --- fixing ---------------------------------------------------------------------------------------------


def test_fix_writes_the_file_and_exits_0_when_all_fixed(cli_project):
    path = cli_project("collate.py")
    result = run("check", "--fix", "--show-fixes", "collate.py")
    assert result.exit_code == 0, result.output
    fixed = path.read_text()
    assert fixed != BUGGY and "torch.ones_like(input_ids)" not in fixed
    assert "Found 1 error (1 fixed, 0 remaining)." in result.stdout
    assert "Fixed 1 error:" in result.stdout and "1 × PAD001 (attention-mask-all-ones)" in result.stdout
    assert run("check", "collate.py").exit_code == 0  # the fixed file is clean


def test_unsafe_fix_is_hidden_until_unsafe_fixes(cli_project):
    path = cli_project("collate.py", UNSAFE_ONLY)
    result = run("check", "collate.py")
    assert result.exit_code == 1
    (header,) = headers(result.stdout)
    assert header["code"] == "PAD001" and not header["star"]
    assert any(line.endswith("(unsafe fix; use --unsafe-fixes)") for line in result.stdout.splitlines())
    assert "No fixes available (1 hidden fix can be enabled with the `--unsafe-fixes` option)." in result.stdout
    assert headers(run("check", "--unsafe-fixes", "collate.py").stdout)[0]["star"]

    fixed = run("check", "--fix", "collate.py")
    assert fixed.exit_code == 1 and path.read_text() == UNSAFE_ONLY
    assert "Found 1 error (0 fixed, 1 remaining)." in fixed.stdout

    fixed = run("check", "--fix", "--unsafe-fixes", "collate.py")
    assert fixed.exit_code == 0 and path.read_text() != UNSAFE_ONLY


def test_unsafe_fixes_from_pyproject(cli_project):
    cli_project("pyproject.toml", "[tool.padlint]\nunsafe-fixes = true\n")
    path = cli_project("collate.py", UNSAFE_ONLY)
    assert run("check", "--fix", "collate.py").exit_code == 0 and path.read_text() != UNSAFE_ONLY
    path.write_text(UNSAFE_ONLY)
    assert run("check", "--fix", "--no-unsafe-fixes", "collate.py").exit_code == 1


def test_fix_reports_what_remains_and_exits_1(cli_project):
    cli_project("a.py")
    path = cli_project("b.py", NO_FIX)
    result = run("check", "--fix", "--output-format", "concise", ".")
    assert result.exit_code == 1
    assert [(m["path"], m["code"]) for m in headers(result.stdout)] == [("b.py", "PAD003")]
    assert "Found 2 errors (1 fixed, 1 remaining)." in result.stdout
    assert path.read_text() == NO_FIX


def test_diff_prints_the_change_and_writes_nothing(cli_project):
    path = cli_project("collate.py")
    result = run("check", "--diff", "collate.py")
    assert result.exit_code == 1
    assert path.read_text() == BUGGY
    assert result.stdout.startswith("--- collate.py\n+++ collate.py\n")
    assert "-    attention_mask = torch.ones_like(input_ids)" in result.stdout
    assert "Would fix 1 error." in result.stderr
    cli_project("clean.py", CLEAN)
    clean = run("check", "--diff", "clean.py")
    assert clean.exit_code == 0 and clean.stdout == ""


def test_fix_keeps_crlf_newlines(cli_project):
    path = cli_project("win.py", data=BUGGY.replace("\n", "\r\n").encode())
    assert run("check", "--fix", "win.py").exit_code == 0
    data = path.read_bytes()
    assert data.count(b"\r\n") == data.count(b"\n") and data != BUGGY.replace("\n", "\r\n").encode()


def test_fix_keeps_a_latin1_file_latin1(cli_project):
    source = "# -*- coding: latin-1 -*-\n# Données d'entraînement\n" + BUGGY
    path = cli_project("legacy.py", data=source.encode("latin-1"))
    assert run("check", "--fix", "legacy.py").exit_code == 0
    text = path.read_bytes().decode("latin-1")
    assert text.startswith("# -*- coding: latin-1 -*-\n# Données d'entraînement\n")
    assert "torch.ones_like(input_ids)" not in text


def test_fix_keeps_the_bom(cli_project):
    path = cli_project("bom.py", data=b"\xef\xbb\xbf" + BUGGY.encode())
    assert run("check", "--fix", "bom.py").exit_code == 0
    assert path.read_bytes().startswith(b'\xef\xbb\xbf"""Collate')


# --- stdin ------------------------------------------------------------------------------------------------


def test_stdin_with_filename(cli_project):
    code, findings = run_json("--stdin-filename", "pkg/collate.py", "-", stdin=BUGGY.encode())
    assert code == 1 and [f["filename"] for f in findings] == [os.path.join("pkg", "collate.py")]
    code, findings = run_json("-", stdin=BUGGY.encode())
    assert [f["filename"] for f in findings] == ["-"]


def test_stdin_fix_writes_source_to_stdout_and_findings_to_stderr(cli_project):
    result = run("check", "--fix", "--stdin-filename", "collate.py", "-", stdin=BUGGY.encode())
    assert result.exit_code == 0
    assert result.stdout != BUGGY and "def collate(examples, pad_id):" in result.stdout
    assert "torch.ones_like(input_ids)" not in result.stdout
    assert "Found 1 error (1 fixed, 0 remaining)." in result.stderr


def test_stdin_fix_passes_clean_source_through_unchanged(cli_project):
    result = run("check", "--fix", "-", stdin=CLEAN.encode())
    assert result.exit_code == 0 and result.stdout == CLEAN


def test_stdin_per_file_ignores_use_the_stdin_filename(cli_project):
    cli_project("pyproject.toml", '[tool.padlint.per-file-ignores]\n"legacy/*" = ["PAD001"]\n')
    assert run_json("--stdin-filename", "legacy/c.py", "-", stdin=BUGGY.encode()) == (0, [])


def test_stdin_force_exclude_passes_an_excluded_file_through(cli_project):
    cli_project("pyproject.toml", '[tool.padlint]\nextend-exclude = ["vendor/"]\n')
    args = ("check", "--fix", "--force-exclude", "--stdin-filename", "vendor/new_collate.py", "-")
    result = run(*args, stdin=BUGGY.encode())
    assert result.exit_code == 0 and result.stdout == BUGGY and "PAD001" not in result.stderr
    assert run_json("--stdin-filename", "vendor/c.py", "-", stdin=BUGGY.encode())[0] == 1  # no --force-exclude


def test_stdin_diff(cli_project):
    result = run("check", "--diff", "--stdin-filename", "c.py", "-", stdin=BUGGY.encode())
    assert result.exit_code == 1 and result.stdout.startswith("--- c.py\n+++ c.py\n")


# --- rule documentation ------------------------------------------------------------------------------------


def test_rule_prints_the_rule_page(cli_project):
    result = run("rule", "PAD001")
    assert result.exit_code == 0
    assert result.stdout.startswith("# PAD001") and "## Fix safety" in result.stdout
    assert run("rule", "attention-mask-all-ones").stdout == result.stdout


def test_unknown_rule_exits_2(cli_project):
    result = run("rule", "PAD999")
    assert result.exit_code == 2 and "unknown rule code 'PAD999'" in result.stderr


def test_rules_lists_every_rule(cli_project):
    from padlint.rules import ALL_RULES

    text = run("rules").stdout
    for rule in ALL_RULES:
        assert re.search(rf"^{rule.code}\s+{rule.name}\s+{re.escape(rule.fix_safety)}\s", text, re.M)
    listed = json.loads(run("rules", "--output-format", "json").stdout)
    assert {r["code"] for r in listed} == {r.code for r in ALL_RULES}


# --- the installed console script ----------------------------------------------------------------------------


def _script() -> str:
    path = Path(sys.executable).with_name("padlint")
    if not path.exists():
        pytest.skip("the padlint console script is not installed in this environment")
    return str(path)


def test_console_script_end_to_end(tmp_path):
    (tmp_path / "collate.py").write_text(BUGGY)
    (tmp_path / "clean.py").write_text(CLEAN)
    proc = subprocess.run(
        [_script(), "check", "--output-format", "json", "."], cwd=tmp_path, capture_output=True, text=True
    )
    assert proc.returncode == 1, proc.stderr
    assert [(f["filename"], f["code"], f["location"]["row"]) for f in json.loads(proc.stdout)] == [
        ("collate.py", "PAD001", BUGGY_ROW)
    ]


def test_plain_output_does_not_import_rich(tmp_path):
    (tmp_path / "clean.py").write_text(CLEAN)
    code = (
        "import sys\n"
        "from padlint.cli.main import main\n"
        "try:\n    main(['check', 'clean.py'])\n"
        "except SystemExit as exc:\n    assert exc.code == 0, exc.code\n"
        "print('rich' in sys.modules)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("False")
