"""Carry a tokenizer's mask through a returned tuple to the loop that unpacks it (PAD003).

`return enc["input_ids"].squeeze(0), label` in a `Dataset.__getitem__` (or a collate function)
leaves the mask behind, and `for input_ids, labels in loader: model(input_ids=input_ids, ...)`
in another function of the module sends the ids alone. Neither place can be fixed alone: the tuple
gets the mask beside the ids (read off the encoding the way the ids are), the loop unpacks it into a
name of its own, and the model call passes it. Unsafe: whoever else unpacks these items (another
loop, another module) must unpack one more value too. The loop or assignment may be in the module that
imports this one: then its edits name that file (rules/elsewhere.py).
"""

from __future__ import annotations

import os

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.facts import MaskLost, ModuleFacts
from padlint.rules import sites
from padlint.rules.base import FixProposal
from padlint.rules.edits import add_mask_beside_ids
from padlint.rules.elsewhere import elsewhere
from padlint.types import Applicability

PREFERRED_NAME = "attention_mask"
TITLE = (
    "Return the tokenizer's attention mask beside the ids, unpack it in the loop and pass it to the model "
    "(every other reader of these items must unpack it too)"
)


def mask_through_tuple(facts: ModuleFacts, event: MaskLost) -> FixProposal | None:
    """The three edits, when the ids leave in a returned tuple and a `for` loop or an assignment
    unpacks that tuple, position by position, before the model call: in this module, or in the
    module that calls this one (whose edits name its file)."""
    returned, sink = event.node, event.sink
    if not isinstance(returned, cst.Tuple) or not isinstance(sink, cst.Call):
        return None
    there = elsewhere(facts, sink) if facts.span(sink) is None else None
    if there is not None:
        sink_facts, sink = there.facts, there.node
    elif facts.span(sink) is not None:
        sink_facts = facts
    else:
        return None
    assert isinstance(sink, cst.Call)
    path = sites.path_to(facts, returned)
    if len(path) < 2 or not isinstance(path[-2], cst.Return):
        return None
    elements = list(returned.elements)
    found = [(i, read) for i, e in enumerate(elements) for read in [_ids_read(e.value)] if read is not None]
    if len(found) != 1 or any(isinstance(e, cst.StarredElement) for e in elements):
        return None
    index, read = found[0]
    ids_arg = P.keyword(sink, "input_ids") or P.positional(sink, 0)
    if ids_arg is None or not isinstance(ids_arg.value, cst.Name):
        return None
    ids = ids_arg.value.value
    loop = _unpacking_loop(sink_facts, sink, ids, index, len(elements)) or _unpacking_assign(
        sink_facts, sink, ids, index
    )
    if loop is None:
        return None
    name = sites.Site(loop, "", sink_facts).fresh(PREFERRED_NAME)
    mask_element = facts.code(elements[index].value.deep_replace(read, _mask_read(read)))
    items = [facts.code(e.value) for e in elements]
    items.insert(index + 1, mask_element)
    tuple_code = ", ".join(items)
    site = sites.site_of(facts, returned)
    if returned.lpar or site is None or not site.fits(returned, tuple_code):
        tuple_code = f"({tuple_code})"  # a bare tuple too long for its line: black's parentheses to break in
    target = loop.target if isinstance(loop, cst.For) else loop.targets[0].target
    assert isinstance(target, cst.Tuple)
    if len(target.elements) != len(elements):
        return None
    names = [sink_facts.code(e.value) for e in target.elements]
    names.insert(index + 1, name)
    # the header is written again from `for` (up to `=`): the new name is bound by it where the call reads it
    if isinstance(loop, cst.For):
        header = (sink_facts.range_of(loop).start, sink_facts.range_of(target).end, f"for {', '.join(names)}")
    else:
        start, end = sink_facts.range_of(target).start, sink_facts.range_of(loop.value).start
        header = (start, end, f"{', '.join(names)} = ")
    at_call = add_mask_beside_ids(sink_facts, sink, name)
    if at_call is None:
        return None
    at_return = tuple(sites.fit_line(facts, [(returned, tuple_code)]))
    at_caller = (header, *sites.fit_line(sink_facts, [at_call]))
    if there is None:
        return FixProposal(Applicability.UNSAFE, TITLE, (*at_return, *at_caller))
    edits = there.edits(at_caller)
    if edits is None:
        return None
    title = f"{TITLE}; edits `{os.path.basename(sink_facts.filename)}` too"
    return FixProposal(Applicability.UNSAFE, title, at_return, elsewhere=edits)


def _ids_read(value: cst.BaseExpression) -> cst.CSTNode | None:
    """The `enc["input_ids"]` / `enc.input_ids` read inside a returned element, if there is one."""
    found: list[cst.CSTNode] = []
    stack: list[cst.CSTNode] = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Subscript) and len(node.slice) == 1:
            index = node.slice[0].slice
            if isinstance(index, cst.Index) and P.string_value(index.value) == "input_ids":
                found.append(node)
                continue
        if isinstance(node, cst.Attribute) and node.attr.value == "input_ids":
            found.append(node)
            continue
        stack.extend(P.child_nodes(node))
    return found[0] if len(found) == 1 else None


def _mask_read(read: cst.CSTNode) -> cst.BaseExpression:
    if isinstance(read, cst.Attribute):
        return read.with_changes(attr=cst.Name("attention_mask"))
    assert isinstance(read, cst.Subscript)
    index = read.slice[0].slice
    assert isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString)
    quote = index.value.value[-1]
    key = index.with_changes(value=cst.SimpleString(f"{quote}attention_mask{quote}"))
    return read.with_changes(slice=[read.slice[0].with_changes(slice=key)])


def _unpacking_loop(facts: ModuleFacts, sink: cst.Call, ids: str, index: int, width: int) -> cst.For | None:
    """The innermost `for a, b, ... in ...:` around the call that binds `ids` at `index` of `width`
    plain names, with nothing in its body rebinding it before the call."""
    for step in reversed(sites.path_to(facts, sink)):
        if not isinstance(step, cst.For):
            continue
        target = step.target
        if not isinstance(target, cst.Tuple) or len(target.elements) != width:
            return None
        if not all(isinstance(e, cst.Element) and isinstance(e.value, cst.Name) for e in target.elements):
            return None
        value = target.elements[index].value
        return step if isinstance(value, cst.Name) and value.value == ids else None
    return None


def _unpacking_assign(facts: ModuleFacts, sink: cst.Call, ids: str, index: int) -> cst.Assign | None:
    """`ids, labels = collate(...)` before the call, in its function: the only statement there that binds
    `ids`, unpacking a call's result into plain names."""
    path = sites.path_to(facts, sink)
    function = next((step for step in reversed(path) if isinstance(step, cst.FunctionDef)), None)
    if function is None:
        return None
    bindings: list[cst.CSTNode] = []

    class _Bindings(cst.CSTVisitor):
        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            if ids in plain_names(node.target):
                bindings.append(node)

        def visit_For(self, node: cst.For) -> None:
            if ids in plain_names(node.target):
                bindings.append(node)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            if ids in plain_names(node.target):
                bindings.append(node)

    function.body.visit(_Bindings())
    if len(bindings) != 1 or not isinstance(bindings[0], cst.AssignTarget):
        return None
    target = bindings[0].target
    statement = sites.enclosing(facts, target, cst.Assign)
    if statement is None or len(statement.targets) != 1 or not isinstance(statement.value, cst.Call):
        return None
    if not isinstance(target, cst.Tuple) or not all(
        isinstance(e, cst.Element) and isinstance(e.value, cst.Name) for e in target.elements
    ):
        return None
    value = target.elements[index].value if index < len(target.elements) else None
    if not isinstance(value, cst.Name) or value.value != ids:
        return None
    sink_at, assign_at = facts.range_of(sink).start, facts.range_of(statement).end
    return statement if (assign_at.line, assign_at.column) <= (sink_at.line, sink_at.column) else None


def plain_names(target: cst.CSTNode) -> list[str]:
    """The names an assignment target binds (`a`, `a, (b, c)`); attributes and subscripts bind none."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in plain_names(e.value)]
    return []
