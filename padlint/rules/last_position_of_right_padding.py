"""PAD016 last-position-of-right-padding."""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from padlint.analysis.facts import LastPositionRead, ModuleFacts
from padlint.analysis.hidden_states import read_without_effects
from padlint.look.reach import EVERY_ROW_LAST
from padlint.rules.base import Finding, FixProposal, Rule
from padlint.rules.catalogue import requires
from padlint.types import Applicability

# The mask's real tokens must be the first positions of each row, and cover the same positions as the
# output: a model that adds positions of its own (image or prefix tokens) breaks that.
UNSAFE_WHY = "the mask must be the right-padded batch's and cover the same positions as the output"


class LastPositionOfRightPadding(Rule):
    """The last position of every row is read from a model's output for a batch padded on the right."""

    code = "PAD016"
    REQUIRES = requires(code)
    name = "last-position-of-right-padding"
    summary = "The last position read from every row of a right-padded batch: a pad in each shorter row"
    fix_safety = "unsafe (read each row at its last real token: `mask.sum(dim=1) - 1`); none where no mask is in view"
    MANUAL_FIX = (
        "read each row at its last real token, `out[torch.arange(len(mask)), mask.sum(dim=1) - 1]`, or pad the "
        "batch on the left (`padding_side='left'`) so that every row ends at the last position"
    )

    INVALID = [
        """
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("org/chat-model", padding_side="right")
model = AutoModelForCausalLM.from_pretrained("org/chat-model")

def next_token_scores(prompts):
    enc = tokenizer(prompts, padding=True, return_tensors="pt")
    out = model(**enc)
    return out.logits[:, -1, :]
""",
    ]
    VALID = [
        # padded on the left: every row ends at the last position
        """
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("org/chat-model", padding_side="left")
model = AutoModelForCausalLM.from_pretrained("org/chat-model")

def next_token_scores(prompts):
    enc = tokenizer(prompts, padding=True, return_tensors="pt")
    out = model(**enc)
    return out.logits[:, -1, :]
""",
        # each row read at its last real token
        """
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("org/chat-model", padding_side="right")
model = AutoModelForCausalLM.from_pretrained("org/chat-model")

def next_token_scores(prompts):
    enc = tokenizer(prompts, padding=True, return_tensors="pt")
    out = model(**enc)
    last = enc["attention_mask"].sum(dim=1) - 1
    return out.logits[torch.arange(len(last)), last]
""",
    ]

    @classmethod
    def may_fire(cls, look) -> bool:
        # the read itself, `[:, -1]` / `[:, -1, :]`, and a model's per-position output by name
        lower = look.lower
        if not (("logits" in lower or "hidden_state" in lower) and EVERY_ROW_LAST.search(lower) is not None):
            return False
        return look.linked("pad_step", "last_position") or look.linked("tokenizer_padding", "last_position")

    @classmethod
    def scopes(cls, look) -> set | None:
        # the padding step and wherever its value goes: the model call and the read of its output
        return look.reach("pad_step", "last_position") | look.reach("tokenizer_padding", "last_position")

    def check(self, facts: ModuleFacts) -> Iterable[Finding]:
        for event in facts.last_position_reads:
            message = (
                f"`{facts.brief(event.node)}` reads the last position of every row of `{facts.brief(event.model_call)}`'s "
                f"output, but the batch was padded on the right (line {facts.line(event.padded.node)}): in every row "
                "shorter than the longest that position is a pad"
            )
            fix = self.fix(facts, event)
            why = (
                None if fix is not None or event.mask is not None else "no attention mask of the batch is in view here"
            )
            yield Finding(event.node, message, fix, no_fix=why)

    def fix(self, facts: ModuleFacts, event: LastPositionRead) -> FixProposal | None:
        """`out[torch.arange(out.shape[0], device=out.device), (mask.sum(dim=1) - 1).to(out.device)]`, the
        positions after the last kept as they were (`[:, -1, :]` -> `[rows, last, :]`)."""
        node = event.node
        if event.mask is None or not isinstance(node, cst.Subscript) or not read_without_effects(event.states):
            return None
        states = facts.code(event.states)
        rest = "".join(f", {facts.code(e.slice)}" for e in node.slice[2:])
        torch = facts.imports.local_name_for("torch")
        last = f"({event.mask}.sum(dim=1) - 1).to({states}.device)"
        code = f"{states}[{torch or 'torch'}.arange({states}.shape[0], device={states}.device), {last}{rest}]"
        title = f"Read each row at its last real token (unsafe: {UNSAFE_WHY})"
        return FixProposal(Applicability.UNSAFE, title, ((node, code),), needs_torch=torch is None)
