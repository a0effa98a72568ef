"""A value the analysis cannot read, written into labels at exactly the pad positions, is masking.

`labels[labels == pad_id] = self.label_pad_token_id` marks the pads with a value held by a field or a
constructor argument whose value is out of view (a dataclass field, an argument the caller passes).
The author picked the pad positions on purpose; taking the write as "no masking" reports a bug the
code gives no evidence of. A value in view still decides: writing the pad id back is no masking.
"""

from __future__ import annotations

import textwrap

import pytest

from padlint.engine import lint_source

COLLATOR = """
import torch
from torch.nn.utils.rnn import pad_sequence
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("gpt2")


class SpanCollator:
    def __init__(self, tokenizer, label_fill):
        self.tokenizer = tokenizer
        self.label_fill = label_fill

    def __call__(self, rows):
        pad = self.tokenizer.pad_token_id
        ids = pad_sequence([torch.tensor(r) for r in rows], batch_first=True, padding_value=pad)
        labels = ids.clone()
        at_pads = labels == pad
        labels[at_pads] = {value}
        return {{"input_ids": ids, "attention_mask": ids.ne(pad).long(), "labels": labels}}


def train(loader):
    for batch in loader:
        model(**batch).loss.backward()
"""


def codes(value: str) -> list[str]:
    return [d.code for d in lint_source(textwrap.dedent(COLLATOR.format(value=value)), "collate.py")]


@pytest.mark.parametrize("value", ["self.label_fill", "LABEL_FILL"])
def test_a_value_out_of_view_written_at_the_pads_is_masking(value):
    assert codes(value) == []


def test_writing_the_pad_id_back_at_the_pads_is_no_masking():
    assert codes("pad") == ["PAD002"]
    assert codes("self.tokenizer.pad_token_id") == ["PAD002"]


def test_a_value_in_view_is_read_not_assumed():
    # A module constant the analysis reads: the pad id written back, no masking.
    source = "PAD_LABEL = 0\n" + COLLATOR.format(value="PAD_LABEL").replace(
        "padding_value=pad)", "padding_value=0)"
    ).replace("labels == pad", "labels == 0").replace("ids.ne(pad)", "ids.ne(0)")
    assert "PAD002" in [d.code for d in lint_source(textwrap.dedent(source), "collate.py")]


ENCODING_MASKED_IN_PLACE = """
from transformers import AutoModelForSeq2SeqLM

model = AutoModelForSeq2SeqLM.from_pretrained("t5-small")


def batch_of(pairs, tokenizer):
    source = tokenizer([p[0] for p in pairs], padding=True, return_tensors="pt")
    target = tokenizer([p[1] for p in pairs], padding=True, return_tensors="pt")
    {masking}
    return source, target


def train(pairs, tokenizer):
    source, target = batch_of(pairs, tokenizer)
    model(**source, labels=target["input_ids"]).loss.backward()
"""


def test_ids_of_an_encoding_masked_in_place_stay_masked_where_the_encoding_goes():
    masked = ENCODING_MASKED_IN_PLACE.format(masking='target["input_ids"][target["attention_mask"] == 0] = -100')
    assert lint_source(textwrap.dedent(masked), "seq2seq.py") == []
    unmasked = ENCODING_MASKED_IN_PLACE.format(masking="")
    assert [d.code for d in lint_source(textwrap.dedent(unmasked), "seq2seq.py")] == ["PAD002"]
