"""PAD011 takes a factor as a padding mask by what it holds, not only by its name: tokens compared unequal
to a pad value written in place (`(target != 0).float()`), or the negation of "is a pad" (`~skipped` with
`skipped = (target == 0) | (target == cls_id)`; fresh60: a style-transfer trainer). Its fix divides by the
number of real positions; run here on a ragged batch, the loss equals the mean over the real tokens.
Fixtures are our own (tests/fixtures/rules/PAD011)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from padlint.engine import fix_source, lint_source

FIXTURES = Path(__file__).parent / "fixtures" / "rules" / "PAD011"


def _load(source: str, path: Path):
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Model:
    """Returns fixed logits whatever it is handed."""

    def __init__(self, logits):
        self.logits = logits

    def __call__(self, **_):
        return self


class _Optimizer:
    def zero_grad(self):
        pass

    def step(self):
        pass


def _batch(torch):
    target = torch.tensor([[101, 7, 8, 9], [101, 7, 0, 0]])  # [CLS] first, the second row padded with 0
    return {"target_ids": target, "labels": target, "input_ids": target, "attention_mask": (target != 0).long()}


def _loss_of(module, torch, logits, batch):
    """The loss the module's training step computes (the epoch loop's is read where `backward` is called)."""
    if not hasattr(module, "run_epoch"):
        return module.training_step(_Model(logits), batch).detach()
    seen = {}
    original = torch.Tensor.backward
    torch.Tensor.backward = lambda self, *a, **k: seen.setdefault("loss", self.detach())  # read, not train
    try:
        module.run_epoch([batch], _Model(logits), _Optimizer())
    finally:
        torch.Tensor.backward = original
    return seen["loss"]


@pytest.mark.parametrize(
    ("name", "skips_cls"), [("inverted_pad_equality_mask_mean.py", True), ("inline_pad_inequality_mask_mean.py", False)]
)
def test_the_fixed_loss_is_the_mean_over_real_positions(name, skips_cls, tmp_path):
    torch = pytest.importorskip("torch")
    source = (FIXTURES / name).read_text()
    assert [d.code for d in lint_source(source, name)] == ["PAD011"]
    fixed = fix_source(source, name, unsafe=False).source
    assert fixed != source
    torch.manual_seed(0)
    logits = torch.randn(2, 4, 128)
    batch = _batch(torch)
    target = batch["labels"]
    per_token = torch.nn.functional.cross_entropy(logits.transpose(1, 2), target, reduction="none")
    real = (target != 0) & (target != 101) if skips_cls else target != 0
    expected = per_token[real].mean()
    before = _loss_of(_load(source, tmp_path / f"orig_{Path(name).stem}.py"), torch, logits, batch)
    after = _loss_of(_load(fixed, tmp_path / f"fixed_{Path(name).stem}.py"), torch, logits, batch)
    assert not torch.allclose(before, expected)  # the mean over every position, pads included
    assert torch.allclose(after, expected), (after, expected)
