"""PAD001 attention-mask-all-ones."""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from padlint.analysis import fixshapes
from padlint.analysis import patterns as P
from padlint.analysis.facts import ModuleFacts, OnesAtMask
from padlint.analysis.values import Ones
from padlint.rules.base import Finding, FixProposal, Rule, pick_fix, shorten
from padlint.rules.catalogue import requires
from padlint.rules.keep_mask import keep_encoding
from padlint.rules.no_fix_reasons import why_no_mask_fix
from padlint.rules.padding_mask import mask_at_padding
from padlint.types import Applicability


class AttentionMaskAllOnes(Rule):
    """An attention mask built as all ones over a batch that was already padded."""

    code = "PAD001"
    REQUIRES = requires(code)
    name = "attention-mask-all-ones"
    summary = "Attention mask is all ones over a padded batch: the model attends to padding"
    fix_safety = "safe (mask from the tokenizer or from lengths); unsafe (mask from the pad id)"
    MANUAL_FIX = "build the mask from the tokenizer's `attention_mask`, or from the lengths before padding (1 on real tokens, 0 on pads)"

    INVALID = [
        """
import torch
from torch.nn.utils.rnn import pad_sequence

def collate(batch, pad_id):
    seqs = [torch.tensor(x["input_ids"]) for x in batch]
    input_ids = pad_sequence(seqs, batch_first=True, padding_value=pad_id)
    return {"input_ids": input_ids, "attention_mask": torch.ones_like(input_ids)}
""",
        """
def encode(example, tokenizer, max_len=64):
    ids = tokenizer.encode(example["text"])[:max_len]
    gap = max_len - len(ids)
    ids = ids + [tokenizer.pad_token_id] * gap
    return {"input_ids": ids, "attention_mask": [1] * len(ids)}
""",
    ]
    VALID = [
        """
import torch
from torch.nn.utils.rnn import pad_sequence

def collate(batch, pad_id):
    seqs = [torch.tensor(x["input_ids"]) for x in batch]
    masks = [torch.ones_like(s) for s in seqs]
    return {
        "input_ids": pad_sequence(seqs, batch_first=True, padding_value=pad_id),
        "attention_mask": pad_sequence(masks, batch_first=True, padding_value=0),
    }
""",
        """
import torch

def forward(model, input_ids, attention_mask=None):
    if attention_mask is None:
        attention_mask = torch.ones_like(input_ids)
    return model(input_ids=input_ids, attention_mask=attention_mask)
""",
    ]

    @classmethod
    def may_fire(cls, look) -> bool:
        # A padding step in scopes connected to a mask and ones; or, with pad = EOS, to a mask it pads.
        return look.linked("pad_step", "mask", "ones") or (look.has("pad_is_eos") and look.linked("pad_step", "mask"))

    @classmethod
    def scopes(cls, look) -> set | None:
        found = look.reach("pad_step", "mask", "ones")  # the padding step and wherever its value goes
        if look.has("pad_is_eos"):
            found = found | look.reach("pad_is_eos") | look.reach("pad_step", "mask")
        return found

    def check(self, facts: ModuleFacts) -> Iterable[Finding]:
        by_node: dict[cst.CSTNode, list[OnesAtMask]] = {}  # one finding per place, in the order first seen
        for event in facts.ones_at_mask:
            ones = event.ones
            if not facts.is_local(ones.node):
                continue  # found in a callee of another module: reported there
            if ones in facts.corrected_ones or event.padded.node in facts.rows_overwritten:
                continue
            by_node.setdefault(ones.node, []).append(event)
        for events in by_node.values():
            event, fix = pick_fix(events, lambda e: self.fix(facts, e))
            ones = event.ones
            padded = event.padded
            what = shorten(event.padded_code) if event.padded_code else "the padded ids"
            message = (
                f"attention mask is all ones over `{what}`, padded by `{facts.brief(padded.node)}` "
                f"{facts.at(padded.node)}: the model attends to padding"
            )
            if isinstance(ones, Ones) and ones.pads_only:
                message = (
                    f"attention mask is padded with ones where `{what}` is padded by `{facts.brief(padded.node)}` "
                    f"on line {facts.line(padded.node)}: the model attends to padding"
                )
            why = (
                None
                if fix
                else LONGER_ROW.format(what=what)
                if isinstance(ones, Ones) and ones.longer
                else why_no_mask_fix(
                    event.padded,
                    event.padded_code,
                    event.lengths_ok,
                    event.pad_code,
                    facts.pad_is_eos,
                    "the mask",
                    bool(facts.pad_eos_fallbacks),
                )
            )
            yield Finding(ones.node, message, fix, no_fix=why)
        yield from masks_padded_as_ids(facts)

    def fix(self, facts: ModuleFacts, event: OnesAtMask) -> FixProposal | None:
        padded = event.padded
        ones = event.ones
        if isinstance(ones, Ones) and ones.pads_only and isinstance(ones.node, cst.BinaryOperation):
            # `mask += [1] * gap`: the run over the padding becomes zeros, whatever the rest is.
            count = ones.node.right if isinstance(ones.node.left, cst.List) else ones.node.left
            return FixProposal(
                Applicability.SAFE, "Pad the mask with zeros", ((ones.node, f"[0] * {facts.code(count)}"),)
            )
        if isinstance(ones, Ones) and ones.pads_only and isinstance(ones.node, cst.Integer):
            # `while len(ids) < n: ids.append(pad); mask.append(1)`: the loop appends at the pads only
            return FixProposal(Applicability.SAFE, "Pad the mask with zeros", ((ones.node, "0"),))
        if isinstance(ones.node, cst.BaseStatement):
            return None  # no expression to replace with a mask
        if isinstance(ones, Ones) and ones.longer:
            return None  # the ones span a row joined from the padded value and more: its mask alone is too short
        shape = fixshapes.attention_mask(
            padded,
            event.padded_code,
            event.context,
            lengths_ok=event.lengths_ok,
            gap_ok=event.gap_ok,
            data_ok=event.data_ok,
            pad_code=event.pad_code,
            pad_is_eos=facts.pad_eos_possible,
            dtype=mask_dtype(facts, event.ones.node),
        )
        if shape is None or shape.applicability is not Applicability.SAFE:
            kept = keep_encoding(facts, padded, (event.ones.node,)) if padded.from_tokenizer else None
            if kept is not None:  # the tokenizer made the right mask: keep it instead of building one
                mask = fixshapes.with_dtype(kept.mask_where_ids_are(), padded.kind, mask_dtype(facts, event.ones.node))
                return FixProposal(
                    Applicability.SAFE, "Keep the tokenizer's attention mask", (*kept.edits, (event.ones.node, mask))
                )
            built = mask_at_padding(facts, padded, (event.ones.node,)) if padded.template == "§" else None
            if built is not None:  # the rows' mask, built where they are padded
                title = "Build the attention mask where the rows are padded"
                return FixProposal(Applicability.SAFE, title, (*built.edits, (event.ones.node, built.name)))
        return shape.proposal(event.ones.node, facts) if shape else None


LONGER_ROW = (
    "the ones are longer than `{what}` (its length plus others): they span a row joined from it and other "
    "parts, so its mask alone would not line up; write 1 for each real part and its mask for `{what}`"
)


def mask_dtype(facts: ModuleFacts, node: cst.CSTNode) -> str | None:
    if isinstance(node, cst.Call):
        arg = P.keyword(node, "dtype")
        if arg is not None:
            return facts.code(arg.value)
    return None


def masks_padded_as_ids(facts: ModuleFacts) -> Iterable[Finding]:
    """A mask padded like token ids, with the pad id, where the pad id is the EOS token (so not 0):
    at the pads the mask holds the EOS id and the model attends to them. Fix: pad the mask with 0."""
    for event in facts.masks_padded_as_ids:
        if not facts.is_local(event.node):
            continue  # found in a callee of another module: reported there
        eos = facts.pad_eos_for(event.owner, event.node)
        if eos is None:
            continue  # the pad id may be 0 (BERT, T5): then the mask is right
        message = (
            f"attention mask is padded with the pad id by `{facts.brief(event.node)}`, and the pad token is the "
            f"EOS token (line {facts.line(eos)}): the mask holds the EOS id at the pads, not 0, and the model "
            "attends to padding"
        )
        fix = None
        if event.pad_node is not None and P.contains(event.node, event.pad_node):
            fix = FixProposal(Applicability.SAFE, "Pad the mask with 0", ((event.pad_node, "0"),))
        why = None if fix else f"`{facts.brief(event.node)}` takes its pad value from the tokenizer, not from this code"
        yield Finding(event.node, message, fix, no_fix=why)
