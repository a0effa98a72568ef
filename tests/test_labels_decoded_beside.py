"""A reader that decodes the labels as token ids (`tokenizer.batch_decode(labels)`, for a BLEU score,
say) raises on -100: a fix writing -100 into labels that such a reader in view (the module itself, or
a module importing it) decodes without mapping -100 back first is not offered. Fixtures are our own."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))
from standin_tokenizer import EOS_ID, PAD_ID, StandInTokenizer  # noqa: E402

from padlint.engine import fix_source, lint_source  # noqa: E402

DATASET = textwrap.dedent(
    """
    from torch.utils.data import Dataset


    class PairRows(Dataset):
        def __init__(self, tokenizer, pairs, width=8):
            self.tokenizer = tokenizer
            self.pairs = pairs
            self.width = width

        def __len__(self):
            return len(self.pairs)

        def __getitem__(self, i):
            source, target = self.pairs[i]
            enc = self.tokenizer(source, max_length=self.width, padding="max_length", truncation=True, return_tensors="pt")
            out = self.tokenizer(target, max_length=self.width, padding="max_length", truncation=True, return_tensors="pt")
            return {
                "input_ids": enc["input_ids"].squeeze(0),
                "attention_mask": enc["attention_mask"].squeeze(0),
                "labels": out["input_ids"].squeeze(0),
                "target_mask": out["attention_mask"].squeeze(0),
            }
    """
)

TRAIN = textwrap.dedent(
    """
    import torch
    from transformers import T5ForConditionalGeneration, T5Tokenizer

    from data.rows import PairRows


    def make_loader(tokenizer, pairs):
        return torch.utils.data.DataLoader(PairRows(tokenizer, pairs), batch_size=4)


    def validate(model, tokenizer, loader):
        scores = []
        for batch in loader:
            labels = batch["labels"]
            out = model.generate(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"])
            predictions = tokenizer.batch_decode(out, skip_special_tokens=True)
            references = tokenizer.batch_decode(labels, skip_special_tokens=True)
            scores.append(sum(p == r for p, r in zip(predictions, references)))
        return scores
    """
)


def project(tmp_path: Path, train: str) -> Path:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "__init__.py").write_text("")
    rows = tmp_path / "data" / "rows.py"
    rows.write_text(DATASET)
    (tmp_path / "train.py").write_text(train)
    return rows


def label_finding(rows: Path):
    # PAD006 (targets tokenized to be labels) or PAD002 (ids copied as labels): both write -100
    [finding] = [d for d in lint_source(rows.read_text(), str(rows)) if d.code in ("PAD002", "PAD006")]
    return finding


def test_no_ignore_value_goes_into_labels_an_importer_decodes(tmp_path):
    finding = label_finding(project(tmp_path, TRAIN))
    assert finding.fix is None
    assert "train.py decodes labels" in finding.no_fix


def test_a_reader_that_maps_the_ignore_value_back_first_takes_the_fix_and_it_runs(tmp_path):
    mapped_back = TRAIN.replace(
        'labels = batch["labels"]',
        'labels = torch.where(batch["labels"] != -100, batch["labels"], tokenizer.pad_token_id)',
    )
    rows = project(tmp_path, mapped_back)
    assert label_finding(rows).fix is not None
    fixed = tmp_path / "rows_fixed.py"
    fixed.write_text(fix_source(rows.read_text(), str(rows), unsafe=True).source)
    spec = importlib.util.spec_from_file_location("padlint_rows_fixed", fixed)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    item = module.PairRows(StandInTokenizer(), [("a b", "c d e"), ("f", "g")])[1]
    target = StandInTokenizer()("g", max_length=8, padding="max_length", return_tensors="pt")["input_ids"][0]
    assert torch.equal(item["labels"] == -100, target == PAD_ID)  # -100 exactly at the pads
    assert item["labels"][target == EOS_ID].tolist() == [EOS_ID]  # the real EOS keeps its label


def test_a_module_that_decodes_other_things_does_not_count(tmp_path):
    other = TRAIN.replace("tokenizer.batch_decode(labels, skip_special_tokens=True)", "[str(x) for x in labels]")
    assert label_finding(project(tmp_path, other)).fix is not None


def test_a_decoder_in_the_module_itself_counts(tmp_path):
    rows = project(tmp_path, "")
    rows.write_text(
        DATASET
        + textwrap.dedent(
            """

            def show(tokenizer, item):
                return tokenizer.decode(item["labels"])
            """
        )
    )
    assert label_finding(rows).fix is None


def test_labels_copied_from_the_ids_likewise(tmp_path):
    rows = project(tmp_path, TRAIN)
    rows.write_text(
        DATASET.replace('"labels": out["input_ids"].squeeze(0)', '"labels": enc["input_ids"].squeeze(0).clone()')
    )
    finding = label_finding(rows)
    assert finding.code == "PAD002" and finding.fix is None
    assert "decodes labels" in finding.no_fix
