"""A model that feeds its labels to the decoder as input ids (library table `labels_as_inputs` rows:
BlipForQuestionAnswering) turns a -100 fix into an IndexError: the PAD002 finding stays, its fix is
withheld with the reason. The model is often loaded in a module that never imports the collate function
(seen in bench/fresh23), so the project's files are read for it. Fixtures are our own."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from padlint.engine import lint_source

COLLATE = """
from transformers import BlipProcessor


def collate_vqa(batch, processor: BlipProcessor):
    inputs = processor(images=[b["image"] for b in batch], text=[b["question"] for b in batch],
                       padding=True, return_tensors="pt")
    answers = processor.tokenizer([b["answer"] for b in batch], padding=True, return_tensors="pt")
    inputs["labels"] = answers["input_ids"]
    return inputs
"""

MODEL = """
from transformers import {cls}


def load(name):
    return {cls}.from_pretrained(name)
"""


def _pad002(tmp_path: Path, model_class: str | None):
    (tmp_path / ".git").mkdir()
    (tmp_path / "data").mkdir()
    collate = tmp_path / "data" / "collate.py"
    collate.write_text(textwrap.dedent(COLLATE))
    if model_class is not None:
        (tmp_path / "models.py").write_text(textwrap.dedent(MODEL.format(cls=model_class)))
    [finding] = [f for f in lint_source(collate.read_text(), str(collate)) if f.code == "PAD002"]
    return finding


def test_a_project_using_blip_vqa_gets_no_minus_100_fix(tmp_path):
    finding = _pad002(tmp_path, "BlipForQuestionAnswering")
    assert finding.fix is None
    assert "BlipForQuestionAnswering" in finding.no_fix and "decoder_attention_mask" in finding.no_fix


def test_a_project_using_blip_captioning_keeps_the_fix(tmp_path):
    """BlipForConditionalGeneration reads the ids as decoder inputs and the labels only as targets."""
    assert _pad002(tmp_path, "BlipForConditionalGeneration").fix is not None


def test_the_collate_alone_keeps_the_fix(tmp_path):
    assert _pad002(tmp_path, None).fix is not None


def test_the_table_row_holds_for_the_installed_transformers():
    """BlipForQuestionAnswering with -100 in its labels and no decoder_input_ids raises; with the ids
    passed as decoder inputs, the same labels are graded."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    text = {
        "vocab_size": 32,
        "hidden_size": 16,
        "num_hidden_layers": 1,
        "num_attention_heads": 2,
        "intermediate_size": 32,
        "max_position_embeddings": 16,
        "encoder_hidden_size": 16,
    }
    vision = {
        "hidden_size": 16,
        "num_hidden_layers": 1,
        "num_attention_heads": 2,
        "intermediate_size": 32,
        "image_size": 16,
        "patch_size": 8,
    }
    model = transformers.BlipForQuestionAnswering(transformers.BlipConfig(text_config=text, vision_config=vision))
    model.eval()
    pixels = torch.zeros(2, 3, 16, 16)
    question = torch.tensor([[1, 5, 6, 2], [1, 7, 2, 0]])
    answer = torch.tensor([[1, 8, 9, 2], [1, 10, 2, 0]])
    masked = answer.masked_fill(answer == 0, -100)
    with pytest.raises(IndexError):
        model(input_ids=question, pixel_values=pixels, labels=masked)
    out = model(input_ids=question, pixel_values=pixels, decoder_input_ids=answer, labels=masked)
    assert torch.isfinite(out.loss).all()


# One value handed to the model both as its decoder's input ids and as its labels (a seq2seq loop that
# passes its targets unshifted): -100 written into the labels would reach the decoder's embedding.
LOOP = """
from torch.utils.data import DataLoader, TensorDataset
from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("t5-small")
model = AutoModelForSeq2SeqLM.from_pretrained("t5-small")
sources, summaries = ["a b c", "d"], ["e f", "g h i j"]
ids = tokenizer(sources, padding=True, return_tensors="pt").input_ids
train_labels = tokenizer(summaries, padding=True, return_tensors="pt").input_ids
for x, y in DataLoader(TensorDataset(ids, train_labels), batch_size=2):
    loss = model(input_ids=x{decoder}, labels=y).loss
    loss.backward()
"""


@pytest.mark.parametrize(("decoder", "fixed"), [(", decoder_input_ids=y", False), ("", True)], ids=["same", "none"])
def test_labels_also_given_as_decoder_inputs_get_no_minus_100_fix(decoder: str, fixed: bool):
    [finding] = [d for d in lint_source(LOOP.format(decoder=decoder), "loop.py") if d.code in ("PAD002", "PAD006")]
    assert (finding.fix is not None) == fixed
    if not fixed:
        assert "both as `labels=` and as `decoder_input_ids=`" in finding.no_fix


# A causal LM given one encoding's ids as `input_ids=` and as `labels=` in two loops: each finding's fix
# writes at its own call's `labels=`, so the ids the model reads keep their tokens in both.
TWO_LOOPS = """
from transformers import AutoModelForCausalLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("microsoft/git-base")
model = AutoModelForCausalLM.from_pretrained("microsoft/git-base")


def train_step(texts):
    enc = tokenizer(texts, padding="max_length", max_length=16, return_tensors="pt")
    return model(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"], labels=enc["input_ids"]).loss


def eval_step(texts):
    enc = tokenizer(texts, padding="max_length", max_length=16, return_tensors="pt")
    return model(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"], labels=enc["input_ids"]).loss
"""


def test_each_call_fixed_at_its_own_labels_keeps_its_fix():
    findings = [d for d in lint_source(TWO_LOOPS, "loops.py") if d.code == "PAD002"]
    assert len(findings) == 2
    assert all(d.fix is not None for d in findings)
