"""A run of pads joined to data along the sequence (`torch.cat([torch.full((n,), pad_id), ids])`) pads
it on the side the run is on, as `[pad_id] * n + ids` does for lists. Left-padded labels whose prefix
is set to -100 up to the answer (counting the pads) hide the pads; the same prefix on right-padded
labels hides only the prompt (PAD002). Fixtures are our own."""

from __future__ import annotations

import textwrap

import pytest

from padlint.engine import lint_source

COLLATE = """
import torch


def pad_row(seq, width, value):
    run = torch.full((width - len(seq),), value, dtype=torch.long)
    return torch.cat({parts})


def collate(rows, pad_id):
    width = max(len(r["ids"]) for r in rows)
    ids = torch.stack([pad_row(torch.tensor(r["ids"]), width, pad_id) for r in rows])
    mask = torch.stack([pad_row(torch.ones(len(r["ids"]), dtype=torch.long), width, 0) for r in rows])
    labels = ids.clone()
    for i in range(len(rows)):
        answer_at = int((mask[i] == 0).sum()) + rows[i]["answer_start"]
        labels[i, :answer_at] = -100
    return {"input_ids": ids, "attention_mask": mask, "labels": labels}
"""


def _codes(parts: str) -> list[str]:
    return sorted(f.code for f in lint_source(textwrap.dedent(COLLATE).replace("{parts}", parts), "collate.py"))


def test_a_prefix_mask_over_left_pads_hides_them():
    assert _codes("[run, seq]") == []


def test_a_prefix_mask_over_right_pads_leaves_them_graded():
    assert _codes("[seq, run]") == ["PAD002"]


@pytest.mark.parametrize("parts", ["[run, seq]", "[seq, run]"])
def test_the_joined_rows_run_as_the_side_says(parts):
    torch = pytest.importorskip("torch")
    namespace: dict = {}
    exec(textwrap.dedent(COLLATE).replace("{parts}", parts), namespace)
    rows = [{"ids": [5, 6, 7, 8], "answer_start": 2}, {"ids": [5, 9], "answer_start": 1}]
    batch = namespace["collate"](rows, 0)
    short = batch["input_ids"][1].tolist()
    assert short == ([0, 0, 5, 9] if parts == "[run, seq]" else [5, 9, 0, 0])
    pads = batch["attention_mask"] == 0
    hidden = batch["labels"] == -100
    assert bool(hidden[pads].all()) is (parts == "[run, seq]")
    assert torch.equal(batch["labels"][0], torch.tensor([-100, -100, 7, 8]))
