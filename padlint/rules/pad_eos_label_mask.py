"""PAD004 pad-eos-label-mask."""

from __future__ import annotations

from collections.abc import Iterable

from padlint.analysis.facts import ModuleFacts
from padlint.rules.base import Finding, FixProposal, Rule
from padlint.types import Applicability


class PadEosLabelMask(Rule):
    """The pad token is the EOS token and labels are masked by the pad id: every real EOS loses its label."""

    code = "PAD004"
    REQUIRES = ("pad",)  # a comparison with the pad id
    name = "pad-eos-label-mask"
    summary = "Pad is EOS and labels are masked by pad id: every real EOS gets -100, the model never learns to stop"
    fix_safety = "safe (mask labels from the attention mask); none for DataCollatorForLanguageModeling"
    MANUAL_FIX = "set labels to -100 where the attention mask is 0 instead of where they equal the pad id, or give the tokenizer a dedicated pad token"

    INVALID = [
        """
def load(tokenizer):
    tokenizer.pad_token = tokenizer.eos_token
    return tokenizer

def collate(tokenizer, texts):
    batch = tokenizer([t + tokenizer.eos_token for t in texts], padding=True, return_tensors="pt")
    labels = batch["input_ids"].clone()
    labels[labels == tokenizer.pad_token_id] = -100
    batch["labels"] = labels
    return batch
""",
    ]
    VALID = [
        """
def load(tokenizer):
    tokenizer.add_special_tokens({"pad_token": "<pad>"})
    return tokenizer

def collate(tokenizer, texts):
    batch = tokenizer(texts, padding=True, return_tensors="pt")
    labels = batch["input_ids"].clone()
    labels[labels == tokenizer.pad_token_id] = -100
    batch["labels"] = labels
    return batch
""",
    ]

    @classmethod
    def may_fire(cls, look) -> bool:
        return look.has("pad_is_eos")  # pad set to EOS somewhere

    @classmethod
    def scopes(cls, look) -> set | None:
        return look.reach("pad_is_eos") | look.reach("label_value_site")  # pad=EOS, and labels masked by -100

    def check(self, facts: ModuleFacts) -> Iterable[Finding]:
        if not facts.pad_is_eos:
            return
        if facts.text_tokenized and facts.eos_in_data is None:
            # The module makes its token ids from text and never puts an EOS in (texts ended by `###`,
            # `add_special_tokens=False`, tokenizers that append none): no real EOS reaches the
            # labels, so masking the pad id costs nothing. Ids made out of view may hold one.
            return
        for event in facts.labels_masked_where_pad_id:
            eos = facts.pad_eos_for(event.owner, event.node)
            if eos is None:
                continue
            message = (
                f"labels are masked where they equal the pad id, which is the EOS token (line {facts.line(eos)}): "
                "every real EOS gets -100 and the model never learns to stop"
            )
            fix = None
            condition, mask = event.condition, event.mask_code
            if condition is not None and mask:
                fix = FixProposal(
                    Applicability.SAFE, "Mask the labels where the attention mask is 0", ((condition, f"{mask} == 0"),)
                )
            yield Finding(event.node, message, fix)
        for call, owner in facts.lm_collators:
            eos = facts.pad_eos_for(owner, call)
            if eos is not None:
                suggestion = FixProposal(
                    Applicability.DISPLAY_ONLY,
                    'Use a dedicated pad token: tokenizer.add_special_tokens({"pad_token": "<pad>"}) and '
                    "model.resize_token_embeddings(len(tokenizer))",
                    (),
                )
                yield Finding(
                    call,
                    "`DataCollatorForLanguageModeling(mlm=False)` sets every label equal to the pad id "
                    f"to -100, and the pad token is the EOS token (line {facts.line(eos)}): every real "
                    "EOS loses its label",
                    suggestion,
                )
