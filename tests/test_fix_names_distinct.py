"""Two fixes of one function that each name an encoding must not bind the same name: applied together,
the first call's mask would be read after the second encoding took the name (an unlearning step that
tokenizes the forget and the retain batch, then runs both: the forget batch got the retain batch's
mask). Run on the stand-in tokenizer: each model call receives the mask of its own batch."""

from __future__ import annotations

import textwrap

import pytest

from padlint.engine import fix_source
from tests.standin_tokenizer import StandInTokenizer

SOURCE = textwrap.dedent(
    """
    def unlearn(model, tokenizer, forget, retain):
        forget_ids = tokenizer(forget, padding=True, return_tensors="pt")["input_ids"]
        for start in range(0, len(retain), 3):
            batch = retain[start : start + 3]
            forget_score = model(forget_ids).logits.mean()
            retain_ids = tokenizer(batch, padding=True, return_tensors="pt")["input_ids"]
            retain_score = model(retain_ids).logits.mean()
            (retain_score - forget_score).item()
    """
)


def test_each_call_gets_its_own_batchs_mask():
    pytest.importorskip("torch")
    fixed = fix_source(SOURCE, select={"PAD003"}, unsafe=True).source
    assert fixed.count("attention_mask=") == 2
    seen = []

    class Model:
        def __call__(self, input_ids, attention_mask=None):
            seen.append((input_ids.shape, attention_mask.shape, attention_mask.tolist()))
            return type("Out", (), {"logits": input_ids.float()})()

    namespace: dict = {}
    exec(compile(fixed, "<fixed>", "exec"), namespace)
    tok = StandInTokenizer()
    forget, retain = ["a b c d e f", "a"], ["x y", "z", "w v u"]
    namespace["unlearn"](Model(), tok, forget, retain + retain)
    assert len(seen) == 4
    for (ids_shape, mask_shape, mask), texts in zip(seen, (forget, retain, forget, retain)):
        assert ids_shape == mask_shape
        assert mask == tok(texts, padding=True)["attention_mask"]
