"""PAD006's fix rewrites a label pad value where the padding is written. Where that padding sits in a helper
the module calls for other values too (`pad(src)`, `pad(tgt)`), the rewrite would put -100 into the input
ids as well, which no embedding takes: the fix is withheld and the help says why (fresh60: a GPT-2 fluency
scorer padding sources and targets with one helper). Called for the labels alone, the fix stays, and the
fixed collator is run. Fixtures are our own."""

from __future__ import annotations

import importlib.util
import textwrap
from pathlib import Path

import pytest

from padlint.engine import fix_source, lint_source

SHARED = """
import torch
import torch.nn.functional as F


def pad_rows(rows, pad_id=50256):
    width = max(len(r) for r in rows)
    return torch.tensor([r + [pad_id] * (width - len(r)) for r in rows])


def collate(pairs):
    sources, targets = zip(*pairs)
    return pad_rows(list(sources)), pad_rows(list(targets))


def step(model, pairs):
    src, tgt = collate(pairs)
    logits = model(src)
    return F.cross_entropy(logits.flatten(0, 1), tgt.flatten())
"""

ALONE = SHARED.replace(
    "return pad_rows(list(sources)), pad_rows(list(targets))", "return list(sources), pad_rows(list(targets))"
)


def _pad006(source: str):
    return [d for d in lint_source(textwrap.dedent(source), "train.py") if d.code == "PAD006"]


def test_a_helper_that_pads_ids_and_labels_gets_no_fix():
    (finding,) = _pad006(SHARED)
    assert finding.fix is None
    assert "pad_rows" in (finding.no_fix or "") and "2 calls" in (finding.no_fix or "")
    assert fix_source(textwrap.dedent(SHARED), "train.py", unsafe=True).source == textwrap.dedent(SHARED)


def test_a_helper_that_pads_only_the_labels_is_fixed_and_runs(tmp_path: Path):
    torch = pytest.importorskip("torch")
    (finding,) = _pad006(ALONE)
    assert finding.fix is not None
    fixed = fix_source(textwrap.dedent(ALONE), "train.py", unsafe=False).source
    path = tmp_path / "fixed_collate.py"
    path.write_text(fixed)
    spec = importlib.util.spec_from_file_location("fixed_collate", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    _src, tgt = module.collate([([5, 6, 7], [8, 9, 2]), ([5], [8])])
    assert tgt.tolist() == [[8, 9, 2], [8, -100, -100]]  # -100 exactly at the pads, the EOS keeps its label
    assert torch.is_tensor(tgt)
