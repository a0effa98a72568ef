"""A notebook's later cell may define a function again and map into the same name: from there on the
name holds the new def and the new rows. The rows the first map made, bound to a name that a later cell
binds anew before anything reads it, reach no model, and a padding slip in them harms nothing; the def
a map call reads is the one above it, not the first one of the notebook."""

from __future__ import annotations

import textwrap

from nbwriters import code, jupyter, notebook

from padlint.engine import lint_source
from padlint.files.notebook import Notebook

SETUP = """
from datasets import Dataset
from transformers import AutoModelForSequenceClassification, AutoTokenizer, Trainer, TrainingArguments

tokenizer = AutoTokenizer.from_pretrained("roberta-base")
dataset = Dataset.from_pandas(frame)
"""

FIRST_TRY = """
def encode(batch):
    enc = tokenizer(batch["question"], padding="max_length", truncation=True, max_length=64)
    enc["labels"] = tokenizer(batch["answer"], padding="max_length", truncation=True, max_length=64)["input_ids"]
    return enc

encoded = dataset.map(encode, batched=True)
encoded.set_format("torch")
"""

SECOND_TRY = """
def encode(batch):
    enc = tokenizer(batch["question"], padding="max_length", truncation=True, max_length=64)
    enc["labels"] = batch["label"]
    return enc

encoded = dataset.map(encode, batched=True)
encoded.set_format("torch")
"""

TRAIN = """
model = AutoModelForSequenceClassification.from_pretrained("roberta-base", num_labels=4)
trainer = Trainer(model=model, args=TrainingArguments("out"), train_dataset=encoded)
trainer.train()
"""


def _codes(*cells: str) -> list[str]:
    nb = notebook(*(code(textwrap.dedent(text).strip(), f"c{i}") for i, text in enumerate(cells)))
    return [d.code for d in lint_source(Notebook(jupyter(nb)).virtual_text(), "tries.ipynb")]


def test_rows_a_later_cell_replaces_before_training_reach_no_model():
    assert _codes(SETUP, FIRST_TRY, SECOND_TRY, TRAIN) == []


def test_the_first_try_trained_on_is_reported():
    assert _codes(SETUP, FIRST_TRY, TRAIN) == ["PAD002"]


def test_a_def_made_again_is_what_a_later_map_reads():
    """The first def is never mapped; the map below the second reads the second (class labels)."""
    first_def_only = FIRST_TRY.split("encoded =")[0]
    assert _codes(SETUP, first_def_only, SECOND_TRY, TRAIN) == []
