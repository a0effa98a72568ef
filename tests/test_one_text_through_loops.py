"""One text per call, seen across a function boundary (fixtures are our own).

An embedding helper that tokenizes with `padding=True` and averages the states pads nothing when
every call hands it one text. Its callers often loop over a list their own caller hands them
(`[embed(t) for t in texts]`), and the helper is often nested in the function that loops. Within one
function the analysis already takes a comprehension over such a parameter as handing one text at a
time (calls.holds_texts); the same holds when the tokenizer sits in a helper the loop calls
(issue 12, class 6: the single-text exemption follows the value across functions). Anything in view
that says the items are batches (a nested annotation, a list of lists handed in, the list stored
again, the helper handed on) keeps the helper's input a batch.
"""

from __future__ import annotations

import textwrap

import pytest

from padlint.engine import lint_source

TOP_LEVEL = """
import torch


def embed(model, tokenizer, text):
    inputs = tokenizer(text, return_tensors="pt", padding=True, truncation=True, max_length=512)
    with torch.no_grad():
        outputs = model(**inputs)
    return outputs.last_hidden_state.mean(dim=1).squeeze()


def similarity(model, tokenizer, candidates{annotation}, references):
    {store}
    cands = [embed(model, tokenizer, text) for text in candidates]
    refs = [embed(model, tokenizer, text) for text in references]
    return [torch.cosine_similarity(a, b, dim=0) for a, b in zip(cands, refs)]
{callers}
"""

NESTED = """
import torch


def similarity(model, tokenizer, candidates, references):
    def get_embedding(text):
        inputs = tokenizer(text, return_tensors="pt", padding=True, truncation=True, max_length=512)
        with torch.no_grad():
            outputs = model(**inputs)
        return outputs.last_hidden_state.mean(dim=1).squeeze()

    cands = [get_embedding(text) for text in candidates]
    refs = []
    for text in references:
        refs.append(get_embedding(text))
    {extra}
    return [torch.cosine_similarity(a, b, dim=0) for a, b in zip(cands, refs)]
"""


def codes(source: str) -> list[str]:
    return sorted(d.code for d in lint_source(textwrap.dedent(source), "metrics.py"))


def top_level(annotation: str = "", store: str = "pass", callers: str = "") -> list[str]:
    return codes(TOP_LEVEL.format(annotation=annotation, store=store, callers=callers))


@pytest.mark.parametrize(
    "annotation, callers",
    [
        ("", ""),
        (": list", ""),
        (": list[str]", ""),
        ("", '\nprint(similarity(m, t, ["a b", "c"], ["d", "e f"]))\n'),
    ],
    ids=["no-annotation", "list", "list-of-str", "texts-handed-in-view"],
)
def test_a_helper_called_per_item_of_a_parameter_pads_nothing(annotation, callers):
    assert top_level(annotation=annotation, callers=callers) == []


def test_a_nested_helper_called_per_item_pads_nothing():
    assert codes(NESTED.format(extra="pass")) == []


@pytest.mark.parametrize(
    "kwargs",
    [
        {"annotation": ": list[list[str]]"},
        {"callers": '\nprint(similarity(m, t, [["a", "b c"], ["d"]], ["e"]))\n'},
        {"store": "candidates = [candidates[i : i + 8] for i in range(0, len(candidates), 8)]"},
    ],
    ids=["annotated-as-batches", "batches-handed-in-view", "regrouped-into-batches"],
)
def test_items_known_to_be_batches_keep_the_finding(kwargs):
    assert top_level(**kwargs) == ["PAD015"]


@pytest.mark.parametrize(
    "extra",
    [
        'refs.append(get_embedding(["a b", "c"]))',  # a list of texts at one call
        "callbacks = [get_embedding]",  # handed on: called out of view
    ],
    ids=["a-list-at-one-call", "handed-on"],
)
def test_a_nested_helper_given_a_batch_keeps_the_finding(extra):
    assert codes(NESTED.format(extra=extra)) == ["PAD015"]
