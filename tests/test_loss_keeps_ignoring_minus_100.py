"""A loss that ignores -100 is not moved to ignore a token or class id when the
labels in view are padded with one: labels from code out of view (the library collators, models' own
label handling) hold -100 too, and a -100 target the loss no longer ignores raises. A negative sentinel
is never a class, and the loss may still be told to ignore it: that fix is offered and runs.
Fixtures are our own."""

from __future__ import annotations

import importlib.util
import textwrap

import pytest
import torch
import torch.nn.functional as F

from padlint.engine import fix_source, lint_source

SHARDED = textwrap.dedent(
    """
    import torch.nn.functional as F
    from torch.nn.utils.rnn import pad_sequence


    def step(logits, tag_rows):
        targets = pad_sequence(tag_rows, batch_first=True, padding_value=PAD)
        return F.cross_entropy(logits.transpose(1, 2), targets, ignore_index=-100)
    """
)


@pytest.mark.parametrize("pad", ["0", "3"])
def test_no_fix_moves_the_loss_from_minus_100_to_a_token_id(pad):
    [finding] = [d for d in lint_source(SHARDED.replace("PAD", pad), "step.py") if d.code == "PAD007"]
    assert finding.fix is None
    assert "-100" in finding.no_fix


def test_a_negative_sentinel_is_still_made_the_ignored_value_and_runs(tmp_path):
    source = SHARDED.replace("PAD", "-1")
    [finding] = [d for d in lint_source(source, "step.py") if d.code == "PAD007"]
    assert finding.fix is not None and finding.fix.applicability.value == "safe"
    path = tmp_path / "step_fixed.py"
    path.write_text(fix_source(source, "step.py").source)
    spec = importlib.util.spec_from_file_location("padlint_step_fixed", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rows = [torch.tensor([4, 5, 6]), torch.tensor([7])]
    logits = torch.randn(2, 3, 9)
    loss = module.step(logits, rows)  # before the fix: a -1 target raises
    real = F.cross_entropy(logits[[0, 0, 0, 1], [0, 1, 2, 0]], torch.tensor([4, 5, 6, 7]))
    assert torch.allclose(loss, real)  # the pads are not graded
