"""A map function that stores only the ids of a padded tokenizer call in the features it returns
(`example["input_ids"] = tokenizer(texts, padding="max_length").input_ids`, the flan-t5 dialogue
summary recipe) gets a fix: the encoding is named, and its mask is stored under `"attention_mask"` of
the same features right after the ids. Run on a ragged batch, the features carry a mask that is 0
exactly at the pads."""

from __future__ import annotations

import textwrap

import pytest

from padlint.engine import fix_source, lint_source
from tests.standin_tokenizer import PAD_ID, StandInTokenizer

SUMMARIES = textwrap.dedent(
    """
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained("google/flan-t5-base")


    def tokenize_function(example):
        prompt = ["Summarize: " + d for d in example["dialogue"]]
        example["input_ids"] = tokenizer(prompt, padding="max_length", max_length=12, return_tensors="pt").input_ids
        return example


    def prepare(dataset):
        return dataset.map(tokenize_function, batched=True, remove_columns=["dialogue"])
    """
)


def pad003(source: str):
    [finding] = [d for d in lint_source(source, "summaries.py") if d.code == "PAD003"]
    return finding


def test_the_fix_stores_the_mask_beside_the_ids_and_it_is_right():
    torch = pytest.importorskip("torch")
    finding = pad003(SUMMARIES)
    assert finding.fix is not None and finding.fix.applicability.value == "safe"
    fixed = fix_source(SUMMARIES, "summaries.py").source
    namespace: dict = {}
    exec(
        compile(fixed.replace('AutoTokenizer.from_pretrained("google/flan-t5-base")', "None"), "fixed", "exec"),
        namespace,
    )
    namespace["tokenizer"] = StandInTokenizer()
    features = namespace["tokenize_function"]({"dialogue": ["a b c d", "e"]})
    ids, mask = features["input_ids"], features["attention_mask"]
    assert torch.equal(mask == 0, ids == PAD_ID)  # 0 exactly at the pads
    assert mask.sum(dim=1).tolist() == [6, 3]  # "Summarize:" + words + EOS
    assert not [d for d in lint_source(fixed, "summaries.py") if d.code == "PAD003"]
