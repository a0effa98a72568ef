"""A fix that writes the tokenizer's mask in place of another keeps the type the code made it with.

`mask = torch.ones_like(ids, dtype=torch.bool)` read later as `hidden[~mask] = 0`: the tokenizer's mask
holds 0/1 integers, on which `~` gives -1 and -2 (row indices, not a selection). The fix writes it
`.to(torch.bool)`; run here on a ragged batch, the pooled vectors average the real tokens only.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from standin_tokenizer import StandInTokenizer  # noqa: E402

from padlint.engine import fix_source  # noqa: E402

KEPT_ENCODING = """
import torch


def pooled(texts, tok, model):
    enc = tok(texts, padding=True, return_tensors="pt")
    ids = enc["input_ids"]
    mask = torch.ones_like(ids, dtype=torch.bool)
    hidden = model(input_ids=ids, attention_mask=mask).last_hidden_state
    hidden[~mask] = 0.0
    return hidden.sum(1) / mask.sum(1, keepdim=True)
"""

SPLIT_ENCODING = """
import torch


def pooled(texts, tok, model):
    ids = tok(texts, padding=True, return_tensors="pt").input_ids
    mask = torch.ones(ids.shape, dtype=torch.bool)
    hidden = model(input_ids=ids, attention_mask=mask).last_hidden_state
    hidden[~mask] = 0.0
    return hidden.sum(1) / mask.sum(1, keepdim=True)
"""

TEXTS = ["the cat sat", "a much longer sentence about padding tokens", "hello"]


class IdsAsStates:
    """A stand-in encoder whose hidden state at each position is the token id there."""

    def __call__(self, input_ids, attention_mask):
        import types

        return types.SimpleNamespace(last_hidden_state=input_ids.float().unsqueeze(-1))


@pytest.mark.parametrize("source", [KEPT_ENCODING, SPLIT_ENCODING], ids=["kept", "split"])
def test_the_fixed_mask_stays_boolean_where_it_is_inverted(source, tmp_path):
    torch = pytest.importorskip("torch")
    outcome = fix_source(textwrap.dedent(source), "pool.py", unsafe=True)
    assert [d.code for d in outcome.fixed] == ["PAD001"]
    namespace: dict = {}
    exec(compile(outcome.source, str(tmp_path / "pool.py"), "exec"), namespace)
    tok = StandInTokenizer()
    out = namespace["pooled"](TEXTS, tok, IdsAsStates())
    expected = [sum(tok(t)["input_ids"]) / len(tok(t)["input_ids"]) for t in TEXTS]
    assert torch.allclose(out.squeeze(-1), torch.tensor(expected))
