"""PAD009 double-padding-resets-mask."""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from padlint.analysis import fixshapes
from padlint.analysis import patterns as P
from padlint.analysis.facts import ModuleFacts, UnmaskedListPadding
from padlint.analysis.values import Context
from padlint.rules.base import Finding, FixProposal, Rule
from padlint.rules.edits import insert_after
from padlint.types import Applicability


class DoublePaddingResetsMask(Rule):
    """Features padded by hand without an attention mask, then padded again by a collator that makes it all ones."""

    code = "PAD009"
    REQUIRES = ("pad", "[0]", "zeros")  # list padding, then a collator that pads again
    name = "double-padding-resets-mask"
    summary = "Pre-padded features without attention_mask are re-padded by a collator that rebuilds the mask as ones"
    fix_safety = "safe (keep the mask in the features) when the padding length is in view; none otherwise"
    MANUAL_FIX = "return an `attention_mask` (1 on real tokens, 0 on the pads added) with the padded ids"

    INVALID = [
        """
from transformers import DataCollatorWithPadding

def to_fixed(example, tokenizer, width=64):
    ids = tokenizer(example["text"], truncation=True, max_length=width)["input_ids"]
    gap = width - len(ids)
    ids = ids + [tokenizer.pad_token_id] * gap
    return {"input_ids": ids, "labels": example["label"]}

def collator(tokenizer):
    return DataCollatorWithPadding(tokenizer)
""",
    ]
    VALID = [
        """
from transformers import DataCollatorWithPadding

def to_fixed(example, tokenizer, width=64):
    return tokenizer(example["text"], truncation=True, max_length=width)

def collator(tokenizer):
    return DataCollatorWithPadding(tokenizer)
""",
    ]

    @classmethod
    def may_fire(cls, look) -> bool:
        return look.has("repadding") and look.has(
            "list_padding"
        )  # list padding, and a collator or `.pad(...)` that pads again

    @classmethod
    def scopes(cls, look) -> set | None:
        return look.reach("list_padding") | look.reach("repadding")

    def check(self, facts: ModuleFacts) -> Iterable[Finding]:
        if not facts.repadding_collator:
            return
        for event in facts.unmasked_list_padding:
            padded = event.padded
            message = (
                f"features padded by `{facts.brief(padded.node)}` {facts.at(padded.node)} carry no "
                "attention_mask: the collator that pads them again builds it as all ones"
            )
            yield Finding(event.node, message, self.fix(facts, event))

    def fix(self, facts: ModuleFacts, event: UnmaskedListPadding) -> FixProposal | None:
        node = event.node
        shape = fixshapes.attention_mask(
            event.padded,
            event.ids_code,
            Context(),
            lengths_ok=False,
            gap_ok=event.gap_ok,
            pad_code=None,
            data_ok=event.data_ok,
            pad_is_eos=True,
            dtype=None,
        )
        if shape is None or not isinstance(node, cst.Dict):
            return None
        for element in node.elements:
            if isinstance(element, cst.DictElement) and P.string_value(element.key) == "input_ids":
                edit = insert_after(facts, element, f', "attention_mask": {shape.code}')
                return FixProposal(Applicability.SAFE, "Keep the attention mask in the features", (edit,))
        return None
