"""Labels padded with a token and then written over with -100 before a loss grades them (fixtures are
our own): the collate pads each row with the pad id, keeps the first pad as the end-of-text target and
writes -100 over the others (`targets[indices[1:]] = ignore_index`, `indices` from `nonzero(targets ==
pad_id)`); a DataLoader hands the batches to a training loop whose loss ignores -100. The fill value is
no label there. Without the write, or with one that cannot reach the pads, PAD006 reports the fill.
"""

from __future__ import annotations

import textwrap

import pytest

from padlint.engine import lint_source

COLLATE = """
    from functools import partial

    import torch
    from torch.utils.data import DataLoader


    def collate(batch, pad_id=50256, ignore_index=-100, device="cpu"):
        width = max(len(item) + 1 for item in batch)
        inputs, targets_rows = [], []
        for item in batch:
            row = item + [pad_id]
            row = row + [pad_id] * (width - len(row))
            targets = torch.tensor(row[1:])
            MASKING
            inputs.append(torch.tensor(row[:-1]))
            targets_rows.append(targets)
        return torch.stack(inputs).to(device), torch.stack(targets_rows).to(device)


    def train(model, rows, optimizer):
        loader = DataLoader(rows, batch_size=8, collate_fn=partial(collate, device="cpu"))
        for input_batch, target_batch in loader:
            logits = model(input_batch)
            loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), target_batch.flatten())
            loss.backward()
            optimizer.step()
"""

MASKED = """indices = torch.nonzero(targets == pad_id).squeeze()
            if indices.numel() > 1:
                targets[indices[1:]] = ignore_index"""


def found(masking: str) -> list[str]:
    return [d.code for d in lint_source(textwrap.dedent(COLLATE.replace("MASKING", masking)), "collate.py")]


def test_pads_written_over_with_the_ignored_value_are_no_labels():
    assert found(MASKED) == []


@pytest.mark.parametrize(
    "masking",
    ["pass", "targets[0] = ignore_index"],
    ids=["no-masking", "first-position-only"],
)
def test_the_fill_is_reported_where_nothing_covers_the_pads(masking):
    assert found(masking) == ["PAD006"]
