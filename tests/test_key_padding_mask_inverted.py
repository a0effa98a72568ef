"""PAD014: torch's attention layers ignore the keys where the key padding mask is True (torch 2.13.0,
nn.MultiheadAttention.forward and nn.Transformer.forward; library table: ignores_true_keys). A mask of the
real tokens there (the tokenizer's, one built from lengths, `ids != pad_id`) hides the real tokens and
leaves the pads. The safe fix (`(mask) == 0`) is run: afterwards the output does not depend on what the
pads hold. Fixtures are our own."""

from __future__ import annotations

import textwrap

import pytest
import torch

from padlint.engine import fix_source, lint_source

MODEL = """
import torch
from torch import nn
from transformers import AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("org/encoder")


class Tagger(nn.Module):
    def __init__(self, vocab=50, dim=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(dim, 2, 32, dropout=0.0, batch_first=True), 1)
        self.attn = nn.MultiheadAttention(dim, 2, batch_first=True)

    def forward(self, ids, mask):
        h = self.encoder(self.embed(ids), src_key_padding_mask={encoder_mask})
        out, _ = self.attn(h, h, h, key_padding_mask={attn_mask})
        return out


def collate(rows, pad_id):
    width = max(len(r) for r in rows)
    ids = torch.tensor([r + [pad_id] * (width - len(r)) for r in rows])
    lengths = torch.tensor([len(r) for r in rows])
    mask = torch.arange(width)[None, :] {lengths_op} lengths[:, None]
    return ids, mask


def tag(rows, pad_id):
    model = Tagger()
    ids, mask = collate(rows, pad_id)
    return model(ids, mask)


def tag_texts(texts):
    model = Tagger()
    enc = tokenizer(texts, padding=True, return_tensors="pt")
    return model(enc["input_ids"], {text_mask})
"""


def source(encoder_mask="mask", attn_mask="mask", text_mask="enc['attention_mask'] == 0", lengths_op=">=") -> str:
    """By default every mask handed to the layers is True at the pads (`>=`: past each row's length)."""
    return textwrap.dedent(MODEL).format(
        encoder_mask=encoder_mask, attn_mask=attn_mask, text_mask=text_mask, lengths_op=lengths_op
    )


def findings(text: str) -> list[tuple[str, str]]:
    lines = text.splitlines()
    return sorted((d.code, lines[d.location.row - 1].strip()) for d in lint_source(text, "tagger.py"))


def test_the_correct_polarity_everywhere_is_silent():
    assert findings(source()) == []


@pytest.mark.parametrize(
    "kwargs, line",
    [
        ({"lengths_op": "<", "attn_mask": "~mask"}, "src_key_padding_mask"),
        ({"lengths_op": "<", "encoder_mask": "~mask", "attn_mask": "mask.bool()"}, "key_padding_mask"),
        ({"lengths_op": "<", "attn_mask": "~mask", "encoder_mask": "mask.float()"}, "src_key_padding_mask"),
        ({"text_mask": "enc['attention_mask'].bool()", "attn_mask": "~mask"}, "src_key_padding_mask"),
        ({"text_mask": "enc['input_ids'] != tokenizer.pad_token_id", "attn_mask": "~mask"}, "src_key_padding_mask"),
    ],
)
def test_a_mask_of_the_real_tokens_as_key_padding_mask_is_flagged(kwargs, line):
    found = [(code, text) for code, text in findings(source(**kwargs)) if code == "PAD014"]
    assert len(found) == 1 and line in found[0][1]


@pytest.mark.parametrize(
    "encoder_mask",
    ["~mask", "mask == 0", "~mask.bool()", "mask.logical_not()", "torch.logical_not(mask)", "None"],
)
def test_masks_of_the_pads_stay_silent(encoder_mask):
    assert findings(source(encoder_mask=encoder_mask, attn_mask="~mask", lengths_op="<")) == []


def test_a_project_layer_with_a_parameter_of_that_name_is_not_judged():
    text = source(lengths_op="<", attn_mask="~mask").replace(
        "nn.TransformerEncoder(nn.TransformerEncoderLayer(dim, 2, 32, dropout=0.0, batch_first=True), 1)",
        "MyEncoder(dim)",
    )
    assert findings(text) == []


def test_the_safe_fix_makes_the_output_independent_of_the_pads():
    broken = source(lengths_op="<")
    fixed = fix_source(broken, "tagger.py").source
    assert fixed != broken and findings(fixed) == []

    def outputs(text: str, pad_id: int) -> torch.Tensor:
        namespace: dict = {}
        runnable = text.replace("from transformers import AutoTokenizer", "").replace(
            'tokenizer = AutoTokenizer.from_pretrained("org/encoder")', ""
        )
        exec(compile(runnable, "tagger.py", "exec"), namespace)
        torch.manual_seed(0)
        model = namespace["Tagger"]().eval()
        ids, mask = namespace["collate"]([[3, 4, 5, 6], [7, 8]], pad_id)
        with torch.no_grad():
            return model(ids, mask)

    real = (slice(None), slice(0, 2))  # the positions every row holds a real token at
    assert torch.allclose(outputs(fixed, 0)[real], outputs(fixed, 9)[real], atol=1e-6)
    assert not torch.allclose(outputs(broken, 0)[1, :2], outputs(broken, 9)[1, :2], atol=1e-6)


def test_a_mask_of_the_pads_handed_with_the_ids_is_a_mask_handed_along():
    # `model(ids, ids == pad_id)`: the ids go in with a mask (for a layer that ignores what is True):
    # PAD003 must not say the mask was lost, and the polarity is right for the layer
    text = source(text_mask="enc['input_ids'] == tokenizer.pad_token_id")
    assert findings(text) == []
