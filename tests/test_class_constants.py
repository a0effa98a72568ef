"""A class attribute fixed in the class body is the value every instance reads through `self`.

`padding = True` in a Dataset's body and `tokenizer(texts, padding=self.padding)` in its `__init__`
pad the texts: the targets then reach a T5 model as labels with the pads in them. A value an instance
may hold on its own (stored on `self` by a method, or a dataclass field the constructor sets) is not
one value, and `padding=False` pads nothing.
"""

from __future__ import annotations

import textwrap

from click.testing import CliRunner

from padlint.cli.main import main

DATASET = """
from torch.utils.data import DataLoader, Dataset
from transformers import T5ForConditionalGeneration, T5Tokenizer

tokenizer = T5Tokenizer.from_pretrained("t5-small")
t5 = T5ForConditionalGeneration.from_pretrained("t5-small")


class Pairs(Dataset):
    padding = {padding}

    def __init__(self, sources, targets{extra_parameter}):
        self.sources = tokenizer(sources, padding=self.padding, return_tensors="pt")
        self.targets = tokenizer(targets, padding=self.padding, return_tensors="pt"){extra_store}

    def __len__(self):
        return len(self.sources["input_ids"])

    def __getitem__(self, i):
        return self.sources["input_ids"][i], self.targets["input_ids"][i]


def train(sources, targets):
    for source, target in DataLoader(Pairs(sources, targets), batch_size=8):
        t5(input_ids=source, labels=target).loss.backward()
"""


def codes(tmp_path, padding="True", extra_parameter="", extra_store="") -> list[str]:
    path = tmp_path / "pairs.py"
    source = DATASET.format(padding=padding, extra_parameter=extra_parameter, extra_store=extra_store)
    path.write_text(textwrap.dedent(source))
    result = CliRunner().invoke(main, ["check", "--no-cache", "--output-format", "concise", str(path)])
    return [line.split(": ")[1].split()[0] for line in result.output.splitlines() if ": PAD" in line]


def test_a_class_body_that_asks_for_padding_pads(tmp_path):
    assert codes(tmp_path) == ["PAD006"]  # targets tokenized with padding, used as labels
    assert codes(tmp_path, padding='"max_length"') == ["PAD006"]


def test_a_class_body_that_asks_for_no_padding_pads_nothing(tmp_path):
    assert codes(tmp_path, padding="False") == []


def test_a_value_an_instance_may_hold_on_its_own_is_not_read_from_the_class_body(tmp_path):
    assert codes(tmp_path, extra_parameter=", padding=False", extra_store="\n        self.padding = padding") == []
