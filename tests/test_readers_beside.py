"""Labels handed on to a reader out of view, where the project's own readers skip the pad value.

A dataset or collator that returns labels padded with the pad id harms training only through the
reader that grades them. transformers' models and torch's losses skip -100; a project's own model or
metric may skip the pad id instead (`CrossEntropyLoss(ignore_index=tokenizer.pad_token_id)`). When a
module that imports this one (in its directory, or the package directories above it) skips the value
the labels are padded with, and no reader of these labels is in view, PAD002 and PAD006 stay silent;
where the labels reach a loss in view, that loss decides. A -100 fix is unsafe where such a reader is.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from click.testing import CliRunner

from padlint.cli.main import main
from padlint.engine import lint_source

DATASET = """
from torch.utils.data import Dataset


class PretrainRows(Dataset):
    def __init__(self, tokenizer, texts):
        self.tokenizer = tokenizer
        self.texts = texts

    def __len__(self):
        return len(self.texts)

    def __getitem__(self, index):
        encoded = self.tokenizer(self.texts[index], padding="max_length", max_length=256, truncation=True)
        return {
            "input_ids": encoded["input_ids"],
            "attention_mask": encoded["attention_mask"],
            "labels": encoded["input_ids"].copy(),
        }
"""

MODEL_SKIPPING_PAD = """
import torch.nn as nn

from data import PretrainRows


class TinyDecoder(nn.Module):
    def __init__(self, vocab, pad_token_id):
        super().__init__()
        self.body = nn.Embedding(vocab, 32)
        self.head = nn.Linear(32, vocab)
        self.criterion = nn.CrossEntropyLoss(ignore_index=pad_token_id)

    def forward(self, input_ids, attention_mask=None, labels=None):
        logits = self.head(self.body(input_ids))
        return self.criterion(logits[:, :-1].flatten(0, 1), labels[:, 1:].flatten())


def training_rows(tokenizer, texts):
    return PretrainRows(tokenizer, texts)
"""

MODEL_SKIPPING_MINUS_100 = MODEL_SKIPPING_PAD.replace("ignore_index=pad_token_id", "ignore_index=-100")


def _write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())


def _codes(path: Path) -> list[str]:
    return [f.code for f in lint_source(path.read_text(), str(path))]


def test_dataset_labels_beside_a_model_that_skips_the_pad_id_are_silent(tmp_path: Path):
    _write(tmp_path, {"data.py": DATASET, "model.py": MODEL_SKIPPING_PAD})
    assert "PAD002" not in _codes(tmp_path / "data.py")


def test_the_same_labels_beside_a_model_that_skips_minus_100_fire(tmp_path: Path):
    _write(tmp_path, {"data.py": DATASET, "model.py": MODEL_SKIPPING_MINUS_100})
    assert "PAD002" in _codes(tmp_path / "data.py")


def test_the_same_labels_with_no_reader_beside_fire(tmp_path: Path):
    _write(tmp_path, {"data.py": DATASET})
    assert "PAD002" in _codes(tmp_path / "data.py")


def test_a_metric_in_a_script_above_the_package_counts_as_a_reader(tmp_path: Path):
    """The dataset sits in a package (`project/data/rows.py`); the evaluation script that grades its
    labels with a perplexity skipping the pad id sits where the packages are."""
    _write(
        tmp_path,
        {
            "project/__init__.py": "",
            "project/data/__init__.py": "",
            "project/data/rows.py": DATASET,
            "project/evaluate_ppl.py": """
                from torchmetrics.text import Perplexity
                from project.data.rows import PretrainRows


                def score(model, tokenizer, texts):
                    metric = Perplexity(ignore_index=tokenizer.pad_token_id)
                    for batch in PretrainRows(tokenizer, texts):
                        metric.update(model(batch["input_ids"]).logits, batch["labels"])
                    return metric.compute()
                """,
        },
    )
    assert "PAD002" not in _codes(tmp_path / "project" / "data" / "rows.py")


def test_a_script_beside_that_does_not_import_the_module_is_no_reader(tmp_path: Path):
    """A folder of unrelated scripts: one script's loss that skips the pad id says nothing about who
    reads another script's rows."""
    unrelated = MODEL_SKIPPING_PAD.split("\n\n\ndef training_rows")[0].replace("from data import PretrainRows", "")
    _write(tmp_path, {"data.py": DATASET, "model.py": unrelated})
    assert "PAD002" in _codes(tmp_path / "data.py")


def test_zero_padded_rows_beside_a_loss_that_skips_zero_are_silent_and_beside_minus_one_fire(tmp_path: Path):
    rows = """
        import torch


        class TokenRows(torch.utils.data.Dataset):
            def __init__(self, tokenizer, texts, width=128):
                self.tokenizer, self.texts, self.width = tokenizer, texts, width

            def __getitem__(self, index):
                ids = self.tokenizer.encode(self.texts[index])[: self.width]
                ids = ids + [0] * (self.width - len(ids))
                row = torch.tensor(ids)
                return {"input_ids": row, "labels": row.clone()}
        """
    loss = """
        import torch.nn.functional as F

        from collate import TokenRows


        def rows(tokenizer, texts):
            return TokenRows(tokenizer, texts)


        def lm_loss(logits, labels):
            return F.cross_entropy(logits.flatten(0, 1), labels.flatten(), ignore_index={value})
        """
    _write(tmp_path / "zero", {"collate.py": rows, "train.py": loss.format(value=0)})
    _write(tmp_path / "minus_one", {"collate.py": rows, "train.py": loss.format(value=-1)})
    assert "PAD002" not in _codes(tmp_path / "zero" / "collate.py")
    assert "PAD002" in _codes(tmp_path / "minus_one" / "collate.py")


def test_labels_that_reach_a_loss_in_view_are_judged_by_that_loss(tmp_path: Path):
    """The reader beside skips the pad id, but these labels go to a loss right here, which skips -100."""
    step = """
        import torch.nn.functional as F


        def train_step(model, tokenizer, texts):
            batch = tokenizer(texts, padding=True, return_tensors="pt")
            labels = batch["input_ids"].clone()
            logits = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits
            return F.cross_entropy(logits.flatten(0, 1), labels.flatten())
        """
    _write(tmp_path, {"step.py": step, "model.py": MODEL_SKIPPING_PAD})
    assert "PAD002" in _codes(tmp_path / "step.py")


def test_labels_padded_with_the_pad_id_beside_a_reader_that_skips_it_are_silent(tmp_path: Path):
    collate = """
        import torch
        from torch.nn.utils.rnn import pad_sequence


        class PadCollator:
            def __init__(self, tokenizer):
                self.tokenizer = tokenizer

            def __call__(self, features):
                ids = [torch.tensor(f["input_ids"]) for f in features]
                labels = [torch.tensor(f["labels"]) for f in features]
                pad = self.tokenizer.pad_token_id
                return {
                    "input_ids": pad_sequence(ids, batch_first=True, padding_value=pad),
                    "attention_mask": pad_sequence([torch.ones_like(i) for i in ids], batch_first=True),
                    "labels": pad_sequence(labels, batch_first=True, padding_value=pad),
                }
        """
    reader = MODEL_SKIPPING_PAD.replace("from data import PretrainRows", "from collate import PadCollator").replace(
        "PretrainRows(tokenizer, texts)", "PadCollator(tokenizer)(texts)"
    )
    _write(tmp_path / "skips_pad", {"collate.py": collate, "model.py": reader})
    default = reader.replace("ignore_index=pad_token_id", "ignore_index=-100")
    _write(tmp_path / "skips_default", {"collate.py": collate, "model.py": default})
    assert "PAD006" not in _codes(tmp_path / "skips_pad" / "collate.py")
    assert "PAD006" in _codes(tmp_path / "skips_default" / "collate.py")


def test_a_minus_100_fix_is_unsafe_beside_a_reader_of_another_value(tmp_path: Path):
    """The dataset's labels are trained on by a -100 model in view of nobody; beside it a metric skips -1:
    which reader gets these rows decides whether -100 is right, so the fix is not applied as safe. (A
    metric skipping 0 may skip these pads: the pad id's value is out of view. Then nothing is reported.)"""
    metric = """
        import torch.nn.functional as F

        from data import PretrainRows


        def scored_rows(tokenizer, texts):
            return PretrainRows(tokenizer, texts)


        def token_accuracy_loss(logits, labels):
            return F.cross_entropy(logits.flatten(0, 1), labels.flatten(), ignore_index=-1)
        """
    _write(tmp_path / "alone", {"data.py": DATASET})
    _write(tmp_path / "beside", {"data.py": DATASET, "metric.py": metric})
    _write(tmp_path / "zero", {"data.py": DATASET, "metric.py": metric.replace("ignore_index=-1", "ignore_index=0")})

    def fixes(folder: Path) -> str:
        result = CliRunner().invoke(main, ["check", "--no-cache", "--output-format", "json", str(folder / "data.py")])
        return result.output

    assert '"applicability": "safe"' in fixes(tmp_path / "alone")
    assert "PAD002" in fixes(tmp_path / "beside")
    assert '"applicability": "safe"' not in fixes(tmp_path / "beside")
    assert "PAD002" not in fixes(tmp_path / "zero")


def test_a_cached_silence_goes_when_the_reader_beside_changes(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PADLINT_CACHE_DIR", raising=False)
    _write(tmp_path, {"data.py": DATASET, "model.py": MODEL_SKIPPING_PAD})

    def check(*extra: str) -> str:
        return CliRunner().invoke(main, ["check", "--output-format", "concise", "data.py", *extra]).output

    assert check() == check() == "All checks passed!\n"  # the second one from the cache
    (tmp_path / "model.py").write_text(textwrap.dedent(MODEL_SKIPPING_MINUS_100).lstrip())
    assert "PAD002" in check()
    assert check() == check("--no-cache")


def test_an_importer_reads_only_the_definitions_it_names(tmp_path: Path):
    """`evaluate.py` grades the evaluation rows with a metric that skips the pad id; it never imports
    the training rows beside them in the same module, whose reader gives no ignore value."""
    two_datasets = DATASET + "\n\n" + DATASET.replace("PretrainRows", "EvalRows").split("\n\n\n", 1)[1]
    _write(
        tmp_path,
        {
            "data.py": two_datasets,
            "evaluate.py": """
                from torchmetrics.text import Perplexity

                from data import EvalRows


                def score(model, texts, tokenizer):
                    rows = EvalRows(tokenizer, texts)[0]
                    return Perplexity(ignore_index=tokenizer.pad_token_id)(model(rows["input_ids"]), rows["labels"])
                """,
            "train.py": """
                from transformers import Trainer, default_data_collator

                from data import PretrainRows


                def train(model, tokenizer, texts, args):
                    rows = PretrainRows(tokenizer, texts)
                    Trainer(model=model, args=args, train_dataset=rows, data_collator=default_data_collator).train()
                """,
        },
    )
    found = lint_source((tmp_path / "data.py").read_text(), str(tmp_path / "data.py"))
    lines = (tmp_path / "data.py").read_text().splitlines()
    holders = []
    for finding in found:
        assert finding.code == "PAD002"
        above = [line for line in lines[: finding.location.row] if line.startswith("class ")]
        holders.append(above[-1].split("(")[0].removeprefix("class "))
    assert holders == ["PretrainRows"]


SHIFTED_ROWS = """
    import torch
    from torch.nn.utils.rnn import pad_sequence


    def collate_rows(batch):
        inputs = [torch.tensor(row["tokens"][:-1]) for row in batch]
        targets = [torch.tensor(row["tokens"][1:]) for row in batch]
        return {"input_ids": pad_sequence(inputs, batch_first=True), "labels": pad_sequence(targets, batch_first=True)}
    """

TRAINER_IN_A_SIBLING_FOLDER = """
    import torch.nn as nn
    from torch.utils.data import DataLoader

    from utils.batches import collate_rows


    class Trainer:
        def __init__(self, model, rows, vocabulary):
            self.model = model
            self.loader = DataLoader(rows, batch_size=8, collate_fn=collate_rows)
            self.criterion = nn.CrossEntropyLoss(ignore_index={ignored})

        def epoch(self):
            for batch in self.loader:
                logits = self.model(batch["input_ids"])
                loss = self.criterion(logits.flatten(0, 1), batch["labels"].flatten())
                loss.backward()
    """


def _project(folder: Path, ignored: str) -> Path:
    """A script-style project run from its root: `utils/batches.py` pads, `executors/train.py` (a
    sibling folder, no packages) imports it and grades the labels with `ignored`."""
    _write(
        folder,
        {
            "pyproject.toml": "[project]\nname = 'tiny-lm'\n",
            "utils/batches.py": SHIFTED_ROWS,
            "executors/train.py": TRAINER_IN_A_SIBLING_FOLDER.format(ignored=ignored),
        },
    )
    return folder / "utils" / "batches.py"


def test_a_reader_in_a_sibling_folder_that_skips_the_pad_token_silences_zero_padded_labels(tmp_path: Path):
    """`pad_sequence` fills with 0; the trainer skips the id of the vocabulary's "<pad>": the pad id's value
    is out of view, so 0 may be it and nothing is known to be graded."""
    assert "PAD006" not in _codes(_project(tmp_path / "vocab", 'vocabulary.index("<pad>")'))
    assert "PAD006" not in _codes(_project(tmp_path / "pad_id", "vocabulary.pad_id()"))


def test_the_same_labels_beside_a_sibling_reader_of_minus_100_or_minus_1_fire(tmp_path: Path):
    assert "PAD006" in _codes(_project(tmp_path / "default", "-100"))
    assert "PAD006" in _codes(_project(tmp_path / "sentinel", "-1"))


def test_a_sibling_folder_that_does_not_import_the_module_is_no_reader(tmp_path: Path):
    batches = _project(tmp_path, 'vocabulary.index("<pad>")')
    trainer = tmp_path / "executors" / "train.py"
    trainer.write_text(trainer.read_text().replace("from utils.batches import collate_rows", "collate_rows = None"))
    assert "PAD006" in _codes(batches)


# A symbolic-music project: the collator pads token rows with its `pad_token`, a data module of the same
# file hands them on, and the model module (which imports the data module, not the collator) grades them
# with a loss that ignores the vocabulary's id of the pad token.
EVENT_COLLATOR = """
from torch.nn.utils.rnn import pad_sequence


class EventCollator:
    def __init__(self, pad_token=0, context=512):
        self.pad_token = pad_token
        self.context = context

    def __call__(self, features):
        rows = pad_sequence([f["input_ids"] for f in features], batch_first=True, padding_value=self.pad_token)
        return {"input_ids": rows[:, : self.context][:, :-1], "labels": rows[:, : self.context + 1][:, 1:].clone()}


class EventData:
    def __init__(self, files, batch_size=8):
        self.files, self.batch_size = files, batch_size

    def loader(self):
        from torch.utils.data import DataLoader

        return DataLoader(self.files, batch_size=self.batch_size, collate_fn=EventCollator())
"""

EVENT_MODEL = """
import torch.nn as nn

from events import EventData

PAD_TOKEN = "<pad>"


class EventDecoder(nn.Module):
    def __init__(self, vocab, files):
        super().__init__()
        self.vocab = vocab
        self.data = EventData(files)
        self.head = nn.Linear(64, len(vocab))
        self.loss_fn = nn.CrossEntropyLoss(ignore_index=self.vocab.to_i(PAD_TOKEN))

    def training_step(self, batch):
        logits = self.head(batch["hidden"])
        return self.loss_fn(logits.flatten(0, 1), batch["labels"].flatten())
"""


def test_a_loss_beside_ignoring_the_vocabularys_pad_id_reads_a_collators_pad_token(tmp_path: Path):
    """The reader names the data module that uses the collator, and its loss ignores the id the
    vocabulary gives the pad token (`vocab.to_i(PAD_TOKEN)`): labels filled with the collator's
    `pad_token` are graded correctly there. With a loss that keeps -100, they are reported."""
    _write(tmp_path, {"events.py": EVENT_COLLATOR, "model.py": EVENT_MODEL})
    assert "PAD002" not in _codes(tmp_path / "events.py")
    _write(tmp_path, {"model.py": EVENT_MODEL.replace("ignore_index=self.vocab.to_i(PAD_TOKEN)", "ignore_index=-100")})
    assert "PAD002" in _codes(tmp_path / "events.py")
