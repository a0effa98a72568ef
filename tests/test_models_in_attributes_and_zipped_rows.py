"""Two ways a value's meaning used to get lost before its consumer (fixtures are our own):

- a model stored on `self` where it is loaded (`self.enc = BertModel.from_pretrained(...)` in `__init__`) is a
  model wherever a method calls it, whatever the attribute is named, also when no instance of the class is
  made in view (the method is walked on its own);
- `for i, (src, tgt) in enumerate(zip(sources, targets)):` binds each item as the loop over `zip` does: the
  rows written into a buffer are still a tokenizer's ids.
"""

from __future__ import annotations

import textwrap

import pytest

from padlint.engine import lint_source


def codes(source: str) -> list[tuple[str, int]]:
    return [(d.code, d.location.row) for d in lint_source(textwrap.dedent(source), "case.py")]


RETRIEVER = """
    from transformers import AutoTokenizer, BertModel


    class Retriever:
        def __init__(self, name):
            self.tok = AutoTokenizer.from_pretrained(name)
            self.enc = BertModel.from_pretrained(name)

        def embed(self, texts):
            ids = self.tok(texts, padding=True, truncation=True, return_tensors="pt").input_ids
            return self.enc(ids).pooler_output
"""


def test_a_model_held_in_an_attribute_of_any_name_is_a_model_call():
    assert codes(RETRIEVER) == [("PAD003", 11)]


@pytest.mark.parametrize(
    "source",
    [
        RETRIEVER.replace("self.enc(ids).pooler_output", "self.enc(ids, attention_mask=ids.ne(self.tok.pad_token_id))"),
        # a tokenizer or a config held in an attribute is no model
        RETRIEVER.replace("self.enc(ids).pooler_output", "self.tok.batch_decode(ids)"),
        RETRIEVER.replace("BertModel.from_pretrained(name)", "BertConfig.from_pretrained(name)").replace(
            "BertModel", "BertConfig"
        ),
    ],
    ids=["mask-passed", "tokenizer-attribute", "config-attribute"],
)
def test_near_misses_of_attribute_models_stay_silent(source):
    assert codes(source) == []


ZIPPED_ROWS = """
    import torch
    from transformers import T5ForConditionalGeneration, T5TokenizerFast

    tok = T5TokenizerFast.from_pretrained("t5-small")
    model = T5ForConditionalGeneration.from_pretrained("t5-small")


    def batchify(sources, targets):
        s = [tok.encode(x) for x in sources]
        t = [tok.encode(y) for y in targets]
        src = torch.zeros(len(s), max(map(len, s)), dtype=torch.long)
        tgt = torch.zeros(len(t), max(map(len, t)), dtype=torch.long)
        for i, (a, b) in enumerate(zip(s, t)):
            src[i, : len(a)] = torch.tensor(a)
            tgt[i, : len(b)] = torch.tensor(b)
        return src, (src != 0).long(), tgt


    def step(sources, targets):
        src, mask, tgt = batchify(sources, targets)
        return model(input_ids=src, attention_mask=mask, labels=tgt).loss
"""

ZIPPED_TAGS = """
    import torch


    def batchify(words, tags):
        width = max(map(len, words))
        ids = torch.zeros(len(words), width, dtype=torch.long)
        classes = torch.full((len(tags), width), -100, dtype=torch.long)
        for i, (w, t) in enumerate(zip(words, tags)):
            ids[i, : len(w)] = torch.tensor(w)
            classes[i, : len(t)] = torch.tensor(t)
        return ids, classes


    def step(tagger, words, tags):
        ids, classes = batchify(words, tags)
        scores = tagger(ids)
        return torch.nn.functional.cross_entropy(scores.transpose(1, 2), classes)
"""


def test_rows_zipped_and_enumerated_keep_what_they_are():
    assert codes(ZIPPED_ROWS) == [("PAD006", 13)]  # the target buffer keeps 0 (T5's pad) after each row


def test_zipped_rows_written_into_an_ignore_buffer_stay_silent():
    assert codes(ZIPPED_TAGS) == []  # the positions after each row keep -100: nothing graded there
