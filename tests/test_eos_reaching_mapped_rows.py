"""Pad = EOS costs the labels of real EOS tokens only where an EOS reaches the rows. Where a module builds its
rows by mapping its own functions over a dataset, an EOS that another def puts into text (a generation prompt
`tok(tok.eos_token + "Once upon a time")`) reaches no row: PAD004 stays silent (seen on unseen code: five
copies of one fine-tuning program). An EOS the mapped function, or a helper it calls, appends is reported.
Fixtures are our own."""

from __future__ import annotations

import textwrap

import pytest

from padlint.engine import lint_source

PROGRAM = """
    from transformers import AutoModelForCausalLM, AutoTokenizer, DataCollatorForLanguageModeling, Trainer

    tokenizer = AutoTokenizer.from_pretrained("facebook/opt-125m", padding_side="left")
    tokenizer.pad_token = tokenizer.eos_token


    def with_end(text):
        return text


    def tokenize_function(examples):
        texts = [with_end(t) for t in examples["text"]]
        return tokenizer(texts, padding="max_length", max_length=512, truncation=True)


    def train(model, args, dataset):
        rows = dataset.map(tokenize_function, batched=True, remove_columns=["text"])
        collator = DataCollatorForLanguageModeling(tokenizer=tokenizer, mlm=False)
        Trainer(model=model, args=args, train_dataset=rows, data_collator=collator).train()


    def sample(model):
        inputs = tokenizer(tokenizer.eos_token + "Once upon a time", return_tensors="pt")
        return model.generate(**inputs, max_new_tokens=20, pad_token_id=tokenizer.eos_token_id)
"""


def pad004(source: str) -> list:
    return [d for d in lint_source(textwrap.dedent(source), "train.py") if d.code == "PAD004"]


def test_an_eos_only_in_a_generation_prompt_reaches_no_row():
    assert pad004(PROGRAM) == []


@pytest.mark.parametrize(
    "source",
    [
        PROGRAM.replace(
            'texts = [with_end(t) for t in examples["text"]]',
            'texts = [t + tokenizer.eos_token for t in examples["text"]]',
        ),
        PROGRAM.replace("        return text\n", "        return text + tokenizer.eos_token\n"),
    ],
    ids=["mapped-function-appends", "helper-of-mapped-function-appends"],
)
def test_an_eos_put_in_by_the_mapped_function_or_its_helper_is_reported(source):
    assert len(pad004(source)) == 1
