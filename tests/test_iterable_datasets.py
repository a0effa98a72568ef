"""An iterable dataset's items are what its `__iter__` yields (issue 13: `Dataset` -> `DataLoader` ->
`for batch in loader`), as a map-style dataset's are what `__getitem__` returns: ids padded there and
read back from the loader's batches as labels are judged where they reach the loss. A generator's
items are what iterating a call of it gives. Fixtures are our own."""

from __future__ import annotations

import textwrap

from padlint.engine import lint_source

SCRIPT = """
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, IterableDataset
from transformers import AutoModelForCausalLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("org/code-model")
student = AutoModelForCausalLM.from_pretrained("org/student")
WIDTH = 256


class Snippets(IterableDataset):
    def __init__(self, paths):
        self.paths = paths

    def __iter__(self):
        for path in self.paths:
            text = open(path).read()
            enc = tokenizer(text, padding="max_length", max_length=WIDTH, truncation=True, return_tensors="pt")
            yield {{"input_ids": enc["input_ids"][0], "attention_mask": enc["attention_mask"][0]}}


loader = DataLoader(Snippets(["a.py", "b.py"]), batch_size=8)
optimizer = torch.optim.AdamW(student.parameters())
for batch in loader:
    logits = student(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits
    labels = {labels}
    loss = F.cross_entropy(logits[:, :-1].reshape(-1, logits.size(-1)), labels.reshape(-1))
    loss.backward()
    optimizer.step()
"""


def findings(labels: str) -> list[tuple[str, int]]:
    source = textwrap.dedent(SCRIPT.format(labels=labels))
    return sorted((d.code, d.location.row) for d in lint_source(source, "distill.py"))


def test_ids_an_iterable_dataset_yields_padded_are_padded_labels():
    found = findings('batch["input_ids"][:, 1:].clone()')
    assert [code for code, _ in found] == ["PAD002"]


def test_labels_masked_where_the_yielded_mask_is_zero_are_silent():
    masked = 'batch["input_ids"][:, 1:].masked_fill(batch["attention_mask"][:, 1:] == 0, -100)'
    assert findings(masked) == []


GENERATOR = """
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("org/chat-model")
model = AutoModelForCausalLM.from_pretrained("org/chat-model")


def batches(texts, size):
    for start in range(0, len(texts), size):
        yield tokenizer(texts[start : start + size], padding=True, return_tensors="pt")


def train(texts, optimizer):
    for enc in batches(texts, 16):
        out = model(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"], labels={labels})
        out.loss.backward()
        optimizer.step()
"""


def test_a_generators_padded_batches_reach_the_loss():
    source = textwrap.dedent(GENERATOR.format(labels='enc["input_ids"]'))
    assert sorted(d.code for d in lint_source(source, "train.py")) == ["PAD002"]


def test_a_generators_batches_masked_before_the_loss_are_silent():
    masked = 'enc["input_ids"].masked_fill(enc["attention_mask"] == 0, -100)'
    source = textwrap.dedent(GENERATOR.format(labels=masked))
    assert lint_source(source, "train.py") == []
