"""A dataset split before it is handed on keeps its items (fixtures are our own): `random_split(ds, [n, m])`
returns one Subset per length, `Subset(ds, idx)` one view, each yielding `ds[i]` (library table, torch
2.13.0 torch/utils/data/dataset.py). Before, the split lost the dataset, so ids padded in a Dataset and
read back as labels by a Trainer's lambda collator (the GPT-Neo fine-tuning example's shape) went
unreported."""

from __future__ import annotations

import textwrap

from padlint.engine import lint_source

SPLIT = """
    import torch
    from torch.utils.data import Dataset, random_split
    from transformers import Trainer, TrainingArguments


    class Lines(Dataset):
        def __init__(self, texts, tokenizer, width):
            self.ids, self.masks = [], []
            for text in texts:
                enc = tokenizer(text + "<|endoftext|>", truncation=True, max_length=width, padding="max_length")
                self.ids.append(torch.tensor(enc["input_ids"]))
                self.masks.append(torch.tensor(enc["attention_mask"]))

        def __len__(self):
            return len(self.ids)

        def __getitem__(self, idx):
            return self.ids[idx], self.masks[idx]


    def train(model, tokenizer, texts):
        dataset = Lines(texts, tokenizer, width=64)
        train_set, val_set = random_split(dataset, [len(dataset) - 10, 10])
        Trainer(
            model=model,
            args=TrainingArguments(output_dir="out"),
            train_dataset=train_set,
            eval_dataset=val_set,
            data_collator=lambda rows: {
                "input_ids": torch.stack([r[0] for r in rows]),
                "attention_mask": torch.stack([r[1] for r in rows]),
                "labels": torch.stack([r[0] for r in rows]),
            },
        ).train()
"""


def codes(source: str) -> list[str]:
    return [d.code for d in lint_source(textwrap.dedent(source), "train.py")]


def test_a_random_split_keeps_the_items_a_collator_reads():
    assert codes(SPLIT) == ["PAD002"]


def test_a_subset_keeps_the_items_a_collator_reads():
    subset = SPLIT.replace(
        "train_set, val_set = random_split(dataset, [len(dataset) - 10, 10])",
        "train_set = Subset(dataset, range(10, len(dataset)))\n        val_set = Subset(dataset, range(10))",
    ).replace("import Dataset, random_split", "import Dataset, Subset")
    assert subset != SPLIT
    assert codes(subset) == ["PAD002"]


def test_labels_masked_by_the_collator_after_the_split_are_silent():
    masked = SPLIT.replace(
        '"labels": torch.stack([r[0] for r in rows]),',
        '"labels": torch.stack([r[0] for r in rows]).masked_fill(torch.stack([r[1] for r in rows]) == 0, -100),',
    )
    assert masked != SPLIT
    assert codes(masked) == []
