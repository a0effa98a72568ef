"""`{"input_ids": f["labels"]}` packs labels for `tokenizer.pad` (the speech seq2seq collator idiom): it is no
model input, so PAD003 does not report a mask missing beside it (seen on unseen code: a Whisper collator in
its own module, fed by a map function that pads the labels). The labels themselves, padded in the map
function and copied with their pads, are still PAD002's finding. Fixtures are our own."""

from __future__ import annotations

import textwrap

from click.testing import CliRunner

from padlint.cli import main

COLLATOR = """
from dataclasses import dataclass
from typing import Any


@dataclass
class SpeechCollator:
    processor: Any

    def __call__(self, features):
        audio = [{"input_features": f["input_features"]} for f in features]
        batch = self.processor.feature_extractor.pad(audio, return_tensors="pt")
        label_features = [{"input_ids": f["labels"]} for f in features]
        labels_batch = self.processor.tokenizer.pad(label_features, return_tensors="pt")
        batch["labels"] = labels_batch["input_ids"].masked_fill(labels_batch.attention_mask.ne(1), -100)
        return batch
"""

TRAIN = """
from transformers import Seq2SeqTrainer, WhisperForConditionalGeneration, WhisperProcessor

from collator import SpeechCollator

processor = WhisperProcessor.from_pretrained("openai/whisper-small")
model = WhisperForConditionalGeneration.from_pretrained("openai/whisper-small")


def prepare(batch):
    batch["input_features"] = processor.feature_extractor(batch["audio"], sampling_rate=16000).input_features[0]
    labels = processor.tokenizer(batch["text"], padding="max_length", max_length=225, truncation=True)
    batch["labels"] = labels["input_ids"]
    return batch


def train(raw, args):
    rows = raw.map(prepare)
    Seq2SeqTrainer(model=model, args=args, train_dataset=rows, data_collator=SpeechCollator(processor)).train()
"""


def test_labels_packed_as_input_ids_for_pad_are_no_model_input(tmp_path, monkeypatch):
    (tmp_path / "collator.py").write_text(textwrap.dedent(COLLATOR))
    (tmp_path / "train.py").write_text(textwrap.dedent(TRAIN))
    monkeypatch.chdir(tmp_path)
    output = CliRunner().invoke(main, ["check", "--no-cache", "--output-format", "concise", "."]).output
    assert "PAD003" not in output
    assert "train.py:13:" in output and "PAD002" in output  # the map's labels keep their pads
