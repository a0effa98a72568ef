"""Parameters every caller hands one text: `padding=True` over one text pads nothing.

`def generate_text(model, prompt): tok(prompt, padding=True, ...)` tokenizes a batch of one when
every call in view (call_sites.py: the module's own calls, and its importers') hands `prompt` one
string: a string literal, an f-string, or the variable of a loop or comprehension over a display of
string literals (`for prompt in ["...", "..."]`, or a name bound once to such a display), or a
one-text parameter of its own caller passed on. Any other argument, another use of the function's
name, or no caller in view gives the parameter up (one_row.py does the same for one-element lists).
"""

from __future__ import annotations

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.call_sites import Site
from padlint.analysis.one_row import argument_for, never_stored, own_nodes, parameters_every_call_hands

TEXT_NODES = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)
COMPREHENSIONS = (cst.ListComp, cst.GeneratorExp, cst.SetComp, cst.DictComp)


def one_text_parameters(
    functions: dict[str, cst.FunctionDef], sites: dict[str, list[Site]], stored: dict[int, frozenset[str]]
) -> dict[cst.FunctionDef, set[str]]:
    """Module-level functions -> their parameters that hold one text at every call in view."""
    return parameters_every_call_hands(functions, sites, stored, _hands_one_text)


def _hands_one_text(
    site: Site, fn: cst.FunctionDef, param: str, known: dict[str, set[str]], stored: dict[int, frozenset[str]]
) -> bool:
    arg = argument_for(site.call, fn, param)
    if arg is None:
        return False
    value = arg.value
    if isinstance(value, TEXT_NODES):
        return True
    if not isinstance(value, cst.Name):
        return False
    caller = site.caller
    if caller is not None and site.home and value.value in known.get(caller.name.value, set()):
        return never_stored(caller, value.value, stored)  # a dispatcher passing its own one text on
    scope: cst.CSTNode | None = caller if caller is not None else site.module
    return scope is not None and _loop_over_texts(scope, site.call, value.value, site.module)


def _loop_over_texts(scope: cst.CSTNode, call: cst.Call, name: str, module: cst.Module | None) -> bool:
    """Is `name`, read at `call`, the variable of a loop or comprehension around it (and not stored
    again inside it) over a display of string literals?"""
    for node in P.walk(scope):
        if isinstance(node, cst.For) and isinstance(node.target, cst.Name) and node.target.value == name:
            if P.contains(node.body, call) and not _stored_in(node.body, name):
                return _texts_display(node.iter, scope, module)
        elif isinstance(node, COMPREHENSIONS) and P.contains(node, call):
            clause: cst.CompFor | None = node.for_in
            while clause is not None:
                if isinstance(clause.target, cst.Name) and clause.target.value == name:
                    return _texts_display(clause.iter, scope, module)
                clause = clause.inner_for_in
    return False


def _texts_display(iterable: cst.BaseExpression, scope: cst.CSTNode, module: cst.Module | None) -> bool:
    """A list or tuple display of string literals, or a name bound once (in `scope`, else at the top of
    `module`) to one and never grown."""
    if isinstance(iterable, (cst.List, cst.Tuple)):
        return bool(iterable.elements) and all(
            isinstance(e, cst.Element) and isinstance(e.value, TEXT_NODES) for e in iterable.elements
        )
    if not isinstance(iterable, cst.Name):
        return False
    for place in (scope, module):
        if place is None:
            continue
        values = _bound_values(place, iterable.value)
        if values:
            return len(values) == 1 and _texts_display(values[0], place, None)
    return False


def _bound_values(place: cst.CSTNode, name: str) -> list[cst.BaseExpression]:
    """Every value `name` is assigned in `place` (nested defs left out); a growth or another kind of
    binding (`+=`, `.append`, a loop target) counts as an unknown value."""
    found: list[cst.BaseExpression] = []
    for node in own_nodes(place):
        if P.assigns_name(node, name):
            found.append(node.value)
        elif isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name) and node.target.value == name:
            found.append(node.target)
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            receiver = node.func.value
            if (
                isinstance(receiver, cst.Name)
                and receiver.value == name
                and node.func.attr.value in ("append", "extend", "insert")
            ):
                found.append(node)
    return found


def _stored_in(body: cst.CSTNode, name: str) -> bool:
    return any(P.assigns_name(node, name) for node in own_nodes(body))
