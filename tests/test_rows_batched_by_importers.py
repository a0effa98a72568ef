"""Rows a data module hands to the scripts that import it are batched there: where every importer that
names the def batches with a library LM collator (`DataCollatorForLanguageModeling`, mlm on or off), the
labels the rows carry are replaced by the collator's own, so a copy of the padded ids stored as labels
in the map function never reaches a loss (the module-wide rule, labels_not_masked.replaced_by_lm_collator,
one module out). An importer that batches otherwise keeps the finding."""

from __future__ import annotations

import textwrap
from pathlib import Path

from padlint.engine import lint_source

DATA = """
from datasets import load_dataset


def load_pairs(tokenizer, max_length=512):
    raw = load_dataset("json", data_files="dialogs.json")

    def encode(example):
        enc = tokenizer(example["prompt"] + example["reply"], truncation=True, max_length=max_length, padding="max_length")
        enc["labels"] = enc["input_ids"].copy()
        return enc

    return raw.map(encode, remove_columns=raw["train"].column_names)
"""

TRAIN = """
from transformers import AutoModelForCausalLM, AutoTokenizer, Trainer, TrainingArguments, {collator}

from data import load_pairs

tokenizer = AutoTokenizer.from_pretrained("Qwen/Qwen2.5-0.5B")
model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")
pairs = load_pairs(tokenizer)
trainer = Trainer(
    model=model,
    args=TrainingArguments("out"),
    train_dataset=pairs["train"],
    data_collator={collator}({arguments}),
)
trainer.train()
"""

LM = {"collator": "DataCollatorForLanguageModeling", "arguments": "tokenizer=tokenizer, mlm=False"}
PADDING = {"collator": "DataCollatorWithPadding", "arguments": "tokenizer=tokenizer"}


def _lint(tmp_path: Path, importers: dict[str, dict[str, str]]) -> list[str]:
    (tmp_path / "pyproject.toml").write_text("")
    data = tmp_path / "data.py"
    data.write_text(textwrap.dedent(DATA).lstrip())
    for name, collator in importers.items():
        (tmp_path / name).write_text(textwrap.dedent(TRAIN.format(**collator)).lstrip())
    return [d.code for d in lint_source(data.read_text(), str(data))]


def test_rows_every_importer_batches_with_an_lm_collator_keep_no_copied_labels(tmp_path: Path):
    assert _lint(tmp_path, {"train.py": LM}) == []


def test_an_importer_padding_the_rows_as_they_are_keeps_the_finding(tmp_path: Path):
    assert _lint(tmp_path, {"train.py": PADDING}) == ["PAD002"]


def test_one_importer_of_two_batching_otherwise_keeps_the_finding(tmp_path: Path):
    assert _lint(tmp_path, {"train.py": LM, "train_eval.py": PADDING}) == ["PAD002"]


def test_alone_the_data_module_is_judged(tmp_path: Path):
    assert _lint(tmp_path, {}) == ["PAD002"]
