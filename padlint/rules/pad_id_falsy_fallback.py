"""PAD010 pad-id-falsy-fallback."""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from padlint.analysis.facts import ModuleFacts
from padlint.analysis.fixshapes import is_place
from padlint.rules.base import Finding, FixProposal, Rule
from padlint.rules.catalogue import requires
from padlint.types import Applicability


class PadIdFalsyFallback(Rule):
    """`pad_token_id or eos_token_id` used to pad: a pad id of 0 is falsy and silently becomes EOS."""

    code = "PAD010"
    REQUIRES = requires(code)
    name = "pad-id-falsy-fallback"
    summary = "`pad_token_id or eos_token_id` replaces a pad id of 0 with EOS"
    fix_safety = "safe (`x if x is not None else y`)"
    MANUAL_FIX = "test `pad_token_id is not None` instead of its truth value"

    INVALID = [
        """
import torch
from torch.nn.utils.rnn import pad_sequence

def collate(seqs, tokenizer):
    pad = tokenizer.pad_token_id or tokenizer.eos_token_id
    return pad_sequence([torch.tensor(s) for s in seqs], batch_first=True, padding_value=pad)
""",
    ]
    VALID = [
        """
import torch
from torch.nn.utils.rnn import pad_sequence

def collate(seqs, tokenizer):
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    return pad_sequence([torch.tensor(s) for s in seqs], batch_first=True, padding_value=pad)
""",
    ]

    @classmethod
    def may_fire(cls, look) -> bool:
        return look.has("eos_fallback")  # `... or ...eos...`

    @classmethod
    def scopes(cls, look) -> set | None:
        return look.reach("eos_fallback")

    def check(self, facts: ModuleFacts) -> Iterable[Finding]:
        for event in facts.pad_id_fallbacks:
            node = event.node
            message = (
                "`or` falls back to EOS when the pad id is 0 (BERT, T5 and Llama-style pads are 0): "
                "use `is not None` to test for a missing pad token"
            )
            fix = None
            if isinstance(node, cst.BooleanOperation) and is_place(facts.code(node.left)):
                left, right = facts.code(node.left), facts.code(node.right)
                fix = FixProposal(
                    Applicability.SAFE,
                    "Fall back only when the pad id is None",
                    ((node, f"{left} if {left} is not None else {right}"),),
                )
            yield Finding(node, message, fix)
