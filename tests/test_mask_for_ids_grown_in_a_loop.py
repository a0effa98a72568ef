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


STRIDED_WINDOWS = """
import torch


def windowed_losses(model, tokenizer, texts, window=3, stride=2):
    enc = tokenizer(texts, return_tensors="pt", padding=True)
    input_ids = enc["input_ids"]
    losses = []
    for begin in range(0, input_ids.size(1), stride):
        end = min(begin + window, input_ids.size(1))
        ids_window = input_ids[:, begin:end]
        losses.append(model(input_ids=ids_window).logits.mean())
    return losses
"""


def test_windows_cut_anew_each_pass_keep_a_fix_that_cuts_the_mask_alike():
    """`ids_window = input_ids[:, a:b]` is made anew from the encoding's ids on each pass (it does not read
    its last value): the encoding's mask cut the same way fits it (a perplexity callback's strided windows)."""
    import pytest

    pytest.importorskip("torch")
    from padlint.engine import fix_source
    from tests.standin_tokenizer import StandInTokenizer

    source = textwrap.dedent(STRIDED_WINDOWS)
    assert pad003(STRIDED_WINDOWS).fix is not None
    fixed = fix_source(source, select={"PAD003"}, unsafe=True).source
    seen = []

    class Model:
        def __call__(self, input_ids, attention_mask=None):
            seen.append((input_ids.tolist(), attention_mask.tolist()))
            return type("Out", (), {"logits": input_ids.float()})()

    namespace: dict = {}
    exec(compile(fixed, "<fixed>", "exec"), namespace)
    tok = StandInTokenizer()
    texts = ["a b c d e f", "g", "h i j"]
    namespace["windowed_losses"](Model(), tok, texts)
    full = tok(texts, padding=True)
    assert len(seen) > 1
    for index, (ids, mask) in enumerate(seen):
        begin, width = index * 2, len(ids[0])  # the windows start every `stride` (2) positions
        assert ids == [r[begin : begin + width] for r in full["input_ids"]]
        assert mask == [r[begin : begin + width] for r in full["attention_mask"]]
