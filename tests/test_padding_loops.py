"""Lists padded one item at a time: `while len(ids) < max_len: ids.append(pad_id)`.

Google BERT's feature code, and much code written after it, pads each list in a loop that appends
one value until the list is long enough: the ids with the pad id (or 0), the mask with 0, the
segment ids with 0. That is `ids + [pad_id] * (max_len - len(ids))`, and labels copied from the ids
afterwards train on the pads; a mask of ones the loop appends 0 to is right, and labels the loop
appends -100 to are masked.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from test_fix_execution import load_module

from padlint.engine import fix_source, lint_source

FEATURES = """
def features(tokenizer, texts, max_seq_length=16):
    out = []
    for text in texts:
        input_ids = tokenizer.convert_tokens_to_ids(tokenizer.tokenize(text))[:max_seq_length]
        input_mask = [1] * len(input_ids)
        LABELS_BEFORE
        while len(input_ids) < max_seq_length:
            input_ids.append(PAD)
            input_mask.append(0)
            LABELS_IN_LOOP
        out.append({"input_ids": input_ids, "attention_mask": input_mask, "labels": LABELS})
    return out
"""


def _source(pad: str = "0", before: str = "", in_loop: str = "", labels: str = "list(input_ids)") -> str:
    text = FEATURES.replace("PAD", pad).replace("LABELS_BEFORE", before).replace("LABELS_IN_LOOP", in_loop)
    text = "\n".join(line for line in text.replace("LABELS", labels).splitlines() if line.strip())
    return textwrap.dedent(text) + "\n"


def _codes(source: str) -> list[str]:
    return sorted(d.code for d in lint_source(source, "features.py"))


@pytest.mark.parametrize("pad", ["0", "tokenizer.pad_token_id"])
def test_labels_copied_after_a_padding_loop_fire(pad: str):
    assert _codes(_source(pad)) == ["PAD002"]


def test_labels_the_loop_pads_with_minus_100_are_silent():
    assert _codes(_source(before="labels = list(input_ids)", in_loop="labels.append(-100)", labels="labels")) == []


def test_a_loop_that_appends_values_that_are_no_pad_is_no_padding():
    source = textwrap.dedent(
        """
        def window(stream, tokenizer, size=16):
            input_ids = []
            while len(input_ids) < size:
                input_ids.append(next(stream))
            return {"input_ids": input_ids, "labels": list(input_ids)}
        """
    )
    assert _codes(source) == []


def test_the_command_line_finds_a_loop_padding_with_zeros(tmp_path: Path):
    """No `pad` in the text at all: the first look must still take the loop for padding."""
    from click.testing import CliRunner

    from padlint.cli.main import main

    path = tmp_path / "features.py"
    path.write_text(_source())
    result = CliRunner().invoke(main, ["check", "--no-cache", "--output-format", "concise", str(path)])
    assert "PAD002" in result.output


class _Tokenizer:
    """Whitespace tokens; 0 is the pad id, 2 the EOS."""

    pad_token_id = 0
    vocab = {"[EOS]": 2}

    def tokenize(self, text: str) -> list[str]:
        return text.split()

    def convert_tokens_to_ids(self, tokens: list[str]) -> list[int]:
        return [self.vocab.setdefault(t, len(self.vocab) + 3) for t in tokens]


def test_a_mask_the_loop_pads_with_ones_fires_and_its_fix_appends_zeros():
    source = _source().replace("input_mask.append(0)", "input_mask.append(1)")
    assert _codes(source) == ["PAD001", "PAD002"]
    fixed = fix_source(source, "features.py").source
    assert "input_mask.append(0)" in fixed and _codes(fixed) == []


@pytest.mark.parametrize("mask_pad", ["0", "1"])
def test_the_fixed_features_have_minus_100_exactly_at_the_pads(tmp_path: Path, mask_pad: str):
    source = _source().replace("input_mask.append(0)", f"input_mask.append({mask_pad})")
    fixed = fix_source(source, "features.py").source
    assert _codes(fixed) == []
    path = tmp_path / f"features_fixed_{mask_pad}.py"
    path.write_text(fixed)
    module = load_module(path, f"features_fixed_{mask_pad}")
    rows = module.features(_Tokenizer(), ["a b c [EOS]", "d [EOS]", "e e e e e e [EOS]"], max_seq_length=8)
    for row, length in zip(rows, (4, 2, 7)):
        assert row["attention_mask"] == [1] * length + [0] * (8 - length)
        assert row["labels"][length:] == [-100] * (8 - length)
        assert row["labels"][:length] == row["input_ids"][:length]
        assert row["labels"][length - 1] == 2  # the real EOS keeps its label
