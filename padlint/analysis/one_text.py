"""Parameters every caller hands one text: `padding=True` over one text pads nothing.

`def generate_text(model, prompt): tok(prompt, padding=True, ...)` tokenizes a batch of one when
every call in view (call_sites.py: the module's own calls, and its importers') hands `prompt` one
string: a string literal, an f-string, or the variable of a loop or comprehension over a display of
string literals (`for prompt in ["...", "..."]`, or a name bound once to such a display), or over a
parameter of the caller whose items nothing in view says are batches (as calls.holds_texts reads a
comprehension handing such items to a tokenizer in one function: `[embed(t) for t in texts]`), or a
one-text parameter of its own caller passed on. Any other argument, another use of the function's
name, or no caller in view gives the parameter up (one_row.py does the same for one-element lists).
A def nested in a function has the calls of its enclosing function, where nothing else reads its name.
"""

from __future__ import annotations

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.call_sites import Site
from padlint.analysis.one_row import (
    argument_for,
    list_of_lists,
    never_stored,
    own_nodes,
    parameters_every_call_hands,
)

TEXT_NODES = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)
COMPREHENSIONS = (cst.ListComp, cst.GeneratorExp, cst.SetComp, cst.DictComp)


def one_text_parameters(
    functions: dict[str, cst.FunctionDef], sites: dict[str, list[Site]], stored: dict[int, frozenset[str]]
) -> dict[cst.FunctionDef, set[str]]:
    """Module-level functions -> their parameters that hold one text at every call in view."""

    def hands(site: Site, fn: cst.FunctionDef, param: str, known: dict[str, set[str]], stored: dict) -> bool:
        return _hands_one_text(site, fn, param, known, stored, sites)

    return parameters_every_call_hands(functions, sites, stored, hands)


def nested_one_text_parameters(
    enclosing: cst.FunctionDef, fn: cst.FunctionDef, stored: dict[int, frozenset[str]], sites: dict[str, list[Site]]
) -> set[str]:
    """The parameters of `fn`, a def nested in `enclosing`, that every call of it there hands one text;
    none where its name is read other than as a callee there (handed on, stored: called out of view)
    or bound again. `sites`: the module's call sites, for what the enclosing function is handed."""
    name = fn.name.value
    calls, reads, bindings = [], 0, 0
    for node in P.walk(enclosing.body):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == name:
            calls.append(node)
        elif isinstance(node, cst.Name) and node.value == name:
            reads += 1
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef)) and node.name.value == name:
            bindings += 1
    # Each call's callee is a Name node, and so is the def's own name: any other is another use.
    if not calls or bindings != 1 or reads != len(calls) + bindings:
        return set()
    here = [Site(call, enclosing, False) for call in calls]
    return {
        param
        for param in P.parameter_names(fn)
        if all(_hands_one_text(site, fn, param, {}, stored, sites) for site in here)
    }


def _hands_one_text(
    site: Site,
    fn: cst.FunctionDef,
    param: str,
    known: dict[str, set[str]],
    stored: dict[int, frozenset[str]],
    sites: dict[str, list[Site]],
) -> bool:
    arg = argument_for(site.call, fn, param)
    if arg is None:
        return False
    value = arg.value
    if isinstance(value, TEXT_NODES) or one_text_expression(value):
        return True
    if not isinstance(value, cst.Name):
        return False
    caller = site.caller
    if _bound_to_texts(caller if caller is not None else site.module, site.call, value.value):
        return True
    if caller is not None and site.home and value.value in known.get(caller.name.value, set()):
        return never_stored(caller, value.value, stored)  # a dispatcher passing its own one text on
    scope: cst.CSTNode | None = caller if caller is not None else site.module
    if scope is None:
        return False
    iterable = _loop_iterable(scope, site.call, value.value)
    if iterable is None:
        return False
    return _texts_display(iterable, scope, site.module) or _items_of_a_parameter(iterable, caller, stored, sites)


# Methods of `str` that hand back one string, and that the containers code batches texts in (lists,
# arrays, tensors, pandas objects, whose own `str` accessor is excluded below) do not have.
STR_METHODS = frozenset(
    {"strip", "lstrip", "rstrip", "lower", "upper", "casefold", "title", "capitalize", "removeprefix", "removesuffix"}
)


def one_text_expression(expr: cst.BaseExpression) -> bool:
    """Is `expr` one string by its form: a literal or f-string, `str(x)`, `"sep".join(...)`,
    `"...".format(...)`, a `str` method (`q.replace(...).strip()`), or `+` of such strings?"""
    if isinstance(expr, TEXT_NODES):
        return True
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
        return one_text_expression(expr.left) and one_text_expression(expr.right)
    if not isinstance(expr, cst.Call):
        return False
    func = expr.func
    if isinstance(func, cst.Name):
        return func.value == "str" and len(expr.args) == 1
    if not isinstance(func, cst.Attribute):
        return False
    receiver, method = func.value, func.attr.value
    if isinstance(receiver, cst.Attribute) and receiver.attr.value == "str":
        return False  # `series.str.strip()`: a pandas column of texts
    if method in ("join", "format"):
        return isinstance(receiver, TEXT_NODES)
    if method == "replace":
        return one_text_expression(receiver)
    return method in STR_METHODS


def _bound_to_texts(scope: cst.CSTNode | None, call: cst.Call, name: str) -> bool:
    """Is `name`, read at `call`, bound in `scope` only by assignments of one string (`q = text.strip()`),
    neither a parameter nor a loop's variable?"""
    if scope is None or _loop_iterable(scope, call, name) is not None:
        return False
    if isinstance(scope, cst.FunctionDef) and name in P.parameter_names(scope):
        return False
    if _bound_otherwise(scope, name):
        return False
    values = _bound_values(scope, name)
    return bool(values) and all(one_text_expression(v) for v in values)


def _bound_otherwise(scope: cst.CSTNode, name: str) -> bool:
    """Is `name` bound in `scope` other than by a plain `name = value` (a loop, `with ... as`, unpacking,
    an annotated or augmented store, `:=`, `except ... as`, `global`)? Such a value is not read here."""
    for node in own_nodes(scope):
        targets: list[cst.CSTNode] = []
        if isinstance(node, (cst.For, cst.CompFor)):
            targets = [node.target]
        elif isinstance(node, cst.WithItem) and node.asname is not None:
            targets = [node.asname.name]
        elif isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets if not isinstance(t.target, cst.Name)]
        elif isinstance(node, (cst.AnnAssign, cst.AugAssign, cst.NamedExpr)):
            targets = [node.target]
        elif isinstance(node, cst.ExceptHandler) and node.name is not None:
            targets = [node.name.name]
        elif isinstance(node, (cst.Global, cst.Nonlocal)):
            targets = [item.name for item in node.names]
        if any(isinstance(n, cst.Name) and n.value == name for t in targets for n in P.walk(t)):
            return True
    return False


def _loop_iterable(scope: cst.CSTNode, call: cst.Call, name: str) -> cst.BaseExpression | None:
    """What `name`, read at `call`, is the variable of a loop or comprehension around it over (and not
    stored again inside it); None if it is no such variable."""
    for node in P.walk(scope):
        if isinstance(node, cst.For) and isinstance(node.target, cst.Name) and node.target.value == name:
            if P.contains(node.body, call) and not _stored_in(node.body, name):
                return node.iter
        elif isinstance(node, COMPREHENSIONS) and P.contains(node, call):
            clause: cst.CompFor | None = node.for_in
            while clause is not None:
                if isinstance(clause.target, cst.Name) and clause.target.value == name:
                    return clause.iter
                clause = clause.inner_for_in
    return None


def _items_of_a_parameter(
    iterable: cst.BaseExpression,
    caller: cst.FunctionDef | None,
    stored: dict[int, frozenset[str]],
    sites: dict[str, list[Site]],
) -> bool:
    """A parameter of the caller, never stored again, not annotated as a sequence of sequences, that no
    call in view hands a list of lists (`[texts[i : i + 8] for i in ...]`): its items are single texts,
    as calls.holds_texts takes them where one function hands them to a tokenizer."""
    if caller is None or not isinstance(iterable, cst.Name):
        return False
    param = next((p for p in P.parameters(caller.params) if p.name.value == iterable.value), None)
    if param is None or param.star in ("*", "**"):
        return False
    if param.annotation is not None and _nested_sequence(param.annotation.annotation):
        return False
    if not never_stored(caller, iterable.value, stored):
        return False
    handed = [argument_for(site.call, caller, iterable.value) for site in sites.get(caller.name.value, [])]
    return not any(arg is not None and list_of_lists(arg.value) for arg in handed)


def _nested_sequence(annotation: cst.BaseExpression) -> bool:
    """`list[list[str]]`, `List[Sequence[str]]`, `list[tuple[str, str]]`: items that are sequences."""
    if not isinstance(annotation, cst.Subscript):
        return False
    return any(
        isinstance(element.slice, cst.Index) and isinstance(element.slice.value, (cst.Subscript, cst.List, cst.Tuple))
        for element in annotation.slice
    )


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
