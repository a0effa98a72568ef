"""Rows a module only hands on go to the project's modules that import it: where every importer that
names the dataset loads causal decoders only (classes the library table knows), and reads no output at
the pads, an all-ones mask over pads the dataset puts on the right harms no real token. Any load the text
does not resolve, another kind of model, or no importer at all leaves the consumer unknown, and the
finding stays. Fixtures are our own."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from padlint.engine import lint_source

ROWS = textwrap.dedent(
    """
    import torch
    from torch.utils.data import Dataset


    class PackedRows(Dataset):
        def __init__(self, tokenizer, texts, width):
            self.tokenizer = tokenizer
            self.texts = texts
            self.width = width

        def __len__(self):
            return len(self.texts)

        def __getitem__(self, i):
            ids = self.tokenizer(self.texts[i])["input_ids"][: self.width]
            ids = ids + [self.tokenizer.pad_token_id] * (self.width - len(ids))
            labels = [t if t != self.tokenizer.pad_token_id else -100 for t in ids]
            return {
                "input_ids": torch.tensor(ids),
                "attention_mask": torch.ones(len(ids), dtype=torch.long),
                "labels": torch.tensor(labels),
            }
    """
)

TRAIN = textwrap.dedent(
    """
    from torch.utils.data import DataLoader
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from data.rows import PackedRows

    tokenizer = AutoTokenizer.from_pretrained("my-org/decoder")
    model = AutoModelForCausalLM.from_pretrained("my-org/decoder")
    loader = DataLoader(PackedRows(tokenizer, open("train.txt").read().splitlines(), 64), batch_size=8)
    for batch in loader:
        model(**batch).loss.backward()
    """
)


def pad001(tmp_path: Path, train: str | None, rows: str = ROWS) -> bool:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "__init__.py").write_text("")
    path = tmp_path / "data" / "rows.py"
    path.write_text(rows)
    if train is not None:
        (tmp_path / "train.py").write_text(train)
    return "PAD001" in [d.code for d in lint_source(rows, str(path))]


def test_importers_that_load_causal_decoders_only_make_right_pads_harmless(tmp_path):
    assert not pad001(tmp_path, TRAIN)


@pytest.mark.parametrize(
    "train",
    [
        TRAIN.replace("AutoModelForCausalLM", "AutoModelForMaskedLM"),  # an encoder reads every pad
        TRAIN.replace(
            'model = AutoModelForCausalLM.from_pretrained("my-org/decoder")',
            'model = (AutoModelForCausalLM if CAUSAL else AutoModelForSequenceClassification).from_pretrained("x")',
        ),  # a load the text does not resolve
        TRAIN.replace(
            "model(**batch).loss.backward()", "model(**batch, output_hidden_states=True).hidden_states[-1].mean(dim=1)"
        ),
        TRAIN.replace('model = AutoModelForCausalLM.from_pretrained("my-org/decoder")\n', ""),  # no model loaded
        None,  # nobody imports the dataset
    ],
    ids=["encoder", "unresolved-load", "pooled", "no-model", "no-importer"],
)
def test_the_finding_stays_where_the_consumer_is_not_known_to_be_causal(tmp_path, train):
    assert train != TRAIN
    assert pad001(tmp_path, train)


def test_left_pads_are_read_by_every_real_token_of_the_same_decoder(tmp_path):
    left = ROWS.replace(
        "ids = ids + [self.tokenizer.pad_token_id] * (self.width - len(ids))",
        "ids = [self.tokenizer.pad_token_id] * (self.width - len(ids)) + ids",
    )
    assert pad001(tmp_path, TRAIN, left)
