"""`if tok.pad_token is None: tok.pad_token = tok.eos_token` makes the pad the EOS only for a checkpoint
whose tokenizer ships no pad token. In a program (a script, a notebook) the checkpoint it loads (an
argument, a config file, a shell script) is not in view, so the fallback is no evidence that a real EOS
loses its label (PAD004) or its attention (PAD005): those rules need a pad that surely is the EOS.
Library code (a trainer, a scorer other code imports) serves every checkpoint its callers pass: for
those without a pad the fallback fires, so there it counts. A fix has to be right for the tokenizer the
fallback fires for: no fix compares with a pad id that may be the EOS.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from padlint.engine import fix_source, lint_source
from tests.standin_tokenizer import StandInTokenizer

GUARD = """\
if tokenizer.pad_token is None:
    tokenizer.pad_token = tokenizer.eos_token"""
UNGUARDED = "tokenizer.pad_token = tokenizer.eos_token"
NESTED_GUARD = """\
if tokenizer.pad_token_id is None:
    if tokenizer.eos_token is not None:
        tokenizer.pad_token = tokenizer.eos_token
    else:
        tokenizer.add_special_tokens({"pad_token": "<pad>"})"""
BY_OR = "tokenizer.pad_token = tokenizer.pad_token or tokenizer.eos_token"
BY_IF_EXPRESSION = (
    "tokenizer.pad_token = tokenizer.pad_token if tokenizer.pad_token is not None else tokenizer.eos_token"
)

SFT_SCRIPT = """\
import argparse

from transformers import AutoTokenizer, DataCollatorForLanguageModeling, Trainer

parser = argparse.ArgumentParser()
parser.add_argument("--model")
args = parser.parse_args()
tokenizer = AutoTokenizer.from_pretrained(args.model)
{setting}


def encode(example):
    return tokenizer(example["question"] + "\\n" + example["answer"] + tokenizer.eos_token, truncation=True)


def train(model, dataset, training_args):
    rows = dataset.map(encode, remove_columns=dataset.column_names)
    collator = DataCollatorForLanguageModeling(tokenizer=tokenizer, mlm=False)
    Trainer(model=model, args=training_args, train_dataset=rows, data_collator=collator).train()
"""


def codes(source: str, name: str = "train.py") -> list[str]:
    return [d.code for d in lint_source(source, name)]


def test_a_pad_set_to_eos_unconditionally_is_reported():
    assert codes(SFT_SCRIPT.format(setting=UNGUARDED)) == ["PAD004"]


@pytest.mark.parametrize(
    "setting", [GUARD, NESTED_GUARD, BY_OR, BY_IF_EXPRESSION], ids=["if-is-none", "nested", "or", "if-expression"]
)
def test_a_pad_set_to_eos_only_where_the_checkpoint_has_none_is_not_evidence(setting: str):
    assert codes(SFT_SCRIPT.format(setting=setting)) == []


def test_a_guard_on_another_tokenizer_does_not_make_the_setting_a_fallback():
    setting = "if reward_tokenizer.pad_token is None:\n    reward_tokenizer.pad_token = reward_tokenizer.eos_token\n"
    assert codes(SFT_SCRIPT.format(setting=setting + UNGUARDED)) == ["PAD004"]


HELPERS = """\
from transformers import AutoTokenizer


def load_tokenizer(name):
    tokenizer = AutoTokenizer.from_pretrained(name)
{setting}
    return tokenizer
"""

SCORER = """\
import torch
from torch.nn.utils.rnn import pad_sequence

from helpers import load_tokenizer


class Scorer:
    def __init__(self, model, name):
        self.model = model
        self.tokenizer = load_tokenizer(name)

    def score(self, texts):
        rows = [torch.tensor(self.tokenizer(t + self.tokenizer.eos_token)["input_ids"]) for t in texts]
        ids = pad_sequence(rows, batch_first=True, padding_value=self.tokenizer.pad_token_id)
        mask = ids.ne(self.tokenizer.pad_token_id).long()
        return self.model(input_ids=ids, attention_mask=mask).logits
"""


MAIN = """

if __name__ == "__main__":
    print(Scorer(None, "gpt2").score(["a b", "c"]))
"""


@pytest.mark.parametrize(
    ("setting", "program", "expected"),
    [
        (GUARD, True, []),
        (NESTED_GUARD, True, []),
        (UNGUARDED, True, ["PAD005"]),
        (GUARD, False, ["PAD005"]),
    ],
    ids=["guarded-program", "nested-program", "always-program", "guarded-library"],
)
def test_a_helper_of_another_module_that_falls_back_to_eos(
    tmp_path: Path, setting: str, program: bool, expected: list[str]
):
    (tmp_path / "helpers.py").write_text(HELPERS.format(setting=textwrap.indent(setting, "    ")))
    scorer = tmp_path / "scorer.py"
    source = SCORER + (MAIN if program else "")
    scorer.write_text(source)
    assert codes(source, str(scorer)) == expected


# Labels copied from ids padded by a tokenizer whose attention mask is split off: a fix that compared with
# the pad id would, where the fallback fires, also hide the real EOS.
COLLATE = """\
from transformers import AutoTokenizer


def load(name):
    tokenizer = AutoTokenizer.from_pretrained(name)
{setting}
    return tokenizer


def collate(tokenizer, texts):
    ids = tokenizer(texts, padding=True, return_tensors="pt")["input_ids"]
    labels = ids.clone()
    return {{"input_ids": ids, "labels": labels}}
"""


def _checkpoint_without_pad() -> StandInTokenizer:
    tokenizer = StandInTokenizer()
    tokenizer._pad_token, tokenizer.pad_token_id = None, None  # the fallback fires for this one
    return tokenizer


@pytest.mark.parametrize("setting", [GUARD, UNGUARDED], ids=["guarded", "always"])
def test_the_fix_keeps_every_real_eos_where_the_fallback_fires(setting: str):
    torch = pytest.importorskip("torch")
    source = COLLATE.format(setting=textwrap.indent(setting, "    "))
    [finding] = [d for d in lint_source(source, "collate.py") if d.code == "PAD002"]
    assert finding.fix is not None
    fixed = fix_source(source, "collate.py", unsafe=True).source
    assert "pad_token_id" not in fixed
    namespace: dict = {}
    exec(compile(fixed.replace("AutoTokenizer.from_pretrained(name)", "name()"), "collate.py", "exec"), namespace)
    tokenizer = namespace["load"](_checkpoint_without_pad)
    assert tokenizer.pad_token_id == tokenizer.eos_token_id
    batch = namespace["collate"](tokenizer, ["a b c", "d"])
    ids, labels = batch["input_ids"], batch["labels"]
    pads = torch.tensor([[False] * 4, [False, False, True, True]])
    assert torch.equal(labels == -100, pads)  # -100 exactly at the two pads of the short row
    assert labels[0, 3] == labels[1, 1] == tokenizer.eos_token_id  # each real EOS keeps its label
    assert torch.equal(labels[~pads], ids[~pads])
