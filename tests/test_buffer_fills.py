"""Buffers filled with the pad id before rows are written in: `.fill_(pad)`, `new_full`, `x.new(...)`.

fairseq-style collate functions make the batch as `values[0].new(n, width).fill_(pad_idx)` (or
`torch.LongTensor(n, width).fill_(pad)`, `torch.empty(...).fill_(pad)`, `ids.new_full(size, pad)`)
and copy each row into its start: the rest of each row is padding, exactly as with
`torch.full(size, pad)`. A buffer filled with -100 holds ignored labels; a fill that is no pad id
pads nothing; a tensor that was not just made (a parameter, a model's weights) is no buffer.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from test_fix_execution import load_module

from padlint.engine import fix_source, lint_source

SOURCE_AND_TARGET = """
import torch


def collate(samples, pad_idx):
    width = max(max(len(s["source"]), len(s["target"])) for s in samples)
    tokens = torch.zeros(len(samples), width, dtype=torch.long)
    tokens.fill_(pad_idx)
    targets = samples[0]["target"].new(len(samples), width).fill_({target_fill})
    for i, s in enumerate(samples):
        tokens[i, : len(s["source"])] = s["source"]
        targets[i, : len(s["target"])] = s["target"]
    return {{"input_ids": tokens, "attention_mask": tokens.ne(pad_idx).long(), "labels": targets}}
"""

LM_ROWS = """
import torch


def collate(samples, pad_idx):
    width = max(len(s) for s in samples)
    tokens = {buffer}
    for i, s in enumerate(samples):
        tokens[i, : len(s)] = s
    return {{"input_ids": tokens, "attention_mask": torch.ones_like(tokens), "labels": tokens.clone()}}
"""

BUFFERS = {
    "new_then_fill": "samples[0].new(len(samples), width).fill_(pad_idx)",
    "long_tensor": "torch.LongTensor(len(samples), width).fill_(pad_idx)",
    "empty": "torch.empty(len(samples), width, dtype=torch.long).fill_(pad_idx)",
    "new_full": "samples[0].new_full((len(samples), width), pad_idx)",
}


def _codes(source: str) -> list[str]:
    return sorted(d.code for d in lint_source(textwrap.dedent(source), "collate.py"))


@pytest.mark.parametrize("buffer", BUFFERS.values(), ids=BUFFERS.keys())
def test_a_buffer_filled_with_the_pad_id_pads_the_rows_written_into_it(buffer: str):
    assert _codes(LM_ROWS.format(buffer=buffer)) == ["PAD001", "PAD002"]


def test_a_label_buffer_filled_with_the_pad_id_pads_the_labels_with_a_token():
    assert _codes(SOURCE_AND_TARGET.format(target_fill="pad_idx")) == ["PAD006"]


def test_a_label_buffer_filled_with_minus_100_is_silent():
    assert _codes(SOURCE_AND_TARGET.format(target_fill="-100")) == []


def test_a_fill_that_is_no_pad_id_or_a_tensor_not_just_made_pads_nothing():
    scaled = LM_ROWS.format(buffer="samples[0].new(len(samples), width).fill_(scale)").replace(
        "pad_idx", "pad_idx, scale"
    )
    assert _codes(scaled) == []
    weights = """
        import torch


        def reset(embedding, pad_idx):
            embedding.weight.data.fill_(pad_idx)
            return {"labels": embedding.weight.data.clone()}
        """
    assert _codes(weights) == []


def _load(tmp_path: Path, source: str, name: str):
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    return load_module(path, name)


@pytest.mark.parametrize("buffer", BUFFERS.values(), ids=BUFFERS.keys())
def test_the_fixed_collate_masks_exactly_the_pads(tmp_path: Path, buffer: str):
    torch = pytest.importorskip("torch")
    source = textwrap.dedent(LM_ROWS.format(buffer=buffer))
    fixed = fix_source(source, "collate.py").source
    assert _codes(fixed) == []
    collate = _load(tmp_path, fixed, f"fills_{abs(hash(buffer))}").collate
    pad, eos = 0, 2
    samples = [torch.tensor([5, 6, 7, eos]), torch.tensor([8, eos]), torch.tensor([9, 4, 3, 3, eos])]
    batch = collate(samples, pad)
    lengths = torch.tensor([len(s) for s in samples])
    real = torch.arange(batch["input_ids"].size(1))[None, :] < lengths[:, None]
    assert (batch["attention_mask"] == real.long()).all()
    assert (batch["labels"][~real] == -100).all()
    assert (batch["labels"][real] == batch["input_ids"][real]).all()
    assert (batch["labels"][batch["input_ids"] == eos] == eos).all()  # each real EOS keeps its label


def test_the_fixed_label_buffer_holds_minus_100_at_the_pads(tmp_path: Path):
    torch = pytest.importorskip("torch")
    source = textwrap.dedent(SOURCE_AND_TARGET.format(target_fill="pad_idx"))
    fixed = fix_source(source, "collate.py").source
    assert _codes(fixed) == []
    collate = _load(tmp_path, fixed, "fills_targets").collate
    pad, eos = 1, 2
    samples = [
        {"source": torch.tensor([5, 6, 7]), "target": torch.tensor([8, eos])},
        {"source": torch.tensor([9]), "target": torch.tensor([4, 4, 4, eos])},
    ]
    batch = collate(samples, pad)
    lengths = torch.tensor([len(s["target"]) for s in samples])
    real = torch.arange(batch["labels"].size(1))[None, :] < lengths[:, None]
    assert (batch["labels"][~real] == -100).all()
    assert (batch["labels"][real] != -100).all()
    assert (batch["labels"] == eos).sum() == 2  # each real EOS keeps its label


RUN_COMPREHENSION = """
import torch


def collate(rows, pad_id):
    width = max(len(r) for r in rows)
    ids = torch.tensor([r + [{item} for _ in range(width - len(r))] for r in rows])
    positions = torch.tensor([[i for i in range(width)] for _ in rows])
    return {{"input_ids": ids, "position_ids": positions, "labels": ids.clone()}}
"""


def test_a_run_written_as_a_comprehension_pads_as_the_repeat_does():
    """`[pad_id for _ in range(n)]` is `[pad_id] * n`; `[i for i in range(n)]` (the item varies) and a
    run of -100 are no padding of ids."""
    assert _codes(RUN_COMPREHENSION.format(item="pad_id")) == ["PAD002"]
    assert _codes(RUN_COMPREHENSION.format(item="-100")) == []


def test_the_fixed_comprehension_collate_masks_exactly_the_pads(tmp_path: Path):
    torch = pytest.importorskip("torch")
    fixed = fix_source(textwrap.dedent(RUN_COMPREHENSION.format(item="pad_id")), "collate.py").source
    assert _codes(fixed) == []
    collate = _load(tmp_path, fixed, "fills_runs").collate
    pad, eos = 0, 2
    rows = [[5, 6, eos], [7, eos], [9, 9, 9, 9, eos]]
    batch = collate(rows, pad)
    real = torch.arange(batch["input_ids"].size(1))[None, :] < torch.tensor([len(r) for r in rows])[:, None]
    assert (batch["labels"][~real] == -100).all()
    assert (batch["labels"][real] == batch["input_ids"][real]).all()
    assert (batch["labels"] == eos).sum() == 3  # each real EOS keeps its label
