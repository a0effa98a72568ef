"""PAD013 right-padded-generation."""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.facts import ModuleFacts, RightPaddedPrompts
from padlint.rules.base import Finding, FixProposal, Rule
from padlint.rules.catalogue import requires
from padlint.rules.edits import add_keyword
from padlint.types import Applicability

NO_FIX = "the prompts are padded by hand: pad them on the left (`[pad_id] * n + ids`) and keep the mask beside them"
# The keyword is read by transformers' tokenizers from 4.45 (PR #33385); an older version, or a tokenizer
# of the checkpoint's own code, ignores it or raises: not in view.
UNSAFE_WHY = "`padding_side=` in a tokenizer call needs transformers >= 4.45 and a tokenizer that accepts it"


# Padding on the left moves the pads before the real tokens for every reader of these ids: a model's
# forward pass given no position ids then numbers each row's tokens from its first pad (absolute positions).
FORWARD_TOO = (
    "the same prompts also go to `{call}` {at}, a forward pass whose positions left padding would move: "
    "tokenize the prompts for `generate` apart"
)


class RightPaddedGeneration(Rule):
    """Prompts padded on the right go to a decoder-only `generate`: new tokens follow the pads."""

    code = "PAD013"
    REQUIRES = requires(code)
    name = "right-padded-generation"
    summary = "Prompts padded on the right reach a decoder-only `generate`: new tokens follow the pads"
    fix_safety = 'unsafe (`padding_side="left"` in the tokenizer call); none for padding by hand'
    MANUAL_FIX = 'pad the prompts on the left (`tokenizer.padding_side = "left"` before tokenizing them)'

    INVALID = [
        """
from transformers import AutoModelForCausalLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("org/chat-model", padding_side="right")
model = AutoModelForCausalLM.from_pretrained("org/chat-model")

def answer(questions):
    batch = tokenizer(questions, padding=True, return_tensors="pt")
    out = model.generate(**batch, max_new_tokens=64)
    return tokenizer.batch_decode(out[:, batch["input_ids"].shape[1]:], skip_special_tokens=True)
""",
    ]
    VALID = [
        # the tokenizer pads on the left for generation
        """
from transformers import AutoModelForCausalLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("org/chat-model", padding_side="left")
model = AutoModelForCausalLM.from_pretrained("org/chat-model")

def answer(questions):
    batch = tokenizer(questions, padding=True, return_tensors="pt")
    out = model.generate(**batch, max_new_tokens=64)
    return tokenizer.batch_decode(out[:, batch["input_ids"].shape[1]:], skip_special_tokens=True)
""",
        # an encoder-decoder's generate starts a new sequence: the encoder's right pads are masked
        """
from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("org/t5", padding_side="right")
model = AutoModelForSeq2SeqLM.from_pretrained("org/t5")

def summarise(texts):
    batch = tokenizer(texts, padding=True, return_tensors="pt")
    return model.generate(**batch, max_new_tokens=64)
""",
    ]

    @classmethod
    def may_fire(cls, look) -> bool:
        if "generate" not in look.lower:
            return False  # the finding is at a `generate` call in this file
        return look.linked("pad_step", "generate") or look.linked("tokenizer_padding", "generate")

    @classmethod
    def scopes(cls, look) -> set | None:
        return look.reach("pad_step", "generate") | look.reach("tokenizer_padding", "generate")

    def check(self, facts: ModuleFacts) -> Iterable[Finding]:
        for event in facts.right_padded_prompts:
            padded = event.padded
            message = (
                f"`generate` continues each row after its last position, and these prompts are padded on the "
                f"right by `{facts.brief(padded.node)}` {facts.at(padded.node)}: a shorter row's new tokens "
                "follow its pads"
            )
            forward = facts.ids_at_forward.get(id(padded.node))
            fix = self.fix(facts, event) if forward is None else None
            why = NO_FIX if forward is None else FORWARD_TOO.format(call=facts.brief(forward), at=facts.at(forward))
            yield Finding(event.node, message, fix, no_fix=None if fix else why)

    def fix(self, facts: ModuleFacts, event: RightPaddedPrompts) -> FixProposal | None:
        """`padding_side="left"` in the tokenizer call that padded the prompts (in place of "right")."""
        call = event.padded.node
        if not event.padded.from_tokenizer or not isinstance(call, cst.Call) or not facts.is_local(call):
            return None
        given = P.keyword(call, "padding_side")
        edit = (given.value, '"left"') if given is not None else add_keyword(facts, call, "padding_side", '"left"')
        if edit is None:
            return None
        return FixProposal(Applicability.UNSAFE, f"Pad the prompts on the left (unsafe: {UNSAFE_WHY})", (edit,))
