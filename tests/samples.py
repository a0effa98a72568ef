"""Small modules shared by the runner, reliability and safety tests."""

from __future__ import annotations

import textwrap

# PAD001 on line 7: an all-ones mask over a pad_sequence batch (with a safe fix from the lengths).
BUGGY = textwrap.dedent(
    """\
    import torch
    from torch.nn.utils.rnn import pad_sequence


    def collate(rows, pad_id):
        input_ids = pad_sequence(rows, batch_first=True, padding_value=pad_id)
        attention_mask = torch.ones_like(input_ids)
        return {"input_ids": input_ids, "attention_mask": attention_mask}
    """
)
