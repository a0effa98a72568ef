"""A helper declared to return `str` hands back one text (fixtures are our own).

`text = self.clean(text)` before `tokenizer(text, padding=True)`: when `clean` says `-> str`, the text
is one string whatever its body does (a call out of view, or a walk cut by the analysis's depth), and
`padding=True` pads nothing, so the mean over its states takes in no pad. Seen on unseen code: an
embedding helper whose text went through a cleaning method four calls deep. A helper declared to
return a list, or not declared, leaves the count unknown, and the finding stays.
"""

from __future__ import annotations

import textwrap

import pytest

from padlint.engine import lint_source

SOURCE = textwrap.dedent(
    """
    import torch
    from textnorm import normalize
    from transformers import AutoModel, AutoTokenizer


    class Embedder:
        def __init__(self, name):
            self.tokenizer = AutoTokenizer.from_pretrained(name)
            self.model = AutoModel.from_pretrained(name)

        def clean(self, text){returns}:
            return normalize(text)

        def embed(self, text):
            text = self.clean(text)
            inputs = self.tokenizer(text, return_tensors="pt", padding=True, truncation=True)
            with torch.no_grad():
                out = self.model(**inputs)
            return out.last_hidden_state.mean(dim=1)
    """
)


@pytest.mark.parametrize("returns", [" -> str", ' -> "str"'])
def test_a_text_cleaned_by_a_helper_declared_str_is_one_text(returns):
    assert lint_source(SOURCE.format(returns=returns), "embedder.py") == []


@pytest.mark.parametrize("returns", ["", " -> list[str]"])
def test_an_undeclared_or_list_helper_leaves_the_count_unknown(returns):
    assert [d.code for d in lint_source(SOURCE.format(returns=returns), "embedder.py")] == ["PAD015"]
