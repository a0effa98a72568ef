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
from nbwriters import code, jupyter, notebook  # noqa: E402
from standin_tokenizer import EOS_ID, PAD_ID, StandInTokenizer  # noqa: E402

from padlint.engine import fix_source, lint_source  # noqa: E402
from padlint.files.notebook import Notebook  # noqa: E402

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


# A notebook: targets tokenized as labels in one cell, a metric that maps -100 back only in the
# predictions, and a cell that decodes each stored label row to print it.
PREPARE_CELL = """\
from transformers import AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("facebook/bart-base")


def preprocess(batch):
    enc = tokenizer(batch["dialogue"], max_length=64, padding="max_length", truncation=True)
    targets = tokenizer(text_target=batch["summary"], max_length=16, padding="max_length", truncation=True)
    enc["labels"] = targets["input_ids"]
    return enc


rows = dataset.map(preprocess, batched=True)"""

METRIC_CELL = """\
import numpy as np


def compute_metrics(eval_pred):
    preds, labels = eval_pred
    preds = np.where(preds != -100, preds, tokenizer.pad_token_id)
    return {"n": len(tokenizer.batch_decode(preds, skip_special_tokens=True))}"""

SHOW_CELL = """\
for i in range(3):
    item = rows["validation"][i]
    reference = item["labels"]
    print(tokenizer.decode(reference, skip_special_tokens=True))"""


def notebook_label_finding(*cells: str):
    nb = notebook(*(code(text, f"c{i}") for i, text in enumerate(cells)))
    virtual = Notebook(jupyter(nb)).virtual_text()
    [finding] = [d for d in lint_source(virtual, "summaries.ipynb") if d.code in ("PAD002", "PAD006")]
    return finding


def test_a_notebook_cell_that_decodes_the_stored_labels_counts():
    finding = notebook_label_finding(PREPARE_CELL, METRIC_CELL, SHOW_CELL)
    assert finding.fix is None
    assert "decodes labels" in finding.no_fix


def test_mapping_back_the_predictions_only_does_not_map_the_labels():
    decoding_metric = METRIC_CELL.replace(
        'return {"n"', 'refs = tokenizer.batch_decode(labels, skip_special_tokens=True)\n    return {"n"'
    )
    assert notebook_label_finding(PREPARE_CELL, decoding_metric).fix is None
    mapped = decoding_metric.replace(
        "    refs =", "    labels = np.where(labels != -100, labels, tokenizer.pad_token_id)\n    refs ="
    )
    assert notebook_label_finding(PREPARE_CELL, mapped).fix is not None


def test_the_notebook_without_a_decoding_reader_takes_the_fix():
    assert notebook_label_finding(PREPARE_CELL, METRIC_CELL).fix is not None


# An evaluation helper the module imports: it receives the loader and decodes each label row it takes
# out of the batch under another name.
EVALUATION = textwrap.dedent(
    """
    def predict(model, tokenizer, loader):
        targets = []
        for data in loader:
            y_ids = data["labels"].to("cpu")
            generated = model.generate(input_ids=data["input_ids"], attention_mask=data["attention_mask"])
            targets += [tokenizer.decode(t, skip_special_tokens=True) for t in y_ids]
        return targets
    """
)

EXPERIMENT = DATASET.replace(
    "from torch.utils.data import Dataset\n",
    "from torch.utils.data import DataLoader, Dataset\n\nfrom data.evaluation import predict\n",
) + textwrap.dedent(
    """

    def evaluate(model, tokenizer, pairs):
        return predict(model, tokenizer, DataLoader(PairRows(tokenizer, pairs), batch_size=4))
    """
)


def test_an_imported_helper_that_decodes_the_labels_under_another_name_counts(tmp_path):
    rows = project(tmp_path, "")
    (tmp_path / "data" / "evaluation.py").write_text(EVALUATION)
    rows.write_text(EXPERIMENT)
    finding = label_finding(rows)
    assert finding.fix is None
    assert "evaluation.py decodes labels" in finding.no_fix


def test_decoding_what_a_model_returned_for_the_batch_is_not_decoding_labels(tmp_path):
    rows = project(tmp_path, "")
    outputs = EVALUATION.replace('y_ids = data["labels"].to("cpu")', "y_ids = model(**data).logits.argmax(-1)")
    (tmp_path / "data" / "evaluation.py").write_text(outputs)
    rows.write_text(EXPERIMENT)
    assert label_finding(rows).fix is not None
