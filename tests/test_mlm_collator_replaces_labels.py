"""DataCollatorForLanguageModeling replaces the labels the features carry, with mlm on as with it off
(transformers 5.24.0 torch_call: masked positions only, or the ids with pads at -100). Labels a map function
copied from padded ids never reach the loss there: PAD002 stays silent (seen on unseen code: an MLM
pretraining script copying input_ids into labels). A collator that keeps the features' labels still reports
them. Fixtures are our own."""

from __future__ import annotations

import textwrap

import pytest

from padlint.engine import lint_source

MLM = """
    from transformers import AutoModelForMaskedLM, AutoTokenizer, COLLATOR, Trainer, TrainingArguments

    tokenizer = AutoTokenizer.from_pretrained("microsoft/codebert-base")


    def tokenize_function(examples):
        enc = tokenizer(examples["code"], examples["nl"], padding="max_length", max_length=256, truncation=True)
        enc["labels"] = enc["input_ids"].copy()
        return enc


    def main(raw):
        rows = raw.map(tokenize_function, batched=True)
        model = AutoModelForMaskedLM.from_pretrained("microsoft/codebert-base")
        Trainer(model=model, args=TrainingArguments("out"), train_dataset=rows, data_collator=MADE).train()
"""


def pad002(collator: str, made: str) -> list:
    source = MLM.replace("COLLATOR", collator).replace("MADE", made)
    return [d for d in lint_source(textwrap.dedent(source), "train_mlm.py") if d.code == "PAD002"]


@pytest.mark.parametrize(
    "made",
    [
        "DataCollatorForLanguageModeling(tokenizer=tokenizer)",
        "DataCollatorForLanguageModeling(tokenizer=tokenizer, mlm_probability=0.15)",
        "DataCollatorForLanguageModeling(tokenizer, mlm=True)",
    ],
)
def test_labels_replaced_by_the_mlm_collator_are_not_reported(made):
    assert pad002("DataCollatorForLanguageModeling", made) == []


def test_labels_a_collator_keeps_are_reported():
    assert len(pad002("DataCollatorWithPadding", "DataCollatorWithPadding(tokenizer)")) == 1
