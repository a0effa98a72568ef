"""A per-position loss (`reduction="none"`) whose ignored positions are there, averaged with `.mean()`:
each ignored position is a 0 that the mean divides by, so the loss shrinks with the amount of padding
(PAD011's harm reached through the loss's own ignore value rather than a product with a mask; a miss
on unseen code). Ignored positions are in evidence where the loss was told what to ignore, or where
the labels it grades hold the ignored value at their pads; labels from out of view with the default
ignore value are not evidence. The fix is run in test_fix_execution_losses.py. Fixtures are our own."""

from __future__ import annotations

import textwrap

import pytest

from padlint.engine import lint_source
from padlint.types import Applicability

torch = pytest.importorskip("torch")


def pad011(source: str):
    return [d for d in lint_source(textwrap.dedent(source), "loss.py") if d.code == "PAD011"]


TOLD_TO_IGNORE = """
    import torch.nn as nn


    class TargetLoss(nn.Module):
        def __init__(self, pad_id):
            super().__init__()
            self.pad_id = pad_id
            self.per_target = nn.CrossEntropyLoss(reduction="none", ignore_index=pad_id)

        def forward(self, logits, targets):
            flat = targets.view(-1)
            losses = self.per_target(logits.view(-1, logits.size(-1)), flat)
            return losses.mean()
"""

MASKED_IN_VIEW = """
    import torch
    import torch.nn.functional as F


    def batch_of(rows, pad_id):
        width = max(len(r) for r in rows)
        ids = torch.full((len(rows), width), pad_id)
        for i, r in enumerate(rows):
            ids[i, : len(r)] = torch.tensor(r)
        targets = ids.clone()
        targets[ids == pad_id] = -100
        return ids, targets


    def loss_of(logits, rows, pad_id):
        ids, targets = batch_of(rows, pad_id)
        losses = F.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction="none")
        return losses.mean()


    def train_step(model, optimizer, rows, pad_id):
        loss = loss_of(model(rows), rows, pad_id)
        loss.backward()
        optimizer.step()
"""


def test_a_loss_told_what_to_ignore_then_averaged_over_every_position_is_reported():
    (finding,) = pad011(TOLD_TO_IGNORE)
    assert "ignores" in finding.message


def test_labels_masked_in_view_then_averaged_over_every_position_are_reported():
    (finding,) = pad011(MASKED_IN_VIEW)
    assert finding.fix is not None and finding.fix.applicability is Applicability.SAFE


def test_labels_from_out_of_view_with_the_default_ignore_value_are_no_evidence():
    source = """
        import torch.nn.functional as F


        def train_step(model, optimizer, batch):
            logits = model(batch["input_ids"]).logits
            losses = F.cross_entropy(logits.flatten(0, 1), batch["labels"].flatten(), reduction="none")
            loss = losses.mean()
            loss.backward()
            optimizer.step()
    """
    assert pad011(source) == []


def test_dividing_by_the_positions_not_ignored_is_silent():
    right = TOLD_TO_IGNORE.replace("return losses.mean()", "return losses.sum() / (flat != self.pad_id).sum()")
    assert right != TOLD_TO_IGNORE
    assert pad011(right) == []


def test_a_mean_per_sequence_first_is_not_judged_here():
    per_sequence = TOLD_TO_IGNORE.replace(
        "return losses.mean()",
        "per_seq = losses.view(targets.shape).sum(dim=1) / (targets != self.pad_id).sum(dim=1)\n"
        "            return per_seq.mean()",
    )
    assert per_sequence != TOLD_TO_IGNORE
    assert pad011(per_sequence) == []


def test_a_metric_that_is_never_trained_on_is_not_reported():
    metric = """
        import torch
        import torch.nn.functional as F


        @torch.no_grad()
        def perplexity(model, batch):
            logits = model(batch["input_ids"]).logits
            nll = F.cross_entropy(
                logits.flatten(0, 1), batch["labels"].flatten(), reduction="none", ignore_index=-100
            )
            return torch.exp(nll.mean()).item()
    """
    assert pad011(metric) == []


def test_something_added_to_the_losses_makes_the_fix_unsafe():
    weighted = TOLD_TO_IGNORE.replace(
        "return losses.mean()", "boosted = losses + 0.5 * (flat == 3).float()\n            return boosted.mean()"
    )
    assert weighted != TOLD_TO_IGNORE
    (finding,) = pad011(weighted)
    assert finding.fix is not None and finding.fix.applicability is Applicability.UNSAFE
