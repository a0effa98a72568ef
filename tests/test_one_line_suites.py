"""Bodies written on the line of their header (`def tokenize(batch): return tok(...)`, `if pad: labels[i] =
-100`) are code like any other: what they pad, mask or tokenize counts. Before, a one-line suite held its small
statements directly and the walk skipped them: padding there went unseen, and so did masking (a false alarm
elsewhere) and the text a module tokenizes (PAD004 judged a pad = EOS mask as if EOS could be in the rows).
Fixtures are our own, shaped like notebook and script code.
"""

from __future__ import annotations

import textwrap

from padlint.engine import lint_source


def codes(source: str) -> list[tuple[str, int]]:
    return [(d.code, d.location.row) for d in lint_source(textwrap.dedent(source), "train.py")]


ONE_LINE_MAP = """
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained("gpt2")
    tok.pad_token = tok.eos_token


    def tokenize(batch): return tok(batch["text"], padding="max_length", max_length=256, truncation=True)
    def add_labels(batch): batch["labels"] = batch["input_ids"].copy(); return batch


    def build(raw):
        return raw.map(tokenize, batched=True).map(add_labels, batched=True)
"""


def test_padding_and_labels_in_one_line_functions_are_seen():
    assert ("PAD002", 9) in codes(ONE_LINE_MAP)  # the labels copied from the padded ids


ONE_LINE_MASKING = """
    import torch


    def collate(rows, pad_id):
        width = max(len(r) for r in rows)
        ids = torch.tensor([r + [pad_id] * (width - len(r)) for r in rows])
        mask = (torch.arange(width)[None, :] < torch.tensor([len(r) for r in rows])[:, None]).long()
        labels = ids.clone()
        if True: labels[mask == 0] = -100
        return {"input_ids": ids, "attention_mask": mask, "labels": labels}
"""


def test_masking_written_in_a_one_line_suite_counts():
    assert codes(ONE_LINE_MASKING) == []


NO_EOS_IN_ROWS = """
    from transformers import AutoTokenizer, DataCollatorForLanguageModeling, Trainer, TrainingArguments

    tok = AutoTokenizer.from_pretrained("TinyLlama/TinyLlama-1.1B-Chat-v1.0")
    tok.pad_token = tok.eos_token


    def tokenize(batch): return tok(batch["text"], truncation=True, max_length=1024)


    def train(model, raw):
        rows = raw.map(tokenize, batched=True, remove_columns=raw.column_names)
        collator = DataCollatorForLanguageModeling(tok, mlm=False)
        Trainer(model=model, args=TrainingArguments("out"), train_dataset=rows, data_collator=collator).train()
"""


def test_a_one_line_tokenize_function_that_puts_no_eos_in_leaves_pad004_silent():
    assert codes(NO_EOS_IN_ROWS) == []
    with_eos = NO_EOS_IN_ROWS.replace('tok(batch["text"]', 'tok([t + tok.eos_token for t in batch["text"]]')
    assert ("PAD004", 13) in codes(with_eos)  # an EOS put in each row is hidden by the collator
