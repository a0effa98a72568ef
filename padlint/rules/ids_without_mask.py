"""PAD003's judgement of ids the code padded itself that reach a model with no mask at all (facts.UnmaskedIds).

No tokenizer made a mask for them, so nothing was lost: the harm is the consumer's. The analysis records only
models the library table says read the pads (an encoder attends both ways; an encoder-decoder's encoder too;
any model attends to pads placed before the tokens). A causal decoder given right-padded rows is never
recorded: no real token attends to a later pad (litgpt's and torchtune's collators pass no mask on purpose).
"""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from padlint.analysis import fixshapes
from padlint.analysis.facts import ModuleFacts, UnmaskedIds
from padlint.rules import sites
from padlint.rules.base import Finding, FixProposal
from padlint.rules.edits import add_keyword

HARM = {
    "bidirectional": ", which attends in both directions, with no attention mask: every token attends to the padding",
    "encoder_decoder": " with no attention mask: its encoder attends to the padding",
    "left": " with no attention mask: each row's tokens attend to the pads before them",
}
NO_FIX = "no mask can be derived here from what is in view"
MANUAL_FIX = (
    "build the mask where the rows are padded (1 at real tokens, 0 at pads, e.g. from the rows' lengths) and pass "
    "it with the ids as `attention_mask=`"
)


def unmasked_ids_findings(facts: ModuleFacts) -> Iterable[Finding]:
    """One finding per model call that gets self-padded ids and no mask (facts.record keeps one per call)."""
    for event in facts.unmasked_ids:
        if not facts.is_local(event.node) or event.node in facts.rows_unconsumed:
            continue
        ids = event.ids_code or "the ids"
        side = " on the left" if event.reads == "left" else ""
        model = event.model_class.rsplit(".", 1)[-1]
        message = (
            f"`{ids}`, padded{side} by `{facts.brief(event.padded.node)}` on line {facts.line(event.padded.node)}, "
            f"reaches `{model}`{HARM[event.reads]}"
        )
        fix = _fix(facts, event)
        yield Finding(event.node, message, fix, no_fix=None if fix else NO_FIX, manual_fix=None if fix else MANUAL_FIX)


def _fix(facts: ModuleFacts, event: UnmaskedIds) -> FixProposal | None:
    """Pass a mask built from what is valid at the call: the rows' lengths or padding gap (safe), else a
    comparison with the pad id (unsafe: the pad id may also be a real token). Never where the pad may be EOS."""
    if event.mask_accepted is False or not isinstance(event.node, cst.Call):
        return None  # the call takes no `attention_mask=`: adding one raises TypeError
    shape = fixshapes.attention_mask(
        event.padded,
        event.ids_code,
        event.context,
        lengths_ok=event.lengths_ok,
        gap_ok=event.gap_ok,
        pad_code=event.pad_code,
        pad_is_eos=facts.pad_eos_possible,
        dtype=None,
    )
    if shape is None or shape.setup or shape.needs_torch or shape.imports:
        return None  # named values before the call: not written into a call's arguments
    edit = add_keyword(facts, event.node, "attention_mask", shape.code)
    if edit is None:
        return None
    return FixProposal(shape.applicability, shape.title, tuple(sites.fit_line(facts, [edit])))
