"""How fixes read: a value built once and named, lines within the project's line length, the file's
quotes, a `help:` line when there is no fix, and what `--diff` / `--show-fixes` say when they have
nothing to show."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from padlint.cli.main import main
from padlint.engine import fix_source, lint_source
from padlint.line_length import project_line_length
from padlint.rules.layout import requote, wrap

# A collator whose mask must come from the lengths: the fix needs positions, lengths and a comparison.
LENGTHS_COLLATOR = textwrap.dedent(
    """\
    import torch
    from torch.nn.utils.rnn import pad_sequence


    def collate_rows(features, tokenizer):
        rows = [torch.tensor(f["input_ids"]) for f in features]
        input_ids = pad_sequence(rows, batch_first=True, padding_value=tokenizer.pad_token_id)
        return {"input_ids": input_ids, "attention_mask": torch.ones_like(input_ids)}
    """
)

SINGLE_QUOTED = textwrap.dedent(
    """\
    def encode_batch(batch, tokenizer):
        enc = tokenizer(batch['text'], padding='max_length', max_length=32, truncation=True)
        ids = enc['input_ids']
        return {'input_ids': ids, 'attention_mask': [[1] * len(row) for row in ids]}
    """
)


def run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_a_mask_from_lengths_is_built_once_and_named():
    fixed = fix_source(LENGTHS_COLLATOR, "collate.py").source
    assert fixed.count("lengths = ") == 1 and fixed.count("positions = ") == 1
    assert "attention_mask = (positions[None, :] < lengths[:, None]).long()" in fixed
    assert '"attention_mask": attention_mask}' in fixed
    assert fixed.count("[len(s) for s in rows]") == 1  # the length expression is written once
    ast.parse(fixed)


@pytest.mark.parametrize("width", [88, 60, 120])
def test_fixed_lines_keep_to_the_line_length(width):
    fixed = fix_source(LENGTHS_COLLATOR, "collate.py", line_length=width).source
    original = set(LENGTHS_COLLATOR.splitlines())
    new_lines = [line for line in fixed.splitlines() if line not in original]
    [edited] = [line for line in new_lines if line.lstrip().startswith("return")]
    assert len(edited) < len(LENGTHS_COLLATOR.splitlines()[-1])  # the edited line only got shorter
    named = [line for line in new_lines if line != edited]
    assert named and all(len(line) <= width for line in named), named
    ast.parse(fixed)


def test_names_already_bound_in_the_module_are_not_reused():
    source = LENGTHS_COLLATOR.replace("rows = [", "lengths = None\n    rows = [")
    fixed = fix_source(source, "collate.py").source
    assert "lengths_2 = torch.tensor(" in fixed and "< lengths_2[:, None]" in fixed
    assert "lengths = None" in fixed


def test_fix_follows_the_files_single_quotes():
    outcome = fix_source(SINGLE_QUOTED, "encode.py")
    assert outcome.fixed, outcome.remaining
    assert "enc['attention_mask']" in outcome.source and '"' not in outcome.source


def test_requote_leaves_strings_that_would_need_escapes():
    assert requote("""x = f("it's", "a")""", "'") == """x = f("it's", 'a')"""
    assert requote("x = enc['a']", '"') == 'x = enc["a"]'


def test_wrap_breaks_at_brackets_and_keeps_comprehensions_whole():
    long = "labels = [[t if m else -100 for t, m in zip(row, keep)] for row, keep in zip(ids, batch_masks)]"
    lines = wrap(long, 60)
    assert lines[0] == "labels = [" and lines[-1] == "]"
    assert all(len(line) <= 60 for line in lines)
    assert ast.parse("\n".join(lines))
    assert wrap("x = f(a)", 88) == ["x = f(a)"]
    # no bracket to break at: the value goes in parentheses, one part of a conditional per line
    fallback = "pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id"
    lines = wrap(fallback, 60)
    assert lines[0] == "pad = (" and lines[-1] == ")" and all(len(line) <= 60 for line in lines)
    assert ast.parse("\n".join(lines))


def test_project_line_length_from_ruff_then_black(tmp_path: Path):
    project_line_length.cache_clear()
    (tmp_path / "pyproject.toml").write_text("[tool.black]\nline-length = 100\n")
    assert project_line_length(str(tmp_path)) == 100
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "ruff.toml").write_text("line-length = 72\n")
    assert project_line_length(str(tmp_path / "pkg")) == 72
    (tmp_path / "other").mkdir()
    assert project_line_length(str(tmp_path / "other")) == 100
    project_line_length.cache_clear()


def test_cli_fix_uses_the_scanned_projects_line_length(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    project_line_length.cache_clear()
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 60\n")
    (tmp_path / "collate.py").write_text(LENGTHS_COLLATOR)
    run("check", "--fix", "--no-cache", "collate.py")
    fixed = (tmp_path / "collate.py").read_text()
    new_lines = [line for line in fixed.splitlines() if line not in LENGTHS_COLLATOR.splitlines()]
    named = [line for line in new_lines if not line.lstrip().startswith("return")]
    assert "positions" in fixed and all(len(line) <= 60 for line in named), fixed
    project_line_length.cache_clear()


def test_a_finding_without_a_fix_says_why_and_what_to_do(tmp_path: Path, monkeypatch):
    # the padded ids are returned alone: no mask can be passed along here, the caller must change
    source = textwrap.dedent(
        """\
        def encode_texts(texts, tokenizer):
            return tokenizer(texts, padding=True, return_tensors="pt")["input_ids"]


        def predict(model, texts, tokenizer):
            return model(encode_texts(texts, tokenizer)).logits
        """
    )
    found = [d for d in lint_source(source, "m.py") if d.fix is None]
    assert found and all(d.no_fix for d in found)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.py").write_text(source)
    out = run("check", "--no-cache", "m.py").stdout
    assert "help: no automatic fix: " in out and "attention_mask" in out


# Findings of several rules with no fix: the help line names what the fix would have needed (the first
# part, before the rule's advice of what to do by hand).
NO_FIX = {
    # PAD001: the rows are rebound after padding (their lengths are gone) and pad = EOS (no pad-id mask)
    "mask from nothing in view": (
        """\
        import torch
        from torch.nn.utils.rnn import pad_sequence


        def collate(features, tokenizer):
            tokenizer.pad_token = tokenizer.eos_token
            seqs = [torch.tensor(f["input_ids"]) for f in features]
            ids = pad_sequence(seqs, batch_first=True, padding_value=tokenizer.pad_token_id)
            seqs = [s.flip(0) for s in seqs]
            return {"input_ids": ids, "attention_mask": torch.ones_like(ids), "reversed": seqs}
        """,
        "PAD001",
        "EOS",
    ),
    # PAD002: labels from an expression a fix would have to evaluate twice
    "labels from a call": (
        """\
        import torch


        def collate(features, tokenizer):
            pad = tokenizer.pad_token_id
            width = max(len(f["input_ids"]) for f in features)
            rows = [f["input_ids"] + [pad] * (width - len(f["input_ids"])) for f in features]
            return {"input_ids": torch.tensor(rows), "labels": torch.tensor(rows).clone()}
        """,
        "PAD002",
        "twice",
    ),
    # PAD003: ids returned in a tuple that the caller indexes before the model call
    "tuple unpacked by a caller": (
        """\
        def collate(samples, tokenizer):
            enc = tokenizer([s["text"] for s in samples], padding=True, return_tensors="pt")
            return enc["input_ids"], [s["label"] for s in samples]


        def train_step(model, samples, tokenizer):
            batch = collate(samples, tokenizer)
            return model(input_ids=batch[0], labels=batch[1]).loss
        """,
        "PAD003",
        "tuple",
    ),
}


@pytest.mark.parametrize("name", sorted(NO_FIX))
def test_no_fix_help_says_why_before_what_to_do(name):
    source, code, word = NO_FIX[name]
    found = [d for d in lint_source(textwrap.dedent(source), "m.py") if d.code == code]
    assert found, f"{name}: {code} not reported"
    from padlint.rules import ALL_RULES

    manual = next(rule.MANUAL_FIX for rule in ALL_RULES if rule.code == code)
    for diagnostic in found:
        assert diagnostic.fix is None and diagnostic.no_fix
        why = diagnostic.no_fix.removesuffix(manual).rstrip("; ")
        assert why, f"{name}: the help line only says what to do, not why there is no fix"
        assert word is None or word in why, why


def test_diff_with_only_unsafe_fixes_says_they_are_hidden(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    source = textwrap.dedent(
        """\
        import torch


        def pad_rows(rows, pad_id):
            width = max(len(r) for r in rows)
            return torch.tensor([r + [pad_id] * (width - len(r)) for r in rows])


        def collate(features, tokenizer):
            ids = pad_rows([f["input_ids"] for f in features], tokenizer.pad_token_id)
            return {"input_ids": ids, "attention_mask": torch.ones_like(ids)}
        """
    )
    (tmp_path / "c.py").write_text(source)
    [finding] = lint_source(source, "c.py")
    assert finding.fix is not None and finding.fix.applicability.value == "unsafe"
    result = run("check", "--diff", "--no-cache", "c.py")
    assert result.stdout == ""
    assert "1 hidden fix can be enabled with the `--unsafe-fixes` option" in result.stderr
    shown = run("check", "--diff", "--unsafe-fixes", "--no-cache", "c.py")
    assert "(ids != tokenizer.pad_token_id).long()" in shown.stdout


def test_show_fixes_without_fix_says_it_needs_fix(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "collate.py").write_text(LENGTHS_COLLATOR)
    result = run("check", "--show-fixes", "--no-cache", "collate.py")
    assert "`--show-fixes` lists the fixes that `--fix` applies: add `--fix`" in result.stderr
