"""Labels that are the ids on one path and None on the other (`ids if turn_is_graded else None`): the
fix masks the ids, not the whole conditional, whose None path has no `masked_fill` (the edit raised
AttributeError on every turn that is not graded). Fixtures are our own; the fixed code is run."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).parent))
from standin_tokenizer import EOS_ID, PAD_ID, StandInTokenizer  # noqa: E402

from padlint.engine import fix_source, lint_source  # noqa: E402

BOUND = textwrap.dedent(
    """
    def turn_features(tokenizer, turn, width=16):
        enc = tokenizer(turn["text"], max_length=width, padding="max_length", truncation=True, return_tensors="pt")
        labels = enc["input_ids"][0] if turn["speaker"] == "assistant" else None
        return {"input_ids": enc["input_ids"][0], "attention_mask": enc["attention_mask"][0], "labels": labels}
    """
)
INLINE = textwrap.dedent(
    """
    def turn_features(tokenizer, turn, width=16):
        enc = tokenizer(turn["text"], max_length=width, padding="max_length", truncation=True, return_tensors="pt")
        return {
            "input_ids": enc["input_ids"][0],
            "attention_mask": enc["attention_mask"][0],
            "labels": None if turn["speaker"] == "user" else enc["input_ids"][0],
        }
    """
)


@pytest.mark.parametrize("source", [BOUND, INLINE], ids=["bound", "inline"])
def test_the_fixed_labels_mask_the_pads_and_keep_the_none_path(source, tmp_path):
    assert [d.code for d in lint_source(source, "turns.py")] == ["PAD002"]
    path = tmp_path / "turns_fixed.py"
    path.write_text(fix_source(source, "turns.py").source)
    spec = importlib.util.spec_from_file_location("padlint_turns_fixed", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    tokenizer = StandInTokenizer()
    graded = module.turn_features(tokenizer, {"text": "take the train", "speaker": "assistant"})
    ids, labels = graded["input_ids"], graded["labels"]
    assert torch.equal(labels == -100, ids == PAD_ID)  # -100 exactly at the pads
    assert labels[ids == EOS_ID].tolist() == [EOS_ID]  # the real EOS keeps its label
    assert module.turn_features(tokenizer, {"text": "where to", "speaker": "user"})["labels"] is None
