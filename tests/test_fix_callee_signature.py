"""A fix that adds `attention_mask=` to a model call must know the callee takes it (PAD003).

A pretrained model of the library table does: the fix is safe. A model class of the project whose
`forward` has no such parameter and no `**kwargs` cannot be handed a mask: it is judged by its body
(reported, with no fix and a `help:` saying why, when something in it attends; else only where it
hands the ids to a model inside). A callee
whose signature is not in view (a `model` parameter) may or may not: the fix is unsafe. Each fixed
module is run on a ragged batch by the stand-in tokenizer, with a stand-in for the library model.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from standin_tokenizer import StandInTokenizer  # noqa: E402
from test_fix_execution import TEXTS, invariant_errors, load_module  # noqa: E402

from padlint.engine import fix_source, lint_source  # noqa: E402
from padlint.types import Applicability  # noqa: E402

PRETRAINED = """
from transformers import AutoModelForTokenClassification


def tag_words(texts, tokenizer, checkpoint="some/ner-model"):
    tagger = AutoModelForTokenClassification.from_pretrained(checkpoint)
    token_ids = tokenizer(texts, padding="longest", return_tensors="pt")["input_ids"]
    return tagger(input_ids=token_ids)
"""

OWN_MODULE = """
import torch


class BagOfWords(torch.nn.Module):
    def __init__(self, vocab=1000, width=4):
        super().__init__()
        self.table = torch.nn.Embedding(vocab, width)

    def forward(self, input_ids{extra}):
        self.seen = (input_ids, {seen})
        return self.table(input_ids).sum(1)


def pooled(texts, tokenizer):
    scorer = BagOfWords()
    token_ids = tokenizer(texts, padding=True, return_tensors="pt")["input_ids"]
    scorer(input_ids=token_ids)
    return scorer.seen
"""

WRAPPER_LOSS = '    token_ids = tokenizer(texts, padding=True, return_tensors="pt")["input_ids"]'
WRAPPER = f"""
import torch
from transformers import AutoModel


class Pooled(torch.nn.Module):
    def __init__(self, checkpoint):
        super().__init__()
        self.encoder = AutoModel.from_pretrained(checkpoint)

    def forward(self, input_ids):
        return self.encoder(input_ids=input_ids).last_hidden_state.mean(1)


def pooled(texts, tokenizer, checkpoint="some/encoder"):
    scorer = Pooled(checkpoint)
{WRAPPER_LOSS}
    return scorer(token_ids)
"""

UNKNOWN = """
def logits_for(texts, tokenizer, net):
    token_ids = tokenizer(texts, padding=True, return_tensors="pt")["input_ids"]
    return net(input_ids=token_ids)
"""


class _StandInPretrained:
    """`from_pretrained` of a stand-in class: a model that hands back what it was called with."""

    @classmethod
    def from_pretrained(cls, *args, **kwargs):
        return lambda **given: given


def _only_fix(source: str):
    found = [d for d in lint_source(source, "m.py") if d.code == "PAD003"]
    assert len(found) == 1, found
    return found[0]


def _mask_errors(out, pad_is_eos: bool) -> list[str]:
    tokenizer = StandInTokenizer(pad_is_eos=pad_is_eos)
    real = [tokenizer.encode(t) for t in TEXTS]
    return invariant_errors(real, out, {"checks": ("mask",), "side": "right"})


def _run(source: str, tmp_path: Path, entry: str, stem: str, pad_is_eos: bool, **extra):
    path = tmp_path / f"{stem}.py"
    path.write_text(source)
    module = load_module(path, f"padlint_signature_{stem}_{int(pad_is_eos)}")
    for name, value in extra.items():
        setattr(module, name, value)
    return getattr(module, entry)(list(TEXTS), StandInTokenizer(pad_is_eos=pad_is_eos))


def test_pretrained_model_of_the_library_gets_a_safe_fix_that_runs(tmp_path):
    pytest.importorskip("torch")
    assert _only_fix(PRETRAINED).fix.applicability is Applicability.SAFE
    fixed = fix_source(PRETRAINED, "m.py").source
    assert "attention_mask=" in fixed
    for pad_is_eos in (False, True):
        out = _run(
            fixed,
            tmp_path,
            "tag_words",
            "pretrained",
            pad_is_eos,
            **{"AutoModelForTokenClassification": _StandInPretrained},
        )
        assert not _mask_errors(out, pad_is_eos), fixed


ATTENDING = """
import torch


class SelfAttentionScorer(torch.nn.Module):
    def __init__(self, vocab=1000, width=8):
        super().__init__()
        self.table = torch.nn.Embedding(vocab, width)
        self.attend = torch.nn.MultiheadAttention(width, num_heads=2, batch_first=True)

    def forward(self, input_ids):
        x = self.table(input_ids)
        return self.attend(x, x, x)[0].mean(1)


def pooled(texts, tokenizer):
    scorer = SelfAttentionScorer()
    token_ids = tokenizer(texts, padding=True, return_tensors="pt")["input_ids"]
    return scorer(input_ids=token_ids)
"""


def test_attending_project_model_without_the_parameter_gets_no_fix_and_help_says_why(tmp_path):
    pytest.importorskip("torch")
    finding = _only_fix(ATTENDING)
    assert finding.fix is None
    assert "takes no `attention_mask`" in finding.no_fix
    assert fix_source(ATTENDING, "m.py", unsafe=True).source == ATTENDING
    # what a fix would have written fails when run: the forward takes no such keyword
    broken = ATTENDING.replace("scorer(input_ids=token_ids)", "scorer(input_ids=token_ids, attention_mask=None)")
    with pytest.raises(TypeError):
        _run(broken, tmp_path, "pooled", "attending_broken", False)


def test_project_model_without_the_parameter_is_judged_by_its_body():
    # Nothing inside attends (an embedding summed), and no mask can be handed to it: no finding.
    source = OWN_MODULE.format(extra="", seen="None")
    assert not [d for d in lint_source(source, "m.py") if d.code == "PAD003"]
    # A wrapper of the same signature that hands the ids to a pretrained model inside: reported where
    # the mask was lost, with no fix (the wrapper has no place for it).
    finding = _only_fix(WRAPPER)
    assert finding.location.row == WRAPPER.splitlines().index(WRAPPER_LOSS) + 1
    assert finding.fix is None and fix_source(WRAPPER, "m.py", unsafe=True).source == WRAPPER


def test_project_model_with_kwargs_gets_a_safe_fix_that_runs(tmp_path):
    pytest.importorskip("torch")
    source = OWN_MODULE.format(extra=", **extra", seen='extra.get("attention_mask")')
    assert _only_fix(source).fix.applicability is Applicability.SAFE
    fixed = fix_source(source, "m.py").source
    for pad_is_eos in (False, True):
        ids, mask = _run(fixed, tmp_path, "pooled", "own_kwargs", pad_is_eos)
        out = {"input_ids": ids, "attention_mask": mask}
        assert not _mask_errors(out, pad_is_eos), fixed


def test_model_whose_signature_is_not_in_view_gets_an_unsafe_fix_only(tmp_path):
    pytest.importorskip("torch")
    finding = _only_fix(UNKNOWN)
    assert finding.fix is not None and finding.fix.applicability is Applicability.UNSAFE
    assert "signature is not in view" in finding.fix.message
    assert fix_source(UNKNOWN, "m.py").source == UNKNOWN
    fixed = fix_source(UNKNOWN, "m.py", unsafe=True).source
    path = tmp_path / "unknown.py"
    path.write_text(fixed)
    module = load_module(path, "padlint_signature_unknown")
    out = module.logits_for(list(TEXTS), StandInTokenizer(), lambda **given: given)
    assert not _mask_errors(out, False), fixed
