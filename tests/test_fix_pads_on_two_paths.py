"""A fix that masks labels by their pad value is right only where every path pads them with that value
(fixtures are our own). A collate that pads with the tokenizer's pad id when it has one, and with
`pad_sequence`'s default 0 when it has none, gives the labels two pad values: `batch == tok.pad_token_id`
would compare with `None` on the second path (masked_fill raises). The finding stays; no pad-id fix."""

from __future__ import annotations

import textwrap

from padlint.engine import lint_source

TWO_PATHS = """
    from torch.nn.utils.rnn import pad_sequence
    from torch.utils.data import DataLoader


    def train(model, tokenizer, dataset, optimizer):
        def collate(examples):
            if tokenizer.pad_token is None:
                return pad_sequence(examples, batch_first=True)
            return pad_sequence(examples, batch_first=True, padding_value=tokenizer.pad_token_id)

        for batch in DataLoader(dataset, batch_size=4, collate_fn=collate):
            inputs, labels = (batch, batch)
            model(inputs, labels=labels).loss.backward()
            optimizer.step()
"""


def pad002(source: str):
    return [d for d in lint_source(textwrap.dedent(source), "train.py") if d.code == "PAD002"]


def test_labels_padded_with_two_values_get_no_fix_by_one_of_them():
    (finding,) = pad002(TWO_PATHS)
    assert finding.fix is None
    assert "different values on different paths" in (finding.no_fix or "")


def test_labels_padded_with_one_value_keep_the_pad_id_fix():
    one_path = TWO_PATHS.replace(
        "            if tokenizer.pad_token is None:\n                return pad_sequence(examples, batch_first=True)\n",
        "",
    )
    assert one_path != TWO_PATHS
    (finding,) = pad002(one_path)
    assert finding.fix is not None and "pad_token_id" in "".join(e.content for e in finding.fix.edits)
