"""Padded ids written into a labels buffer bring their pads along (issue 13: values crossing a store).

`labels = torch.full((B, P + A), -100)`, then `labels[:, P:] = answer_ids` with the answers padded by the
tokenizer: every pad of a shorter answer becomes a target (pad = EOS: "predict EOS after EOS"). The -100
the buffer held is written over at those positions, so it hides only the prompt. A block written
masked, or a slice of each row that stops at its real length, brings no pad. The fix masks the labels by
the attention mask handed to the model with them (same positions); it is run here.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from standin_tokenizer import StandInTokenizer  # noqa: E402

from padlint.engine import fix_source, lint_source  # noqa: E402

SOURCE = """
import torch


def answer_loss(model, tok, prompt_embeds, prompt_mask, answers):
    ans = tok(answers, return_tensors="pt", padding=True)
    answer_ids = ans.input_ids
    inputs_embeds = torch.cat([prompt_embeds, model.get_input_embeddings()(answer_ids)], dim=1)
    attention_mask = torch.cat([prompt_mask, ans.attention_mask], dim=1)
    batch, width = prompt_mask.shape
    labels = torch.full((batch, width + answer_ids.size(1)), -100, dtype=torch.long)
{write}
    return model(inputs_embeds=inputs_embeds, attention_mask=attention_mask, labels=labels)
"""

WRITES_PADS = [
    "    labels[:, width:] = answer_ids",
    "    for i in range(batch):\n        labels[i, width:] = answer_ids[i]",
]

WRITES_NO_PAD = [
    "    labels[:, width:] = answer_ids.masked_fill(ans.attention_mask == 0, -100)",
    "    labels[:, width:] = torch.where(ans.attention_mask.bool(), answer_ids, -100)",
    "    for i in range(batch):\n        n = int(ans.attention_mask[i].sum())\n        labels[i, width : width + n] = answer_ids[i, :n]",
]


def _source(write: str) -> str:
    return textwrap.dedent(SOURCE).replace("{write}", write)


@pytest.mark.parametrize("write", WRITES_PADS)
def test_padded_answers_written_into_labels_are_reported(write):
    assert [f.code for f in lint_source(_source(write), "loss.py")] == ["PAD002"]


@pytest.mark.parametrize("write", WRITES_NO_PAD)
def test_answers_written_without_their_pads_are_silent(write):
    assert lint_source(_source(write), "loss.py") == []


class RecordingModel:
    def __init__(self, torch):
        self.embeddings = torch.nn.Embedding(1024, 4)  # the stand-in ids are below 1000
        self.calls: list[dict] = []

    def get_input_embeddings(self):
        return self.embeddings

    def __call__(self, **kwargs):
        self.calls.append(kwargs)
        return kwargs


@pytest.mark.parametrize("pad_is_eos", [False, True])
def test_the_fix_masks_exactly_the_answer_pads(pad_is_eos, tmp_path):
    torch = pytest.importorskip("torch")
    outcome = fix_source(_source(WRITES_PADS[0]), "loss.py", unsafe=False)
    fixed = outcome.source
    assert [d.code for d in outcome.fixed] == ["PAD002"] and not outcome.remaining
    namespace: dict = {}
    exec(compile(fixed, str(tmp_path / "loss.py"), "exec"), namespace)
    tok = StandInTokenizer(pad_is_eos=pad_is_eos)
    answers = ["the cat sat", "a much longer answer about padding", "hello"]
    real = [tok(a)["input_ids"] for a in answers]  # each ends with EOS (= the pad id with pad_is_eos)
    prompt_mask = torch.tensor([[0, 1], [1, 1], [0, 1]])
    out = namespace["answer_loss"](RecordingModel(torch), tok, torch.zeros(3, 2, 4), prompt_mask, answers)
    labels = out["labels"]
    for row, ids in zip(labels.tolist(), real):
        assert row[:2] == [-100, -100]  # the prompt stays hidden
        assert row[2 : 2 + len(ids)] == ids  # every answer token is a target, an EOS among them too
        assert set(row[2 + len(ids) :]) <= {-100}  # and no pad is
