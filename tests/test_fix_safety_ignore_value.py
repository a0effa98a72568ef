"""A fix that writes -100 into labels is right only if the loss reading them ignores -100. Where the
module shows another ignore value (labels it marks with the pad id, a loss given another
`ignore_index`), that loss decides and is not in view: the fix is offered as unsafe, not safe (seen on
unseen code: a "safe" -100 made `CrossEntropyLoss(ignore_index=pad_id)` raise on its target)."""

from __future__ import annotations

import textwrap

from padlint.engine import lint_source
from padlint.types import Applicability

COPY_LABELS = """
def encode_plain(tokenizer, text, max_len=64):
    out = tokenizer(text, padding="max_length", max_length=max_len, truncation=True)
    out["labels"] = list(out["input_ids"])
    return out
"""

MARKS_PROMPT_WITH_PAD_ID = """
def encode_chat(tokenizer, prompt, answer, max_len=64):
    prompt_ids = tokenizer.encode(prompt, add_special_tokens=False)
    answer_ids = tokenizer.encode(answer, add_special_tokens=False)
    labels = [tokenizer.pad_token_id] * len(prompt_ids) + answer_ids
    return {"input_ids": prompt_ids + answer_ids, "labels": labels}
"""

LOSS_IGNORES_PAD_ID = """
import torch.nn as nn


def make_criterion(tokenizer):
    return nn.CrossEntropyLoss(ignore_index=tokenizer.pad_token_id)
"""


def _pad002_fix(source: str):
    found = [d for d in lint_source(textwrap.dedent(source), "data.py") if d.code == "PAD002"]
    assert len(found) == 1, found
    assert found[0].fix is not None
    return found[0].fix.applicability


def test_copy_of_padded_ids_gets_a_safe_fix_when_only_minus_100_is_in_view():
    assert _pad002_fix(COPY_LABELS) is Applicability.SAFE


def test_the_fix_is_unsafe_where_the_module_marks_labels_with_the_pad_id():
    assert _pad002_fix(COPY_LABELS + MARKS_PROMPT_WITH_PAD_ID) is Applicability.UNSAFE


def test_the_fix_is_unsafe_where_a_loss_of_the_module_ignores_another_value():
    ignores_minus_one = LOSS_IGNORES_PAD_ID.replace("tokenizer.pad_token_id", "-1")
    assert _pad002_fix(COPY_LABELS + ignores_minus_one) is Applicability.UNSAFE


def test_labels_handed_on_beside_a_loss_that_ignores_zero_are_no_finding():
    """0 may be the pad id these labels are padded with (its value is out of view): that loss may skip them."""
    ignores_zero = LOSS_IGNORES_PAD_ID.replace("tokenizer.pad_token_id", "0")
    assert "PAD002" not in [d.code for d in lint_source(textwrap.dedent(COPY_LABELS + ignores_zero), "data.py")]


def test_labels_handed_on_where_a_loss_of_the_module_ignores_the_pad_id_are_no_finding():
    """The labels go to a reader out of view, and the module's own loss skips the pad id they are padded
    with: that reader may be this loss (tests/test_readers_beside.py)."""
    found = [d.code for d in lint_source(textwrap.dedent(COPY_LABELS + LOSS_IGNORES_PAD_ID), "data.py")]
    assert "PAD002" not in found


TEACHER_FORCED_MODEL = """
import torch.nn as nn


class SpeechToText(nn.Module):
    def __init__(self, vocab, width=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.head = nn.Linear(width, vocab)

    def forward(self, features, labels=None):
        inputs = self.embed(labels[:, :-1])  # the labels are the next step's input ids
        return self.head(inputs + features.mean(1, keepdim=True))
"""


def test_the_fix_is_unsafe_where_the_projects_own_model_reads_labels(tmp_path):
    """The labels' reader may be the project's model, which feeds them back as input ids: -100 there
    raises in the embedding lookup, so a -100 fix is not sure to be right (fresh5, WhisperLlama)."""
    (tmp_path / "model.py").write_text(TEACHER_FORCED_MODEL)
    data = tmp_path / "data.py"
    data.write_text("from model import *\n" + textwrap.dedent(COPY_LABELS))
    found = [d for d in lint_source(data.read_text(), str(data)) if d.code == "PAD002"]
    assert [d.fix.applicability for d in found if d.fix] == [Applicability.UNSAFE]
    (tmp_path / "model.py").write_text(
        TEACHER_FORCED_MODEL.replace("labels=None", "targets=None").replace("labels[", "targets[")
    )
    found = [d for d in lint_source(data.read_text(), str(data)) if d.code == "PAD002"]
    assert [d.fix.applicability for d in found if d.fix] == [Applicability.SAFE]
