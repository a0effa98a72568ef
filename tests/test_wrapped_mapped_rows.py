"""Rows of a mapped dataset read through a wrapper Dataset keep what the map function made.

`encoded = raw.map(encode)` with a padding tokenizer call, then a project Dataset that holds `encoded`
and hands `self.rows[i]` on with `labels` copied from its `input_ids`: the labels are the padded ids,
and the loop's `model(**batch)` trains on the pads. One index of a mapped dataset is one example as
the map stored it (map_chain.rows_handed). Labels masked at the pads, or rows tokenized without
padding and padded by a collator that pads labels with -100, are right.
"""

from __future__ import annotations

import textwrap

from padlint.engine import lint_source

SCRIPT = """
from datasets import load_dataset
from torch.utils.data import DataLoader, Dataset
from transformers import AutoModelForCausalLM, AutoTokenizer, DataCollatorForSeq2Seq

tokenizer = AutoTokenizer.from_pretrained("gpt2")
tokenizer.add_special_tokens({{"pad_token": "[PAD]"}})
model = AutoModelForCausalLM.from_pretrained("gpt2")
captions = load_dataset("text", data_files="captions.txt", split="train")


def encode(rows):
    return tokenizer(rows["text"], {padding}truncation=True, max_length=64)


encoded = captions.map(encode, batched=True, remove_columns=["text"])


class CaptionRows(Dataset):
    def __init__(self, rows):
        self.rows = rows

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, index):
        row = self.rows[index]
        row["labels"] = {labels}
        return row


loader = DataLoader(CaptionRows(encoded), batch_size=4{collate})
for batch in loader:
    model(**batch).loss.backward()
"""


def codes(padding='padding="max_length", ', labels='list(row["input_ids"])', collate="") -> list[str]:
    source = SCRIPT.format(padding=padding, labels=labels, collate=collate)
    return [d.code for d in lint_source(textwrap.dedent(source), "captions.py")]


def test_labels_copied_from_padded_rows_of_a_held_mapped_dataset_are_reported():
    assert codes() == ["PAD002"]


def test_labels_masked_at_the_pads_are_right():
    labels = '[t if m else -100 for t, m in zip(row["input_ids"], row["attention_mask"])]'
    assert codes(labels=labels) == []


def test_rows_padded_later_by_a_collator_that_pads_labels_with_minus_100_are_right():
    collate = ", collate_fn=DataCollatorForSeq2Seq(tokenizer)"
    assert codes(padding="", collate=collate) == []


def test_a_split_of_the_mapped_datasets_holds_the_same_rows():
    source = SCRIPT.format(padding='padding="max_length", ', labels='list(row["input_ids"])', collate="")
    source = source.replace('split="train")', ")").replace("CaptionRows(encoded)", 'CaptionRows(encoded["train"])')
    assert [d.code for d in lint_source(textwrap.dedent(source), "captions.py")] == ["PAD002"]
