"""A label pad value that is the ignore value on one path is the user's choice (issue 12, class 1:
masking the analysis cannot fully read counts as masking). `IGNORE_INDEX if ignore_pad else pad_id`,
kept on `self` and read in another method, may be -100: silence. The same collator padding labels
with the pad id on every path is reported. Fixtures are our own."""

from __future__ import annotations

import textwrap

from padlint.engine import lint_source

SWITCHED = """
    import torch
    from torch.nn.utils.rnn import pad_sequence

    IGNORE_INDEX = -100


    class ChatCollator:
        def __init__(self, tokenizer, ignore_pad_for_loss=True):
            self.tokenizer = tokenizer
            label_pad = IGNORE_INDEX if ignore_pad_for_loss else tokenizer.pad_token_id
            self.label_pad = label_pad

        def __call__(self, features):
            ids = [torch.tensor(f["input_ids"]) for f in features]
            labels = [torch.tensor(f["labels"]) for f in features]
            ids = pad_sequence(ids, batch_first=True, padding_value=self.tokenizer.pad_token_id)
            labels = pad_sequence(labels, batch_first=True, padding_value=self.label_pad)
            return {"input_ids": ids, "attention_mask": ids.ne(self.tokenizer.pad_token_id), "labels": labels}
"""


def codes(source: str) -> list[str]:
    return sorted({d.code for d in lint_source(textwrap.dedent(source), "collate.py")})


def test_a_label_pad_that_is_the_ignore_value_on_one_path_is_not_reported():
    assert "PAD006" not in codes(SWITCHED)


def test_the_pad_id_on_every_path_is_reported():
    always = SWITCHED.replace(
        "label_pad = IGNORE_INDEX if ignore_pad_for_loss else tokenizer.pad_token_id",
        "label_pad = tokenizer.pad_token_id",
    )
    assert always != SWITCHED
    assert "PAD006" in codes(always)


def test_a_switch_between_two_token_ids_is_still_reported():
    tokens = SWITCHED.replace(
        "label_pad = IGNORE_INDEX if ignore_pad_for_loss else tokenizer.pad_token_id",
        "label_pad = tokenizer.eos_token_id if ignore_pad_for_loss else tokenizer.pad_token_id",
    )
    assert tokens != SWITCHED
    assert "PAD006" in codes(tokens)
