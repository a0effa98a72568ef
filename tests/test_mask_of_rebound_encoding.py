"""A fix that hands the model the encoding's attention mask reads it under the encoding's name: once
that name holds a tensor of the ids (`inputs = torch.LongTensor(inputs["input_ids"])`), the mask is no
longer there, and a fix reading `inputs["attention_mask"]` would raise where it runs. The finding
stays; the fix is not offered. Where the encoding keeps its name, the fix is offered and runs."""

from __future__ import annotations

import textwrap

import pytest

from padlint.engine import fix_source, lint_source

REBOUND = textwrap.dedent(
    """
    import torch


    def train_step(model, tokenizer, texts, optimizer):
        inputs = tokenizer(texts, padding="max_length", max_length=12, truncation=True)
        inputs = torch.LongTensor(inputs["input_ids"])
        logits = model(inputs).logits
        loss = logits.float().pow(2).mean()
        loss.backward()
        optimizer.step()
        return loss
    """
)

KEPT = REBOUND.replace(
    'inputs = torch.LongTensor(inputs["input_ids"])\n    logits = model(inputs).logits',
    'ids = torch.LongTensor(inputs["input_ids"])\n    logits = model(ids).logits',
)


def test_a_rebound_encoding_name_gives_no_fix():
    (found,) = [d for d in lint_source(REBOUND) if d.code == "PAD003"]
    assert found.fix is None
    assert "attention_mask" in (found.no_fix or "")


def test_the_kept_encoding_gets_a_fix_that_runs():
    torch = pytest.importorskip("torch")
    (found,) = [d for d in lint_source(KEPT) if d.code == "PAD003"]
    assert found.fix is not None
    fixed = fix_source(KEPT, select={"PAD003"}, unsafe=True).source
    namespace: dict = {}
    exec(compile(fixed, "<fixed>", "exec"), namespace)

    seen = {}

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.ones(1))

        def forward(self, input_ids, attention_mask=None):
            seen["mask"] = attention_mask
            return type("Out", (), {"logits": self.w * input_ids.float()})()

    class Tokenizer:
        def __call__(self, texts, padding, max_length, truncation):
            rows = [[5 + len(w) for w in t.split()] for t in texts]
            return {
                "input_ids": [r + [0] * (max_length - len(r)) for r in rows],
                "attention_mask": [[1] * len(r) + [0] * (max_length - len(r)) for r in rows],
            }

    model = Model()
    namespace["train_step"](model, Tokenizer(), ["a bb ccc", "dddd"], torch.optim.SGD(model.parameters(), lr=0.1))
    mask = torch.as_tensor(seen["mask"])
    assert mask.tolist() == [[1] * 3 + [0] * 9, [1] + [0] * 11]
