"""A folder without `__init__.py` (an implicit namespace package) is imported by the scripts beside it as
`folder.module`: they are the module's readers. A fix writing -100 into labels is withheld where such a
reader decodes the labels as token ids without mapping -100 back (decoding -100 raises: seen on unseen code,
a Marian metric crashed at the first evaluation), and offered where the reader maps it back. Fixtures are
our own."""

from __future__ import annotations

import json
import textwrap

from click.testing import CliRunner

from padlint.cli import main

PREPROCESS = """
from transformers import AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("Helsinki-NLP/opus-mt-en-de")


def preprocess(batch):
    inputs = tokenizer(batch["en"], max_length=64, padding="max_length", truncation=True)
    targets = tokenizer(text_target=batch["de"], max_length=64, padding="max_length", truncation=True)
    inputs["labels"] = targets["input_ids"]
    return inputs
"""

TRAIN = """
import numpy as np
from transformers import Seq2SeqTrainer

from data.preprocess import preprocess, tokenizer


def compute_metrics(eval_pred):
    predictions, labels = eval_pred
    LABELS_READ
    return {"refs": [tokenizer.decode(label, skip_special_tokens=True) for label in labels]}


def train(model, args, raw):
    rows = raw.map(preprocess, batched=True)
    Seq2SeqTrainer(model=model, args=args, train_dataset=rows, compute_metrics=compute_metrics).train()
"""


def findings(tmp_path, monkeypatch, labels_read: str) -> list[dict]:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "preprocess.py").write_text(textwrap.dedent(PREPROCESS))
    (tmp_path / "train.py").write_text(textwrap.dedent(TRAIN.replace("LABELS_READ", labels_read)))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--output-format", "json", "--exit-zero", "data"])
    return [f for f in json.loads(result.output) if f["code"] == "PAD006"]


def test_the_fix_is_withheld_where_a_script_beside_the_folder_decodes_raw_labels(tmp_path, monkeypatch):
    (found,) = findings(tmp_path, monkeypatch, "pass")
    assert found["fix"] is None


def test_the_fix_is_offered_where_the_reader_maps_minus_100_back(tmp_path, monkeypatch):
    (found,) = findings(tmp_path, monkeypatch, "labels = np.where(labels != -100, labels, tokenizer.pad_token_id)")
    assert found["fix"] is not None
