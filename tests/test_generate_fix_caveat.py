"""Handing `generate` the attention mask it was missing is not enough for a decoder-only model whose
prompts are padded on the right: it continues each row after its last position, after the pads. Where
the ids are not known to be padded on the left, the fix says so in its title (PAD013 reports right
padding where the side is known). Fixtures are our own."""

from __future__ import annotations

import textwrap

from padlint.engine import lint_source

EVAL = """
import torch


def answer_batch(model, tokenizer, prompts):
    {side}
    enc = tokenizer(prompts, return_tensors="pt", padding=True)
    ids = enc["input_ids"].to(model.device)
    with torch.no_grad():
        out = {call}
    return tokenizer.batch_decode(out, skip_special_tokens=True)
"""


def _title(side: str = "", call: str = "model.generate(ids, max_new_tokens=16)") -> str:
    source = textwrap.dedent(EVAL).replace("{side}", side).replace("{call}", call)
    [finding] = [f for f in lint_source(source, "evaluate.py") if f.code == "PAD003"]
    assert finding.fix is not None
    return finding.fix.message


def test_generate_with_prompts_of_unknown_side_says_to_pad_on_the_left():
    assert 'padding_side="left"' in _title()


def test_prompts_padded_on_the_left_need_no_caveat():
    assert "padding_side" not in _title(side='tokenizer.padding_side = "left"')


def test_a_forward_pass_needs_no_caveat():
    assert "padding_side" not in _title(call="model(ids).logits")
