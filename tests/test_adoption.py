"""Adopting padlint on an existing codebase: --add-noqa, baselines, --statistics, the progress bar."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner
from nbwriters import code, jupyter, notebook

from padlint.adoption.noqa import add_noqa
from padlint.cli.main import main
from padlint.engine import lint_source
from padlint.run.progress import track, wanted

COLLATOR = textwrap.dedent(
    '''\
    """Batches for a reply-ranking model."""
    import torch
    from torch.nn.utils.rnn import pad_sequence


    def collate_fn(batch, pad_id):
        seqs = [torch.tensor(example["input_ids"]) for example in batch]
        input_ids = pad_sequence(seqs, batch_first=True, padding_value=pad_id)
        attention_mask = torch.ones_like(input_ids)  # type: ignore[attr-defined]
        return {"input_ids": input_ids, "attention_mask": attention_mask}


    def preprocess(example, tokenizer):
        enc = tokenizer(
            example["text"], padding="max_length", max_length=128
        )
        enc["labels"] = enc[
            "input_ids"
        ].copy()  # noqa: E501
        return enc


    def encode_prompts(model, tokenizer, prompts):
        ids = tokenizer(prompts, padding=True, return_tensors="pt")["input_ids"]
        return model.generate(ids, max_new_tokens=8)
    '''
)


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("FORCE_COLOR", "PADLINT_OUTPUT_FORMAT"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "collate.py").write_text(COLLATOR)
    return tmp_path


def run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def codes(*args: str) -> list[str]:
    result = run("check", "--output-format", "json", *args)
    return [f["code"] for f in json.loads(result.stdout)]


# --- --add-noqa ---------------------------------------------------------------------------------------


def test_add_noqa_then_check_exits_0(project):
    before = codes("src")
    assert len(before) >= 3
    result = run("check", "--add-noqa", "src")
    assert result.exit_code == 0, result.output
    assert f"Added {len(before)} noqa directives." in result.stderr
    assert run("check", "src").exit_code == 0


def test_add_noqa_touches_only_the_flagged_lines(project):
    run("check", "--add-noqa", "src")
    old, new = COLLATOR.splitlines(True), (project / "src" / "collate.py").read_text().splitlines(True)
    assert len(old) == len(new)
    changed = {i + 1: (a, b) for i, (a, b) in enumerate(zip(old, new)) if a != b}
    # merged into the comment already there, after the statement's closing line, after another tool's comment
    assert changed[9][1] == (
        "    attention_mask = torch.ones_like(input_ids)  # type: ignore[attr-defined]  # noqa: PAD001\n"
    )
    assert changed[19][1] == "    ].copy()  # noqa: E501, PAD002\n"
    assert changed[24][1].endswith('["input_ids"]  # noqa: PAD003\n')
    assert set(changed) == {9, 19, 24}


def test_add_noqa_is_idempotent(project):
    run("check", "--add-noqa", "src")
    once = (project / "src" / "collate.py").read_bytes()
    result = run("check", "--add-noqa", "src")
    assert "Added 0 noqa directives." in result.stderr
    assert (project / "src" / "collate.py").read_bytes() == once


def test_add_noqa_keeps_crlf_and_encoding(project):
    data = COLLATOR.replace("\n", "\r\n").replace("Batches", "Lots").encode("latin-1")
    data = b"# -*- coding: latin-1 -*-\r\n" + data.replace(b"ranking", b"r\xe9ranking")
    (project / "src" / "collate.py").write_bytes(data)
    assert run("check", "--add-noqa", "src").exit_code == 0
    new = (project / "src" / "collate.py").read_bytes()
    assert b"r\xe9ranking" in new and b"\n" not in new.replace(b"\r\n", b"")
    assert run("check", "src").exit_code == 0


def test_add_noqa_never_writes_inside_a_string():
    source = textwrap.dedent(
        '''\
        import torch
        from torch.nn.utils.rnn import pad_sequence

        def collate(seqs, pad_id):
            input_ids = pad_sequence(seqs, batch_first=True, padding_value=pad_id)
            attention_mask = torch.ones_like(input_ids); note = """
        padded # noqa
        """
            return {"input_ids": input_ids, "attention_mask": attention_mask}
        '''
    )
    found = lint_source(source, "x.py")
    assert [d.code for d in found] == ["PAD001"]
    new, added = add_noqa(source, found)
    assert added == 1
    assert '\npadded # noqa\n"""  # noqa: PAD001\n' in new  # after the string that ends the statement
    assert lint_source(new, "x.py") == []


def test_add_noqa_merges_into_a_padlint_ignore_comment():
    source = "import torch\nfrom torch.nn.utils.rnn import pad_sequence\n" + textwrap.dedent(
        """\
        def collate(seqs, pad_id):
            input_ids = pad_sequence(seqs, batch_first=True, padding_value=pad_id)
            attention_mask = torch.ones_like(input_ids)  # padlint: ignore[PAD002]
            return {"input_ids": input_ids, "attention_mask": attention_mask}
        """
    )
    new, added = add_noqa(source, lint_source(source, "x.py"))
    assert "# padlint: ignore[PAD002, PAD001]\n" in new and added == 1


def test_add_noqa_in_a_notebook(project):
    cell = (
        "def collate(seqs, pad_id):\n    input_ids = pad_sequence(seqs, batch_first=True, padding_value=pad_id)\n"
        "    return {'input_ids': input_ids, 'attention_mask': torch.ones_like(input_ids)}"
    )
    nb = notebook(code("import torch\nfrom torch.nn.utils.rnn import pad_sequence", "a"), code(cell, "b"))
    (project / "nb.ipynb").write_bytes(jupyter(nb))
    assert run("check", "--add-noqa", "nb.ipynb").exit_code == 0
    after = json.loads((project / "nb.ipynb").read_bytes())
    assert after["cells"][1]["source"][2].endswith("  # noqa: PAD001")
    assert run("check", "nb.ipynb").exit_code == 0


def test_add_noqa_refuses_fix_and_stdin(project):
    assert run("check", "--add-noqa", "--fix", "src").exit_code == 2
    assert CliRunner().invoke(main, ["check", "--add-noqa", "-"], input=COLLATOR).exit_code == 2


# --- baselines ----------------------------------------------------------------------------------------


def test_baseline_hides_recorded_findings(project):
    result = run("check", "--baseline", "padlint-baseline.json", "--write-baseline", "src")
    assert result.exit_code == 0 and "Wrote 3 findings" in result.stderr
    data = json.loads(Path("padlint-baseline.json").read_text())
    assert data["padlint-baseline"] == 1
    assert {e["path"] for e in data["findings"]} == {"src/collate.py"}
    assert all("\n" not in e["statement"] and "#" not in e["statement"] for e in data["findings"])
    result = run("check", "--baseline", "padlint-baseline.json", "src")
    assert result.exit_code == 0, result.output
    assert "All checks passed!" in result.stdout
    assert "3 findings in the baseline" in result.stderr


def test_baseline_survives_inserting_lines_above_a_finding(project):
    run("check", "--baseline", "base.json", "--write-baseline", "src")
    moved = COLLATOR.replace("import torch\n", "import torch\nimport os\n\nSEED = int(os.environ.get('SEED', 0))\n", 1)
    moved = moved.replace("    seqs = [", "    # one tensor per example\n    seqs = [")
    (project / "src" / "collate.py").write_text(moved)
    assert run("check", "src").exit_code == 1
    assert run("check", "--baseline", "base.json", "src").exit_code == 0


def test_new_finding_still_fails(project):
    run("check", "--baseline", "base.json", "--write-baseline", "src")
    extra = textwrap.dedent(
        """

        def collate_eval(batch, pad_id):
            seqs = [torch.tensor(example["input_ids"]) for example in batch]
            ids = pad_sequence(seqs, batch_first=True, padding_value=pad_id)
            return {"input_ids": ids, "attention_mask": torch.ones_like(ids)}
        """
    )
    (project / "src" / "collate.py").write_text(COLLATOR + extra)
    result = run("check", "--output-format", "concise", "--baseline", "base.json", "src")
    assert result.exit_code == 1
    [line] = [ln for ln in result.stdout.splitlines() if "PAD0" in ln]
    assert line.startswith("src/collate.py:31:")


def test_baseline_counts_duplicates(project):
    body = COLLATOR.split("\n\n\ndef preprocess")[0] + "\n"
    (project / "src" / "collate.py").write_text(body)
    run("check", "--baseline", "base.json", "--write-baseline", "src")
    copy = body.split("\n\n\n", 1)[1]
    (project / "src" / "collate.py").write_text(body + "\n\n" + copy.replace("collate_fn", "collate_fn_eval"))
    result = run("check", "--output-format", "concise", "--baseline", "base.json", "src")
    assert result.exit_code == 1  # the same statement twice: one is in the baseline, one is new
    assert len([ln for ln in result.stdout.splitlines() if "PAD001" in ln]) == 1


def test_baseline_paths_are_relative_to_the_baseline_file(project, monkeypatch):
    run("check", "--baseline", "ci/base.json", "--write-baseline", "src")
    assert json.loads(Path("ci/base.json").read_text())["findings"][0]["path"] == "../src/collate.py"
    monkeypatch.chdir(project / "src")
    assert run("check", "--baseline", "../ci/base.json", ".").exit_code == 0


def test_stale_baseline_entries_are_reported(project):
    run("check", "--baseline", "base.json", "--write-baseline", "src")
    (project / "src" / "collate.py").write_text("x = 1\n")
    result = run("check", "--baseline", "base.json", "src")
    assert result.exit_code == 0 and "3 baseline entries no longer match" in result.stderr


def test_missing_or_bad_baseline_exits_2_before_linting(project):
    # One error line and nothing else: the unfiltered report used to follow the error, with every
    # finding the baseline was meant to hide.
    missing = run("check", "--baseline", "nope.json", "src")
    assert missing.exit_code == 2 and missing.stdout == ""
    assert missing.stderr.strip().splitlines() == [
        "padlint: error: nope.json: No such file (create it with --write-baseline)"
    ]
    Path("bad.json").write_text("[]")
    for args in (("--baseline", "bad.json"), ("--baseline", "bad.json", "--fix")):
        result = run("check", *args, "src")
        assert result.exit_code == 2 and result.stdout == "", args
        assert result.stderr.strip().splitlines() == ["padlint: error: bad.json: not a padlint baseline (version 1)"]
    assert "torch.ones_like" in (project / "src" / "collate.py").read_text()  # --fix did not run
    rewrite = run("check", "--baseline", "bad.json", "--write-baseline", "src")  # would lose its entries
    assert rewrite.exit_code == 2 and Path("bad.json").read_text() == "[]"
    assert run("check", "--write-baseline", "src").exit_code == 2  # needs --baseline FILE


# --- --statistics -------------------------------------------------------------------------------------


def test_statistics_counts_per_rule(project):
    result = run("check", "--statistics", "src")
    assert result.exit_code == 1
    rows = [line.split("\t") for line in result.stdout.splitlines() if "\t" in line]
    assert [(r[0].strip(), r[1].strip()) for r in rows] == [("1", "PAD001"), ("1", "PAD002"), ("1", "PAD003")]
    assert rows[0][2] == "[*] attention-mask-all-ones"
    # the mask would go to `model.generate` of a `model` parameter, whose signature is not in view: unsafe only
    assert rows[2][2] == "    padded-without-mask"
    assert "Found 3 errors." in result.stdout


def test_statistics_as_json(project):
    result = run("check", "--statistics", "--output-format", "json", "src")
    stats = json.loads(result.stdout)
    assert stats[0] == {
        "code": "PAD001",
        "name": "attention-mask-all-ones",
        "count": 1,
        "fixable": True,
        "fixable_count": 1,
    }
    assert {s["code"] for s in stats} == {"PAD001", "PAD002", "PAD003"}


# --- progress bar -------------------------------------------------------------------------------------


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_only_for_people_at_a_terminal(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("PADLINT_NO_PROGRESS", raising=False)
    assert wanted(_Terminal(), "full") and wanted(_Terminal(), "concise")
    assert not wanted(io.StringIO(), "full")  # a pipe or a file
    assert not any(wanted(_Terminal(), fmt) for fmt in ("json", "json-lines", "sarif", "github", "gitlab"))
    monkeypatch.setenv("CI", "true")
    assert not wanted(_Terminal(), "full")


def test_progress_bar_draws_on_the_stream_and_yields_every_file():
    stream = _Terminal()
    files = [f"f{i}.py" for i in range(30)]
    assert list(track(files, True, stream=stream, delay=0)) == files
    assert "checking" in stream.getvalue() and "/30" in stream.getvalue()
    quiet = _Terminal()
    assert list(track(files, False, stream=quiet, delay=0)) == files and quiet.getvalue() == ""


def test_no_progress_output_in_a_pipe(project):
    for i in range(40):
        (project / "src" / f"m{i}.py").write_text(COLLATOR)
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PADLINT_NO_PROGRESS")}
    proc = subprocess.run(
        [sys.executable, "-m", "padlint", "check", "--output-format", "concise", "src"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 1
    assert proc.stderr == "" and "\x1b" not in proc.stdout


# --- PAD100 unused-noqa (opt-in) ------------------------------------------------------------------

STALE = textwrap.dedent(
    """\
    import os  # noqa: F401
    import torch
    from torch.nn.utils.rnn import pad_sequence


    def collate(seqs, pad_id):
        input_ids = pad_sequence(seqs, batch_first=True, padding_value=pad_id)
        attention_mask = torch.ones_like(input_ids)  # noqa: PAD001
        lengths = torch.tensor([len(s) for s in seqs])  # noqa: E501, PAD001
        # padlint: ignore[PAD003]
        positions = torch.arange(input_ids.size(1))  # type: ignore  # noqa: PAD002
        extra = lengths.max()  # padlint: ignore[PAD999, PAD001]
        total = lengths.sum()  # noqa
        kept = lengths.min()  # noqa: PAD002, PAD100
        return {"input_ids": input_ids, "attention_mask": attention_mask, "positions": positions}
    """
)


def _pad100(*args: str) -> list[tuple[int, str]]:
    result = run("check", "--output-format", "json", *args)
    return [(f["location"]["row"], f["message"]) for f in json.loads(result.stdout) if f["code"] == "PAD100"]


def test_unused_noqa_is_off_by_default(project):
    (project / "src" / "collate.py").write_text(STALE)
    assert run("check", "src").exit_code == 0
    assert _pad100("src") == []


@pytest.mark.parametrize(
    "flags, rows",
    [
        (("--extend-select", "PAD100"), [9, 10, 11, 12]),
        (("--select", "ALL"), [9, 10, 11, 12]),
        (("--select", "PAD001,PAD100"), [9, 12]),  # PAD002 and PAD003 did not run: their comments are not judged
    ],
)
def test_unused_noqa_when_selected(project, flags, rows):
    (project / "src" / "collate.py").write_text(STALE)
    found = _pad100(*flags, "src")
    # used (8), other tools only (1), bare (13) and comments naming PAD100 (14) are left alone
    assert [row for row, _ in found] == rows, found
    messages = dict(found)
    assert "unused: `PAD001`" in messages[9]
    assert "unused: `PAD001`; unknown: `PAD999`" in messages[12]


def test_unused_noqa_judges_only_rules_that_ran(project):
    (project / "src" / "collate.py").write_text(STALE)
    found = dict(_pad100("--select", "PAD100", "src"))
    # PAD001-PAD003 did not run: only the unknown code is certain
    assert list(found) == [12] and "unknown: `PAD999`" in found[12] and "unused" not in found[12]


def test_unused_noqa_from_the_configuration(project):
    (project / "src" / "collate.py").write_text(STALE)
    (project / "pyproject.toml").write_text('[tool.padlint]\nextend-select = ["PAD100"]\n')
    assert run("check", "src").exit_code == 1


def test_unused_noqa_fix_removes_only_the_dead_codes(project):
    path = project / "src" / "collate.py"
    path.write_text(STALE)
    result = run("check", "--extend-select", "PAD100", "--fix", "src")
    assert result.exit_code == 0, result.output
    new = path.read_text()
    expected = (
        STALE.replace("  # noqa: E501, PAD001\n", "  # noqa: E501\n")
        .replace("    # padlint: ignore[PAD003]\n", "")
        .replace("  # type: ignore  # noqa: PAD002\n", "  # type: ignore\n")
        .replace("  # padlint: ignore[PAD999, PAD001]\n", "\n")
    )
    assert new == expected
    assert run("check", "--extend-select", "PAD100", "src").exit_code == 0


def test_add_noqa_then_unused_noqa_finds_nothing(project):
    run("check", "--add-noqa", "src")
    assert run("check", "--extend-select", "PAD100", "src").exit_code == 0


def test_unused_noqa_in_a_notebook(project):
    nb = notebook(code("import torch", "a"), code("mask = torch.ones(4, 8)  # noqa: PAD001", "b"))
    (project / "nb.ipynb").write_bytes(jupyter(nb))
    result = run("check", "--extend-select", "PAD100", "--output-format", "concise", "nb.ipynb")
    assert result.stdout.startswith("nb.ipynb:cell 2:1:26: PAD100 [*] ")
    assert run("check", "--extend-select", "PAD100", "--fix", "nb.ipynb").exit_code == 0
    assert json.loads((project / "nb.ipynb").read_bytes())["cells"][1]["source"] == ["mask = torch.ones(4, 8)"]


def test_baseline_from_a_few_files_keeps_the_others(project):
    (project / "src" / "other.py").write_text(COLLATOR)
    run("check", "--baseline", "base.json", "--write-baseline", "src")
    assert sum(e["count"] for e in json.loads(Path("base.json").read_text())["findings"]) == 6
    # pre-commit passes the staged files only: entries of the other file are neither stale nor dropped
    result = run("check", "--baseline", "base.json", "src/collate.py")
    assert result.exit_code == 0 and "no longer match" not in result.stderr
    (project / "src" / "collate.py").write_text(COLLATOR.split("\n\n\ndef preprocess")[0] + "\n")
    run("check", "--baseline", "base.json", "--write-baseline", "src/collate.py")
    entries = json.loads(Path("base.json").read_text())["findings"]
    assert sorted((e["path"], e["code"]) for e in entries) == [
        ("src/collate.py", "PAD001"),
        ("src/other.py", "PAD001"),
        ("src/other.py", "PAD002"),
        ("src/other.py", "PAD003"),
    ]
