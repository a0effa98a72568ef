"""A loss module that nothing calls grades nothing (issue 12: report only manifest harm). A script or
a model that makes `nn.CrossEntropyLoss()` and then trains on another loss (one told what to ignore,
or the model's own) leaves the default ignore value unused: PAD007 reports a loss only where it is
called, handed on, or read at all. Fixtures are our own."""

from __future__ import annotations

import textwrap

from padlint.engine import lint_source

SCRIPT = """
import torch
import torch.nn.functional as F
from torch import nn

SKIP = -1


def collate(rows):
    width = max(len(r["labels"]) for r in rows)
    labels = torch.full((len(rows), width), SKIP)
    for i, r in enumerate(rows):
        labels[i, : len(r["labels"])] = torch.tensor(r["labels"])
    return labels


criterion = nn.CrossEntropyLoss()


def train_step(model, batch, optimizer):
    labels = collate(batch)
    logits = model(labels.clamp(min=0))
    loss = {loss}
    loss.backward()
    optimizer.step()
"""

TOLD = "F.cross_entropy(logits.flatten(0, 1), labels.flatten(), ignore_index=SKIP)"
CALLED = "criterion(logits.flatten(0, 1), labels.flatten())"


def codes(source: str) -> list[tuple[str, int]]:
    return sorted((d.code, d.location.row) for d in lint_source(textwrap.dedent(source), "train.py"))


def line_of(source: str, text: str) -> int:
    return next(i for i, line in enumerate(textwrap.dedent(source).splitlines(), 1) if text in line)


def test_a_loss_module_left_unused_is_not_reported():
    assert codes(SCRIPT.format(loss=TOLD)) == []


def test_the_same_loss_module_called_on_the_labels_is_reported():
    source = SCRIPT.format(loss=CALLED)
    assert codes(source) == [("PAD007", line_of(source, "criterion = nn.CrossEntropyLoss()"))]


def test_a_loss_module_handed_to_a_helper_may_be_called_there():
    # near miss in the other direction: handed on, it may grade the labels out of view
    source = SCRIPT.format(loss=TOLD).replace(
        "    loss.backward()\n", "    loss = loss + auxiliary(criterion, logits, labels)\n    loss.backward()\n"
    )
    assert "auxiliary(criterion" in source
    assert codes(source) == [("PAD007", line_of(source, "criterion = nn.CrossEntropyLoss()"))]
