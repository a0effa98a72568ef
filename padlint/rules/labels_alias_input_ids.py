"""PAD012 labels-alias-input-ids."""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from padlint.analysis.facts import ModuleFacts
from padlint.rules.base import Finding, FixProposal, Rule
from padlint.rules.catalogue import requires
from padlint.types import Applicability

# A list written through its rows (`labels[i][j] = -100`) shares them with the ids: they are copied too.
COPIES = {"pt": "{}.clone()", "np": "{}.copy()", "list": "list({})", "rows": "[list(row) for row in {}]"}


class LabelsAliasInputIds(Rule):
    """`labels = input_ids` without a copy, then an in-place write into labels: it writes into input_ids."""

    code = "PAD012"
    REQUIRES = requires(code)
    name = "labels-alias-input-ids"
    summary = "labels alias input_ids and are written in place: the write corrupts input_ids"
    fix_safety = "safe (copy first) when the ids' type is known; unsafe `.clone()` otherwise"
    MANUAL_FIX = "copy the ids before writing into the labels (`.clone()`, `.copy()` or `list(...)`)"

    INVALID = [
        """
def add_labels(batch):
    labels = batch["input_ids"]
    labels[batch["attention_mask"] == 0] = -100
    batch["labels"] = labels
    return batch
""",
    ]
    VALID = [
        """
def add_labels(batch):
    labels = batch["input_ids"].clone()
    labels[batch["attention_mask"] == 0] = -100
    batch["labels"] = labels
    return batch
""",
    ]

    @classmethod
    def may_fire(cls, look) -> bool:
        return look.has("labels_alias")  # labels assigned the ids themselves

    @classmethod
    def scopes(cls, look) -> set | None:
        return look.reach("labels_alias")

    def check(self, facts: ModuleFacts) -> Iterable[Finding]:
        for event in facts.aliases_written_in_place:
            source = facts.code(event.node)
            viewed = facts.code(event.node.value) if isinstance(event.node, cst.Subscript) else None
            what = f", a view of `{viewed}`," if viewed else " itself,"  # `input_ids[:, 1:]` shares its storage
            message = (
                f"labels are `{source}`{what} not a copy, and are then written in place: "
                f"the write changes `{viewed or source}` too (-100 in the input ids)"
            )
            kind = "rows" if event.kind == "list" and event.into_rows else event.kind
            if kind in COPIES:
                fix = FixProposal(
                    Applicability.SAFE, "Copy the ids first", ((event.node, COPIES[kind].format(source)),)
                )
            else:
                fix = FixProposal(
                    Applicability.UNSAFE,
                    "Copy the ids first with .clone() (assumes a tensor)",
                    ((event.node, f"{source}.clone()"),),
                )
            yield Finding(event.node, message, fix)
