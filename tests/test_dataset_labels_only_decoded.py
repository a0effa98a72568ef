"""A Dataset's labels that every loop over its loaders only decodes to text are never graded (issue 12:
report only manifest harm; the collate-function case already was).

A reinforcement loop that scores generated answers against references decodes the references with
`batch_decode(..., skip_special_tokens=True)`: their pads never reach a loss. The Dataset's instances,
their DataLoaders, and a function the loader is handed to (`train(loader, ...)`) are followed; any other
read of the labels (a model given `labels=`), of the batch whole, or a loader that goes out of view keeps
the finding.
"""

from __future__ import annotations

import textwrap

import pytest

from padlint.engine import lint_source

SOURCE = """
import torch
from torch.utils.data import DataLoader, Dataset
from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("t5-small")
model = AutoModelForSeq2SeqLM.from_pretrained("t5-small")


class QAPairs(Dataset):
    def __init__(self, rows):
        self.rows = rows

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        question = tokenizer(self.rows[i]["q"], padding="max_length", max_length=64, truncation=True, return_tensors="pt")
        answer = tokenizer(self.rows[i]["a"], padding="max_length", max_length=16, truncation=True, return_tensors="pt")
        return {
            "input_ids": question["input_ids"].squeeze(0),
            "attention_mask": question["attention_mask"].squeeze(0),
            "labels": answer["input_ids"].squeeze(0),
        }


def reward_step(loader, score):
    for batch in loader:
        generated = model.generate(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"])
        predictions = tokenizer.batch_decode(generated, skip_special_tokens=True)
        references = tokenizer.batch_decode(batch["labels"], skip_special_tokens=True)
{use}
        rewards = torch.tensor([score(p, r) for p, r in zip(predictions, references)])
        rewards.mean().backward()


pairs = QAPairs(rows)
train_loader = DataLoader(pairs, batch_size=8, shuffle=True)
{later}
"""


def _codes(use: str = "", later: str = "reward_step(train_loader, rouge)") -> list[str]:
    source = textwrap.dedent(SOURCE).replace("{use}\n", use + "\n" if use else "").replace("{later}", later)
    return [f.code for f in lint_source(source, "rl.py")]


def test_labels_every_loop_only_decodes_are_silent():
    assert _codes() == []


def test_labels_also_read_by_a_loop_in_script_code_only_decoded_are_silent():
    loop = "for batch in train_loader:\n    print(tokenizer.batch_decode(batch['labels'], skip_special_tokens=True))"
    assert _codes(later="reward_step(train_loader, rouge)\n" + loop) == []


@pytest.mark.parametrize(
    ("use", "later"),
    [
        # the labels graded by the model's loss too
        (
            '        model(**{k: batch[k] for k in ("input_ids", "attention_mask")}, labels=batch["labels"]).loss.backward()',
            "reward_step(train_loader, rouge)",
        ),
        # the batch handed whole to the model
        ("        model(**batch).loss.backward()", "reward_step(train_loader, rouge)"),
        # the loader handed to code out of view
        ("", "trainer.fit(train_loader)"),
    ],
)
def test_labels_a_loss_may_read_keep_the_finding(use, later):
    assert set(_codes(use, later)) == {"PAD002"}


def test_a_loader_no_loop_reads_keeps_the_finding():
    # the loader is made and left: whoever iterates it is not in view
    assert _codes(later="") == ["PAD002"]
