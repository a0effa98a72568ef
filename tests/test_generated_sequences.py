"""The sequences `generate` returns keep the prompts' padding.

A decoder-only model's `generate` hands back the ids it was given, padded as they were, with the new
tokens after them (transformers' GenerationMixin; the library table's generate row, style
`continues`). Prompts padded on the left for generation keep their pads at the front: a policy, a
reference model or a reward model that scores the sequences without a mask lets every token attend to
them. The prompts' mask is shorter than the sequences, so no fix is offered. An encoder-decoder returns
decoder tokens only, one prompt pads nothing, and a mask passed along or sequences only decoded are right.
"""

from __future__ import annotations

import textwrap

from padlint.engine import lint_source

ROLLOUT = """
import torch
from transformers import {model_class}, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("policy", padding_side="left")
policy = {model_class}.from_pretrained("policy")
reference = {model_class}.from_pretrained("policy")


def sequence_logprobs(prompts):
    enc = tokenizer(prompts, return_tensors="pt", padding=True)
    width = enc["input_ids"].shape[1]
    {generate}
    completion = seqs[:, width:]
    with torch.no_grad():
        ref_logits = reference({score}).logits[:, width - 1 : -1]
    logits = policy({score}).logits[:, width - 1 : -1]
    picked = torch.log_softmax(logits, -1).gather(2, completion.unsqueeze(-1)).squeeze(-1)
    return picked.sum(-1), ref_logits
"""


def findings(
    model_class="AutoModelForCausalLM", generate="seqs = policy.generate(**enc, max_new_tokens=16)", score="seqs"
):
    source = ROLLOUT.format(model_class=model_class, generate=generate, score=score)
    return lint_source(textwrap.dedent(source), "rollout.py")


def test_generated_sequences_scored_without_a_mask_are_reported_without_a_fix():
    found = findings()
    assert [f.code for f in found] == ["PAD003", "PAD003"]
    assert all("`generate` returned" in f.message and f.fix is None for f in found)


def test_ids_handed_by_keyword_are_continued_too():
    generate = 'seqs = policy.generate(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"])'
    assert [f.code for f in findings(generate=generate)] == ["PAD003", "PAD003"]


def test_a_mask_passed_with_the_sequences_is_right():
    score = "seqs, attention_mask=torch.cat([enc['attention_mask'], (completion != tokenizer.pad_token_id).long()], 1)"
    assert findings(score=score) == []


def test_an_encoder_decoder_returns_decoder_tokens_only():
    assert findings(model_class="AutoModelForSeq2SeqLM") == []


def test_one_prompt_pads_nothing():
    generate = "seqs = policy.generate(**tokenizer([prompts[0]], return_tensors='pt', padding=True))"
    assert findings(generate=generate) == []


def test_sequences_only_decoded_reach_no_model():
    source = (
        ROLLOUT.format(
            model_class="AutoModelForCausalLM", generate="seqs = policy.generate(**enc)", score="seqs"
        ).split("    completion = ")[0]
        + "    return tokenizer.batch_decode(seqs, skip_special_tokens=True)\n"
    )
    assert lint_source(textwrap.dedent(source), "rollout.py") == []
