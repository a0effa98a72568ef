"""What the caller does with a model's output: whether the loss a `labels=` argument feeds is ever read,
whether the output is read at all.

`out = model(input_ids=ids, labels=targets)` followed only by `out.logits` (a scorer that computes its
own loss from the logits, a distillation step reading the teacher's logits) grades nothing with the
model's loss: the labels there only shape the decoder's inputs, and how they are padded trains nothing.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import cast

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.loader_uses import names_in, parents_of

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
    """Is `call`'s result stored in one name of `scope` whose every read that can see this store takes
    a field other than the loss? Anything else (returned, handed on, indexed, `.loss`, unpacked) may
    read it. The name may be stored before too (`outputs = model.generate(...)` earlier in the loop):
    reads after this store see it, and in a loop so do the reads before it that no store made on every
    pass of the loop stands between; a store after this one gives up (its branches are not followed)."""
    held = _holder_name(scope, call)
    if held is None or held[1]:
        return False  # stored on an attribute: read wherever the object goes
    holder = held[0]
    seen = _Uses(holder)
    seen.walk(scope, ())
    mine = next((s for s in seen.stores if s.node is call), None)
    if mine is None or any(s.order > mine.order for s in seen.stores):
        return False
    counted = 0
    for read in seen.reads:
        if read.order < mine.order and not _seen_again(read, mine, seen.stores):
            continue
        if not read.field:
            return False
        counted += 1
    return counted > 0


@dataclass
class _Use:
    node: cst.CSTNode
    order: int
    loops: tuple  # (loop, conditional within it) of every enclosing loop, outermost first
    field: bool = False  # a read of a field other than the loss


class _Uses:
    """Stores and reads of one name in a scope, in reading order, with the loops around each."""

    def __init__(self, name: str) -> None:
        self.name, self.count = name, 0
        self.stores: list[_Use] = []
        self.reads: list[_Use] = []

    def walk(self, node: cst.CSTNode, loops: tuple) -> None:
        self.count += 1
        if isinstance(node, cst.Assign):
            for child in (node.value, *node.targets):
                self.walk(child, loops)  # the value is read before the store is made
            if P.assigns_name(node, self.name):
                self.stores.append(_Use(node.value, self.count, loops))
            return
        if isinstance(node, cst.AssignTarget) and isinstance(node.target, cst.Name):
            return  # the store itself is not a read
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == self.name:
            self.reads.append(_Use(node.value, self.count, loops, node.attr.value in NOT_LOSS_FIELDS))
            return
        if isinstance(node, cst.Name) and node.value == self.name:
            self.reads.append(_Use(node, self.count, loops))
            return
        if isinstance(node, (cst.For, cst.While)):
            # Its body may run no time (conditional for the loops outside) and runs on every pass.
            inner = tuple((loop, True) for loop, _ in loops) + ((node, False),)
            for child in P.child_nodes(node):
                self.walk(child, inner if child is node.body else loops)
            return
        if isinstance(node, (cst.If, cst.Try, cst.Match, cst.IfExp, cst.BooleanOperation, cst.CompFor)):
            loops = tuple((loop, True) for loop, _ in loops)
        for child in P.child_nodes(node):
            self.walk(child, loops)


def _seen_again(read: _Use, mine: _Use, stores: list[_Use]) -> bool:
    """Can `read`, before the store `mine` in reading order, see its value on a later pass of a loop
    around both? Not when another store comes before it on every pass of a loop that holds them both
    (`outputs = model.generate(...)` at the top of the loop's body)."""
    if not any(loop is outer for loop, _ in mine.loops for outer, _ in read.loops):
        return False  # no loop leads from the store back to the read
    read_loops = [loop for loop, _ in read.loops]
    return not any(
        other is not mine
        and other.order < read.order
        and any(not conditional and any(loop is r for r in read_loops) for loop, conditional in other.loops)
        for other in stores
    )


def value_never_read(scope: cst.CSTNode, call: cst.Call) -> bool:
    """Is `call`'s result stored in one name that nothing in `scope` mentions again (`collator =
    DataCollator(...)` left behind while the trainer builds its own)? Any other mention of the name,
    even as an attribute or keyword, or a `global`/`nonlocal` of it, may read it. (One walk of the
    scope, shared by every call asked about: _Mentions.)"""
    mentions = _mentions_in(scope)
    holder = mentions.holders.get(id(call))
    if holder is None:
        return False
    name, attribute = holder
    if attribute:
        count = mentions.names[name] + mentions.attributes[name] - mentions.inside_attribute_stores[name]
    else:
        count = mentions.names[name] - mentions.name_stores[name]
    return count == 0


@dataclass
class _Mentions:
    """How often each name is mentioned in a scope, and the stores among the mentions."""

    names: Counter[str] = field(default_factory=Counter)  # Name nodes by value
    attributes: Counter[str] = field(default_factory=Counter)  # Attribute nodes by attribute name
    name_stores: Counter[str] = field(default_factory=Counter)  # `x = ...` targets, by name
    # `a.x = ...` targets: the mentions of `x` inside each (the attribute and its name), by attribute name
    inside_attribute_stores: Counter[str] = field(default_factory=Counter)
    # id(value of a one-target assignment) -> (the name or attribute stored into, whether an attribute)
    holders: dict[int, tuple[str, bool] | None] = field(default_factory=dict)


# The scope last counted and its mentions: its callers ask about the module being analysed, one at a
# time, so one entry serves them and no earlier module's tree is kept alive.
_LAST: list[tuple[cst.CSTNode, _Mentions]] = []


def _mentions_in(scope: cst.CSTNode) -> _Mentions:
    if _LAST and _LAST[0][0] is scope:
        return _LAST[0][1]
    mentions = _Mentions()
    stack: list[cst.CSTNode] = [scope]
    while stack:
        node = stack.pop()
        kind = type(node)  # `type() is`: libcst's ABC checks are slow on every node
        if kind is cst.Name:
            mentions.names[node.value] += 1  # type: ignore[attr-defined]
        elif kind is cst.Attribute:
            mentions.attributes[node.attr.value] += 1  # type: ignore[attr-defined]
        elif kind is cst.Assign:
            targets = node.targets  # type: ignore[attr-defined]
            holder: tuple[str, bool] | None = None
            if len(targets) == 1 and type(targets[0].target) is cst.Name:
                holder = (targets[0].target.value, False)
            elif len(targets) == 1 and type(targets[0].target) is cst.Attribute:
                holder = (targets[0].target.attr.value, True)
            mentions.holders.setdefault(id(node.value), holder)  # type: ignore[attr-defined]
        elif kind is cst.AssignTarget:
            target = node.target  # type: ignore[attr-defined]
            if type(target) is cst.Name:
                mentions.name_stores[target.value] += 1
            elif type(target) is cst.Attribute:
                mentions.inside_attribute_stores[target.attr.value] += _count_of(target, target.attr.value)
        stack.extend(P.child_nodes(node))
    _LAST[:] = [(scope, mentions)]
    return mentions


def _count_of(target: cst.Attribute, name: str) -> int:
    """Mentions of `name` inside a store target: Name nodes of it and attributes so named."""
    count, stack = 0, [cast(cst.CSTNode, target)]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name) and node.value == name:
            count += 1
        elif isinstance(node, cst.Attribute) and node.attr.value == name:
            count += 1
        stack.extend(P.child_nodes(node))
    return count


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


# Reads of a value that give its size or placement, not its values.
SIZE_FIELDS = frozenset({"shape", "size", "dtype", "device", "ndim"})


def sizes_read_only(module: cst.Module, scope: cst.CSTNode, call: cst.Call) -> bool:
    """Is `call`'s result stored in one local name of `scope` (a def of `module`, or the module) whose every
    read takes only a size of it or of a field (`out.text_embeds.shape[1]`, `out.logits.size(-1)`), or
    deletes it? A model run to learn the width of its embeddings reads no value it computes."""
    held = _holder_name(scope, call)
    if held is None or held[1]:
        return False
    parents = parents_of(module)
    reads = 0
    for name in names_in(scope, {held[0]}):
        parent = parents.get(name)
        grand = parents.get(parent) if parent is not None else None
        if isinstance(parent, cst.Element) and isinstance(grand, cst.Tuple) and isinstance(parents.get(grand), cst.Del):
            continue  # `del a, out`
        if isinstance(parent, cst.AssignTarget) and parent.target is name or isinstance(parent, cst.Del):
            continue  # the store itself, `del out`
        node: cst.CSTNode = name
        while isinstance(parent, cst.Attribute) and parent.value is node and parent.attr.value not in SIZE_FIELDS:
            node, parent = parent, parents.get(parent)  # `out.text_embeds`: a field, read on
        if not (isinstance(parent, cst.Attribute) and parent.value is node):
            return False  # the output or a field of it is read, handed on, indexed or returned
        reads += 1
    return reads > 0


def read_at_row_zero_only(module: cst.Module, scope: cst.CSTNode, call: cst.Call) -> bool:
    """Is every read of `call`'s output in `scope` (a def of `module`, or the module) a field of it
    indexed at row 0 (`model(ids).logits[0, -1]`, or `out = model(ids)` read only as `out.logits[0]`)?
    Such code runs the model on a batch of one: the other rows of a larger batch would be dropped unread."""
    return _row_zero(scope, parents_of(module), call, field_taken=False)


def _row_zero(
    scope: cst.CSTNode, parents: dict[cst.CSTNode, cst.CSTNode], expr: cst.CSTNode, field_taken: bool
) -> bool:
    parent = parents.get(expr)
    if isinstance(parent, cst.Subscript) and parent.value is expr:
        # `model(ids)[0]` is the first field of a tuple output, not a row: only a field's index counts.
        return field_taken and _first_index_is_zero(parent)
    if isinstance(parent, cst.Attribute) and parent.value is expr and not field_taken:
        return _row_zero(scope, parents, parent, field_taken=True)
    if isinstance(parent, cst.Assign) and parent.value is expr and len(parent.targets) == 1:
        target = parent.targets[0].target
        if not isinstance(target, cst.Name):
            return False
        reads = [
            node for node in names_in(scope, {target.value}) if not isinstance(parents.get(node), cst.AssignTarget)
        ]
        return bool(reads) and all(_row_zero(scope, parents, read, field_taken) for read in reads)
    return False


def _first_index_is_zero(subscript: cst.Subscript) -> bool:
    first = subscript.slice[0].slice
    return isinstance(first, cst.Index) and isinstance(first.value, cst.Integer) and first.value.value == "0"
