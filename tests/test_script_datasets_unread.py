"""A script's mapped dataset whose labels no model receives: code in the `__main__` block is script code,
and a column every later use drops (a row read into a name nothing reads, a DataLoader nobody iterates)
reaches nothing. Fixtures are our own; each silent shape has its reported twin."""

from __future__ import annotations

import textwrap

from padlint.engine import lint_source

SCRIPT = """
import torch
from datasets import load_dataset
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM, AutoTokenizer


def to_features(example, tokenizer):
    text = tokenizer.apply_chat_template(example["messages"], tokenize=False)
    enc = tokenizer(text, padding="max_length", truncation=True, max_length=512)
    return {"input_ids": enc["input_ids"], "attention_mask": enc["attention_mask"], "labels": enc["input_ids"]}


if __name__ == "__main__":
    tokenizer = AutoTokenizer.from_pretrained("acme/chat-small")
    model = AutoModelForCausalLM.from_pretrained("acme/chat-small")
    raw = load_dataset("json", data_files="dialogs.json")["train"]
    rows = raw.map(to_features, fn_kwargs={"tokenizer": tokenizer}, remove_columns=raw.column_names)
    {uses}
    print("done")
"""

ROW_THEN_OWN_LABELS = """rows.set_format(type="torch", columns=["input_ids", "labels"])
    loader = DataLoader(rows, batch_size=8, shuffle=True)
    example = rows[0]
    input_ids = example["input_ids"].unsqueeze(0)
    labels = example["labels"].unsqueeze(0)
    masked = input_ids.masked_fill(input_ids == tokenizer.pad_token_id, -100)
    loss = model(input_ids, labels=masked).loss
    loss.backward()"""


def _codes(uses: str) -> list[str]:
    source = textwrap.dedent(SCRIPT).replace("{uses}", uses)
    return [d.code for d in lint_source(source, "sft.py")]


def test_rows_a_main_block_never_names_again_reach_no_model():
    assert "PAD002" not in _codes("print(len(raw))")


def test_rows_a_main_block_trains_on_are_reported():
    trains = """for batch in DataLoader(rows.with_format("torch"), batch_size=8):
        model(**batch).loss.backward()"""
    assert "PAD002" in _codes(trains)


def test_a_row_whose_labels_go_unread_and_a_loader_nobody_iterates_drop_the_column():
    """The only step reads one row, builds its own masked labels from the ids, and leaves the row's
    labels in a name nothing reads; the DataLoader made over the rows is never iterated."""
    assert "PAD002" not in _codes(ROW_THEN_OWN_LABELS)


def test_the_same_row_whose_labels_reach_the_model_is_reported():
    uses = ROW_THEN_OWN_LABELS.replace("labels=masked", "labels=labels")
    assert "PAD002" in _codes(uses)
