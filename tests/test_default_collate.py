"""What a DataLoader without a collate function hands the loop (fixtures are our own).

torch's default_collate keeps each row's dict or tuple structure, stacks tensors (and arrays, made
tensors) and transposes other sequences into lists of per-position tensors (library table: the
DataLoader row's `default_collate`). Rows a mapped dataset stores are lists unless a format is read
back in view, so the batch's form is not known: the labels finding stays, but no fix written for
python lists is offered for tensors (it used to be, marked safe, and failed when run).
"""

from __future__ import annotations

import textwrap

from padlint.engine import lint_source

MAPPED = """
    import torch
    from datasets import load_dataset
    from torch.utils.data import DataLoader
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained("Qwen/Qwen2.5-0.5B")
    model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")


    def tokenize(examples):
        text = [p + c for p, c in zip(examples["prompt"], examples["completion"])]
        return tokenizer(text, truncation=True, padding="max_length", max_length=256)


    rows = load_dataset("json", data_files="train.jsonl", split="train")
    rows = rows.map(tokenize, batched=True, remove_columns=rows.column_names)
    rows.set_format("torch")
    optimizer = torch.optim.AdamW(model.parameters())
    for batch in DataLoader(rows, batch_size=8, shuffle=True):
        loss = model(**batch, labels=batch["input_ids"]).loss
        loss.backward()
        optimizer.step()
"""


def test_labels_of_default_collated_rows_are_reported_without_a_list_fix():
    found = lint_source(textwrap.dedent(MAPPED), "sft.py")
    assert [(d.code, d.location.row) for d in found] == [("PAD002", 21)]
    assert found[0].fix is None  # the rows' form after collation is not in view
