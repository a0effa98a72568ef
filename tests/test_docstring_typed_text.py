"""A parameter the docstring declares one `str` is one text: `padding=True` pads nothing there.

An annotation `target: str` already said so; many training helpers say it in the docstring instead
(Google `target (str):`, numpy `target : str`, Sphinx `:type target: str`). One text tokenized with
padding has no pad, so its ids as labels need no -100 (PAD006 stays silent). A docstring that says a
list, no word on the parameter, or the parameter stored again keeps the finding. Fixtures are our own."""

from __future__ import annotations

import textwrap

import pytest

from padlint.engine import lint_source

STEP = '''
import torch


class Scorer:
    def __init__(self, model, tokenizer):
        self.model = model
        self.tokenizer = tokenizer

    def step(self, prompt, target):
        """One optimisation step on one example.

{doc}
        """
        {extra}
        enc = self.tokenizer(prompt, return_tensors="pt", padding=True)
        answer = self.tokenizer(target, return_tensors="pt", padding=True)
        out = self.model(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"],
                         labels=answer["input_ids"])
        out.loss.backward()
        return out.loss
'''

GOOGLE = """        Args:
            prompt (str): the question and its context.
            target (str): the expected answer."""
NUMPY = """        Parameters
        ----------
        prompt : str
            the question and its context.
        target : str
            the expected answer."""
SPHINX = """        :param prompt: the question and its context.
        :type prompt: str
        :param target: the expected answer.
        :type target: str"""


def _codes(doc: str, extra: str = "") -> list[str]:
    source = textwrap.dedent(STEP).replace("{doc}", doc).replace("{extra}", extra)
    return [f.code for f in lint_source(source, "scorer.py")]


@pytest.mark.parametrize("doc", [GOOGLE, NUMPY, SPHINX], ids=["google", "numpy", "sphinx"])
def test_a_target_documented_as_one_string_is_not_padded(doc):
    assert _codes(doc) == []


def test_a_target_documented_as_a_list_is_reported():
    assert _codes(GOOGLE.replace("target (str)", "target (list[str])")) == ["PAD006"]


def test_a_target_the_docstring_does_not_type_is_reported():
    assert _codes(GOOGLE.replace("target (str)", "target")) == ["PAD006"]


def test_a_target_made_a_list_in_the_body_is_reported():
    assert _codes(GOOGLE, extra="target = [target, target.upper()]") == ["PAD006"]


def test_an_annotation_wins_over_the_docstring():
    source = textwrap.dedent(STEP).replace("{doc}", GOOGLE).replace("{extra}", "")
    source = source.replace("def step(self, prompt, target):", "def step(self, prompt, target: list[str]):")
    assert [f.code for f in lint_source(source, "scorer.py")] == ["PAD006"]
