"""Batch preparation for two small training jobs, with two padding bugs.

1. ``PairCollator`` pads query/passage pairs for a BERT-style cross-encoder and then builds the
   attention mask as all ones over the padded batch, so the encoder attends to padding (PAD001).
2. ``tokenize_support_chat`` pads every example to ``MAX_LENGTH`` and copies the padded ids into the
   labels, so the loss trains the model to predict padding (PAD002).

``fixed_collator.py`` next to this file is the corrected version. padlint reads this module; it never
imports or runs it.
"""
import torch
from datasets import load_dataset
from torch.nn.utils.rnn import pad_sequence
from transformers import AutoTokenizer

MAX_LENGTH = 384


class PairCollator:
    """Collates pre-tokenized (query, passage) pairs with a relevance label."""

    def __init__(self, tokenizer):
        self.tokenizer = tokenizer

    def __call__(self, features):
        sequences = []
        for feature in features:
            ids = feature["query_ids"] + [self.tokenizer.sep_token_id] + feature["passage_ids"]
            sequences.append(torch.tensor(ids[:MAX_LENGTH], dtype=torch.long))
        input_ids = pad_sequence(
            sequences, batch_first=True, padding_value=self.tokenizer.pad_token_id
        )
        attention_mask = torch.ones_like(input_ids)
        labels = torch.tensor([float(feature["relevant"]) for feature in features])
        return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}


tokenizer = AutoTokenizer.from_pretrained("HuggingFaceTB/SmolLM2-360M")
tokenizer.add_special_tokens({"pad_token": "<|pad|>"})


def tokenize_support_chat(example):
    text = f"Customer: {example['question']}\nAgent: {example['reply']}{tokenizer.eos_token}"
    out = tokenizer(text, truncation=True, max_length=MAX_LENGTH, padding="max_length")
    out["labels"] = list(out["input_ids"])
    return out


def load_support_dataset(path):
    raw = load_dataset("json", data_files=path, split="train")
    return raw.map(tokenize_support_chat, remove_columns=raw.column_names)
