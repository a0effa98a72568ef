"""A dataclass field is a parameter of the `__init__` the dataclass writes: `self.<field>` holds the literal
every construction in view hands it, or its default where they all leave it (parameter_literals.py).

Fields become parameters in the order of the class body; a base class may put fields of its own before
them, so a construction passing arguments by position to a class with bases fixes no field.
"""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from padlint.analysis.class_constants import dataclass_init
from padlint.engine import lint_source

COLLATOR = """
from dataclasses import dataclass, field

import torch


@dataclass
class TargetCollator{bases}:
    tokenizer: object
    label_pad_token_id: int = field(default=-100)

    def __call__(self, features):
        widest = max(len(f["labels"]) for f in features)
        labels = [f["labels"] + [self.label_pad_token_id] * (widest - len(f["labels"])) for f in features]
        return {{"labels": torch.tensor(labels)}}


collate = {construction}
"""


def _codes(bases: str, construction: str) -> list[str]:
    source = textwrap.dedent(COLLATOR.format(bases=bases, construction=construction))
    return [d.code for d in lint_source(source, "collate.py")]


@pytest.mark.parametrize(
    "construction",
    ["TargetCollator(tok, -1)", "TargetCollator(tokenizer=tok, label_pad_token_id=-1)"],
)
def test_a_field_every_construction_sets_to_minus_one_pads_labels_with_it(construction):
    assert _codes("", construction) == ["PAD006"]


@pytest.mark.parametrize(
    "bases, construction",
    [
        ("", "TargetCollator(tok)"),  # the default, -100
        ("", "TargetCollator(tok, -100)"),
        ("(Base)", "TargetCollator(tok, -1)"),  # a base's fields may come first: position fixes nothing
    ],
)
def test_a_field_left_at_its_default_or_out_of_reach_is_not_reported(bases, construction):
    assert _codes(bases, construction) == []


def test_the_written_init_takes_fields_in_order_and_skips_class_variables():
    cls = cst.parse_module(
        textwrap.dedent(
            """
            @dataclasses.dataclass
            class C:
                shared: ClassVar[int] = 3
                first: int
                second: int = field(default=-100)
                third: list = field(default_factory=list)
            """
        )
    ).body[0]
    assert isinstance(cls, cst.ClassDef)
    init = dataclass_init(cls)
    assert init is not None
    params = init.params.params
    assert [p.name.value for p in params] == ["self", "first", "second", "third"]
    defaults = [cst.Module([]).code_for_node(p.default) if p.default else None for p in params]
    assert defaults == [None, None, "-100", "list()"]
