"""A mask is a padding mask by where it comes from, not by its name.

PAD011 reports `(x * mask).mean()` as a loss that divides by pad positions. A variable named `mask`
that the code makes in view out of nothing about padding or positions (residual quantizer dropout:
`torch.full((B,), level) < n_active` picks which rows use a codebook) is no padding mask, and its
mean over the batch is the intended design. Where the mask is read from a batch, a parameter or an
attribute, its origin is out of view and the name stays evidence; where it is made from the pad id,
lengths or an attention mask, it is a padding mask.
"""

from __future__ import annotations

import textwrap

import pytest

from padlint.engine import lint_source

LOSS = """
import torch


def commitment_loss(per_item, n_active, level, ids, pad_id, batch, lengths):
    {mask}
    loss = (per_item * mask).mean()
    loss.backward()
    return loss
"""


def codes(mask: str) -> list[str]:
    return [d.code for d in lint_source(textwrap.dedent(LOSS.format(mask=mask)), "losses.py")]


def test_a_mask_made_in_view_of_no_padding_is_not_a_padding_mask():
    assert codes("mask = torch.full((per_item.shape[0],), level) < n_active") == []


@pytest.mark.parametrize(
    "mask",
    [
        "mask = ids != pad_id",
        'mask = batch["attention_mask"]',
        "mask = torch.arange(per_item.size(1))[None, :] < lengths[:, None]",
        "mask = level",  # a parameter's value: its origin is out of view
    ],
)
def test_a_padding_mask_or_one_out_of_view_is_still_reported(mask):
    assert codes(mask) == ["PAD011"]
