"""What the caller does with a model's output: whether the loss a `labels=` argument feeds is ever read,
whether the output is read at all.

`out = model(input_ids=ids, labels=targets)` followed only by `out.logits` (a scorer that computes its
own loss from the logits, a distillation step reading the teacher's logits) grades nothing with the
model's loss: the labels there only shape the decoder's inputs, and how they are padded trains nothing.
"""

from __future__ import annotations

import re

import libcst as cst

from padlint.analysis import patterns as P

# Output fields that are not the loss (transformers' ModelOutput classes; a tuple index may be the loss).
NOT_LOSS_FIELDS = frozenset(
    {
        "logits",
        "last_hidden_state",
        "hidden_states",
        "attentions",
        "past_key_values",
        "encoder_last_hidden_state",
        "encoder_hidden_states",
        "decoder_hidden_states",
    }
)


# A hook that reads a module's outputs while the caller drops them (feature extraction by hooks).
OUTPUT_HOOK = re.compile(r"\bregister_(?:module_)?forward_hook\s*\(")


def outputs_hooked(code: str) -> bool:
    """Does the module register a forward hook, which reads a module's outputs even where the caller
    drops them (`model(ids)` run for the features a hook keeps)?"""
    return bool(OUTPUT_HOOK.search(code))


def loss_never_read(scope: cst.CSTNode, call: cst.Call) -> bool:
    """Is `call`'s result stored in one name of `scope` whose every read takes a field other than the
    loss? Anything else (returned, handed on, indexed, `.loss`, unpacked, stored twice) may read it."""
    held = _holder_name(scope, call)
    if held is None or held[1]:
        return False  # stored on an attribute: read wherever the object goes
    holder = held[0]
    reads = 0
    field_reads: set[int] = set()  # ids of the Name nodes read as `holder.<field that is not the loss>`
    stores = 0
    stack: list[cst.CSTNode] = [scope]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Attribute):
            base = node.value
            if isinstance(base, cst.Name) and base.value == holder and node.attr.value in NOT_LOSS_FIELDS:
                field_reads.add(id(base))
        elif isinstance(node, cst.AssignTarget):
            if isinstance(node.target, cst.Name) and node.target.value == holder:
                stores += 1
                continue  # the store itself is not a read
        elif isinstance(node, cst.Name) and node.value == holder:
            reads += 1
            if id(node) not in field_reads:
                return False
        stack.extend(reversed(P.child_nodes(node)))
    return stores == 1 and reads > 0


def value_never_read(scope: cst.CSTNode, call: cst.Call) -> bool:
    """Is `call`'s result stored in one name that nothing in `scope` mentions again (`collator =
    DataCollator(...)` left behind while the trainer builds its own)? Any other mention of the name,
    even as an attribute or keyword, or a `global`/`nonlocal` of it, may read it."""
    holder = _holder_name(scope, call)
    if holder is None:
        return False
    name, attribute = holder
    mentions = 0
    stack: list[cst.CSTNode] = [scope]
    while stack:
        node = stack.pop()
        if (
            isinstance(node, cst.AssignTarget)
            and node.target is not None
            and _names_holder(node.target, name, attribute)
        ):
            continue  # a store is not a read
        if _names_holder(node, name, attribute) or isinstance(node, cst.Name) and node.value == name:
            mentions += 1
        stack.extend(P.child_nodes(node))
    return mentions == 0


def _names_holder(node: cst.CSTNode, name: str, attribute: bool) -> bool:
    """`name` itself, or (for a value stored on an attribute) any attribute of that name."""
    if attribute:
        return isinstance(node, cst.Attribute) and node.attr.value == name
    return isinstance(node, cst.Name) and node.value == name


def _holder_name(scope: cst.CSTNode, call: cst.Call) -> tuple[str, bool] | None:
    """The one name `call`'s result is assigned to (`out = model(...)`), or the attribute it is stored
    on (`self.collator = DataCollator(...)`: True), if it is assigned so."""
    stack: list[cst.CSTNode] = [scope]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Assign) and node.value is call:
            targets = node.targets
            if len(targets) == 1 and isinstance(targets[0].target, cst.Name):
                return targets[0].target.value, False
            if len(targets) == 1 and isinstance(targets[0].target, cst.Attribute):
                return targets[0].target.attr.value, True
            return None
        stack.extend(P.child_nodes(node))
    return None
