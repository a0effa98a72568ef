"""A field a map function wrote one string into is one text when read from one row of the dataset
(`ds[i]["prompt"]`, `for row in ds: row["prompt"]`): tokenized with `padding=True` it pads nothing, so
its ids need no mask (PAD003 stays silent). Read from a slice (`ds[0:8]["prompt"]`) or from a batch a
DataLoader collated by default, the same field is a list of strings: the finding stays. Fixtures are
our own."""

from __future__ import annotations

import textwrap

from padlint.engine import lint_source

HEAD = """
import datasets
import torch
from torch.utils.data import DataLoader
from transformers import AutoModel, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")
encoder = AutoModel.from_pretrained("bert-base-uncased")


def as_prompt(example):
    return {"prompt": f"question: {example['question']} context: {example['context']}"}


rows = datasets.load_dataset("squad", split="validation").map(as_prompt)
vectors = []
"""


def _pad003(body: str) -> list:
    source = textwrap.dedent(HEAD) + textwrap.dedent(body)
    return [f for f in lint_source(source, "embed.py") if f.code == "PAD003"]


def test_one_row_at_a_time_by_index_pads_nothing():
    body = """
    groups = [[rows[i] for i in range(j, j + 16)] for j in range(0, len(rows), 16)]
    for group in groups:
        for row in group:
            ids = tokenizer(row["prompt"], return_tensors="pt", padding=True).input_ids
            vectors.append(encoder(ids).last_hidden_state[:, 0])
    """
    assert _pad003(body) == []


def test_one_row_at_a_time_by_iteration_pads_nothing():
    body = """
    for row in rows:
        ids = tokenizer(row["prompt"], return_tensors="pt", padding=True).input_ids
        vectors.append(encoder(ids).last_hidden_state[:, 0])
    """
    assert _pad003(body) == []


def test_a_slice_of_rows_is_a_batch_of_texts():
    body = """
    chunk = rows[0:16]
    ids = tokenizer(chunk["prompt"], return_tensors="pt", padding=True).input_ids
    vectors.append(encoder(ids).last_hidden_state[:, 0])
    """
    assert len(_pad003(body)) == 1


def test_a_default_collated_batch_is_a_batch_of_texts():
    body = """
    for batch in DataLoader(rows, batch_size=16):
        ids = tokenizer(batch["prompt"], return_tensors="pt", padding=True).input_ids
        vectors.append(encoder(ids).last_hidden_state[:, 0])
    """
    assert len(_pad003(body)) == 1
