"""PAD007 names the value a loss ignores when the code hands it through a name (a parameter's default), so
the message says what is compared: `ignore_index (0 here)`, not a bare parameter name. Fixture our own."""

from __future__ import annotations

import textwrap

from padlint.engine import lint_source

LOSS = """
    import torch.nn as nn
    from torch.nn.utils.rnn import pad_sequence


    class SeqLoss(nn.Module):
        def __init__(self, ignore_index=0):
            super().__init__()
            self.ce = nn.CrossEntropyLoss(ignore_index=ignore_index)

        def forward(self, logits, labels):
            return self.ce(logits.view(-1, logits.size(-1)), labels.view(-1))


    def collate(batch, pad_id):
        ids = pad_sequence([b[0] for b in batch], batch_first=True, padding_value=pad_id)
        labels = pad_sequence([b[1] for b in batch], batch_first=True, padding_value=-100)
        return ids, labels


    def step(model, batch, pad_id):
        ids, labels = collate(batch, pad_id)
        logits = model(ids, attention_mask=ids.ne(pad_id)).logits
        return SeqLoss()(logits, labels)
"""


def test_the_message_says_the_value_a_named_ignore_index_holds():
    (found,) = [d for d in lint_source(textwrap.dedent(LOSS), "loss.py") if d.code == "PAD007"]
    assert "ignores ignore_index (0 here)" in found.message and "with -100" in found.message
