"""A mask lost where a function hands back the ids alone is reported at that function's own return, also when
the function called a helper (with returns of its own) before: the walk of a callee must not leave its return
nodes behind (seen on unseen code: the finding pointed at a device helper's `return`). Fixtures are our own."""

from __future__ import annotations

import textwrap

from padlint.engine import lint_source

ENCODER = """
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained("gpt2", padding_side="left")
    tok.pad_token = tok.eos_token
    policy = AutoModelForCausalLM.from_pretrained("gpt2")


    def model_device(model):
        return next(model.parameters()).device


    def encode(model, prompts):
        device = model_device(model)
        inputs = tok(prompts, return_tensors="pt", padding=True).to(device)
        return inputs["input_ids"]


    def logprobs(model, ids):
        return model(ids).logits.log_softmax(-1)


    prompts = [line.strip() for line in open("prompts.txt")]
    for step in range(0, len(prompts), 8):
        ids = encode(policy, prompts[step : step + 8])
        logprobs(policy, ids).sum().backward()
"""


def test_the_finding_points_at_the_return_that_drops_the_mask():
    found = [(d.code, d.location.row) for d in lint_source(textwrap.dedent(ENCODER), "rollout.py")]
    assert found == [("PAD003", 16)]  # `return inputs["input_ids"]`, never the helper's return (line 10)
