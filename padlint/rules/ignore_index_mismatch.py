"""PAD007 ignore-index-mismatch."""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from padlint.analysis.branches import in_exclusive_arms
from padlint.analysis.facts import LabelPadValue, LossIgnoreIndex, ModuleFacts
from padlint.rules.base import Finding, FixProposal, Rule
from padlint.rules.catalogue import requires
from padlint.rules.edits import add_keyword
from padlint.types import Applicability


class IgnoreIndexMismatch(Rule):
    """The loss ignores a different value than the one this module pads or masks labels with."""

    code = "PAD007"
    REQUIRES = requires(code)
    name = "ignore-index-mismatch"
    summary = "The loss's ignore_index differs from the value labels are padded or masked with"
    fix_safety = "safe for a negative label value in view; unsafe for a value >= 0 (may be a class); none otherwise"
    MANUAL_FIX = "make the loss's `ignore_index` and the value the labels are padded with one constant"

    INVALID = [
        """
import torch
import torch.nn.functional as F

def collate(batch, pad_id):
    width = max(len(b["labels"]) for b in batch)
    labels = torch.full((len(batch), width), -100)
    for i, b in enumerate(batch):
        labels[i, : len(b["labels"])] = torch.tensor(b["labels"])
    return labels

def loss_fn(logits, labels):
    return F.cross_entropy(logits.flatten(0, 1), labels.flatten(), ignore_index=-1)
""",
    ]
    VALID = [
        """
import torch
import torch.nn.functional as F

def collate(batch, pad_id):
    width = max(len(b["labels"]) for b in batch)
    labels = torch.full((len(batch), width), -100)
    for i, b in enumerate(batch):
        labels[i, : len(b["labels"])] = torch.tensor(b["labels"])
    return labels

def loss_fn(logits, labels):
    return F.cross_entropy(logits.flatten(0, 1), labels.flatten())
""",
    ]

    @classmethod
    def may_fire(cls, look) -> bool:
        # A loss, and labels given a value other than -100, or a loss told to ignore another value.
        return look.has("loss") and (
            look.has("ignore_index_set")
            or look.has("ignore_constant")
            or look.has("label_pad_id")
            or look.has("label_store")
            or look.linked("pad_step", "labels")
            or (look.has("pad_step") and look.has("int_store"))
        )

    @classmethod
    def scopes(cls, look) -> set | None:
        # The loss calls, and every place labels are given a value, with wherever values flow.
        return look.reach("loss") | look.reach("label_value_site") | look.reach("pad_step", "labels")

    def check(self, facts: ModuleFacts) -> Iterable[Finding]:
        # (labels padded with the pad id: PAD006's business)
        candidates = [label for label in facts.label_values if label.value is not None and label.value != "pad"]
        if not candidates:
            return
        written = {label.value for label in facts.label_values}
        seen = set()
        for loss in facts.loss_ignores:
            call, arg, ignored = loss.call, loss.arg, loss.value
            if ignored is None or call in seen or loss.labels_target is False or loss.unused:
                continue  # (labels_target False: it grades class indices or scores, not token labels)
            values = _values_graded_by(facts, loss, candidates)
            if not values or ignored in values:
                continue
            if ignored in written and _collator_never_pads(facts, ignored):
                continue
            seen.add(call)
            shown = facts.brief(arg.value) if arg is not None else "-100 (the default)"
            if arg is not None and isinstance(ignored, int) and shown != str(ignored):
                shown = f"{shown} ({ignored} here)"  # a name holding it: say the value it holds
            used = ", ".join(sorted(str(v) for v in values))
            if all(_never_a_class(v) for v in values):
                # Cross-entropy and NLL take a negative target they do not ignore as out of range.
                harm = "a negative target the loss does not ignore is out of its class range, and it raises"
            else:
                harm = "padding is graded, or real tokens are skipped"
            message = f"the loss ignores {shown} but this module pads or masks labels with {used}: {harm}"
            # The loss ignores padding the labels really hold (the pad id): changing what it ignores
            # would grade those pads. No single value serves both; the user has to pick one.
            fix = None if ignored in written else self.fix(facts, call, arg, values)
            why = None
            if fix is not None and ignored == -100 and not all(_never_a_class(v) for v in values):
                # A loss that ignores -100 takes labels from code out of view that marks with -100 (the
                # library collators, models' own label handling): ignoring a token or class id instead
                # would grade those positions (a -100 target raises) and skip real targets.
                fix = None
                why = (
                    "the loss ignores -100, which collators and models out of view write too: pad the labels with -100"
                )
            yield Finding(call, message, fix, no_fix=why)

    def fix(
        self, facts: ModuleFacts, call: cst.Call, arg: cst.Arg | None, values: dict[int | str, str]
    ) -> FixProposal | None:
        if len(values) != 1:
            return None
        ((value, code),) = values.items()
        if value == "pad":
            return None
        if not _writable_anywhere(facts, code):
            if not isinstance(value, int):
                return None
            code = str(value)  # a constant of another module (`LABEL_PAD`): its value, which is what the loss compares
        title = f"Make the loss ignore {code}"
        # A negative value is never a class: ignoring it drops nothing real. A value >= 0 may be one
        # (a detection head's class 1, a vocabulary's token 0): the loss would skip real targets.
        applicability = Applicability.SAFE if _never_a_class(value) else Applicability.UNSAFE
        if applicability is Applicability.UNSAFE:
            title += " (a value >= 0 may also be a real class or token: its targets would be skipped)"
        if arg is not None:
            return FixProposal(applicability, title, ((arg.value, code),))
        edit = add_keyword(facts, call, "ignore_index", code)
        return FixProposal(applicability, title, (edit,)) if edit else None


def _values_graded_by(
    facts: ModuleFacts, loss: LossIgnoreIndex, candidates: list[LabelPadValue]
) -> dict[int | str, str]:
    """The values (and their code) among `candidates` of the labels this loss grades that it may not ignore.
    Labels the analysis follows to the loss, or written into the name it grades in the same function: their
    own values. Otherwise the module's values, except, for a loss called here on targets it does not follow,
    those whose labels are seen only where something else grades them (another loss, a model given
    `labels=`, which computes its own) unless that consumer is known to ignore another value, and those
    written into labels that never leave their function. A pad id the analysis cannot read may be any
    id >= 0."""
    own = [
        label
        for label in candidates
        if (loss.graded and label.carried_by(loss.graded)) or _written_into_its_target(label, loss)
    ]
    found: dict[int | str, str] = {}
    followed = bool(loss.graded or own)
    for label in own if followed else candidates:
        value = label.value
        assert value is not None
        if loss.value == "pad" and isinstance(value, int) and value >= 0:
            continue  # the pad id it ignores may be this id
        places = [r for r in facts.labels_reaching if label.carried_by(r.tags)]
        if not followed and label.written and not places:
            continue  # written into labels that never leave their function: a gather index, decoder inputs
        if not followed and label.written and _apart(label, loss):
            continue  # written on a path that never reaches this loss
        called = loss.labels_target is not None  # (a loss module handed on may be called on these labels)
        if not followed and called and places and all(r.graded_there and r.ignored in (value, None) for r in places):
            continue  # graded only by other losses or models (that ignore it, where known)
        found.setdefault(value, label.code)
    return found


def _written_into_its_target(label: LabelPadValue, loss: LossIgnoreIndex) -> bool:
    """Written into the name the loss grades, in the function it grades it in, on a path that reaches it."""
    return any(
        label.place == (fn, root) and not in_exclusive_arms(fn, label.node, target)
        for fn, root, target in loss.target_places
        if fn is not None
    )


def _apart(label: LabelPadValue, loss: LossIgnoreIndex) -> bool:
    """Written in the function the loss grades in, but in another arm of an `if` than each of its calls there:
    one pass never runs both."""
    fn = label.place[0] if label.place is not None else None
    if fn is None:
        return False
    here = [target for f, _, target in loss.target_places if f is fn]
    return bool(here) and all(in_exclusive_arms(fn, label.node, target) for target in here)


def _never_a_class(value: int | str) -> bool:
    """A negative int is no class index nor token id: a loss may ignore it without skipping real targets."""
    return isinstance(value, int) and value < 0


def _collator_never_pads(facts: ModuleFacts, ignored: int | str) -> bool:
    """The loss ignores what the module pads its labels with, every row padded to one width
    (`padding="max_length"`); the other values are a collator's label padding, which it writes only
    where the rows it receives differ in length: never, for rows padded so."""
    matching = [label for label in facts.label_values if label.value == ignored]
    others = [label for label in facts.label_values if label.value != ignored]
    return all(label.fixed_width for label in matching) and all(label.by_collator for label in others)


def _writable_anywhere(facts: ModuleFacts, code: str) -> bool:
    """A literal, or a name bound at module level (a constant or an import)."""
    try:
        expr = cst.parse_expression(code)
    except cst.ParserSyntaxError:
        return False
    if isinstance(expr, (cst.Integer, cst.UnaryOperation)):
        return True
    if isinstance(expr, cst.Name):
        return expr.value in facts.imports.from_imports or any(
            isinstance(s, cst.SimpleStatementLine)
            and any(
                isinstance(t, cst.Assign) and any(getattr(x.target, "value", None) == expr.value for x in t.targets)
                for t in s.body
            )
            for s in facts.module.body
        )
    return False
