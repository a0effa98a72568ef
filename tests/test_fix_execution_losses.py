"""Run padlint's PAD007 and PAD011 fixes on small loss functions and check the numbers they compute.

The batch-level harness (test_fix_execution.py) checks masks and labels; these two rules are about the
loss itself, so each case here is a module with a loss function that is linted, fixed with
`fix_source(..., unsafe=False)`, written to tmp_path, imported and called on a tiny ragged example:

- PAD011 (`(loss * mask).mean()`): the fixed loss must equal the mean of the per-token loss over the
  real tokens only, must not change when the values at pad positions change, and must be 0 (not NaN)
  for a batch whose mask is all zeros; the original must give a different (smaller) value.
- PAD007 (`ignore_index` differs from the label pad value): the fixed loss must equal the mean
  cross-entropy over the real targets, and must not change when the logits at pad positions change;
  the original either fails (a pad value the loss does not ignore is out of range) or grades padding.

Every case needs torch and is skipped without it.
"""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path

import pytest

from padlint.engine import fix_source, lint_source

# ---- the cases ------------------------------------------------------------------------------------------

PAD011_CASES = {
    # entry(values, mask) -> scalar loss; `values` is the per-token loss (B, T), `mask` is 1 on real tokens
    "functional_token_loss": (
        "token_loss",
        '''
        import torch
        import torch.nn.functional as F


        def token_loss(per_token, attention_mask):
            """Cross-entropy per token is computed upstream; average it over the batch."""
            return (per_token * attention_mask).mean()


        def lm_loss(logits, targets, attention_mask):
            per_token = F.cross_entropy(logits.transpose(1, 2), targets, reduction="none")
            return token_loss(per_token, attention_mask)
        ''',
    ),
    "torch_mean_pad_mask": (
        "masked_regression_loss",
        """
        import torch


        def masked_regression_loss(squared_error, pad_mask):
            return torch.mean(squared_error * pad_mask)
        """,
    ),
    "mask_on_the_left_in_a_method": (
        "ResponseLoss",
        """
        import torch
        from torch import nn


        class ResponseLoss(nn.Module):
            def forward(self, per_token, response_mask):
                return (response_mask * per_token).mean()
        """,
    ),
}

PAD007_CASES = {
    # entry(logits, rows) -> scalar loss; `rows` are ragged target rows, padded inside the module
    "criterion_ignores_minus_one_labels_padded_minus_100": (
        "training_loss",
        """
        import torch
        from torch import nn
        from torch.nn.utils.rnn import pad_sequence

        criterion = nn.CrossEntropyLoss(ignore_index=-1)


        def training_loss(logits, rows):
            labels = pad_sequence([torch.tensor(r) for r in rows], batch_first=True, padding_value=-100)
            return criterion(logits.reshape(-1, logits.size(-1)), labels.reshape(-1))
        """,
    ),
    "default_loss_labels_padded_with_constant": (
        "training_loss",
        """
        import torch
        import torch.nn.functional as F
        from torch.nn.utils.rnn import pad_sequence

        LABEL_PAD = -1


        def training_loss(logits, rows):
            labels = pad_sequence([torch.tensor(r) for r in rows], batch_first=True, padding_value=LABEL_PAD)
            return F.cross_entropy(logits.reshape(-1, logits.size(-1)), labels.reshape(-1))
        """,
    ),
    "functional_ignores_zero_labels_masked_minus_100": (
        "training_loss",
        """
        import torch
        import torch.nn.functional as F
        from torch.nn.utils.rnn import pad_sequence


        def training_loss(logits, rows):
            ids = pad_sequence([torch.tensor(r) for r in rows], batch_first=True, padding_value=0)
            lengths = torch.tensor([len(r) for r in rows])
            mask = torch.arange(ids.size(1))[None, :] < lengths[:, None]
            labels = ids.masked_fill(~mask, -100)
            loss = F.cross_entropy(
                logits.reshape(-1, logits.size(-1)),
                labels.reshape(-1),
                ignore_index=0,
            )
            return loss
        """,
    ),
}

# ragged rows: lengths 4, 2 and 1 in a batch of width 4; token 0 appears as a real target (so a loss
# that ignores 0 also drops real tokens)
ROWS = [[5, 0, 7, 3], [2, 9], [4]]
VOCAB = 11


# ---- helpers --------------------------------------------------------------------------------------------


def _source(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def _load(source: str, tmp_path: Path, name: str):
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(f"padlint_loss_{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.pop(spec.name, None)
    return module


def _entry(module, entry: str):
    obj = getattr(module, entry)
    return obj() if isinstance(obj, type) else obj


def _fixed(source: str, code: str) -> str:
    codes = {d.code for d in lint_source(source, "case.py")}
    assert code in codes, f"{code} is not reported on the original (found {sorted(codes)})"
    outcome = fix_source(source, "case.py", unsafe=False)
    assert outcome.error is None, f"fix refused: {outcome.error}"
    assert outcome.source != source, "no safe fix was applied"
    left = [(d.code, d.location.row) for d in outcome.remaining if d.code == code]
    assert not left, f"the fixed code is still flagged: {left}\n{outcome.source}"
    return outcome.source


def _before_and_after(cases, name: str, code: str, tmp_path: Path):
    """The case's entry point from the original module and from the fixed one, and the fixed source."""
    entry, text = cases[name]
    source = _source(text)
    fixed = _fixed(source, code)
    before = _entry(_load(source, tmp_path, f"{name}_orig"), entry)
    after = _entry(_load(fixed, tmp_path, f"{name}_fixed"), entry)
    return before, after, fixed


def _ragged_mask(torch):
    width = max(len(r) for r in ROWS)
    return torch.tensor([[1.0] * len(r) + [0.0] * (width - len(r)) for r in ROWS])


# ---- PAD011 ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(PAD011_CASES))
def test_masked_mean_fix_averages_over_real_tokens(name, tmp_path):
    torch = pytest.importorskip("torch")
    before, after, fixed = _before_and_after(PAD011_CASES, name, "PAD011", tmp_path)

    torch.manual_seed(0)
    mask = _ragged_mask(torch)
    values = torch.rand(mask.shape) + 0.5
    expected = values[mask.bool()].mean()

    got = after(values, mask)
    assert torch.allclose(got, expected), f"fixed loss {got.item()} != mean over real tokens {expected.item()}\n{fixed}"
    # the original divides by every position, padding included
    assert before(values, mask).item() < expected.item() - 1e-6

    # what sits at the pad positions does not matter any more
    noisy = values.clone()
    noisy[~mask.bool()] = 1e3
    assert torch.allclose(after(noisy, mask), expected)

    # a batch with no real token gives 0, not NaN
    empty = after(values, torch.zeros_like(mask))
    assert not torch.isnan(empty) and empty.item() == 0.0


# ---- PAD007 ---------------------------------------------------------------------------------------------


def _reference_loss(torch, logits):
    """Mean cross-entropy over the real targets of ROWS only."""
    terms = []
    for i, row in enumerate(ROWS):
        for j, target in enumerate(row):
            terms.append(-torch.log_softmax(logits[i, j], dim=-1)[target])
    return torch.stack(terms).mean()


@pytest.mark.parametrize("name", sorted(PAD007_CASES))
def test_ignore_index_fix_ignores_exactly_the_padding(name, tmp_path):
    torch = pytest.importorskip("torch")
    before, after, fixed = _before_and_after(PAD007_CASES, name, "PAD007", tmp_path)

    torch.manual_seed(0)
    width = max(len(r) for r in ROWS)
    logits = torch.randn(len(ROWS), width, VOCAB)
    expected = _reference_loss(torch, logits)

    got = after(logits, ROWS)
    assert torch.allclose(got, expected, atol=1e-6), (
        f"fixed loss {got.item()} != mean over real targets {expected.item()}\n{fixed}"
    )

    # the logits at pad positions do not reach the loss
    mask = _ragged_mask(torch).bool()
    noisy = logits.clone()
    noisy[~mask] = torch.randn(int((~mask).sum()), VOCAB) * 50
    assert torch.allclose(after(noisy, ROWS), expected, atol=1e-6)

    # the original is wrong: it fails on a pad value it does not ignore, or grades the wrong positions
    try:
        original = before(logits, ROWS)
    except (IndexError, RuntimeError):
        return
    assert not torch.allclose(original, expected, atol=1e-6), "the original already computes the right loss"


# ---- PAD011 through the loss's own ignore value -----------------------------------------------------------
PER_POSITION_LOSS = """
import torch.nn as nn


class TargetLoss(nn.Module):
    def __init__(self, pad_id):
        super().__init__()
        self.per_target = nn.CrossEntropyLoss(reduction="none", ignore_index=pad_id)

    def forward(self, logits, targets):
        losses = self.per_target(logits.view(-1, logits.size(-1)), targets.view(-1))
        return losses.mean()
"""


def test_mean_over_ignored_positions_fix_averages_over_the_graded_ones(tmp_path):
    """`losses.mean()` of `reduction="none"` losses counts the ignored positions; the fix divides by
    the positions the loss grades, read from the loss module's own `ignore_index`."""
    torch = pytest.importorskip("torch")
    source = _source(PER_POSITION_LOSS)
    fixed = _fixed(source, "PAD011")
    pad = 0
    before = _load(source, tmp_path, "per_position_orig").TargetLoss(pad)
    after = _load(fixed, tmp_path, "per_position_fixed").TargetLoss(pad)

    torch.manual_seed(0)
    width = max(len(r) for r in ROWS)
    targets = torch.tensor([[t + 1 for t in r] + [pad] * (width - len(r)) for r in ROWS])  # 0 is the pad only
    logits = torch.randn(*targets.shape, VOCAB)
    expected = torch.nn.functional.cross_entropy(logits.view(-1, VOCAB), targets.view(-1), ignore_index=pad)
    assert torch.allclose(after(logits, targets), expected), fixed
    assert before(logits, targets).item() < expected.item()  # the original divides by the pads too

    noisy = logits.clone()
    noisy[targets == pad] = 50.0  # the logits at the pads change nothing now
    assert torch.allclose(after(noisy, targets), expected)

    empty = after(logits, torch.full_like(targets, pad))  # a batch of pads only: 0, not NaN
    assert not torch.isnan(empty) and empty.item() == 0.0


WEIGHTED_PER_ROW_LOSS = """
import torch.nn.functional as F


def weighted_loss(logits, targets, row_weights):
    per_token = F.cross_entropy(
        logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-100, reduction="none"
    ).view(targets.shape)
    weighted = per_token * row_weights.unsqueeze(1)
    return weighted.mean()
"""


def test_weighted_mean_over_ignored_positions_fix_averages_over_the_graded_ones(tmp_path):
    """`(losses * w).mean()` counts the ignored positions as the plain mean does; the (unsafe) fix divides
    the weighted sum by the positions the loss grades."""
    torch = pytest.importorskip("torch")
    source = _source(WEIGHTED_PER_ROW_LOSS)
    assert "PAD011" in {d.code for d in lint_source(source, "case.py")}
    outcome = fix_source(source, "case.py", unsafe=True)
    assert outcome.error is None and outcome.source != source
    before = _load(source, tmp_path, "weighted_orig").weighted_loss
    after = _load(outcome.source, tmp_path, "weighted_fixed").weighted_loss

    torch.manual_seed(0)
    width = max(len(r) for r in ROWS)
    targets = torch.tensor([[t + 1 for t in r] + [-100] * (width - len(r)) for r in ROWS])
    logits = torch.randn(*targets.shape, VOCAB)
    weights = torch.tensor([0.5, 2.0, 1.0][: len(ROWS)])
    per_token = torch.nn.functional.cross_entropy(logits.transpose(1, 2), targets, reduction="none")
    real = targets != -100
    expected = (per_token * weights.unsqueeze(1))[real].mean()  # the weighted losses of the real positions
    assert torch.allclose(after(logits, targets, weights), expected), outcome.source
    assert before(logits, targets, weights).item() < expected.item()  # the original divides by the pads too

    noisy = logits.clone()
    noisy[~real] = 50.0  # the logits at the pads change nothing
    assert torch.allclose(after(noisy, targets, weights), expected)


# ---- PAD011 over entries a selection keeps -------------------------------------------------------------
SELECTED_ENTRIES_LOSS = """
import torch.nn.functional as F


def sft_loss(tokenizer, logits, ids, attention_mask, prompt_lengths):
    labels = ids.clone()
    for i, n in enumerate(prompt_lengths):
        labels[i, :n] = -100
    labels[attention_mask == 0] = -100
    real = attention_mask.bool()
    per_token = F.cross_entropy(logits[real], labels[real], reduction="none")
    return per_token.mean()


def answer_loss(tokenizer, logits, ids, attention_mask, prompt_lengths):
    labels = ids.clone()
    for i, n in enumerate(prompt_lengths):
        labels[i, :n] = -100
    labels[attention_mask == 0] = -100
    graded = labels != -100
    per_token = F.cross_entropy(logits[graded], labels[graded], reduction="none")
    return per_token.mean()
"""


def test_selection_by_the_attention_mask_keeps_the_prompts_ignored_entries(tmp_path):
    """Selecting by the attention mask drops the pads but keeps the prompt's -100 entries: the mean counts
    them as zeros. The fix averages over the graded entries; a selection of the entries that are not -100
    leaves nothing ignored, is silent, and computes the same number."""
    torch = pytest.importorskip("torch")
    source = _source(SELECTED_ENTRIES_LOSS)
    lines = {d.location.row for d in lint_source(source, "case.py") if d.code == "PAD011"}
    assert lines == {source.splitlines().index("    return per_token.mean()") + 1}  # sft_loss only
    fixed = _fixed(source, "PAD011")
    before = _load(source, tmp_path, "selected_orig")
    after = _load(fixed, tmp_path, "selected_fixed")

    torch.manual_seed(0)
    width = max(len(r) for r in ROWS)
    ids = torch.tensor([r + [0] * (width - len(r)) for r in ROWS])
    mask = torch.tensor([[1] * len(r) + [0] * (width - len(r)) for r in ROWS])
    prompts = [2, 1, 0]
    logits = torch.randn(*ids.shape, VOCAB)
    graded = mask.bool().clone()
    for i, n in enumerate(prompts):
        graded[i, :n] = False
    expected = torch.nn.functional.cross_entropy(logits[graded], ids[graded])
    assert torch.allclose(after.sft_loss(None, logits, ids, mask, prompts), expected), fixed
    assert before.sft_loss(None, logits, ids, mask, prompts).item() < expected.item()
    assert torch.allclose(before.answer_loss(None, logits, ids, mask, prompts), expected)
