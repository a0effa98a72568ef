"""Ones over what a decoder's `generate` returned, with the prompt's mask written over the leading
columns: an RL rollout's `mask = ones_like(seqs); mask[:, :prompt_len] = enc["attention_mask"]`. The
prompt's left pads get their zeros; what is left of the ones covers the new tokens, whose only pads come
after each row's EOS and so trail every real token of a causal decoder: nothing real reads them. Other
writes leave the finding."""

from __future__ import annotations

import textwrap

import pytest

from padlint.engine import lint_source

ROLLOUT = textwrap.dedent(
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained("gpt2", padding_side="left")
    tokenizer.add_special_tokens({"pad_token": "<pad>"})
    policy = AutoModelForCausalLM.from_pretrained("gpt2")


    def sample_logprobs(prompts, max_new_tokens=32):
        enc = tokenizer(prompts, padding=True, return_tensors="pt")
        with torch.no_grad():
            seqs = policy.generate(**enc, max_new_tokens=max_new_tokens, do_sample=True)
        mask = torch.ones_like(seqs)
        mask[:, : enc["input_ids"].size(1)] = enc["attention_mask"]
        logits = policy(input_ids=seqs, attention_mask=mask).logits
        return logits.log_softmax(-1)
    """
)


def codes(source: str) -> list[str]:
    return [d.code for d in lint_source(source, "rollout.py")]


def test_the_prompt_mask_over_the_leading_columns_leaves_only_trailing_pads():
    assert codes(ROLLOUT) == []


def test_through_a_dict_of_moved_tensors_too():
    moved = ROLLOUT.replace(
        '    enc = tokenizer(prompts, padding=True, return_tensors="pt")\n',
        '    enc = tokenizer(prompts, padding=True, return_tensors="pt")\n'
        '    enc = {k: v.to("cpu") for k, v in enc.items()}\n',
    )
    assert moved != ROLLOUT
    assert codes(moved) == []


@pytest.mark.parametrize(
    "write",
    [
        "",  # the ones alone: the prompt's left pads are attended
        '    mask[:, enc["input_ids"].size(1) :] = 1\n',  # ones again over the new tokens
        '    mask[:, : enc["input_ids"].size(1)] = 1\n',  # ones over the prompt: no mask
    ],
    ids=["no-write", "suffix", "prefix-of-ones"],
)
def test_other_writes_leave_the_ones_over_the_prompt_pads(write: str):
    source = ROLLOUT.replace('    mask[:, : enc["input_ids"].size(1)] = enc["attention_mask"]\n', write)
    assert source != ROLLOUT
    assert codes(source) == ["PAD001"]
