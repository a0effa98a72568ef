"""Pad = EOS holds from where it is set until the same tokenizer is given a pad token of its own
(fixtures are our own; issue 12, class 4: a fact about one tokenizer object at one point).

`tok.pad_token = tok.eos_token` and later, before the collator is made, `tok.add_special_tokens({"pad_token":
"[PAD]"})`: the collator masks only the new pad, and every EOS keeps its label. The re-setting counts
where it surely runs on the way: at the top of the script or of the function that makes the collator,
or under an `if` whose test is surely true (a class constant read through an instance the script
makes). One under an unknown condition, or one of another tokenizer, ends nothing. (One after the collator
is made but before it runs would end it too, as the collator reads the pad id when it runs; that order
is not followed: the analysis takes the collator's construction as the use.)
"""

from __future__ import annotations

import textwrap

import pytest

from padlint.engine import lint_source

SCRIPT = """
from datasets import load_dataset
from transformers import AutoTokenizer, DataCollatorForLanguageModeling, GPT2LMHeadModel, Trainer


class RunConfig:
    pad_token = "[PAD]"
    block = 128


config = RunConfig()
tokenizer = AutoTokenizer.from_pretrained("gpt2")
tokenizer.pad_token = tokenizer.eos_token


def pack(batch):
    ids = []
    for row in tokenizer(batch["text"])["input_ids"]:
        ids.extend(row + [tokenizer.eos_token_id])
    return {"input_ids": [ids[i : i + config.block] for i in range(0, len(ids), config.block)]}


blocks = load_dataset("text", data_files="corpus.txt")["train"].map(pack, batched=True, remove_columns=["text"])
RESET
collator = DataCollatorForLanguageModeling(tokenizer=tokenizer, mlm=False)
Trainer(model=GPT2LMHeadModel.from_pretrained("gpt2"), train_dataset=blocks, data_collator=collator).train()
"""


def codes(reset: str, source: str = SCRIPT) -> list[str]:
    return [d.code for d in lint_source(source.replace("RESET", reset), "pack.py")]


@pytest.mark.parametrize(
    "reset",
    [
        'tokenizer.add_special_tokens({"pad_token": "[PAD]"})',
        'tokenizer.pad_token = "<|pad|>"',
        'if config.pad_token is not None:\n    tokenizer.add_special_tokens({"pad_token": config.pad_token})',
    ],
    ids=["add-special-tokens", "assigned", "surely-true-guard"],
)
def test_a_pad_token_of_its_own_before_the_collator_ends_pad_eos(reset):
    assert codes(reset) == []


def test_the_same_inside_the_function_that_makes_the_collator():
    body = textwrap.indent(SCRIPT.split("config = RunConfig()\n", 1)[1], "    ")
    source = SCRIPT.split("config = RunConfig()\n", 1)[0] + "config = RunConfig()\n\n\ndef main():\n" + body
    source = source.replace("    RESET", '    tokenizer.add_special_tokens({"pad_token": "[PAD]"})')
    assert [d.code for d in lint_source(source, "pack.py")] == []


@pytest.mark.parametrize(
    "reset, source",
    [
        ("", SCRIPT),  # never given one
        ("import sys\nif len(sys.argv) > 2:\n    tokenizer.add_special_tokens({'pad_token': '[PAD]'})", SCRIPT),
        ("other = AutoTokenizer.from_pretrained('gpt2')\nother.add_special_tokens({'pad_token': '[PAD]'})", SCRIPT),
        (
            "config.pad_token = None\nif config.pad_token is not None:\n    tokenizer.add_special_tokens({'pad_token': '[PAD]'})",
            SCRIPT,
        ),
        # given one inside a def that the script does not run on the way
        ('def later():\n    tokenizer.add_special_tokens({"pad_token": "[PAD]"})', SCRIPT),
    ],
    ids=["none", "unknown-condition", "another-tokenizer", "constant-overwritten", "inside-a-def"],
)
def test_pad_eos_still_reaches_the_collator(reset, source):
    assert codes(reset, source) == ["PAD004"]
