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


# Losses weighted per row before the mean (a score per example, a curriculum weight): each ignored
# position is still a 0, so the mean of the product divides by the pads as the mean of the losses would.
WEIGHTED_PER_ROW = """
    import torch.nn.functional as F


    def weighted_step(model, optimizer, batch, row_weights):
        logits = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits
        labels = batch["labels"]
        per_token = F.cross_entropy(
            logits.view(-1, logits.size(-1)), labels.view(-1), ignore_index=-100, reduction="none"
        ).view(labels.shape)
        weighted = per_token * row_weights.unsqueeze(1)
        loss = weighted.mean()
        loss.backward()
        optimizer.step()
"""


def test_losses_scaled_by_a_weight_then_averaged_over_every_position_are_reported():
    (finding,) = pad011(WEIGHTED_PER_ROW)
    assert finding.location.row == 12
    # what the weights mean (a mean over real positions, or a weighted average) is the author's: unsafe
    assert finding.fix is not None and finding.fix.applicability is Applicability.UNSAFE


def test_a_weight_made_from_a_count_may_rescale_the_mean_and_is_silent():
    rescaled = WEIGHTED_PER_ROW.replace(
        "per_token * row_weights.unsqueeze(1)", "per_token * (labels.numel() / (labels != -100).sum())"
    )
    assert rescaled != WEIGHTED_PER_ROW
    assert pad011(rescaled) == []


def test_a_weighted_sum_of_labels_padded_with_the_pad_id_is_not_taken_as_grading_the_pads():
    # The weights may be 0 at the pads (a mask under another name): what the sum grades there is unknown.
    source = """
        import torch
        import torch.nn.functional as F


        def step(model, optimizer, rows, pad_id, weights):
            width = max(len(r) for r in rows)
            ids = torch.tensor([r + [pad_id] * (width - len(r)) for r in rows])
            logits = model(input_ids=ids, attention_mask=(ids != pad_id).long()).logits
            per_token = F.cross_entropy(logits.transpose(1, 2), ids, reduction="none")
            loss = (per_token * weights).sum() / weights.sum()
            loss.backward()
            optimizer.step()
    """
    assert [d.code for d in lint_source(textwrap.dedent(source), "loss.py")] == []
    # the same sum of the losses unweighted grades the pads
    unweighted = textwrap.dedent(source).replace("(per_token * weights).sum() / weights.sum()", "per_token.sum()")
    assert [d.code for d in lint_source(unweighted, "loss.py")] == ["PAD002"]
