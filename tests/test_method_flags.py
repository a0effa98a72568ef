"""A method's mode that every call in view fixes (fixtures are our own).

`prepare_batch(self, rows, mode="train")` builds labels copied from padded ids only in its evaluation
branch, and every call in view says `mode="train"` (or leaves the default): that branch never runs, so
its labels reach no loss (method_flags.py; call_sites.py does the same for a module-level function's
flag). A call with another mode, the method handed on as a value, a call from another module of the
project, or the mode rebound inside keeps the branch, and the finding.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from padlint.engine import lint_source

TRAINER = textwrap.dedent(
    """
    import torch


    class Distiller:
        def __init__(self, tokenizer, student, teacher):
            self.tokenizer = tokenizer
            self.student = student
            self.teacher = teacher

        def prepare_batch(self, rows, mode="train"):
            {rebind}if mode {op} {literal}:
                prompts = [r["problem"] for r in rows]
                return self.tokenizer(prompts, padding=True, return_tensors="pt")
            texts = [r["problem"] + r["solution"] for r in rows]
            batch = self.tokenizer(texts, padding=True, return_tensors="pt")
            batch["labels"] = batch["input_ids"].clone()
            return batch

        def train_step(self, rows):
            batch = self.prepare_batch(rows, mode="train")
            return self.student(**batch).logits

        def rollout(self, rows):
            batch = self.prepare_batch(rows)
            return self.teacher.generate(**batch)
    {extra}
    """
)


# Another module of the project runs the trainer, and asks for the evaluation branch itself.
OTHER_MODULE = textwrap.dedent(
    """
    from distill import Distiller


    def run(d: Distiller, rows):
        d.train_step(rows)
        d.rollout(rows)
        return d.student(**d.prepare_batch(rows, "eval")).loss
    """
)


def codes(
    tmp_path: Path, op: str = "==", literal: str = '"train"', extra: str = "", rebind: str = "", other: str = ""
) -> list[str]:
    (tmp_path / ".git").mkdir(exist_ok=True)
    source = TRAINER.format(op=op, literal=literal, extra=extra, rebind=rebind)
    (tmp_path / "distill.py").write_text(source)
    if other:
        (tmp_path / "evaluate.py").write_text(other)
    return sorted(d.code for d in lint_source(source, str(tmp_path / "distill.py")))


@pytest.mark.parametrize("op, literal", [("==", '"train"'), ("!=", '"eval"')], ids=["equal", "not-equal"])
def test_a_branch_no_call_selects_never_runs(tmp_path, op, literal):
    assert codes(tmp_path, op=op, literal=literal) == []


@pytest.mark.parametrize(
    "kwargs",
    [
        {
            "extra": "\n    def evaluate(self, rows):\n        return self.student(**self.prepare_batch(rows, mode='eval')).loss\n"
        },
        {"extra": "\n    def hooks(self):\n        return {'prepare': self.prepare_batch}\n"},
        {"other": OTHER_MODULE},
        {"rebind": "mode = mode.lower()\n        "},
    ],
    ids=["another-mode", "handed-on", "called-from-another-module", "rebound"],
)
def test_a_branch_a_call_may_select_keeps_the_finding(tmp_path, kwargs):
    assert codes(tmp_path, **kwargs) == ["PAD002"]
