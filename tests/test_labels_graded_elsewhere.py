"""Ids padded in one module and graded as labels in another.

A training script pads the target ids and hands them to the project's own wrapper model, imported from
another module, whose `forward` passes them to a pretrained model as `labels=`. The module that
defines the wrapper never sees the padding (its parameter is whatever callers pass), and the script
never sees the loss: the harm crosses the boundary at the call. padlint reports it there, with no
fix (the labels are made in the other module). Where the ids are masked before the call, or the
wrapper's loss skips the pad id, nothing is reported.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from padlint.engine import lint_source

WRAPPER = """
import torch.nn as nn
from transformers import T5ForConditionalGeneration


class Summarizer(nn.Module):
    def __init__(self, path):
        super().__init__()
        self.t5 = T5ForConditionalGeneration.from_pretrained(path)

    def forward(self, source_ids=None, source_mask=None, target_ids=None):
        return self.t5(input_ids=source_ids, attention_mask=source_mask, labels=target_ids).loss
"""

TRAIN = """
from modeling import Summarizer


def batch_of(pairs, tokenizer):
    source = tokenizer([p[0] for p in pairs], padding=True, return_tensors="pt")
    target = tokenizer([p[1] for p in pairs], padding=True, return_tensors="pt")
    {masking}
    return source, target


def train(model, loader, tokenizer, optimizer):
    for pairs in loader:
        source, target = batch_of(pairs, tokenizer)
        loss = model(source_ids=source["input_ids"], source_mask=source["attention_mask"], target_ids=target["input_ids"])
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    train(Summarizer("t5-small"), [], None, None)
"""


def _lint(tmp_path: Path, wrapper: str = WRAPPER, masking: str = "") -> list:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'summaries'\n")
    (tmp_path / "modeling.py").write_text(textwrap.dedent(wrapper))
    train = tmp_path / "train.py"
    train.write_text(textwrap.dedent(TRAIN.format(masking=masking)))
    return lint_source(train.read_text(), str(train))


def test_ids_padded_here_and_graded_in_another_module_are_reported_at_the_call(tmp_path: Path):
    found = _lint(tmp_path)
    assert [f.code for f in found] == ["PAD002"]
    assert "another module" in found[0].message and found[0].fix is None
    assert "model(source_ids=" in (tmp_path / "train.py").read_text().splitlines()[found[0].location.row - 1]


def test_ids_masked_before_the_call_are_right(tmp_path: Path):
    masking = 'target["input_ids"][target["attention_mask"] == 0] = -100'
    assert _lint(tmp_path, masking=masking) == []


def test_a_wrapper_whose_loss_skips_the_pad_id_needs_no_minus_100(tmp_path: Path):
    wrapper = WRAPPER.replace(
        "return self.t5(input_ids=source_ids, attention_mask=source_mask, labels=target_ids).loss",
        "logits = self.t5(input_ids=source_ids, attention_mask=source_mask, decoder_input_ids=target_ids).logits\n"
        "        loss = nn.CrossEntropyLoss(ignore_index=self.t5.config.pad_token_id)\n"
        "        return loss(logits.flatten(0, 1), target_ids.flatten())",
    )
    assert _lint(tmp_path, wrapper=wrapper) == []


def test_the_wrapper_module_alone_reports_nothing(tmp_path: Path):
    _lint(tmp_path)
    modeling = tmp_path / "modeling.py"
    assert lint_source(modeling.read_text(), str(modeling)) == []
