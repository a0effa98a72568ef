"""A prefix of left-padded rows set to -100 may cover their pads (fixtures are our own).

`labels[i, :start] = -100` on rows padded on the left starts at the pads: where `start` counts them
(`start = prompt_len + (mask[i] == 0).sum()`) every pad is ignored. The analysis cannot read `start`,
so the write counts as masking (issue 12, class 1: unknown code is never evidence of a bug). On rows
padded on the right a prefix is the prompt, never the pads: still reported.
"""

from __future__ import annotations

import textwrap

import pytest

from padlint.engine import lint_source

COLLATE = """
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained("Qwen/Qwen2.5-0.5B")
    tokenizer.padding_side = "SIDE"


    def collate(examples):
        enc = tokenizer([e["prompt"] + e["answer"] for e in examples], padding="longest", return_tensors="pt")
        labels = enc["input_ids"].clone()
        for i, example in enumerate(examples):
            pads = int((enc["attention_mask"][i] == 0).sum())
            start = len(tokenizer(example["prompt"])["input_ids"]) + PADS
            labels[i, :start] = -100
        return {"input_ids": enc["input_ids"], "attention_mask": enc["attention_mask"], "labels": labels}
"""


def found(side: str, pads: str) -> list[str]:
    return [d.code for d in lint_source(textwrap.dedent(COLLATE.replace("SIDE", side).replace("PADS", pads)), "c.py")]


def test_a_prefix_of_left_padded_rows_counts_as_masking():
    assert found("left", "pads") == []


@pytest.mark.parametrize("pads", ["pads", "0"])
def test_a_prefix_of_right_padded_rows_is_the_prompt_only(pads):
    assert found("right", pads) == ["PAD002"]
