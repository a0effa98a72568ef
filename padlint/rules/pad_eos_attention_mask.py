"""PAD005 pad-eos-attention-mask."""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from padlint.analysis import fixshapes
from padlint.analysis.facts import ModuleFacts
from padlint.analysis.values import PadIdMask
from padlint.rules.base import Finding, FixProposal, Rule, where_pad_is_not_eos
from padlint.rules.catalogue import requires
from padlint.rules.keep_mask import keep_encoding
from padlint.rules.no_fix_reasons import why_no_mask_fix
from padlint.types import Applicability


class PadEosAttentionMask(Rule):
    """The pad token is the EOS token and the attention mask is `ids != pad_id`: real EOS tokens are masked out."""

    code = "PAD005"
    REQUIRES = requires(code)
    name = "pad-eos-attention-mask"
    summary = "Pad is EOS and the attention mask is `ids != pad_id`: every real EOS is hidden from the model"
    fix_safety = "safe (mask from lengths or the tokenizer); none when neither is in scope"
    MANUAL_FIX = "build the mask from the sequence lengths, or take the tokenizer's `attention_mask`"

    INVALID = [
        """
import torch
from torch.nn.utils.rnn import pad_sequence

def setup(tok):
    tok.pad_token_id = tok.eos_token_id

def collate(rows, tok):
    seqs = [torch.tensor(r) for r in rows]
    ids = pad_sequence(seqs, batch_first=True, padding_value=tok.pad_token_id)
    return {"input_ids": ids, "attention_mask": ids.ne(tok.pad_token_id)}
""",
    ]
    VALID = [
        """
import torch
from torch.nn.utils.rnn import pad_sequence

def setup(tok):
    tok.add_special_tokens({"pad_token": "[PAD]"})

def collate(rows, tok):
    seqs = [torch.tensor(r) for r in rows]
    ids = pad_sequence(seqs, batch_first=True, padding_value=tok.pad_token_id)
    return {"input_ids": ids, "attention_mask": ids.ne(tok.pad_token_id)}
""",
    ]

    @classmethod
    def may_fire(cls, look) -> bool:
        return look.has("pad_is_eos")  # pad set to EOS somewhere

    @classmethod
    def scopes(cls, look) -> set | None:
        return look.reach("pad_is_eos") | look.reach("pad_step", "mask")  # pad=EOS, and masks from padded ids

    def check(self, facts: ModuleFacts) -> Iterable[Finding]:
        for event in facts.pad_id_masks_at_sink:
            if not facts.is_local(event.node):
                continue  # found in a callee of another module: reported there
            eos = facts.pad_eos_for(event.owner, event.node)
            if eos is None or where_pad_is_not_eos(facts, event.node):
                continue  # (a branch that runs only where the pad is not the EOS)
            # `pad_token_id or eos_token_id` (a PadIdFallback) makes the pad the EOS also for a pad id of 0
            zero_pad = any(fallback.node is eos for fallback in facts.pad_id_fallbacks)
            if not facts.real_eos_in_ids(zero_pad_tokenizers=zero_pad):
                continue  # a mask of `ids != eos` is 0 exactly at the pads when no real EOS is in the ids
            mask = event.at_sink
            if isinstance(mask.ones, PadIdMask) and mask.ones.zeroed_in_place:
                # `mask = ones_like(ids); mask[ids == pad_id] = 0`: two statements make the mask, and no
                # one expression can be replaced by a correct one
                yield Finding(event.node, _message(facts, eos), None, no_fix=ZEROED_IN_PLACE)
                continue
            message = _message(facts, eos)
            numbers = _made_of_numbers(event.node)
            shape = fixshapes.attention_mask(
                mask.padded,
                mask.padded_code,
                mask.context,
                lengths_ok=mask.lengths_ok,
                gap_ok=mask.gap_ok,
                data_ok=mask.data_ok,
                pad_code=None,
                pad_is_eos=True,
                dtype=None,
                cast=numbers,
            )  # `(ids != pad).long()` keeps its cast, `ids != pad` stays boolean
            fix = shape.proposal(event.node, facts) if shape else None
            if fix is None and mask.padded.from_tokenizer:
                # the ids were split off their encoding: keep it, and use its mask
                kept = keep_encoding(facts, mask.padded, (event.node,))
                if kept is not None:
                    title = "Use the tokenizer's attention mask"
                    kept_mask = kept.mask_where_ids_are()
                    if not numbers:
                        kept_mask = fixshapes.as_boolean(kept_mask, mask.padded.kind)
                    fix = FixProposal(Applicability.SAFE, title, (*kept.edits, (event.node, kept_mask)))
            why = None
            if fix is None:
                why = why_no_mask_fix(mask.padded, mask.padded_code, mask.lengths_ok, None, True, "the mask")
            yield Finding(event.node, message, fix, no_fix=why)


ZEROED_IN_PLACE = "two statements make this mask (ones, then a store of 0 where the ids equal the pad id): replace both"


def _message(facts: ModuleFacts, eos: cst.CSTNode) -> str:
    return (
        f"attention mask is `ids != pad_id` while the pad token is the EOS token (line {facts.line(eos)}): "
        "every real EOS is hidden from the model"
    )


def _made_of_numbers(node: cst.CSTNode) -> bool:
    """Was the mask replaced whole a mask of numbers (`np.where(ids == pad, 0, 1)`, `1 - (ids == pad).long()`,
    `ones.masked_fill(ids == pad, 0)`), not a comparison? Then the mask written in its place is cast to numbers too."""
    if isinstance(node, (cst.IfExp, cst.BinaryOperation)):
        return True
    func = node.func if isinstance(node, cst.Call) else None
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else None
    return name in ("where", "masked_fill")
