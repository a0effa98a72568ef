"""A lambda bound to a name that is bound again before anything reads it is never called (fixtures
are our own): nothing its body would do to a batch is a harm (analysis/dead_code.py). A lambda read
before the new binding, or bound again from itself, stays judged."""

from __future__ import annotations

import textwrap

import pytest

from padlint.engine import lint_source

HEAD = """
from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("t5-small")
model = AutoModelForSeq2SeqLM.from_pretrained("t5-small")

encode = lambda texts: tokenizer(texts, padding=True, return_tensors="pt").input_ids
"""


def found(rest: str) -> list[str]:
    return [d.code for d in lint_source(HEAD + textwrap.dedent(rest), "tune.py")]


def test_a_lambda_replaced_by_a_def_before_any_read_never_runs():
    rest = """
        def encode(texts):
            return tokenizer(texts, padding=True, return_tensors="pt")


        batch = encode(["a b", "c"])
        print(model.generate(**batch))
    """
    assert found(rest) == []


@pytest.mark.parametrize(
    "rest",
    [
        'print(model.generate(encode(["a b", "c"])))\n\ndef encode(texts):\n    return texts\n',  # read first
        'encode = wrap(encode)\nprint(model.generate(encode(["a b", "c"])))\n',  # bound again from itself
    ],
    ids=["read-before", "wrapped"],
)
def test_a_lambda_read_before_it_is_replaced_is_judged(rest):
    assert found(rest) == ["PAD003"]
