"""Batches of one row: `padding=True` over a list that holds at most one text pads nothing.

A LLaVA-style `preprocess(sources, tokenizer)` tokenizes `[render(s) for s in sources]` with
`padding="longest"`; its callers hand it `[one_example]` per dataset item, so each call pads nothing.
The fact crosses calls: a parameter of a module-level function is a *one-row parameter* when every
call of that function in the module hands it a one-element list literal, or a one-row parameter of its
own caller (a dispatcher passing `sources` on). Any other use of the function's name (a callback, a
table of functions) or any other argument gives the parameter up: unknown callers may hand it more.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import libcst as cst

from padlint.analysis import patterns as P

# Calls whose iteration runs no more times than their first argument's (`enumerate(xs)`, `zip(xs, ys)`).
SAME_LENGTH_ITERATORS = {"enumerate", "zip", "reversed", "sorted", "list", "tuple"}


def one_row_parameters(module: cst.Module, reads: Counter[str]) -> dict[cst.FunctionDef, set[str]]:
    """Module-level functions -> their parameters that hold at most one item at every call (`reads`:
    how often each name is read in the module, dead_code.name_reads)."""
    functions = {stmt.name.value: stmt for stmt in module.body if isinstance(stmt, cst.FunctionDef)}
    if not functions:
        return {}
    sites: dict[str, list[tuple[cst.Call, cst.FunctionDef | None]]] = {name: [] for name in functions}
    for node, enclosing in _nodes_with_function(module):
        if type(node) is cst.Call:  # `type() is`: libcst's ABC checks are slow on every node
            func = node.func
            if type(func) is cst.Name and func.value in sites:
                sites[func.value].append((node, enclosing))
    # A name read other than as the callee of a call (or in its own `def`) may be called from anywhere.
    known = {
        name: {p.name.value for p in P.parameters(fn.params)}
        for name, fn in functions.items()
        if sites[name] and reads[name] == len(sites[name])
    }
    stored: dict[int, frozenset[str]] = {}  # the names each caller assigns, by the caller's id
    changed = True
    while changed:
        changed = False
        for name, params in known.items():
            kept = {
                p
                for p in params
                if all(_hands_one_row(call, functions[name], p, caller, known, stored) for call, caller in sites[name])
            }
            if kept != params:
                known[name], changed = kept, True
    return {functions[name]: params for name, params in known.items() if params}


def _hands_one_row(
    call: cst.Call,
    fn: cst.FunctionDef,
    param: str,
    caller: cst.FunctionDef | None,
    known: dict[str, set[str]],
    stored: dict[int, frozenset[str]],
) -> bool:
    """Does `call` of `fn` hand `param` a one-element list, or a one-row parameter of its caller?"""
    arg = _argument_for(call, fn, param)
    if arg is None:
        return False
    if is_one_element_list(arg.value):
        return True
    if isinstance(arg.value, cst.Name) and caller is not None:
        return arg.value.value in known.get(caller.name.value, set()) and _never_stored(caller, arg.value.value, stored)
    return False


def _argument_for(call: cst.Call, fn: cst.FunctionDef, param: str) -> cst.Arg | None:
    """The argument `call` hands to `param` of `fn`; None when it is left to its default or unknown."""
    if any(a.star for a in call.args):
        return None
    names = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
    for index, arg in enumerate(a for a in call.args if a.keyword is None):
        if index < len(names) and names[index] == param:
            return arg
    return next((a for a in call.args if a.keyword is not None and a.keyword.value == param), None)


def is_one_element_list(expr: cst.BaseExpression) -> bool:
    """`[example]`: a list literal of exactly one element, not unpacked."""
    return (
        isinstance(expr, cst.List) and len(expr.elements) == 1 and not isinstance(expr.elements[0], cst.StarredElement)
    )


def at_most_one_row(fn: cst.FunctionDef, expr: cst.BaseExpression, one_row: set[str]) -> bool:
    """Does `expr` hold at most one item where it is read in `fn`? `[text]`; a one-row parameter; a
    comprehension over one; a list made empty and appended to only in loops over one-row values."""
    if is_one_element_list(expr):
        return True
    if isinstance(expr, (cst.ListComp, cst.GeneratorExp)):
        comp = expr.for_in
        return comp.inner_for_in is None and not comp.ifs and _iterates_one_row(comp.iter, one_row)
    if not isinstance(expr, cst.Name):
        return False
    if expr.value in one_row:
        return _never_stored(fn, expr.value)
    return _grown_once(fn, expr.value, one_row)


def _iterates_one_row(iterable: cst.BaseExpression, one_row: set[str]) -> bool:
    if isinstance(iterable, cst.Call) and P.last_name(iterable.func) in SAME_LENGTH_ITERATORS and iterable.args:
        return any(_iterates_one_row(a.value, one_row) for a in iterable.args if a.keyword is None)
    return (isinstance(iterable, cst.Name) and iterable.value in one_row) or is_one_element_list(iterable)


def _grown_once(fn: cst.FunctionDef, name: str, one_row: set[str]) -> bool:
    """`rows = []`, then `rows.append(...)` only inside loops over one-row values, nothing else stored."""
    made_empty = False
    for node, loops in _nodes_with_loops(fn):
        if isinstance(node, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            if any(isinstance(t, cst.Name) and t.value == name for t in targets):
                value = node.value
                if (
                    isinstance(node, cst.AugAssign)
                    or made_empty
                    or not (isinstance(value, cst.List) and not value.elements)
                ):
                    return False
                made_empty = True
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            receiver = node.func.value
            if isinstance(receiver, cst.Name) and receiver.value == name:
                if node.func.attr.value != "append":
                    return False  # `extend`, `insert`, `+=`: more than one item per pass
                if not loops or not all(_iterates_one_row(loop, one_row) for loop in loops):
                    return False
    return made_empty


def _never_stored(fn: cst.FunctionDef, name: str, memo: dict[int, frozenset[str]] | None = None) -> bool:
    """`name` is not assigned again in `fn` (a parameter keeps what the caller handed). `memo`: the
    names each function stores, by the function's id, while one parse tree is being read."""
    if memo is None:
        return name not in _stored_names(fn)
    stored = memo.get(id(fn))
    if stored is None:
        stored = memo[id(fn)] = _stored_names(fn)
    return name not in stored


def _stored_names(fn: cst.FunctionDef) -> frozenset[str]:
    names: set[str] = set()
    for node, _ in _nodes_with_loops(fn):
        if isinstance(node, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            names.update(t.value for t in targets if isinstance(t, cst.Name))
    return frozenset(names)


def _nodes_with_loops(fn: cst.FunctionDef) -> Iterator[tuple[cst.CSTNode, tuple[cst.BaseExpression, ...]]]:
    """Every node of `fn`'s body (nested defs left out), with the iterables of the `for` loops around it;
    a `while` loop counts as an unknown iterable."""
    stack: list[tuple[cst.CSTNode, tuple[cst.BaseExpression, ...]]] = [(fn.body, ())]
    while stack:
        node, loops = stack.pop()
        yield node, loops
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)) and node is not fn:
            continue
        inner = loops
        if isinstance(node, cst.For):
            inner = (*loops, node.iter)
        elif isinstance(node, cst.While):
            inner = (*loops, node.test)
        stack.extend((child, inner) for child in P.child_nodes(node))


def _nodes_with_function(module: cst.Module) -> Iterator[tuple[cst.CSTNode, cst.FunctionDef | None]]:
    """Every node of the module with the module-level function it sits in (None: elsewhere)."""
    for stmt in module.body:
        enclosing = stmt if isinstance(stmt, cst.FunctionDef) else None
        stack: list[cst.CSTNode] = [stmt]
        while stack:
            node = stack.pop()
            yield node, enclosing
            stack.extend(P.child_nodes(node))
