"""Labels read off a padded tokenizer call and moved on (`tok(answers, padding=True).input_ids.to(device)`):
the fix names the encoding and writes the labels once, moved the same way and masked by the encoding's
mask, moved too. (Two edits of the same text used to overlap, and the fix was dropped.) Run on a ragged
batch: -100 exactly at the pads, a real EOS keeps its label."""

from __future__ import annotations

import textwrap

import pytest

from padlint.engine import fix_source, lint_source
from tests.standin_tokenizer import EOS_ID, PAD_ID, StandInTokenizer

LOOP = textwrap.dedent(
    """
    def train_step(model, tokenizer, questions, answers, device="cpu"):
        inputs = tokenizer(questions, return_tensors="pt", padding=True).to(device)
        labels = tokenizer(answers, return_tensors="pt", padding=True).input_ids.to(device)
        return model(input_ids=inputs["input_ids"], attention_mask=inputs["attention_mask"], labels=labels)
    """
)


def test_the_fix_masks_the_moved_labels_and_it_is_right():
    torch = pytest.importorskip("torch")
    [finding] = [d for d in lint_source(LOOP, "loop.py") if d.code == "PAD002"]
    assert finding.fix is not None
    fixed = fix_source(LOOP, "loop.py").source
    namespace: dict = {}
    exec(compile(fixed, "fixed", "exec"), namespace)
    seen = {}
    namespace["train_step"](lambda **kw: seen.update(kw), StandInTokenizer(), ["q one", "q"], ["a b c", "d"])
    labels = seen["labels"]
    ids = StandInTokenizer()(["a b c", "d"], return_tensors="pt", padding=True)["input_ids"]
    assert torch.equal(labels == -100, ids == PAD_ID)  # -100 exactly at the pads
    assert (labels == EOS_ID).sum().item() == 2  # each row's real EOS keeps its label
