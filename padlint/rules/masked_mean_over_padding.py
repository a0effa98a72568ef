"""PAD011 masked-mean-over-padding."""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.facts import MaskedMean, MeanOverIgnored, ModuleFacts
from padlint.rules.base import Finding, FixProposal, Rule
from padlint.rules.catalogue import requires
from padlint.semantics import table as T
from padlint.types import Applicability

PURE_METHODS = {
    "float",
    "bool",
    "long",
    "int",
    "half",
    "to",
    "type",
    "unsqueeze",
    "detach",
    "contiguous",
    "view",
    "reshape",
    "flatten",
    "size",
}


# The reduction is set where the loss is made, often in another scope (`self.loss_fn = nn.CrossEntropyLoss()`).
AFTER_AVERAGE_NO_FIX = "the loss's reduction is set where it is made"


class MaskedMeanOverPadding(Rule):
    """`(loss * mask).mean()` divides by every position, padding included."""

    code = "PAD011"
    REQUIRES = requires(code)
    name = "masked-mean-over-padding"
    summary = "`(loss * mask).mean()` averages over pad positions too"
    fix_safety = "safe (`(loss * mask).sum() / mask.sum().clamp(min=1)`); none with a `dim` argument"
    MANUAL_FIX = "divide the masked sum by the number of real positions: `(loss * mask).sum() / mask.sum()`"

    INVALID = [
        """
def token_loss(per_token, attention_mask):
    return (per_token * attention_mask).mean()
""",
    ]
    VALID = [
        """
def token_loss(per_token, attention_mask):
    return (per_token * attention_mask).sum() / attention_mask.sum().clamp(min=1)
""",
    ]

    @classmethod
    def may_fire(cls, look) -> bool:
        # `(x * mask).mean()`, `torch.mean(x * mask)`; a mean beside a loss made per position; a loss
        # called in a product (a mask after a loss that already averaged)
        return look.has("mean_product") or look.linked("per_position_loss", "mean") or look.has("loss_product")

    @classmethod
    def scopes(cls, look) -> set | None:
        return look.reach("mean_product") | look.reach("per_position_loss", "mean") | look.reach("loss_product")

    def check(self, facts: ModuleFacts) -> Iterable[Finding]:
        for event in facts.masked_means:
            if not event.loss:
                continue  # a mean that is not a loss (a metric, a value a test compares): not judged
            mask = event.mask
            if event.dims:
                # a mean per row: each row divided by its padded length, not its real one
                harm = "each row's value shrinks with its own padding, so rows weigh differently"
            else:
                harm = "the loss shrinks with the amount of padding"
            mean = _mean_spelled(facts, event.node)
            message = f"`{mean}` of a product with `{facts.brief(mask)}` divides by pad positions too: {harm}"
            fix = self.fix(facts, event)
            by_hand = None
            if fix is None and _tensorflow_mean(facts, event.node):
                by_hand = f"divide `tf.reduce_sum(...)` of the product by `tf.reduce_sum({facts.brief(mask)})`"
            yield Finding(event.node, message, fix, manual_fix=by_hand)
        for over in facts.means_over_ignored:
            if not over.loss:
                continue
            message = (
                f"`.mean()` of the per-position losses of `{facts.brief(over.loss_call)}` counts the positions "
                "it ignores (each a 0): the loss shrinks with the amount of padding"
            )
            by_hand = "divide the losses' sum by the number of positions the loss does not ignore"
            yield Finding(over.node, message, self.fix_over_ignored(facts, over), manual_fix=by_hand)
        for after in facts.masks_after_average:
            message = (
                f"`{facts.brief(after.loss_call)}` has already averaged every position, the pads included (its "
                f"targets hold the pad id there and it does not ignore it): multiplying by `{facts.brief(after.mask)}` "
                "afterwards cannot take them out"
            )
            by_hand = (
                'make the loss per position (`reduction="none"`), then divide the masked sum by the mask\'s sum; '
                "or give the loss `ignore_index=` the pad id"
            )
            yield Finding(after.node, message, None, no_fix=AFTER_AVERAGE_NO_FIX, manual_fix=by_hand)

    def fix_over_ignored(self, facts: ModuleFacts, over: MeanOverIgnored) -> FixProposal | None:
        """Divide the sum by the positions the loss does not ignore, counted on its own target."""
        if over.target_code is None or over.ignored_code is None or not _pure(over.receiver):
            return None
        target = cst.parse_expression(over.target_code)
        if not _pure(target):
            return None
        total = facts.code(over.receiver)
        if not isinstance(over.receiver, (cst.Name, cst.Attribute, cst.Subscript)):
            total = f"({total})"
        # (a per-position loss is a torch tensor, whose comparisons have `.clamp` without an import)
        counted = f"({over.target_code} != {over.ignored_code}).sum().clamp(min=1)"
        # The per-position losses alone: each ignored position is a 0, the rest are what the loss's
        # own mean would average. Something added to them may be nonzero where the target is ignored.
        safety = Applicability.SAFE if over.only_the_loss else Applicability.UNSAFE
        title = "Divide by the number of positions the loss does not ignore"
        if safety is Applicability.UNSAFE:
            title += " (what the losses are combined with may count at ignored positions)"
        return FixProposal(safety, title, ((over.node, f"({total}.sum() / {counted})"),))

    def fix(self, facts: ModuleFacts, event: MaskedMean) -> FixProposal | None:
        product, mask = event.product, event.mask
        if event.dims or not event.in_place or not _pure(mask) or _tensorflow_mean(facts, event.node):
            return None  # (a TensorFlow tensor has no `.sum()`: the rewrite below would raise)
        total = facts.code(product)
        if not product.lpar:
            total = f"({total})"
        mask_code = facts.code(mask)
        if facts.imports.local_name_for("torch") or "torch" in facts.imports.aliases.values():
            count = f"{mask_code}.sum().clamp(min=1)"
        else:
            count = f"max({mask_code}.sum(), 1)"
        return FixProposal(
            Applicability.SAFE, "Divide by the number of real positions", ((event.node, f"({total}.sum() / {count})"),)
        )


def _mean_spelled(facts: ModuleFacts, node: cst.CSTNode) -> str:
    """How the code spells the mean: `.mean()` for the method, `tf.reduce_mean(...)` for a function."""
    if isinstance(node, cst.Call) and isinstance(node.func, (cst.Name, cst.Attribute)):
        if facts.imports.qualify(node.func) in T.names("reduces", style="mean"):
            return f"{facts.code(node.func)}(...)"
    return ".mean()"


def _tensorflow_mean(facts: ModuleFacts, node: cst.CSTNode) -> bool:
    """Is the mean `tf.reduce_mean(...)` (library table: reduces rows of tensorflow)?"""
    if not isinstance(node, cst.Call) or not isinstance(node.func, (cst.Name, cst.Attribute)):
        return False
    return (facts.imports.qualify(node.func) or "").startswith("tensorflow.")


def _pure(node: cst.CSTNode) -> bool:
    """Only names, attributes, subscripts and dtype/shape methods: safe to evaluate twice."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Call) and not (isinstance(n.func, cst.Attribute) and n.func.attr.value in PURE_METHODS):
            return False
        stack.extend(P.child_nodes(n))
    return True
