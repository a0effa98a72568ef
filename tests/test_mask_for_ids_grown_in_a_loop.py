"""A decoding loop that grows the ids (`ids = torch.cat([ids, next_token], dim=1)`) and calls the model
on them each pass: a fix handing the model the encoding's mask, taken once, gives it a mask shorter than
the ids from the second pass on (transformers accepts it and the logits change). The finding stays,
with no fix and a help line that says why; where the ids are not grown, the fix is offered."""

from __future__ import annotations

import textwrap

from padlint.engine import lint_source

GROWN_SPLIT = """
import torch


def greedy(model, tokenizer, prompts, steps=4):
    input_ids = tokenizer(prompts, return_tensors="pt", padding=True).input_ids
    for _ in range(steps):
        logits = model(input_ids).logits[:, -1, :]
        input_ids = torch.cat([input_ids, logits.argmax(-1, keepdim=True)], dim=1)
    return input_ids
"""

GROWN_KEPT = """
import torch


def greedy(model, tokenizer, prompts, steps=4):
    enc = tokenizer(prompts, return_tensors="pt", padding=True)
    input_ids = enc.input_ids
    for _ in range(steps):
        logits = model(input_ids).logits[:, -1, :]
        input_ids = torch.cat([input_ids, logits.argmax(-1, keepdim=True)], dim=1)
    return input_ids
"""


def pad003(source: str):
    (found,) = [d for d in lint_source(textwrap.dedent(source)) if d.code == "PAD003"]
    return found


def test_ids_grown_in_the_loop_get_no_fix_and_say_why():
    for source in (GROWN_SPLIT, GROWN_KEPT):
        found = pad003(source)
        assert found.fix is None
        assert "grows the ids" in (found.no_fix or "")


def test_ids_not_grown_keep_their_fix():
    for source in (GROWN_SPLIT, GROWN_KEPT):
        unchanged = source.replace(
            "input_ids = torch.cat([input_ids, logits.argmax(-1, keepdim=True)], dim=1)",
            "print(logits.argmax(-1))",
        )
        assert pad003(unchanged).fix is not None
