"""Padding by concatenating a block of pad ids: `pad_value * torch.ones(shape)`.

A preference or ORPO trainer brings chosen and rejected rows to one length with a helper that
concatenates a block of the pad value (`torch.cat([t, pad_value * torch.ones(*size)], dim)`), the
same block `torch.full(size, pad_value)` makes. Labels cloned from ids padded that way train on the
pads; labels padded through the same helper with -100, or a mask padded with 0, do not. The look
must find the block too, or the analysis never sees the file.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from test_fix_execution import load_module

from padlint.engine import fix_source, lint_source

PAD_TO_LENGTH = """
import torch
import torch.nn.functional as F


def pad_to_length(tensor, length, pad_value, dim=-1):
    if tensor.size(dim) >= length:
        return tensor
    size = list(tensor.shape)
    size[dim] = length - tensor.size(dim)
    return torch.cat([tensor, pad_value * torch.ones(*size, dtype=tensor.dtype)], dim=dim)
"""

PAIRS = (
    PAD_TO_LENGTH
    + """

class PairBatches:
    def __init__(self, pad_token_id, label_pad_token_id=-100):
        self.pad_token_id = pad_token_id
        self.label_pad_token_id = label_pad_token_id

    @staticmethod
    def joined(batch, pad_token_id):
        length = max(batch["chosen_input_ids"].shape[1], batch["rejected_input_ids"].shape[1])
        return {
            "input_ids": torch.cat(
                [
                    pad_to_length(batch["chosen_input_ids"], length, pad_token_id),
                    pad_to_length(batch["rejected_input_ids"], length, pad_token_id),
                ]
            ),
            "attention_mask": torch.cat(
                [
                    pad_to_length(batch["chosen_attention_mask"], length, 0),
                    pad_to_length(batch["rejected_attention_mask"], length, 0),
                ]
            ),
        }

    def __call__(self, batch):
        joined = self.joined(batch, self.pad_token_id)
        LABELS
        return {"input_ids": joined["input_ids"], "attention_mask": joined["attention_mask"], "labels": labels}
"""
)

CLONED = 'labels = joined["input_ids"].clone()'
PADDED_WITH_IGNORE = """length = joined["input_ids"].shape[1]
        labels = torch.cat(
            [
                pad_to_length(batch["chosen_labels"], length, self.label_pad_token_id),
                pad_to_length(batch["rejected_labels"], length, self.label_pad_token_id),
            ]
        )"""


def _codes(source: str) -> list[str]:
    return [d.code for d in lint_source(textwrap.dedent(source), "pairs.py")]


def test_labels_cloned_from_ids_padded_with_a_block_of_pad_ids_fire():
    assert "PAD002" in _codes(PAIRS.replace("LABELS", CLONED))


def test_labels_padded_with_minus_100_through_the_same_helper_are_silent():
    assert _codes(PAIRS.replace("LABELS", PADDED_WITH_IGNORE)) == []


def test_the_block_in_either_order_and_beside_the_ids_pads():
    step = """
        import torch
        import torch.nn.functional as F


        def step(model, ids, mask, pad_id, n):
            ids = torch.cat([ids, torch.ones(ids.size(0), n, dtype=ids.dtype) * pad_id], dim=1)
            mask = torch.cat([mask, torch.zeros(ids.size(0), n, dtype=mask.dtype)], dim=1)
            labels = ids.clone()
            logits = model(input_ids=ids, attention_mask=mask).logits
            return F.cross_entropy(logits.flatten(0, 1), labels.flatten())
        """
    assert _codes(step) == ["PAD002"]
    scaled = step.replace("* pad_id", "* scale").replace("pad_id, n", "scale, n")
    assert _codes(scaled) == []  # a factor that is no pad id makes no padding


def test_the_look_finds_the_block(tmp_path: Path):
    """Through the command line, where the first look decides which files are analysed."""
    from click.testing import CliRunner

    from padlint.cli.main import main

    path = tmp_path / "pairs.py"
    path.write_text(textwrap.dedent(PAIRS.replace("LABELS", CLONED)))
    result = CliRunner().invoke(main, ["check", "--no-cache", "--output-format", "concise", str(path)])
    assert "PAD002" in result.output


def test_the_fixed_batch_has_minus_100_exactly_at_the_pads(tmp_path: Path):
    torch = pytest.importorskip("torch")
    source = textwrap.dedent(PAIRS.replace("LABELS", CLONED))
    fixed = fix_source(source, "pairs.py", unsafe=True).source
    assert fixed != source
    path = tmp_path / "pairs_fixed.py"
    path.write_text(fixed)
    module = load_module(path, "pairs_fixed")
    pad, eos = 0, 2
    batch = {
        "chosen_input_ids": torch.tensor([[5, 6, 7, eos], [8, 9, eos, pad]]),
        "chosen_attention_mask": torch.tensor([[1, 1, 1, 1], [1, 1, 1, 0]]),
        "rejected_input_ids": torch.tensor([[5, 6, eos], [11, eos, pad]]),
        "rejected_attention_mask": torch.tensor([[1, 1, 1], [1, 1, 0]]),
    }
    out = module.PairBatches(pad_token_id=pad)(batch)
    pads = out["attention_mask"] == 0
    assert pads.sum() == 4  # one pad in a chosen row, one in a rejected row, and the rejected rows' block
    assert (out["labels"][pads] == -100).all()
    assert (out["labels"][~pads] == out["input_ids"][~pads]).all()
    assert (out["labels"][out["input_ids"] == eos] == eos).all()  # a real EOS keeps its label


EVAL_STEP = """
import torch


class Evaluator:
    def __init__(self, model, tokenizer):
        self.model = model
        self.tokenizer = tokenizer

    def _pad_to_len(self, tensor, length):
        pad_token_id = self.tokenizer.pad_token_id
        block = {block}
        block[:, : tensor.shape[-1]] = tensor
        return block

    def prediction_step(self, inputs, max_length):
        generated = self.model.generate(input_ids=inputs["input_ids"], attention_mask=inputs["attention_mask"])
        generated = self._pad_to_len(generated, max_length)
        {labels}
        return generated, labels
"""
BLOCKS = (
    "pad_token_id * torch.ones((tensor.shape[0], length), dtype=tensor.dtype)",
    "torch.full((tensor.shape[0], length), pad_token_id, dtype=tensor.dtype)",
)


@pytest.mark.parametrize("block", BLOCKS)
def test_labels_a_helper_pads_out_of_labels_are_not_padded_ids(block: str):
    """The helper pads whatever it is handed; handed the batch's labels (-100 already at their pads), what
    it returns is labels padded on their own, for the metrics, not a copy of padded ids."""
    labels = 'labels = self._pad_to_len(inputs["labels"], max_length)'
    assert _codes(EVAL_STEP.replace("{block}", block).replace("{labels}", labels)) == []


@pytest.mark.parametrize("block", BLOCKS)
def test_labels_copied_from_ids_the_same_helper_padded_fire(block: str):
    labels = 'labels = self._pad_to_len(inputs["input_ids"], max_length).clone()'
    assert "PAD002" in _codes(EVAL_STEP.replace("{block}", block).replace("{labels}", labels))
