"""The corrected version of ``buggy_collator.py``; padlint reports nothing here.

1. ``PairCollator`` builds the attention mask from the lengths of the rows before padding, so pad
   positions get 0 whatever the pad token is.
2. ``tokenize_support_chat`` keeps the token where the attention mask is 1 and writes -100 at the pad
   positions, so the loss ignores them.
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
        lengths = torch.tensor([len(seq) for seq in sequences])
        input_ids = pad_sequence(
            sequences, batch_first=True, padding_value=self.tokenizer.pad_token_id
        )
        positions = torch.arange(input_ids.size(1))
        attention_mask = (positions[None, :] < lengths[:, None]).long()
        labels = torch.tensor([float(feature["relevant"]) for feature in features])
        return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}


tokenizer = AutoTokenizer.from_pretrained("HuggingFaceTB/SmolLM2-360M")
tokenizer.add_special_tokens({"pad_token": "<|pad|>"})


def tokenize_support_chat(example):
    text = f"Customer: {example['question']}\nAgent: {example['reply']}{tokenizer.eos_token}"
    out = tokenizer(text, truncation=True, max_length=MAX_LENGTH, padding="max_length")
    out["labels"] = [
        token if keep else -100 for token, keep in zip(out["input_ids"], out["attention_mask"])
    ]
    return out


def load_support_dataset(path):
    raw = load_dataset("json", data_files=path, split="train")
    return raw.map(tokenize_support_chat, remove_columns=raw.column_names)
