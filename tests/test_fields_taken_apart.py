"""Two ways code takes a tokenizer's output apart before a loop reads it (fixtures are our own):

- a dict comprehension over its fields, `{k: v.squeeze(0) for k, v in enc.items()}` (a Dataset's
  `__getitem__` dropping the batch axis of one example): each field is what the same expression makes of
  that field, and the ids' mask is the new dict's own "attention_mask";
- `batch.pop("input_ids")`: the field, as `batch["input_ids"]` reads it.

Before, both made the value unknown, so padded ids handed as labels through a DataLoader went unreported.
"""

from __future__ import annotations

import sys
import textwrap
import types
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from standin_tokenizer import EOS_ID, StandInTokenizer  # noqa: E402
from test_fix_execution import load_module  # noqa: E402

from padlint.engine import fix_source, lint_source  # noqa: E402

CAPTIONS = """
    import torch
    from torch.utils.data import DataLoader, Dataset


    class CaptionRows(Dataset):
        def __init__(self, captions, tokenizer, width=12):
            self.captions = captions
            self.tokenizer = tokenizer
            self.width = width

        def __len__(self):
            return len(self.captions)

        def __getitem__(self, i):
            enc = self.tokenizer(self.captions[i], padding="max_length", max_length=self.width, return_tensors="pt")
            return {name: column.squeeze(0) for name, column in enc.items()}


    def train_captions(captions, tokenizer, model, optimizer):
        loader = DataLoader(CaptionRows(captions, tokenizer), batch_size=4)
        for batch in loader:
            ids = batch.pop("input_ids")
            out = model(input_ids=ids, attention_mask=batch["attention_mask"], labels=ids)
            out.loss.backward()
            optimizer.step()
"""


def found(source: str) -> list[tuple[str, int]]:
    return [(d.code, d.location.row) for d in lint_source(textwrap.dedent(source), "case.py")]


def test_ids_of_a_comprehension_over_fields_popped_and_used_as_labels():
    assert found(CAPTIONS) == [("PAD002", 24)]


@pytest.mark.parametrize(
    "before, after",
    [
        ('ids = batch.pop("input_ids")', 'ids = batch["input_ids"]'),  # read, not popped
        ("column.squeeze(0)", "column[0]"),  # another way to drop the batch axis
        ('batch.pop("input_ids")', 'batch.pop("input_ids", None)'),  # with a default
    ],
    ids=["subscript", "first-row", "pop-default"],
)
def test_other_spellings_of_the_same_reads(before, after):
    assert found(CAPTIONS.replace(before, after)) == [("PAD002", 24)]


TUTORIAL = """
    import torch


    class ReviewSet(torch.utils.data.Dataset):
        def __init__(self, encodings, labels):
            self.encodings = encodings
            self.labels = labels

        def __getitem__(self, idx):
            item = {key: torch.tensor(val[idx]) for key, val in self.encodings.items()}
            item["labels"] = torch.tensor(self.labels[idx])
            return item

        def __len__(self):
            return len(self.labels)


    def fit(texts, labels, tokenizer, model, optimizer):
        loader = torch.utils.data.DataLoader(ReviewSet(tokenizer(texts, truncation=True, padding=True), labels), batch_size=8)
        for batch in loader:
            loss = model(**batch).loss
            loss.backward()
            optimizer.step()
"""


@pytest.mark.parametrize(
    "source",
    [
        # the classification tutorial: the mask is one of the fields, the labels are classes
        TUTORIAL,
        # which fields are kept is chosen by a filter, or the value depends on the key: not in view
        CAPTIONS.replace("for name, column in enc.items()}", 'for name, column in enc.items() if name != "labels"}'),
        CAPTIONS.replace("column.squeeze(0) for", 'column.squeeze(0) if name == "input_ids" else column for'),
        # the popped ids are not the labels: the labels are masked where the mask is 0
        CAPTIONS.replace("labels=ids)", 'labels=ids.masked_fill(batch["attention_mask"] == 0, -100))'),
    ],
    ids=["tutorial", "filtered", "key-dependent", "labels-masked"],
)
def test_near_misses_stay_silent(source):
    assert found(source) == []


class _Recorder:
    """A stand-in model: keeps the labels of every call and answers with a loss that can go backward."""

    def __init__(self):
        self.labels: list = []

    def __call__(self, input_ids=None, attention_mask=None, labels=None):
        import torch

        self.labels.append((input_ids.clone(), labels.clone()))
        return types.SimpleNamespace(loss=torch.zeros((), requires_grad=True))


def test_the_fix_masks_exactly_the_pads_when_run(tmp_path):
    torch = pytest.importorskip("torch")
    fixed = fix_source(textwrap.dedent(CAPTIONS), "case.py").source
    assert "-100" in fixed
    assert not [d for d in lint_source(fixed, "case.py") if d.code == "PAD002"]
    path = tmp_path / "captions.py"
    path.write_text(fixed)
    module = load_module(path, "captions_fixed")
    tokenizer = StandInTokenizer()
    model = _Recorder()
    captions = ["a dog", "two cats on a mat", "rain"]
    module.train_captions(captions, tokenizer, model, types.SimpleNamespace(step=lambda: None))
    ((ids, labels),) = model.labels
    for row, caption in zip(range(len(captions)), captions):
        real = len(caption.split()) + 1  # the words and EOS
        assert labels[row, :real].tolist() == ids[row, :real].tolist()  # real tokens keep their labels
        assert labels[row, real - 1].item() == EOS_ID  # the EOS is a target
        assert (labels[row, real:] == -100).all()  # every pad is ignored
    assert torch.equal(labels != -100, ids != tokenizer.pad_token_id)
