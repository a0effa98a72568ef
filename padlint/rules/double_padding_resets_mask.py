"""PAD009 double-padding-resets-mask."""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from padlint.analysis import fixshapes
from padlint.analysis.facts import ModuleFacts, UnmaskedListPadding
from padlint.analysis.values import Context
from padlint.rules import sites
from padlint.rules.base import Finding, FixProposal, Rule
from padlint.rules.catalogue import requires
from padlint.rules.edits import add_mask_beside_ids
from padlint.rules.padding_mask import mask_at_padding
from padlint.types import Applicability


class DoublePaddingResetsMask(Rule):
    """Features padded by hand without an attention mask, then padded again by a collator that makes it all ones."""

    code = "PAD009"
    REQUIRES = requires(code)
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
        padded, node = event.padded, event.node
        if not isinstance(node, cst.Dict):
            return None
        shape = fixshapes.attention_mask(
            padded,
            event.ids_code,
            Context(),
            lengths_ok=False,
            gap_ok=event.gap_ok,
            pad_code=None,
            data_ok=event.data_ok,
            pad_is_eos=True,
            dtype=None,
        )
        title = "Keep the attention mask in the features"
        # Unless the unpadded row is still at hand here, build its mask where it is padded and return it.
        built = None if event.data_ok else mask_at_padding(facts, padded, (node,))
        if built is not None:
            edit = add_mask_beside_ids(facts, node, built.name)
            return (
                FixProposal(Applicability.SAFE, title, (*built.edits, *sites.fit_line(facts, [edit]))) if edit else None
            )
        edit = add_mask_beside_ids(facts, node, shape.code) if shape is not None else None
        return FixProposal(Applicability.SAFE, title, tuple(sites.fit_line(facts, [edit]))) if edit else None
