"""PAD015 mean-pool-over-padding."""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from padlint.analysis.facts import MeanOverPositions, ModuleFacts
from padlint.analysis.hidden_states import read_without_effects
from padlint.rules.base import Finding, FixProposal, Rule
from padlint.rules.catalogue import requires
from padlint.types import Applicability

# A model that puts positions of its own into the states (image or prefix tokens) makes them longer
# than the mask of the ids it was handed: the fix's product would then fail on the shapes.
UNSAFE_WHY = "the mask must cover the same positions as the states; a model that adds positions breaks that"


class MeanPoolOverPadding(Rule):
    """The hidden states of a padded batch are averaged over the sequence without the mask."""

    code = "PAD015"
    REQUIRES = requires(code)
    name = "mean-pool-over-padding"
    summary = "Hidden states of a padded batch averaged over the sequence: the pads' states count in each row"
    fix_safety = "unsafe (weigh the mean by the attention mask); none where no mask is in view"
    MANUAL_FIX = (
        "weigh the states by the attention mask: "
        "`(h * mask.unsqueeze(-1)).sum(dim=1) / mask.sum(dim=1, keepdim=True).clamp(min=1)`"
    )

    INVALID = [
        """
import torch
from transformers import AutoModel, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("org/encoder")
model = AutoModel.from_pretrained("org/encoder")

def embed(sentences):
    enc = tokenizer(sentences, padding=True, truncation=True, return_tensors="pt")
    with torch.no_grad():
        out = model(**enc)
    return out.last_hidden_state.mean(dim=1)
""",
    ]
    VALID = [
        # weighted by the mask: only the real tokens count
        """
import torch
from transformers import AutoModel, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("org/encoder")
model = AutoModel.from_pretrained("org/encoder")

def embed(sentences):
    enc = tokenizer(sentences, padding=True, truncation=True, return_tensors="pt")
    with torch.no_grad():
        out = model(**enc)
    mask = enc["attention_mask"].unsqueeze(-1).float()
    return (out.last_hidden_state * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1)
""",
        # one sentence at a time: nothing is padded
        """
import torch
from transformers import AutoModel, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("org/encoder")
model = AutoModel.from_pretrained("org/encoder")

def embed(sentence: str):
    enc = tokenizer(sentence, padding=True, return_tensors="pt")
    with torch.no_grad():
        return model(**enc).last_hidden_state.mean(dim=1)
""",
    ]

    @classmethod
    def may_fire(cls, look) -> bool:
        # the states are read in this file (the analysis tags a model's output only where its text does)
        if "hidden_state" not in look.lower or not ("mean" in look.lower or "max" in look.lower):
            return False
        return any(
            look.linked(seed, "hidden_states", pooling)
            for seed in ("pad_step", "tokenizer_padding")
            for pooling in ("mean", "pool")
        )

    @classmethod
    def scopes(cls, look) -> set | None:
        # the padding step and wherever its value goes: the model call, its states and their mean or max
        found: set = set()
        for seed in ("pad_step", "tokenizer_padding"):
            for pooling in ("mean", "pool"):
                found |= look.reach(seed, "hidden_states", pooling)
        return found

    def check(self, facts: ModuleFacts) -> Iterable[Finding]:
        for event in facts.means_over_positions:
            mean = f"{facts.brief(event.node)}"
            pooled = "averages" if event.reduction == "mean" else "takes the largest of"
            message = (
                f"`{mean}` {pooled} the hidden states of `{facts.brief(event.model_call)}` over every position, "
                "pads included, though its batch was padded: each row's vector takes in its pads' states "
                "and changes with the other rows of its batch"
            )
            fix = self.fix(facts, event)
            why = (
                None if fix is not None or event.mask is not None else "no attention mask of the batch is in view here"
            )
            yield Finding(event.node, message, fix, no_fix=why)

    def fix(self, facts: ModuleFacts, event: MeanOverPositions) -> FixProposal | None:
        """`(h * m.unsqueeze(-1).to(h)).sum(dim=1) / m.to(h).sum(dim=1, keepdim=True).clamp(min=1)`; for a
        max, the states with the pads set to the lowest value first."""
        call = event.node
        if event.mask is None or not isinstance(call, cst.Call) or not read_without_effects(event.states):
            return None
        if event.reduction == "max":
            return self.max_fix(facts, event)
        if any(a.keyword is not None and a.keyword.value == "keepdim" for a in call.args):
            return None
        states = facts.code(event.states)
        if not isinstance(event.states, (cst.Name, cst.Attribute, cst.Subscript, cst.Call)):
            states = f"({states})"
        mask = event.mask
        code = (
            f"({states} * {mask}.unsqueeze(-1).to({states})).sum(dim=1) / "
            f"{mask}.to({states}).sum(dim=1, keepdim=True).clamp(min=1)"
        )
        title = f"Weigh the mean by the attention mask (unsafe: {UNSAFE_WHY})"
        return FixProposal(Applicability.UNSAFE, title, ((call, f"({code})"),))

    def max_fix(self, facts: ModuleFacts, event: MeanOverPositions) -> FixProposal | None:
        """`h.max(dim=1)` -> `h.masked_fill(m.unsqueeze(-1) == 0, torch.finfo(h.dtype).min).max(dim=1)`: no
        pad's state can be the largest (a row of pads only keeps the lowest value, not a pad's state)."""
        torch = facts.imports.local_name_for("torch")
        if torch is None:
            return None
        states = facts.code(event.states)
        if not isinstance(event.states, (cst.Name, cst.Attribute, cst.Subscript, cst.Call)):
            states = f"({states})"
        code = f"{states}.masked_fill({event.mask}.unsqueeze(-1) == 0, {torch}.finfo({states}.dtype).min)"
        title = f"Leave the pads out of the max by the attention mask (unsafe: {UNSAFE_WHY})"
        return FixProposal(Applicability.UNSAFE, title, ((event.states, code),))
