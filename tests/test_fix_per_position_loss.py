"""Labels graded by a loss kept per position (`reduction="none"`): -100 at the pads makes their terms 0.
Summed, that is the loss over the real tokens, and the -100 fix is right; averaged over every position,
the pads still count in the divisor, so the fix is withheld with what to do instead (seen in
bench/fresh26: a perplexity feature `losses.mean()` over a max_length batch). Fixtures are our own."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from standin_tokenizer import FIRST_WORD_ID, PAD_ID, VOCAB_SPAN, StandInTokenizer  # noqa: E402
from test_fix_execution import load_module  # noqa: E402

from padlint.engine import fix_source, lint_source  # noqa: E402

SCORE = """
import torch.nn.functional as F


def token_nll(tokenizer, texts, logits):
    enc = tokenizer(texts, padding="max_length", max_length=8, return_tensors="pt")
    ids = enc["input_ids"]
    losses = F.cross_entropy(logits.reshape(-1, logits.size(-1)), ids.reshape(-1), reduction="none")
    return losses.{reduce}()
"""


def _pad002(source: str):
    return [f for f in lint_source(source, "score.py") if f.code == "PAD002"]


def test_a_per_position_loss_averaged_over_every_position_gets_no_fix():
    [finding] = _pad002(textwrap.dedent(SCORE.format(reduce="mean")))
    assert finding.fix is None
    assert "averaged over every position" in finding.no_fix and "divide by the mask's sum" in finding.no_fix


def test_a_per_position_loss_summed_gets_the_fix_and_it_runs(tmp_path):
    torch = pytest.importorskip("torch")
    source = textwrap.dedent(SCORE.format(reduce="sum"))
    [finding] = _pad002(source)
    assert finding.fix is not None
    fixed = tmp_path / "score_fixed.py"
    fixed.write_text(fix_source(source, "score.py").source)
    module = load_module(fixed, "padlint_score_fixed")
    tokenizer = StandInTokenizer()
    texts = ["a b c", "d"]
    logits = torch.randn(2, 8, FIRST_WORD_ID + VOCAB_SPAN, generator=torch.Generator().manual_seed(0))
    ids = tokenizer(texts, padding="max_length", max_length=8, return_tensors="pt")["input_ids"]
    real = ids != PAD_ID
    expected = torch.nn.functional.cross_entropy(logits[real], ids[real], reduction="sum")
    assert torch.allclose(module.token_nll(tokenizer, texts, logits), expected)
