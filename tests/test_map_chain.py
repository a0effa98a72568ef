"""Padded columns across chained `dataset.map` calls (analysis/map_chain.py): the second map function is
handed the columns the first stored, so labels it copies from padded ids are judged there. A fix is
written only where the form the columns come back in is known (python lists, one row per example);
the fixed code is run on a stand-in of `Dataset.map` in tests/test_fix_execution.py (kind "mapped")."""

from __future__ import annotations

import textwrap

import pytest

from padlint.engine import fix_source, lint_source

HEADER = """
from datasets import load_dataset
from transformers import AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("gpt2")
tokenizer.pad_token = tokenizer.eos_token
"""

ENCODE_BATCH = """
def encode(batch):
    return tokenizer(batch["text"], padding="max_length", truncation=True, max_length=64{tensors})
"""

ENCODE_ONE = """
def encode(example):
    return tokenizer(example["text"], padding="max_length", truncation=True, max_length=64{tensors})
"""

COPY_TARGETS = """
def add_targets(batch):
    batch["labels"] = batch["input_ids"].copy()
    return batch
"""


def module(encode: str, between: str = "", first: str = "batched=True", second: str = "batched=True", tensors=""):
    return textwrap.dedent(HEADER) + textwrap.dedent(
        encode.format(tensors=tensors)
        + COPY_TARGETS
        + f"""
raw = load_dataset("json", data_files="notes.jsonl")
encoded = raw.map(encode, {first}, remove_columns=["text"])
{between}
ready = encoded.map(add_targets, {second})
"""
    )


def findings(source: str) -> list[tuple[str, bool]]:
    """(code, whether a fix is offered) of each finding."""
    return sorted((d.code, d.fix is not None) for d in lint_source(source, "case.py"))


def test_second_map_copying_padded_ids_is_reported_with_a_fix():
    assert findings(module(ENCODE_BATCH)) == [("PAD002", True)]


@pytest.mark.parametrize(
    "first, second, nested",
    [("batched=True", "batched=True", True), ("batched=False", "batched=True", True), ("batched=False", "", False)],
)
def test_the_fix_follows_what_the_second_map_is_handed(first, second, nested):
    """One row per stored example: the second map's `batched=` alone decides rows or one row."""
    fixed = fix_source(module(ENCODE_ONE, first=first, second=second), "case.py", unsafe=False)
    assert 'zip(batch["input_ids"], batch["attention_mask"])' in fixed.source
    assert ("for row, row_mask in" in fixed.source) is nested


@pytest.mark.parametrize(
    "between",
    [
        'encoded.set_format("torch")',
        'encoded = encoded.with_format("numpy")',
        'encoded = encoded.remove_columns(["x"])',
    ],
)
def test_a_format_or_columns_changed_in_between_is_reported_without_a_fix(between):
    assert findings(module(ENCODE_BATCH, between=between)) == [("PAD002", False)]


def test_one_text_as_a_tensor_stores_a_batch_of_one_and_gets_no_fix():
    source = module(ENCODE_ONE, first="batched=False", second="", tensors=', return_tensors="pt"')
    assert findings(source) == [("PAD002", False)]


def test_unpadded_first_map_leaves_the_second_silent():
    source = module(ENCODE_BATCH).replace('padding="max_length", ', "")
    assert findings(source) == []


def test_a_split_of_the_mapped_datasetdict_is_mapped_with_its_rows():
    source = module(ENCODE_BATCH).replace("ready = encoded.map(", 'ready = encoded["train"].map(')
    assert findings(source) == [("PAD002", True)]
