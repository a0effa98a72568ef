"""A function defined inside another and never read there (not called, returned, handed to `map` or
stored) never runs: what it would do to a batch is no harm, and nothing inside it is reported. One the
enclosing function uses in any of those ways is judged as before. Fixtures are our own."""

from __future__ import annotations

import textwrap

import pytest

from padlint.engine import lint_source

TRAINER = textwrap.dedent(
    """
    import torch
    from torch.nn.utils.rnn import pad_sequence


    class Runner:
        def __init__(self, tokenizer, model):
            self.tokenizer = tokenizer
            self.model = model

        def losses(self, rows):
            def loss_v1(batch):
                ids = pad_sequence([torch.tensor(r) for r in batch], batch_first=True, padding_value=self.tokenizer.pad_token_id)
                return self.model(input_ids=ids, labels=ids.clone()).loss

            def loss(batch):
                enc = self.tokenizer(batch, padding=True, return_tensors="pt")
                labels = enc["input_ids"].masked_fill(enc["attention_mask"] == 0, -100)
                return self.model(**enc, labels=labels).loss

            return [USE for batch in rows]
    """
)


def codes(use: str, decorated: bool = False) -> list[str]:
    source = TRAINER.replace("USE", use)
    if decorated:
        source = source.replace("        def loss_v1(batch):", "        @torch.no_grad()\n        def loss_v1(batch):")
    return [d.code for d in lint_source(source, "runner.py")]


def test_a_nested_function_nothing_reads_is_not_judged():
    assert "PAD002" not in codes("loss(batch)")


@pytest.mark.parametrize(
    "use",
    ["loss_v1(batch)", "list(map(loss_v1, [batch]))", "(loss_v1 if batch else loss)(batch)"],
    ids=["called", "handed-to-map", "chosen"],
)
def test_a_nested_function_the_enclosing_one_uses_is_judged(use):
    assert "PAD002" in codes(use)


def test_a_decorated_nested_function_may_be_registered_and_is_judged():
    assert "PAD002" in codes("loss(batch)", decorated=True)


def test_a_call_from_its_own_body_does_not_make_it_run():
    recursive = TRAINER.replace(
        "return self.model(input_ids=ids, labels=ids.clone()).loss",
        "return self.model(input_ids=ids, labels=ids.clone()).loss if batch else loss_v1(batch[1:])",
    ).replace("USE", "loss(batch)")
    assert "PAD002" not in [d.code for d in lint_source(recursive, "runner.py")]
