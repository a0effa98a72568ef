"""A parameter every caller hands one text (fixtures are our own).

`tokenizer(prompt, padding=True)` pads a batch of one when every call in view hands `prompt` one
string: a literal, an f-string, the variable of a loop or comprehension over a display of string
literals (or over a name bound once to one), or a one-text parameter of its own caller. Nothing is
padded, so no mask is lost (issue 12, class 6: the single-text exemption follows the value across
functions). Any other argument keeps the parameter a batch.
"""

from __future__ import annotations

import textwrap

import pytest

from padlint.engine import lint_source

HEAD = """
from transformers import AutoModelForCausalLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("gpt2")
tokenizer.pad_token = tokenizer.eos_token
model = AutoModelForCausalLM.from_pretrained("gpt2")


def complete(prompt, max_new_tokens=20):
    ids = tokenizer(prompt, padding=True, return_tensors="pt").input_ids
    out = model.generate(ids, max_new_tokens=max_new_tokens)
    return tokenizer.decode(out[0], skip_special_tokens=True)

"""


def found(callers: str) -> list[str]:
    return sorted(d.code for d in lint_source(HEAD + textwrap.dedent(callers), "generate.py"))


@pytest.mark.parametrize(
    "callers",
    [
        'print(complete("Once upon a time"))\n',
        'topic = "rivers"\nprint(complete(f"Write about {topic}"))\n',
        'answers = [complete(p) for p in ["The sky is", "Water is"]]\n',
        'PROMPTS = ["The sky is", "Water is"]\nfor p in PROMPTS:\n    print(complete(p, 10))\n',
        # a dispatcher passing its own one-text parameter on
        'def ask(question):\n    return complete(question)\n\n\nprint(ask("Why?"))\n',
    ],
    ids=["literal", "f-string", "comprehension-over-display", "loop-over-bound-display", "dispatcher"],
)
def test_one_text_at_every_call_pads_nothing(callers):
    assert found(callers) == []


@pytest.mark.parametrize(
    "callers",
    [
        # a list of texts at one call: a batch
        'print(complete("one"))\nprint(complete(["one", "two words"]))\n',
        # the loop runs over lists of texts
        'for group in [["a", "b c"], ["d"]]:\n    print(complete(group))\n',
        # the loop runs over values not in view
        "from prompts import load_batches\nfor p in load_batches():\n    print(complete(p))\n",
        # the display grows later: its items are not all known
        'PROMPTS = ["The sky is"]\nPROMPTS.append(["a", "b"])\nfor p in PROMPTS:\n    print(complete(p))\n',
        # the function is handed on as a value: callers out of view
        "callbacks = [complete]\n",
    ],
    ids=["a-list-at-one-call", "lists-of-texts", "unknown-values", "grown-display", "handed-on"],
)
def test_other_arguments_keep_it_a_batch(callers):
    assert found(callers) == ["PAD003"]
