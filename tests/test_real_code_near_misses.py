"""Shapes met in real code (transformers, peft, DeepSpeedExamples, the HF course) that must stay silent,
and the real bugs next to them that must still fire. Each case is written here in miniature."""

from __future__ import annotations

import textwrap

import pytest

from padlint.engine import lint_source


def codes(source: str) -> list[tuple[str, int]]:
    return [(d.code, d.location.row) for d in lint_source(textwrap.dedent(source), "case.py")]


SILENT = {
    # stanford_alpaca `_tokenize_fn`: padding="longest" on one string at a time pads nothing.
    "longest_on_each_string_of_a_sequence": """
        from typing import Sequence

        def tokenize_each(strings: Sequence[str], tokenizer):
            encoded = [tokenizer(text, return_tensors="pt", padding="longest") for text in strings]
            input_ids = labels = [e.input_ids[0] for e in encoded]
            return dict(input_ids=input_ids, labels=labels)
        """,
    # wav2vec2-style processors pad label ids with the tokenizer; the caller masks them.
    "processor_pads_label_ids": """
        class SpeechProcessor:
            def pad(self, features=None, labels=None):
                batch = self.feature_extractor.pad(features)
                labels = self.tokenizer.pad(labels)
                batch["labels"] = labels["input_ids"]
                return batch
        """,
    # A tokenizer output used only for its labels may be written into in place.
    "labels_alias_of_a_labels_only_encoding": """
        def encode(processor, audio, text):
            inputs = processor.feature_extractor(audio)
            encodings = processor.tokenizer(text, padding=True, return_tensors="pt")
            labels = encodings["input_ids"]
            labels[encodings["attention_mask"] == 0] = -100
            inputs["labels"] = labels
            return inputs
        """,
    # SAM-style point labels padded with -1 never reach a loss or a labels key.
    "point_labels_padded_with_minus_one": """
        import torch

        def embed_points(points, labels, pad):
            if pad:
                labels = torch.nn.functional.pad(labels, (0, 1), mode="constant", value=-1)
            return points * (labels[..., None] + 1)
        """,
    # Binary cell labels padded with 0 in a tokenizer's own `_pad`.
    "binary_labels_padded_with_zero": """
        def pad_features(encoded, difference, pad_id):
            encoded["labels"] = encoded["labels"] + [0] * difference
            encoded["input_ids"] = encoded["input_ids"] + [pad_id] * difference
            return encoded
        """,
    # An image's valid-pixel mask is not padding.
    "valid_pixel_mask_mean": """
        def pixel_loss(loss_fct, logits, labels, ignore):
            valid_mask = (labels != ignore).float()
            loss = loss_fct(logits, labels)
            return (loss * valid_mask).mean()
        """,
    # pad=EOS in one test method does not make another test's collator wrong.
    "pad_eos_in_another_test_method": """
        from transformers import DataCollatorForLanguageModeling

        class TestTraining:
            def test_generation(self, tokenizer):
                tokenizer.pad_token = tokenizer.eos_token
                return tokenizer

            def test_training(self, tokenizer):
                return DataCollatorForLanguageModeling(tokenizer, mlm=False)
        """,
    # `x = x + ...` chains must not send the label-name check into a loop.
    "self_referencing_label_chain": """
        def grow(labels, pad):
            labels = labels + labels
            labels = labels + labels
            return {"input_ids": labels + [pad] * 2}
        """,
    # A helper that pads a shape it is handed back (reformer's chunk padding) is not ones over padding.
    "helper_padding_its_own_returned_shape": """
        import torch

        class Model:
            def pad_to_chunks(self, input_ids, input_shape, padding_length, pad_id):
                padded = torch.full((input_shape[0], padding_length), pad_id)
                attention_mask = torch.cat([torch.ones(input_shape), torch.zeros((input_shape[0], padding_length))], -1)
                input_ids = torch.cat([input_ids, padded], -1)
                return input_ids, attention_mask, input_ids.size()

            def forward(self, input_ids, pad_id):
                input_shape = input_ids.size()
                input_ids, mask, input_shape = self.pad_to_chunks(input_ids, input_shape, 8, pad_id)
                return self.pad_to_chunks(input_ids, input_shape, 8, pad_id)
        """,
}


@pytest.mark.parametrize("name", sorted(SILENT))
def test_real_code_near_miss_stays_silent(name):
    assert codes(SILENT[name]) == []


FIRE = {
    # DeepSpeed-SuperOffload finetune_zero3.py: max_length padding, labels copied, nothing masked.
    "max_length_then_labels_copy": (
        """
        def preprocess(example, tokenizer):
            tokenized = tokenizer(example["text"], padding="max_length", max_length=256, truncation=True)
            tokenized["labels"] = tokenized["input_ids"].copy()
            return tokenized
        """,
        [("PAD002", 4)],
    ),
    # peft corda_finetuning: pad set to EOS, mask by `ne(pad)`.
    "pad_is_eos_ne_mask": (
        """
        import torch
        from torch.nn.utils.rnn import pad_sequence

        def collate(rows, tokenizer):
            tokenizer.pad_token_id = tokenizer.eos_token_id
            ids = pad_sequence([torch.tensor(r) for r in rows], batch_first=True, padding_value=tokenizer.pad_token_id)
            return dict(input_ids=ids, attention_mask=ids.ne(tokenizer.pad_token_id))
        """,
        [("PAD005", 8)],
    ),
    # transformers beam search: `pad or eos[0]` as a fill value.
    "falsy_pad_fallback_fill": (
        """
        import torch

        def running(batch_size, length, pad_token_id, eos_token_id):
            fill = pad_token_id or eos_token_id[0]
            return torch.full((batch_size, length), fill_value=fill)
        """,
        [("PAD010", 5)],
    ),
}


@pytest.mark.parametrize("name", sorted(FIRE))
def test_real_code_bug_still_fires(name):
    source, expected = FIRE[name]
    assert codes(source) == expected
