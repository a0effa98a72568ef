"""An all-ones mask counted as the padded value's length plus others spans a row joined from it and
more parts (`prompt + answer + tail`, the tail padded by the tokenizer): the padded value's own mask,
put in its place, is too short (the collator then fails on rows of unequal length). The finding stays;
no fix is offered, with the reason. Fixtures are our own."""

from __future__ import annotations

import textwrap

from padlint.engine import lint_source

ROW = """
def encode(sample, tokenizer, width):
    head = tokenizer.encode(tokenizer.bos_token + sample["question"], add_special_tokens=False)
    answer = tokenizer.encode(sample["answer"] + tokenizer.eos_token, add_special_tokens=False)
    fill = width - len(head) - len(answer)
    tail = tokenizer.encode(tokenizer.eos_token, add_special_tokens=False, max_length=fill,
                            padding="max_length", truncation=True)
    return {
        "input_ids": head + answer + tail,
        "attention_mask": {mask},
        "labels": [-100] * len(head) + answer + [-100] * len(tail),
    }


def prepare(ds, tokenizer):
    return ds.map(lambda s: encode(s, tokenizer, 256))
"""


def _pad001(mask: str):
    source = textwrap.dedent(ROW).replace("{mask}", mask)
    return [f for f in lint_source(source, "rows.py") if f.code == "PAD001"]


def test_ones_over_the_joined_row_get_no_fix_and_say_why():
    [finding] = _pad001("[1] * (len(head) + len(answer) + len(tail))")
    assert finding.fix is None
    assert "longer than `tail`" in finding.no_fix


def test_ones_as_long_as_the_padded_value_keep_the_fix():
    source = textwrap.dedent(
        """
        def encode(sample, tokenizer):
            ids = tokenizer.encode(sample["text"], max_length=64, padding="max_length", truncation=True)
            return {"input_ids": ids, "attention_mask": [1] * len(ids)}


        def prepare(ds, tokenizer):
            return ds.map(lambda s: encode(s, tokenizer))
        """
    )
    [finding] = [f for f in lint_source(source, "rows.py") if f.code == "PAD001"]
    assert finding.fix is not None
