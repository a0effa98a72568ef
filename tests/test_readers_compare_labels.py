"""A reader that grades only the positions where its targets differ from the pad id (fixtures are our own).

A course-style seq2seq project pads its decoder targets with the pad id in `data.py` and trains in
`train.py`, which gets the loaders from `load_data(...)` (a function that builds them with the collate
function) and applies its own loss to `logits[targets != PAD_IDX]`: the pads never reach the loss, so the
pad-id fill is no harm. The reader is found through what it calls (`load_data` names the collate
function that holds the labels), and its comparison counts as an `ignore_index`. A reader that hands
the targets to a loss whole, one that only tests a single label in an `if`, or one that skips pads of
targets it gets from nothing that reaches the collate function, leaves the finding; so does one that
hands the targets to the model as `labels=` and takes the model's own loss, whatever it compares or
configures beside it (seen on unseen code: a token count `targets != PAD_IDX` next to `output.loss`).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from padlint.engine import lint_source

DATA = textwrap.dedent(
    """
    import torch
    from torch.nn.utils.rnn import pad_sequence
    from torch.utils.data import DataLoader

    PAD_IDX = 0


    def collate(batch):
        sources, targets = zip(*batch)
        source_ids = pad_sequence(sources, batch_first=True, padding_value=PAD_IDX)
        source_mask = (source_ids != PAD_IDX).long()
        target_ids = pad_sequence(targets, batch_first=True, padding_value=PAD_IDX)
        return source_ids, source_mask, target_ids


    def make_loader(rows, batch_size):
        return DataLoader(rows, batch_size=batch_size, collate_fn=collate)


    def load_data(rows, batch_size):
        return make_loader(rows, batch_size)


    def describe():
        return "seq2seq rows"
    """
)

TRAIN = textwrap.dedent(
    """
    import torch.nn as nn
    from data import {imported}

    PAD_IDX = 0


    def train(model, rows, optimizer):
        criterion = nn.CrossEntropyLoss()
        for source_ids, source_mask, targets in {batches}:
            logits = model(input_ids=source_ids, attention_mask=source_mask).logits
    {loss}
            loss.backward()
            optimizer.step()
    """
)

SKIPS_PADS = """        non_pad = targets != PAD_IDX
        loss = criterion(logits[non_pad], targets[non_pad])"""
GRADES_ALL = """        loss = criterion(logits.flatten(0, 1), targets.flatten())"""
# The model grades the labels it is handed; the comparison only counts tokens, the criterion is never called.
MODEL_LOSS = """        unused = nn.CrossEntropyLoss(ignore_index=PAD_IDX)
        loss = model(input_ids=source_ids, attention_mask=source_mask, labels=targets).loss
        non_pad = targets != PAD_IDX
        print(loss.item(), int(non_pad.sum()), unused)"""
TESTS_ONE = """        if targets[0, 0] != PAD_IDX:
            print("first target is a token")
        loss = criterion(logits.flatten(0, 1), targets.flatten())"""


# A second importer that skips pads in its own targets, but reads nothing that reaches the collate function.
METRICS = textwrap.dedent(
    """
    from data import describe

    PAD_IDX = 0


    def token_accuracy(predictions, targets):
        non_pad = targets != PAD_IDX
        return (predictions[non_pad] == targets[non_pad]).float().mean(), describe()
    """
)


def codes(tmp_path: Path, loss: str, metrics: bool = False) -> list[str]:
    (tmp_path / ".git").mkdir(exist_ok=True)
    (tmp_path / "data.py").write_text(DATA)
    (tmp_path / "train.py").write_text(TRAIN.format(imported="load_data", loss=loss, batches="load_data(rows, 8)"))
    if metrics:
        (tmp_path / "metrics.py").write_text(METRICS)
    return sorted(d.code for d in lint_source(DATA, str(tmp_path / "data.py")))


def test_a_reader_that_grades_only_positions_not_padded_sees_no_pad(tmp_path):
    assert codes(tmp_path, SKIPS_PADS) == []


@pytest.mark.parametrize(
    "loss, metrics",
    [(GRADES_ALL, False), (TESTS_ONE, False), (GRADES_ALL, True), (MODEL_LOSS, False)],
    ids=["grades-every-position", "tests-one-label", "skips-pads-of-other-targets", "model-loss-over-labels"],
)
def test_other_readers_leave_the_finding(tmp_path, loss, metrics):
    assert codes(tmp_path, loss, metrics) == ["PAD006"]
