"""Rows padded on their own and graded by a loss are its labels: a label-like list (`label_rows`,
`gold_labels`, which the strict reading of token labels leaves out) padded with a value the loss does
not ignore is reported as rows named `labels` are. Padded with the ignored value, or reaching no loss, they stay silent. Fixtures are
our own; the fix is run."""

from __future__ import annotations

import importlib.util
import textwrap

import pytest
import torch
import torch.nn.functional as F

from padlint.engine import fix_source, lint_source

TAGGER = textwrap.dedent(
    """
    import torch.nn.functional as F
    from torch.nn.utils.rnn import pad_sequence


    def tag_loss(logits, ROWS):
        gold = pad_sequence(ROWS, batch_first=True, padding_value=PAD)
        return F.cross_entropy(logits.transpose(1, 2), gold, ignore_index=-100)
    """
)


def codes(rows: str, pad: str) -> list[str]:
    return [d.code for d in lint_source(TAGGER.replace("ROWS", rows).replace("PAD", pad), "tagger.py")]


@pytest.mark.parametrize("rows", ["label_rows", "gold_labels"])
@pytest.mark.parametrize("pad", ["0", "-1"])
def test_rows_a_loss_grades_are_labels_whatever_their_name(rows, pad):
    assert "PAD007" in codes(rows, pad)


@pytest.mark.parametrize("rows", ["label_rows", "tag_rows"])
def test_rows_padded_with_the_ignored_value_are_right(rows):
    assert codes(rows, "-100") == []


def test_label_rows_no_loss_grades_are_not_judged_as_its_labels():
    returned = (
        TAGGER.replace("ROWS", "label_rows")
        .replace("PAD", "-1")
        .replace("return F.cross_entropy(logits.transpose(1, 2), gold, ignore_index=-100)", "return gold")
    )
    assert "PAD007" not in [d.code for d in lint_source(returned, "tagger.py")]


def test_the_fix_makes_the_loss_skip_the_pads(tmp_path):
    source = TAGGER.replace("ROWS", "label_rows").replace("PAD", "-1")
    path = tmp_path / "tagger_fixed.py"
    path.write_text(fix_source(source, "tagger.py").source)
    spec = importlib.util.spec_from_file_location("padlint_tagger_fixed", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    logits = torch.randn(2, 5, 3)  # batch, classes, positions after the transpose
    logits = logits.transpose(1, 2)
    loss = module.tag_loss(logits, [torch.tensor([1, 4, 2]), torch.tensor([3])])
    real = F.cross_entropy(logits[[0, 0, 0, 1], [0, 1, 2, 0]], torch.tensor([1, 4, 2, 3]))
    assert torch.allclose(loss, real)  # the pads are not graded
