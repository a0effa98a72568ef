"""A mask fix reads the tokenizer's mask the way the code reads its ids: `batch.input_ids` gives
`batch.attention_mask`, `batch["input_ids"]` gives `batch["attention_mask"]`. transformers' BatchEncoding
has both; an output class of a project's own processor (a dataclass) has attributes only, where the
subscript form raised TypeError when the fixed code ran (fresh80). Fixture of our own, run with the
stand-in tokenizer wrapped so that its output has attributes only."""

from __future__ import annotations

import sys
import textwrap
import types
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from rule_fixture_runner import RecordingEncoder  # noqa: E402

from padlint.engine import fix_source, lint_source  # noqa: E402
from tests.standin_tokenizer import StandInTokenizer  # noqa: E402

EMBED = textwrap.dedent(
    """
    import torch


    def embed(tokenizer, model, texts):
        batch = tokenizer(texts, padding=True, return_tensors="pt")
        out = model(input_ids=batch.input_ids)
        return out.last_hidden_state[:, 0]
    """
)
TEXTS = ["the cat sat on the mat", "hi", "a b c"]


class AttributesOnly:
    """A processor whose output is an object with `input_ids` and `attention_mask` attributes only."""

    def __init__(self):
        self.inner = StandInTokenizer(padding_side="right")
        self.pad_token_id = self.inner.pad_token_id

    def __call__(self, texts, **kwargs):
        enc = self.inner(texts, **kwargs)
        return types.SimpleNamespace(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"])


@pytest.mark.parametrize("read", ["attribute", "subscript"])
def test_the_mask_fix_reads_the_mask_as_the_ids_are_read(read):
    source = EMBED if read == "attribute" else EMBED.replace("batch.input_ids", 'batch["input_ids"]')
    assert [d.code for d in lint_source(source, "embed.py")] == ["PAD003"]
    fixed = fix_source(source, "embed.py", unsafe=True).source  # the model is a parameter: its signature is not in view
    assert lint_source(fixed, "embed.py") == []
    expected = "batch.attention_mask" if read == "attribute" else 'batch["attention_mask"]'
    assert expected in fixed


def test_the_fixed_code_runs_on_an_output_with_attributes_only():
    torch = pytest.importorskip("torch")
    fixed = fix_source(EMBED, "embed.py", unsafe=True).source
    namespace: dict = {}
    exec(compile(fixed, "<embed>", "exec"), namespace)
    model, tokenizer = RecordingEncoder(), AttributesOnly()
    namespace["embed"](tokenizer, model, TEXTS)
    (seen,) = model.calls
    ids, mask = seen["input_ids"], seen["attention_mask"]
    assert torch.equal(mask, (ids != tokenizer.pad_token_id).long())  # 0 exactly at the pads
    assert (mask == 0).any()
