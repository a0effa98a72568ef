"""`Dataset.map` writes what the function returns over the columns it was handed (datasets 5.2.0,
Dataset._map_single returns `{**inputs_to_merge, **processed_inputs}`): a later map that only adds a
column leaves the columns an earlier map padded as they were, and the collator still reads them
padded (issue 13, framework wiring). Columns named in `remove_columns=` are gone; a column the later
map returns is the later map's. The fixed collator is run in tests/test_fix_execution.py
(p2_map_adds_column_collate.py). Fixtures are our own."""

from __future__ import annotations

import textwrap

from padlint.engine import lint_source

SCRIPT = """
import torch
from datasets import load_dataset
from transformers import AutoModelForCausalLM, AutoTokenizer, Trainer, TrainingArguments

tokenizer = AutoTokenizer.from_pretrained("org/code-model")
model = AutoModelForCausalLM.from_pretrained("org/code-model")
snippets = load_dataset("json", data_files="snippets.jsonl")["train"]


def encode(example):
    return tokenizer(example["code"], padding="max_length", max_length=256, truncation=True)


{second}

snippets = snippets.map(encode{first_options})
snippets = snippets.map(add_column{second_options})


def collate(rows):
    ids = torch.tensor([row["input_ids"] for row in rows])
    mask = torch.tensor([row["attention_mask"] for row in rows])
    return {{"input_ids": ids, "attention_mask": mask, "labels": {labels}}}


trainer = Trainer(model=model, args=TrainingArguments("out"), train_dataset=snippets, data_collator=collate)
trainer.train()
"""

COUNT = """
def add_column(example):
    return {"n_tokens": sum(example["attention_mask"])}
"""

COUNT_BATCHED = """
def add_column(batch):
    return {"n_tokens": [sum(m) for m in batch["attention_mask"]]}
"""

MASKED_LABELS = """
def add_column(example):
    return {"labels": [t if m else -100 for t, m in zip(example["input_ids"], example["attention_mask"])]}
"""


def script(second=COUNT, labels="ids", first_options="", second_options="") -> str:
    return textwrap.dedent(SCRIPT).format(
        second=textwrap.dedent(second), labels=labels, first_options=first_options, second_options=second_options
    )


def findings(source: str) -> list[tuple[str, int]]:
    return sorted((d.code, d.location.row) for d in lint_source(source, "train.py"))


def labels_row(source: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if '"labels":' in line and "return {" in line)


def test_a_map_that_adds_a_column_keeps_the_padded_ids_for_the_collator():
    source = script()
    assert findings(source) == [("PAD002", labels_row(source))]


def test_the_same_when_both_maps_are_batched():
    source = script(COUNT_BATCHED, first_options=", batched=True", second_options=", batched=True")
    assert findings(source) == [("PAD002", labels_row(source))]


def test_columns_removed_by_name_before_the_text_column_still_keep_the_ids():
    # removing the raw text column leaves the padded ids where they were
    source = script(second_options=', remove_columns=["code"]')
    assert findings(source) == [("PAD002", labels_row(source))]


def test_labels_the_later_map_masked_are_the_ones_the_collator_reads():
    # near miss: the later map returns labels with -100 at the pads; the collator hands those on
    source = script(MASKED_LABELS, labels='torch.tensor([row["labels"] for row in rows])')
    assert findings(source) == []


def test_a_later_map_that_rewrites_the_ids_is_what_the_collator_reads():
    # near miss: the later map returns the ids itself, re-encoded without padding, and a mask of them;
    # the padded ids of the first map are gone, and the collator pads with a mask of its own
    rewrite = """
    def add_column(example):
        enc = tokenizer(example["code"], truncation=True, max_length=256)
        return {"input_ids": enc["input_ids"], "attention_mask": enc["attention_mask"]}
    """
    source = (
        script(rewrite)
        .replace(
            'ids = torch.tensor([row["input_ids"] for row in rows])',
            'ids = torch.nn.utils.rnn.pad_sequence([torch.tensor(row["input_ids"]) for row in rows], batch_first=True)',
        )
        .replace(
            'mask = torch.tensor([row["attention_mask"] for row in rows])',
            "mask = (ids != tokenizer.pad_token_id).long()",
        )
        .replace('"labels": ids}', '"labels": ids.masked_fill(mask == 0, -100)}')
    )
    assert "masked_fill" in source and "pad_sequence" in source
    assert findings(source) == []


def test_columns_removed_by_name_are_gone():
    # near miss: the later map drops the padded columns and stores the ids again, unpadded as one list
    # per example; the collator pads them with -100 labels
    replaced = """
    def add_column(example):
        return {"tokens": [t for t, m in zip(example["input_ids"], example["attention_mask"]) if m]}
    """
    source = (
        script(replaced, second_options=', remove_columns=["input_ids", "attention_mask"]')
        .replace(
            'ids = torch.tensor([row["input_ids"] for row in rows])',
            'ids = torch.nn.utils.rnn.pad_sequence([torch.tensor(row["tokens"]) for row in rows], batch_first=True, padding_value=0)',
        )
        .replace('mask = torch.tensor([row["attention_mask"] for row in rows])', "mask = (ids != 0).long()")
        .replace('"labels": ids}', '"labels": ids.masked_fill(mask == 0, -100)}')
    )
    assert findings(source) == []
