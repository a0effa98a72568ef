"""Mechanisms behind false alarms left on the 82 unseen repositories (issue 12, the `now` re-scan): each
near-miss must stay silent and its buggy sibling, differing only in what the mechanism reads, must still
be reported. Fixtures are our own."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from standin_tokenizer import StandInTokenizer  # noqa: E402

from padlint.engine import fix_source, lint_source  # noqa: E402


def codes(source: str, filename: str = "case.py") -> list[str]:
    return sorted({d.code for d in lint_source(textwrap.dedent(source), filename)})


# ---- `encode` encodes one sequence: "longest" padding pads nothing there ------------------------------
ENCODE_ONE_REVIEW = """
    def classify(model, tokenizer, reviews):
        review = reviews[3]
        ids = tokenizer.encode(review, truncation=True, padding=True, return_tensors="pt")
        return model(ids).logits.argmax(-1)
"""


def test_encode_of_a_text_not_known_to_be_a_batch_pads_nothing():
    assert "PAD003" not in codes(ENCODE_ONE_REVIEW)


def test_encode_to_a_fixed_width_still_pads():
    assert "PAD003" in codes(ENCODE_ONE_REVIEW.replace("padding=True", 'padding="max_length", max_length=64'))


def test_encode_of_a_list_of_texts_pads_them_to_the_longest():
    batch = ENCODE_ONE_REVIEW.replace("review = reviews[3]", "review = [reviews[3], reviews[4]]")
    assert "PAD003" in codes(batch)


def test_calling_the_tokenizer_on_an_unknown_text_still_counts_as_a_batch():
    called = ENCODE_ONE_REVIEW.replace("tokenizer.encode(review,", "tokenizer(review,").replace(
        'return_tensors="pt")', 'return_tensors="pt")["input_ids"]'
    )
    assert "PAD003" in codes(called)


# ---- right pads before a causal decoder: no real token reads them --------------------------------------
RIGHT_PADDED_DECODER = """
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model = AutoModelForCausalLM.from_pretrained("my-org/small-decoder")
    tokenizer = AutoTokenizer.from_pretrained("my-org/small-decoder", padding_side="right")

    def loss_on(texts):
        ids = tokenizer(texts, padding=True, truncation=True, return_tensors="pt")["input_ids"]
        labels = ids.masked_fill(ids == tokenizer.pad_token_id, -100)
        return model(input_ids=ids, labels=labels).loss
"""


def test_right_pads_for_a_causal_decoder_need_no_mask():
    assert "PAD003" not in codes(RIGHT_PADDED_DECODER)


def test_left_pads_for_the_same_decoder_still_need_it():
    assert "PAD003" in codes(RIGHT_PADDED_DECODER.replace('padding_side="right"', 'padding_side="left"'))


def test_a_side_the_module_does_not_state_is_not_taken_as_right():
    assert "PAD003" in codes(RIGHT_PADDED_DECODER.replace(', padding_side="right"', ""))


def test_generation_after_right_pads_still_needs_the_mask():
    generating = RIGHT_PADDED_DECODER.replace(
        "return model(input_ids=ids, labels=labels).loss", "return model.generate(input_ids=ids, max_new_tokens=8)"
    )
    assert "PAD003" in codes(generating)


def test_a_bidirectional_encoder_reads_right_pads():
    encoder = RIGHT_PADDED_DECODER.replace("AutoModelForCausalLM", "AutoModelForMaskedLM")
    assert "PAD003" in codes(encoder)


# ---- a mask is judged by the value stored last under its name ------------------------------------------
MASK_REBUILT_UNDER_ITS_NAME = """
    import numpy as np
    import torch

    def pack(tokenizer, prompt_ids, answer_ids, width):
        ids = prompt_ids + answer_ids
        labels = [-100] * len(prompt_ids) + answer_ids
        gap = width - len(ids)
        attention_mask = [1] * len(ids)
        ids = ids + [tokenizer.pad_token_id] * gap
        attention_mask = attention_mask + [1] * gap
        labels = labels + [-100] * gap
        square = np.tril(np.array([attention_mask] * width))
        attention_mask = torch.from_numpy(square)[None]
        return {"input_ids": torch.tensor(ids), "attention_mask": attention_mask, "labels": torch.tensor(labels)}
"""


def test_a_mask_rebuilt_by_code_the_analysis_cannot_read_is_not_judged_by_its_first_value():
    assert "PAD001" not in codes(MASK_REBUILT_UNDER_ITS_NAME)


def test_the_same_mask_converted_as_it_is_still_holds_ones_over_the_pads():
    kept = MASK_REBUILT_UNDER_ITS_NAME.replace(
        "attention_mask = torch.from_numpy(square)[None]", "attention_mask = torch.tensor(attention_mask)"
    )
    assert "PAD001" in codes(kept)


def test_a_mask_never_stored_again_keeps_its_finding():
    left = MASK_REBUILT_UNDER_ITS_NAME.replace("        attention_mask = torch.from_numpy(square)[None]\n", "")
    assert "PAD001" in codes(left)


# ---- pads written over with a token of text are no padding any more ------------------------------------
DIGITS_TO_FIXED_WIDTH = """
    import torch

    def scores_as_tokens(model, tokenizer, scores):
        texts = [f"{s:.1f}" for s in scores]
        ids = torch.tensor([tokenizer.encode(t, padding="max_length", max_length=6) for t in texts])
        zero = tokenizer.encode("0", add_special_tokens=False)[0]
        ids[ids == tokenizer.pad_token_id] = zero
        return model(input_ids=ids).logits
"""


def test_pads_replaced_by_a_digit_token_hold_no_padding():
    assert "PAD003" not in codes(DIGITS_TO_FIXED_WIDTH)


def test_pads_replaced_by_the_eos_are_still_padding():
    eos = DIGITS_TO_FIXED_WIDTH.replace(
        "ids[ids == tokenizer.pad_token_id] = zero", "ids[ids == tokenizer.pad_token_id] = tokenizer.eos_token_id"
    )
    assert "PAD003" in codes(eos)


def test_pads_replaced_by_a_constant_are_still_padding():
    constant = DIGITS_TO_FIXED_WIDTH.replace(
        "ids[ids == tokenizer.pad_token_id] = zero", "ids[ids == tokenizer.pad_token_id] = 0"
    )
    assert "PAD003" in codes(constant)


def test_writing_the_digit_token_elsewhere_leaves_the_pads():
    elsewhere = DIGITS_TO_FIXED_WIDTH.replace("ids[ids == tokenizer.pad_token_id] = zero", "ids[:, 0] = zero")
    assert "PAD003" in codes(elsewhere)


# ---- a fix passes `attention_mask=` only to a model whose forward takes it -----------------------------
OWN_ENCODER = """
    import torch
    from torch import nn


    class TinyEncoder(nn.Module):
        def __init__(self, vocab):
            super().__init__()
            self.embed = nn.Embedding(vocab, 4)

        def forward(self, idx, targets=None):
            return self.embed(idx).sum(-1)


    def encode_all(tokenizer, texts):
        model = TinyEncoder(1000)
        enc = tokenizer(texts, padding=True, return_tensors="pt")
        return model(enc["input_ids"])
"""

OWN_MASKED_ENCODER = OWN_ENCODER.replace(
    "def forward(self, idx, targets=None):\n            return self.embed(idx).sum(-1)",
    "def forward(self, idx, attention_mask=None):\n"
    "            self.seen_mask = attention_mask\n"
    "            return self.embed(idx).sum(-1)",
).replace('        return model(enc["input_ids"])', '        model(enc["input_ids"])\n        return model')


def _mask_fixes(source: str) -> list:
    return [d.fix for d in lint_source(textwrap.dedent(source), "case.py") if d.code == "PAD003" and d.fix]


def test_a_forward_that_takes_no_mask_is_judged_by_its_body():
    # No mask can be handed to it and nothing in it attends (an embedding summed): no finding, and
    # certainly no `attention_mask=` that would raise a TypeError.
    found = [d for d in lint_source(textwrap.dedent(OWN_ENCODER), "case.py") if d.code == "PAD003"]
    assert not found


def test_a_forward_taking_the_mask_gets_it_and_the_fixed_code_runs(tmp_path):
    torch = pytest.importorskip("torch")
    assert OWN_MASKED_ENCODER != OWN_ENCODER and _mask_fixes(OWN_MASKED_ENCODER)
    fixed = fix_source(textwrap.dedent(OWN_MASKED_ENCODER), "case.py", select=["PAD003"]).source
    path = tmp_path / "fixed_encoder.py"
    path.write_text(fixed)
    spec = importlib.util.spec_from_file_location("fixed_encoder", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    tokenizer = StandInTokenizer()
    model = module.encode_all(tokenizer, ["the cat sat", "a longer line of words here", "hi"])
    ids = tokenizer(["the cat sat", "a longer line of words here", "hi"], padding=True, return_tensors="pt")
    assert torch.equal(model.seen_mask, ids["attention_mask"])
    assert torch.equal(model.seen_mask, (ids["input_ids"] != tokenizer.pad_token_id).long())
