"""Ids a tokenizer call is told to pad on the right (`padding_side="right"`) reach a causal decoder
without their mask: no real token attends to a later position, so the missing mask changes nothing a
real token reads (PAD003 stays silent, as for padding written in the code). The module may state
other sides for other calls (a left-padded prompt beside right-padded completions). Told "left", told
nothing, handed to `generate` or to a bidirectional encoder, the finding stays. Fixtures are our own."""

from __future__ import annotations

import textwrap

from padlint.engine import lint_source

SCORER = """
import torch
from transformers import {model_class}, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("my-org/decoder")
model = {model_class}.from_pretrained("my-org/decoder")


def completion_logps(prompt, completions):
    prompt_ids = tokenizer([prompt], return_tensors="pt", padding=True, padding_side="left")["input_ids"]
    answer_ids = tokenizer(completions, return_tensors="pt", padding=True{side})["input_ids"]
    merged = torch.cat([prompt_ids.repeat(answer_ids.shape[0], 1), answer_ids], dim=1)
    with torch.no_grad():
        logits = {call}
    logps = torch.gather(logits[:, :-1].log_softmax(-1), 2, merged[:, 1:, None]).squeeze(-1)
    return logps[:, prompt_ids.shape[1] - 1 :]
"""


def _pad003(
    side: str = ', padding_side="right"', model_class: str = "AutoModelForCausalLM", call: str = "model(merged).logits"
):
    source = textwrap.dedent(SCORER).format(side=side, model_class=model_class, call=call)
    return [f for f in lint_source(source, "score.py") if f.code == "PAD003"]


def test_right_pads_told_to_the_tokenizer_harm_no_causal_decoder():
    assert _pad003() == []


def test_left_pads_are_reported():
    assert len(_pad003(side=', padding_side="left"')) == 1


def test_a_side_nobody_states_is_reported():
    assert len(_pad003(side="")) == 1


def test_a_bidirectional_encoder_is_reported():
    assert len(_pad003(model_class="AutoModelForMaskedLM")) == 1
