"""PAD002 labels-not-masked."""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from padlint.analysis import fixshapes
from padlint.analysis import patterns as P
from padlint.analysis.facts import LabelsAtSink, ModuleFacts
from padlint.analysis.ignores_beside import pad_value
from padlint.rules import sites
from padlint.rules.base import (
    Finding,
    FixProposal,
    Rule,
    pick_fix,
    shorten,
    unsafe_where_ignore_differs,
    withheld_where_minus_100_breaks,
)
from padlint.rules.catalogue import requires
from padlint.rules.keep_mask import keep_encoding
from padlint.rules.no_fix_reasons import why_no_mask_fix
from padlint.types import Applicability

# Where labels are trained on whatever the code around them is: a `labels=` keyword (a model or a loss)
# and a loss's target. A dict, a store or a return only holds them for whoever reads them next.
TRAINING_SINKS = ("keyword", "loss")


class LabelsNotMasked(Rule):
    """Labels copied from padded input ids with no -100 at the pad positions."""

    code = "PAD002"
    REQUIRES = requires(code)
    name = "labels-not-masked"
    summary = "Labels are the padded input ids with no -100 at pad positions: the loss trains on padding"
    fix_safety = "safe (labels masked from the attention mask or lengths); unsafe (masked by pad id)"
    MANUAL_FIX = (
        "set the labels to -100 where the attention mask is 0, e.g. `labels.masked_fill(attention_mask == 0, -100)`"
    )

    INVALID = [
        """
def preprocess(example, tokenizer):
    enc = tokenizer(example["text"], padding="max_length", max_length=128, truncation=True)
    enc["labels"] = enc["input_ids"].copy()
    return enc
""",
        """
def collate(texts, tokenizer):
    batch = tokenizer(texts, padding=True, return_tensors="pt")
    batch["labels"] = batch["input_ids"].clone()
    return batch
""",
    ]
    VALID = [
        """
def collate(texts, tokenizer):
    batch = tokenizer(texts, padding=True, return_tensors="pt")
    batch["labels"] = batch["input_ids"].masked_fill(batch["attention_mask"] == 0, -100)
    return batch
""",
        """
def group_texts(examples, block=512):
    ids = sum(examples["input_ids"], [])
    blocks = [ids[i : i + block] for i in range(0, len(ids) - block + 1, block)]
    return {"input_ids": blocks, "labels": [b.copy() for b in blocks]}
""",
    ]

    @classmethod
    def may_fire(cls, look) -> bool:
        return look.linked("pad_step", "labels")  # a padding step in scopes connected to labels

    @classmethod
    def scopes(cls, look) -> set | None:
        return look.reach("pad_step", "labels")  # the padding step and wherever its value goes

    def check(self, facts: ModuleFacts) -> Iterable[Finding]:
        for events in unmasked_labels(facts).values():
            if padded_by_their_own_step(facts, events[0]):
                continue  # labels padded with the pad id by a step of their own: PAD006's finding
            event, fix = pick_fix(events, lambda e: self.fix(facts, e))
            fix = unsafe_where_ignore_differs(facts, fix)
            fix, withheld, by_hand = withheld_where_minus_100_breaks(facts, fix)
            if fix is not None and event.sink in facts.losses_averaged_whole:
                # -100 zeroes the pads' terms of a loss kept per position, and the mean after it still
                # divides by every position: the value stays wrong.
                fix, withheld, by_hand = None, AVERAGED_WHOLE, AVERAGED_WHOLE_BY_HAND
            padded = event.padded
            if event.reached_in_other_module is not None:
                message = (
                    f"ids padded by `{facts.brief(padded.node)}` {facts.at(padded.node)} go into this call and "
                    f"become labels (`{shorten(event.reached_in_other_module)}`) in another module of the project, "
                    "with no -100 at the pad positions: the loss trains on padding"
                )
                yield Finding(event.node, message, None, no_fix=HANDED_ON_NO_FIX)
                continue
            message = (
                f"labels are `{shorten(event.source_code)}`, padded by `{facts.brief(padded.node)}` "
                f"{facts.at(padded.node)}, with no -100 at the pad positions: the loss trains on padding"
            )
            void = facts.masking_selects_nothing.get(event.copy) if event.copy is not None else None
            if void is not None:
                message += (
                    f" (the masking {facts.at(void)} compares a Python list with a number: one bool, False,"
                    " that selects no position)"
                )
            why = withheld
            if fix is None and why is None:
                why = why_no_mask_fix(
                    padded,
                    event.source_code,
                    event.lengths_ok,
                    event.pad_code,
                    facts.pad_is_eos,
                    "the labels",
                    bool(facts.pad_eos_fallbacks),
                    event.pads_differ,
                )
            yield Finding(event.node, message, fix, no_fix=why, manual_fix=by_hand)

    def fix(self, facts: ModuleFacts, event: LabelsAtSink) -> FixProposal | None:
        padded = event.padded
        if event.held_in is not None:
            return _mask_held_labels(facts, event)
        node, ids_code = event.node, event.source_code
        branch = _branch_holding_ids(node)
        if branch is not None:  # `ids if turn_is_graded else None`: mask the ids, keep the None
            node, ids_code = branch, facts.code(branch)
        row_variable = _row_variable_of(facts, event)
        if row_variable is not None:
            # `[list(row) for row in rows]`: the element is one row, the mask in view is the batch's; the
            # whole comprehension becomes the batch's labels, or nothing is written (a batch-level mask
            # zipped with one row would pair each token with a whole row).
            comprehension = _copy_of_each_row(facts, row_variable, event.node)
            if comprehension is None:
                return None
            node, ids_code = comprehension, facts.code(comprehension.for_in.iter)

        def labels_masked_by(mask: str | None) -> fixshapes.Shape | None:
            return fixshapes.masked_labels(
                padded,
                ids_code,
                mask,
                event.context,
                lengths_ok=event.lengths_ok,
                gap_ok=event.gap_ok,
                pad_code=event.pad_code,
                pad_is_eos=facts.pad_eos_possible,
            )

        shape = labels_masked_by(event.mask_code)
        if (shape is None or shape.applicability is not Applicability.SAFE) and padded.from_tokenizer:
            # the ids were split off their encoding: keep it, and mask the labels by its attention mask
            kept = keep_encoding(facts, padded, (node,))
            edits = list(kept.edits) if kept is not None else []
            split = edits[-1] if edits else None
            if split is not None and len(split) == 2 and split[0] is node:
                # the labels are the ids read off the call itself (`tok.pad(...)["input_ids"]`): they
                # become the kept encoding's ids, masked, in one edit of that node
                ids_code, edits = split[1], edits[:-1]
            elif split is not None and len(split) == 2 and P.contains(node, split[0]):
                # the ids read off the call, moved on (`tok(...).input_ids.to(device)`): one edit of the
                # labels writes the kept encoding's ids, moved the same way, masked
                whole, part = facts.code(node), facts.code(split[0])
                if whole.count(part) != 1:
                    return None
                ids_code, edits = whole.replace(part, split[1]), edits[:-1]
            by_mask = labels_masked_by(kept.mask_where_ids_are()) if kept is not None else None
            if (
                kept is not None
                and by_mask is not None
                and by_mask.applicability is Applicability.SAFE
                and not by_mask.setup
            ):
                return FixProposal(Applicability.SAFE, by_mask.title, (*edits, (node, by_mask.code)))
        if shape is None:
            return None if row_variable is not None else pad_labels_with_ignore(facts, event)
        return shape.proposal(node, facts)


def _branch_holding_ids(node: cst.CSTNode) -> cst.BaseExpression | None:
    """The branch of `a if c else None` (or `None if c else a`) that holds the labels: a method called
    on the whole expression would raise on the None path."""
    if not isinstance(node, cst.IfExp):
        return None
    none = [isinstance(branch, cst.Name) and branch.value == "None" for branch in (node.body, node.orelse)]
    if none == [False, True]:
        return node.body
    if none == [True, False]:
        return node.orelse
    return None


def _mask_held_labels(facts: ModuleFacts, event: LabelsAtSink) -> FixProposal | None:
    """Labels grown inside a container that is returned whole (`batch["labels"].append(row)`, then
    `return batch`): a statement before the return masks its `"labels"` entry; the container stays."""
    site = sites.site_of(facts, event.node)
    if site is None:
        return None
    place = f"{event.held_in}[{sites.key(facts, 'labels')}]"
    shape = fixshapes.masked_labels(
        event.padded,
        place,
        event.mask_code,
        event.context,
        lengths_ok=False,  # the lengths and the gap describe one row as it was padded, not the entry
        gap_ok=False,
        pad_code=event.pad_code,
        pad_is_eos=facts.pad_eos_possible,
    )
    if shape is None:
        return None
    edit = site.insertion([f"{place} = {shape.inline()}"])
    return FixProposal(shape.applicability, shape.title, (edit,), shape.needs_torch, shape.imports)


HANDED_ON_NO_FIX = "the labels are made in another module, from what this call hands it"
AVERAGED_WHOLE = (
    "the loss keeps one value per position (`reduction='none'`) and is then averaged over every position: "
    "-100 at the pads would make their terms 0 but still count them"
)
AVERAGED_WHOLE_BY_HAND = "sum the per-position losses times the attention mask and divide by the mask's sum"


def unmasked_labels(facts: ModuleFacts) -> dict[cst.CSTNode, list[LabelsAtSink]]:
    """Padded labels that reach a label place with no -100 at the pads, by the node they are read
    from (one finding per place), in the order first seen."""
    by_node: dict[cst.CSTNode, list[LabelsAtSink]] = {}
    for event in facts.labels_at_sink:
        if event.copy is not None and event.copy in facts.masked_copies or event.padded.node in facts.rows_overwritten:
            continue
        if event.sink in facts.rows_unconsumed or event.sink in facts.labels_unread:
            continue  # rows no model reads, or labels every loop drops unread: no loss grades them
        if event.padded.node in facts.row_label_paddings:
            continue  # a model that takes one class per row gets them: no position of them is padding
        if facts.held_with_loss_mask(event.sink):
            continue  # the features carry a loss mask (`label_mask`, `loss_mask`): pads need no -100
        if event.in_test_code and event.sink_kind not in TRAINING_SINKS:
            continue  # a test's own labels that reach no model or loss in view: checked, not trained on
        if replaced_by_lm_collator(facts, event.sink_kind) or batched_by_importers_lm_collator(facts, event):
            continue
        if event.sink_kind not in TRAINING_SINKS and _read_beside(facts, event):
            continue  # held for a reader out of view, and the project's own readers skip the pad value
        by_node.setdefault(event.node, []).append(event)
    return by_node


def replaced_by_lm_collator(facts: ModuleFacts, sink_kind: str) -> bool:
    """Labels held in rows (not handed to a model or a loss here) where the module makes a
    `DataCollatorForLanguageModeling`: with mlm on or off it replaces the labels the rows carry
    (library table), so the padded ones never reach a loss."""
    return facts.lm_collator_rebuilds_labels and sink_kind in ROW_SINKS


def batched_by_importers_lm_collator(facts: ModuleFacts, event: LabelsAtSink) -> bool:
    """Labels held in rows that a def hands back to importers which all batch with an LM collator."""
    return event.sink_kind in ROW_SINKS and any(P.contains(d, event.sink) for d in facts.defs_relabelled_by_importers)


# Where labels are held in rows or handed back, not given to a model or a loss.
ROW_SINKS = frozenset({"dict", "store", "return"})


def _read_beside(facts: ModuleFacts, event: LabelsAtSink) -> bool:
    """Do the project's own readers of what holds these labels skip the value they are padded with?"""
    value = pad_value(event.padded)
    return value is not None and facts.ignored_by_readers(value, sites.top_level_name(facts, event.node))


def padded_by_their_own_step(facts: ModuleFacts, event: LabelsAtSink) -> bool:
    """Are the labels made by a padding step written inside their own expression, with a pad value
    written there too (`labels = [[pad] * (w - len(r)) + r for r in rows]`)? They are not the padded
    ids taken as labels (PAD002) but labels padded with the pad id (PAD006), whatever they hold."""
    padded = event.padded
    return (
        padded.pad is not None
        and _row_variable_of(facts, event) is None
        and _within(facts, padded.node, event.node)
        and _within(facts, padded.pad, padded.node)
    )


def _row_variable_of(facts: ModuleFacts, event: LabelsAtSink) -> cst.CompFor | None:
    """The comprehension clause whose loop variable the labels are read from (`row` in
    `[list(row) for row in rows]`), if they are one."""
    for outer in reversed(sites.path_to(facts, event.node)):
        if isinstance(outer, (cst.ListComp, cst.GeneratorExp)):
            clause: cst.CompFor | None = outer.for_in
            while clause is not None:
                if isinstance(clause.target, cst.Name) and clause.target.value == event.source_code:
                    return clause
                clause = clause.inner_for_in
    return None


def _copy_of_each_row(facts: ModuleFacts, clause: cst.CompFor, node: cst.CSTNode) -> cst.ListComp | None:
    """The comprehension `[copy(row) for row in rows]` when that is all it does: one clause over a plain
    place, no condition, its element the labels node itself."""
    for outer in reversed(sites.path_to(facts, node)):
        if isinstance(outer, cst.ListComp) and outer.for_in is clause:
            plain = clause.inner_for_in is None and not clause.ifs and fixshapes.is_place(facts.code(clause.iter))
            return outer if plain and outer.elt is node else None
    return None


def pad_labels_with_ignore(facts: ModuleFacts, event: LabelsAtSink) -> FixProposal | None:
    """Labels padded by a step of their own, written inside the labels expression with the pad id
    (`labels = [[pad] * (w - len(r)) + r for r in rows]`): that step pads with -100 instead. Only the
    labels change; their real tokens stay where they are."""
    padded = event.padded
    if padded.pad is None or not _within(facts, padded.node, event.node) or not _within(facts, padded.pad, padded.node):
        return None
    return FixProposal(Applicability.SAFE, "Pad the labels with -100", ((padded.pad, "-100"),))


def _within(facts: ModuleFacts, node, outer) -> bool:
    return node is outer or outer in sites.path_to(facts, node)
