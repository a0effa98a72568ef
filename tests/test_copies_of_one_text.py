"""Copies of one text padded to the longest row pad nothing (issue 12, class 6: rows of one length).

`tok([prompt] * 4, padding=True)` gives four rows of one length, so an all-ones (or no) mask is right.
The same holds when the copies are bound to a name first (`texts = 4 * [prompt]`), as benchmark and
sampling scripts write them. A name that may hold other texts where it is tokenized (grown, stored
again on some path, or made of other texts) is judged as any batch.
"""

from __future__ import annotations

import textwrap

import pytest

from padlint.engine import lint_source

SCRIPT = """
from transformers import AutoModelForCausalLM, AutoTokenizer

tok = AutoTokenizer.from_pretrained("gpt2")
tok.pad_token = tok.eos_token
tok.padding_side = "left"
model = AutoModelForCausalLM.from_pretrained("gpt2")


def sample(prompt, other, flag):
{binding}
    ids = tok(texts, return_tensors="pt", padding=True).input_ids
    return model.generate(ids, max_new_tokens=8, do_sample=True)
"""

COPIES = [
    "    texts = 4 * [prompt]",
    "    texts = [prompt] * 4",
    "    n = 4\n    texts = [prompt] * n",
    "    texts = [other]\n    texts = 4 * [prompt]",
]

MIXED = [
    "    texts = [prompt, other]",
    "    texts = 4 * [prompt]\n    texts.append(other)",
    "    texts = 4 * [prompt]\n    if flag:\n        texts = [prompt, other]",
    "    texts = 4 * [prompt]\n    texts += [other]",
    "    texts = 4 * [prompt]\n    for _ in range(2):\n        texts = texts + [other]",
]


def _codes(binding: str) -> list[str]:
    source = textwrap.dedent(SCRIPT).replace("{binding}", binding)
    return [f.code for f in lint_source(source, "sample.py")]


@pytest.mark.parametrize("binding", COPIES)
def test_copies_of_one_text_pad_nothing(binding):
    assert _codes(binding) == []


@pytest.mark.parametrize("binding", MIXED)
def test_texts_that_may_differ_are_judged(binding):
    assert _codes(binding) == ["PAD003"]


SCRIPT_CELLS = """
from transformers import AutoModelForCausalLM, AutoTokenizer

tok = AutoTokenizer.from_pretrained("gpt2")
tok.padding_side = "left"
model = AutoModelForCausalLM.from_pretrained("gpt2")
texts = {texts}
ids = tok(texts, return_tensors="pt", padding=True).input_ids
out = model.generate(ids, max_new_tokens=8)
"""


@pytest.mark.parametrize(("texts", "expected"), [('4 * ["The sky is"]', []), ('["The sky is", "Hi"]', ["PAD003"])])
def test_script_code_reads_the_binding_before_it(texts, expected):
    source = SCRIPT_CELLS.replace("{texts}", texts)
    assert [f.code for f in lint_source(source, "bench.py")] == expected
