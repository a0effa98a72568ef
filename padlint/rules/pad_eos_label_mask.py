"""PAD004 pad-eos-label-mask."""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from padlint.analysis import fixshapes
from padlint.analysis import patterns as P
from padlint.analysis.facts import ModuleFacts
from padlint.analysis.loader_uses import nearest, parents_of
from padlint.analysis.output_use import value_never_read
from padlint.analysis.values import Context
from padlint.rules import sites
from padlint.rules.base import Finding, FixProposal, Rule, where_pad_is_not_eos
from padlint.rules.catalogue import requires
from padlint.types import Applicability


class PadEosLabelMask(Rule):
    """The pad token is the EOS token and labels are masked by the pad id: every real EOS loses its label."""

    code = "PAD004"
    REQUIRES = requires(code)
    name = "pad-eos-label-mask"
    summary = "Pad is EOS and labels are masked by pad id: every real EOS gets -100, the model never learns to stop"
    fix_safety = "safe (mask labels from the attention mask); unsafe for DataCollatorForLanguageModeling"
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
        if not facts.eos_may_be_put_in():
            # No EOS put in (texts ended by `###`, `add_special_tokens=False`, tokenizers that append
            # none): no real EOS reaches the labels, so masking the pad id costs nothing.
            return
        for event in facts.labels_masked_where_pad_id:
            if not facts.is_local(event.node):
                continue  # found in a callee of another module: reported there
            eos = facts.pad_eos_for(event.owner, event.node)
            if eos is None or where_pad_is_not_eos(facts, event.node):
                continue  # (a branch that runs only where the pad is not the EOS)
            if _stops_at_a_real_token(facts, event.node):
                # `for i in range(n - 1, -1, -1): if labels[i] == pad: labels[i] = -100 else: break`
                message = (
                    "labels are masked where they equal the pad id up to the first other token, and the pad "
                    f"is the EOS token (line {facts.line(eos)}): the EOS that ends each padded row gets -100 "
                    "with its pads: the model is never taught to end a row there"
                )
            else:
                message = (
                    "labels are masked where they equal the pad id, which is the EOS token "
                    f"(line {facts.line(eos)}): every real EOS gets -100 and the model never learns to stop"
                )
            fix = None
            condition, mask = event.condition, event.mask_code
            if condition is not None and mask:
                # `where(ids != pad, ids, -100)` keeps the tokens where the condition holds: it keeps its sense
                by_mask = f"{mask} != 0" if _keeps_tokens(condition) else f"{mask} == 0"
                fix = FixProposal(
                    Applicability.SAFE, "Mask the labels where the attention mask is 0", ((condition, by_mask),)
                )
            if fix is None and event.rewrite is not None and mask:
                fix = _comprehension_by_mask(facts, event)
            why = None if fix else "no attention mask of these labels' ids is in view where the labels are masked"
            yield Finding(event.node, message, fix, no_fix=why)
        for call, owner in facts.lm_collators:
            eos = facts.pad_eos_for(owner, call)
            if eos is not None and _labels_read(facts, call):
                suggestion = _collate_by_mask(facts, call) or DEDICATED_PAD
                yield Finding(
                    call,
                    "`DataCollatorForLanguageModeling(mlm=False)` sets every label equal to the pad id "
                    f"to -100, and the pad token is the EOS token (line {facts.line(eos)}): every real "
                    "EOS loses its label",
                    suggestion,
                )
        for call, owner in facts.lm_collator_kin:  # trl's completion-only collator, a project subclass
            eos = facts.pad_eos_for(owner, call)
            if eos is not None and _labels_read(facts, call):
                yield Finding(
                    call,
                    f"`{facts.code(call.func)}` builds labels as `DataCollatorForLanguageModeling(mlm=False)` does: "
                    f"every label equal to the pad id becomes -100, and the pad token is the EOS token "
                    f"(line {facts.line(eos)}): every real EOS loses its label",
                    DEDICATED_PAD,
                )


def _labels_read(facts: ModuleFacts, call: cst.Call) -> bool:
    """May the labels the collator made by `call` reach a loss? Not when the collator is never used, or
    its loaders' batches are all read in view and none of their labels."""
    return not value_never_read(facts.module, call) and not facts.collator_labels_unread(call)


def _comprehension_by_mask(facts: ModuleFacts, event) -> FixProposal | None:
    """`[[t if t != pad else -100 for t in row] for row in rows]` rewritten to keep each token where the
    attention mask is 1: the same labels, with every real EOS kept."""
    shape = fixshapes.masked_labels(
        event.padded.but(rows=event.nested),
        event.ids_code,
        event.mask_code,
        Context(),
        lengths_ok=False,
        gap_ok=False,
        pad_code=None,
        pad_is_eos=True,
    )
    if shape is None or shape.applicability is not Applicability.SAFE:
        return None
    return shape.proposal(event.rewrite, facts)


def _keeps_tokens(condition: cst.BaseExpression) -> bool:
    """Is the condition true on the tokens that keep their label (`ids != pad_id`, `ids.ne(pad_id)`)?"""
    if isinstance(condition, cst.Comparison):
        return any(isinstance(c.operator, cst.NotEqual) for c in condition.comparisons)
    return isinstance(condition, cst.Call) and P.last_name(condition.func) == "ne"


DEDICATED_PAD = FixProposal(
    Applicability.DISPLAY_ONLY,
    'Use a dedicated pad token: tokenizer.add_special_tokens({"pad_token": "<pad>"}) and '
    "model.resize_token_embeddings(len(tokenizer))",
    (),
)
# The collator's own options that the replacement keeps; any other option means it is not a copy.
_KEPT_OPTIONS = {"tokenizer", "mlm", "mlm_probability", "pad_to_multiple_of", "return_tensors"}
BY_MASK = (
    "Collate with labels from the attention mask: every real EOS keeps its label, only the pads get -100 "
    "(assumes dict features, as a map function returns; a dedicated pad token is the other way out)"
)


def _collate_by_mask(facts: ModuleFacts, call: cst.Call) -> FixProposal | None:
    """`DataCollatorForLanguageModeling(tok, mlm=False)` pads dict features with `tok.pad` and sets
    the labels equal to the pad id to -100 (transformers 4.46, data/data_collator.py, torch_call). The
    same collation with the labels set to -100 where the attention mask is 0 keeps every real EOS:
    a function named before the statement that builds the collator. UNSAFE: it is a copy only for
    features that are dicts (the collator also takes bare lists of ids)."""
    site = sites.site_of(facts, call)
    tokenizer = P.positional(call, 0) or P.keyword(call, "tokenizer")
    if site is None or tokenizer is None or any(a.star for a in call.args) or P.positional(call, 1) is not None:
        return None
    options = {a.keyword.value: a for a in call.args if a.keyword is not None}
    if not set(options) <= _KEPT_OPTIONS:
        return None
    tensors = options.get("return_tensors")
    if tensors is not None and P.string_value(tensors.value) != "pt":
        return None
    multiple = options.get("pad_to_multiple_of")
    extra = f", pad_to_multiple_of={facts.code(multiple.value)}" if multiple is not None else ""
    name = site.fresh("collate_causal_lm")
    key = lambda k: sites.key(facts, k)  # noqa: E731
    body = [
        f"def {name}(features):",
        f"    batch = {facts.code(tokenizer.value)}.pad(features, return_tensors={key('pt')}{extra})",
        f"    batch[{key('labels')}] = batch[{key('input_ids')}].masked_fill(batch[{key('attention_mask')}] == 0, -100)",
        "    return batch",
    ]
    if not site.indent:  # a module-level def stands between blank lines, as PEP 8 lays it out
        body = ["", *body, "", ""]
    return FixProposal(Applicability.UNSAFE, BY_MASK, (site.insertion(body), (call, name)))


def _stops_at_a_real_token(facts: ModuleFacts, node: cst.CSTNode) -> bool:
    """Is the masking write inside a loop that breaks (a walk over the positions that stops at the first
    token that is not the pad)? Then only the run of pad ids next to the pads is masked, not every one."""
    if facts.module is None:
        return False
    loop = nearest(parents_of(facts.module), node, (cst.For, cst.While))
    return isinstance(loop, (cst.For, cst.While)) and any(isinstance(n, cst.Break) for n in P.walk(loop.body))
