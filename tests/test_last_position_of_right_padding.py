"""PAD016: the last position of every row read from a model's output for a batch padded on the right.
In a row shorter than the longest that position is a pad, so a next-token distribution, a reward or a
last-token embedding is read off a pad. The unsafe fix reads each row at `mask.sum(dim=1) - 1`; it is
run here on the stand-in tokenizer and a model whose output at each position is that position's id:
each row then gives its own last real token, a real EOS included. Fixtures are our own
(tests/fixtures/rules/PAD016)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from padlint.engine import fix_source, lint_source
from tests.standin_tokenizer import StandInTokenizer

SCORER = textwrap.dedent(
    """
    import torch


    def next_token_scores(tokenizer, model, prompts):
        batch = tokenizer(prompts, padding=True, padding_side="right", return_tensors="pt")
        logits = model(**batch).logits
        return logits[:, -1]
    """
)
PROMPTS = ["the cat sat on the mat", "hi", "a b c"]


class PositionEcho:
    """Logits of shape (batch, length, 2) whose every score at a position is that position's id."""

    def __call__(self, input_ids, attention_mask=None):

        scores = input_ids.float().unsqueeze(-1).repeat(1, 1, 2)
        return type("Out", (), {"logits": scores})()


def codes(source: str) -> list[str]:
    return [d.code for d in lint_source(source, "scorer.py")]


def test_the_scorer_is_flagged_and_left_padding_is_not():
    assert codes(SCORER) == ["PAD016"]
    assert codes(SCORER.replace('padding_side="right"', 'padding_side="left"')) == []
    assert codes(SCORER.replace('padding_side="right", ', "")) == []  # the checkpoint's side: not in view


@pytest.mark.parametrize("pad_is_eos", [False, True])
def test_the_fix_reads_each_row_at_its_last_real_token(pad_is_eos):
    pytest.importorskip("torch")
    assert fix_source(SCORER, "scorer.py").source == SCORER  # no safe fix
    fixed = fix_source(SCORER, "scorer.py", unsafe=True).source
    assert fixed != SCORER and codes(fixed) == []
    tok = StandInTokenizer(pad_is_eos=pad_is_eos, padding_side="right")
    last_real = [tok(p)["input_ids"][-1] for p in PROMPTS]
    assert last_real == [tok.eos_token_id] * len(PROMPTS)  # every text ends with a real EOS

    def run(source: str) -> list[float]:
        namespace: dict = {}
        exec(compile(source, "<scorer>", "exec"), namespace)
        return namespace["next_token_scores"](tok, PositionEcho(), PROMPTS)[:, 0].tolist()

    assert run(fixed) == last_real
    mask = tok(PROMPTS, padding=True, padding_side="right")["attention_mask"]
    assert any(row[-1] == 0 for row in mask)  # the unfixed read lands on a pad in some row
    if not pad_is_eos:
        assert run(SCORER) != last_real


TRAINER_FIXTURE = Path(__file__).parent / "fixtures" / "rules" / "PAD016" / "classifier_forward_fed_by_trainer.py"


class EchoBackbone:
    """A stand-in for `AutoModel.from_pretrained`: the state at each position is that position's id."""

    config = type("Config", (), {"hidden_size": 2})()

    @classmethod
    def from_pretrained(cls, checkpoint):
        return cls()

    def __call__(self, input_ids, attention_mask=None):
        states = input_ids.float().unsqueeze(-1).repeat(1, 1, 2)
        return type("Out", (), {"last_hidden_state": states})()


def test_a_trainer_hands_its_collated_batches_to_the_models_forward():
    """`Trainer(model=..., data_collator=...)` calls the model with `**batch`: the project class's
    `forward` reads the right-padded batch, and the fix there reads each row at its last real token."""
    torch = pytest.importorskip("torch")
    source = TRAINER_FIXTURE.read_text(encoding="utf-8")
    assert codes(source) == ["PAD016"]
    alone = source.split("def fit(", 1)[0]  # the classes with no trainer: nothing pads for the forward
    assert codes(alone) == []
    fixed = fix_source(source, "train.py", unsafe=True).source
    assert fixed != source and codes(fixed) == []
    namespace: dict = {}
    exec(compile(fixed, "<train>", "exec"), namespace)
    namespace["AutoModel"] = EchoBackbone
    model = namespace["LastTokenClassifier"]("org/small-lm", num_labels=2)
    model.head = torch.nn.Identity()
    rows = [{"input_ids": [5, 6, 7, 2], "label": 0}, {"input_ids": [8, 2], "label": 1}, {"input_ids": [9], "label": 0}]
    batch = namespace["PadToLongest"](pad_id=0)(rows)
    assert (batch["input_ids"] == 0).any()  # ragged: some rows end in pads
    pooled = model(**batch)["logits"][:, 0].tolist()
    assert pooled == [2.0, 2.0, 9.0]  # each row's last real token; a real EOS (2) kept
