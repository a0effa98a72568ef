"""An all-ones mask on one path and the right mask on another (`if model_has_no_pad: ones, else:
ids.ne(pad)`) is an option the code chose, not an omission: PAD001 stays silent, whichever padding step of
the ids each mask names. Seen on unseen code (fresh49 starcoder2-self-align): the ids came from a helper of
another module with two padding steps (one per side), the ones and the `ne` named different ones, and
the finding came and went from run to run with the order the walk met them. Each run below is a fresh
process, so the order is each time another."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

HELPER = """
import torch


def pad_rows(rows, pad_value, side, width=None):
    width = width or max(len(r) for r in rows)
    out = []
    for row in rows:
        gap = width - len(row)
        if side == "left":
            out.append(torch.cat([torch.full((gap,), pad_value, dtype=torch.long), torch.tensor(row)]))
        else:
            out.append(torch.cat([torch.tensor(row), torch.full((gap,), pad_value, dtype=torch.long)]))
    return torch.stack(out)
"""

TRAIN = """
import torch

from padding import pad_rows


def make_collator(model_key, pad_token_id):
    def collate(examples):
        input_ids = pad_rows([e["input_ids"] for e in examples], pad_token_id, "right")
        labels = pad_rows([e["labels"] for e in examples], -100, "right")
        if "bos-is-pad" in model_key:
            attention_mask = torch.ones(input_ids.shape, dtype=torch.bool)
        else:
            attention_mask = input_ids.ne(pad_token_id)
        return {"input_ids": input_ids, "labels": labels, "attention_mask": attention_mask}

    return collate
"""

PROBE = "from padlint.engine import lint_source; import sys; print(sorted({d.code for d in lint_source(open(sys.argv[1]).read(), sys.argv[1])}))"


def run(path: Path) -> str:
    return subprocess.run([sys.executable, "-c", PROBE, str(path)], capture_output=True, text=True, check=True).stdout


def test_ones_beside_the_right_mask_on_another_path_are_silent_on_every_run(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text("[project]\\nname = 'coder-sft'\\n")
    (tmp_path / "padding.py").write_text(textwrap.dedent(HELPER))
    train = tmp_path / "train.py"
    train.write_text(textwrap.dedent(TRAIN))
    assert {run(train) for _ in range(4)} == {"[]\n"}


def test_ones_alone_stay_flagged(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text("[project]\\nname = 'coder-sft'\\n")
    (tmp_path / "padding.py").write_text(textwrap.dedent(HELPER))
    train = tmp_path / "train.py"
    ones_only = TRAIN.replace(
        "attention_mask = input_ids.ne(pad_token_id)", "attention_mask = torch.ones_like(input_ids)"
    )
    train.write_text(textwrap.dedent(ones_only))
    assert "PAD001" in run(train)
