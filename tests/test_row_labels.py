"""Labels of a head that takes one class per row hold no positions (fixtures are our own).

A sequence-classification or multiple-choice head grades one label per row (library table: the
`row_labels` row, transformers 5.24.0: `CrossEntropyLoss()(logits.view(-1, num_labels), labels.view(-1))`).
Whatever the analysis believes of the value handed there (a collate function that pads some fields of
each row by their position and stacks the rest), nothing in it is padding: PAD002 stays silent there,
and offers no fix that would turn class 0 into -100. The same batch going to a language model's labels
is reported.
"""

from __future__ import annotations

import textwrap

import pytest

from padlint.engine import lint_source

PAIRS = """
    import torch
    from torch import nn
    from torch.utils.data import DataLoader
    from transformers import {model_class}


    def collate(rows, pad_id):
        fields = []
        for i, column in enumerate(zip(*rows)):
            if i == 0:
                fields.append(nn.utils.rnn.pad_sequence(column, batch_first=True, padding_value=pad_id))
            else:
                fields.append(torch.stack(column))
        return fields


    def train(dataset, tokenizer):
        model = {model_class}.from_pretrained("bert-base-uncased")
        loader = DataLoader(dataset, batch_size=8, collate_fn=lambda rows: collate(rows, tokenizer.pad_token_id))
        for batch in loader:
            input_ids = batch[0]
            labels = batch[1]
            inputs = {{"input_ids": input_ids, "attention_mask": input_ids != tokenizer.pad_token_id, "labels": labels}}
            model(**inputs).loss.backward()
"""


@pytest.mark.parametrize(
    "model_class", ["AutoModelForSequenceClassification", "BertForSequenceClassification", "AutoModelForMultipleChoice"]
)
def test_labels_of_a_per_row_head_are_not_padding(model_class):
    assert lint_source(textwrap.dedent(PAIRS.format(model_class=model_class)), "pairs.py") == []


def test_labels_handed_to_a_per_row_head_by_keyword():
    source = PAIRS.replace(
        "model(**inputs)", 'model(input_ids=input_ids, attention_mask=inputs["attention_mask"], labels=labels)'
    )
    assert (
        lint_source(textwrap.dedent(source.format(model_class="AutoModelForSequenceClassification")), "pairs.py") == []
    )


def test_the_same_batch_to_a_language_model_is_reported():
    found = lint_source(textwrap.dedent(PAIRS.format(model_class="AutoModelForCausalLM")), "pairs.py")
    assert [d.code for d in found] == ["PAD002"]
