"""Two lists padded on their own and joined end to end (`prompt_ids + completion_ids`) hold pads in the
middle of the row, and the row is longer than either part: neither part's attention mask spans it. The
PAD002 fix once named the prompt's mask, safe, and raised on every example when run (broadcasting 1024
positions against 2048; seen in bench/fresh10). The labels are still reported; no fix is offered. A row
padded once keeps its safe fix, which is run with rule_fixture_runner's stand-in `transformers`. Fixtures are our own."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from rule_fixture_runner import load_fixture  # noqa: E402

from padlint.engine import fix_source, lint_source  # noqa: E402

JOINED = """
from transformers import AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("org/code-model")
tokenizer.pad_token = tokenizer.eos_token
WIDTH = 8


def encode_pair(example):
    prompt_ids = tokenizer(example["prompt"], padding="max_length", truncation=True, max_length=WIDTH).input_ids
    answer_ids = tokenizer(example["answer"], padding="max_length", truncation=True, max_length=WIDTH).input_ids
    input_ids = prompt_ids + answer_ids
    return {"input_ids": input_ids, "labels": list(input_ids)}
"""

SINGLE = """
from transformers import AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("org/code-model")
WIDTH = 8


def encode_one(example):
    enc = tokenizer(example["prompt"] + " " + example["answer"], padding="max_length", truncation=True, max_length=WIDTH)
    input_ids = enc["input_ids"]
    return {"input_ids": input_ids, "attention_mask": enc["attention_mask"], "labels": list(input_ids)}
"""


def test_labels_of_joined_padded_lists_are_reported_without_a_fix():
    source = textwrap.dedent(JOINED)
    found = [d for d in lint_source(source, "pairs.py") if d.code == "PAD002"]
    assert len(found) == 1 and found[0].fix is None
    assert fix_source(source, "pairs.py", unsafe=True).source == source


def test_a_row_padded_once_keeps_its_safe_fix_and_it_runs(tmp_path):
    source = textwrap.dedent(SINGLE)
    fixed = fix_source(source, "one.py").source
    assert fixed != source
    module, _ = load_fixture(fixed, tmp_path / "one.py", "padlint_joined_rows_one", pad_is_eos=False)
    row = module.encode_one({"prompt": "def f", "answer": "return 1"})
    pads = [m == 0 for m in row["attention_mask"]]
    assert any(pads) and [label == -100 for label in row["labels"]] == pads
    assert row["labels"][pads.index(True) - 1] == module.tokenizer.eos_token_id  # the real EOS keeps its label
