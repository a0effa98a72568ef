"""Batches of one row: `padding=True` over a list that holds at most one text pads nothing.

A LLaVA-style `preprocess(sources, tokenizer)` tokenizes `[render(s) for s in sources]` with
`padding="longest"`; its callers hand it `[one_example]` per dataset item, so each call pads nothing.
The fact crosses calls: a parameter of a module-level function is a *one-row parameter* when every
call in view (call_sites.py: the module's own, and its importers') hands it a one-element list: a list
display of one item, a name the caller made one (`xs = [x]`, `assert len(xs) == 1`, a comprehension
over one), or a one-row parameter of its own caller (a dispatcher passing `sources` on). Any other
use of the function's name (a callback, a table of functions), any other argument, or no caller in
view at all gives the parameter up: unknown callers may hand it more.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.call_sites import Site

# Calls whose iteration runs no more times than their first argument's (`enumerate(xs)`, `zip(xs, ys)`).
SAME_LENGTH_ITERATORS = {"enumerate", "zip", "reversed", "sorted", "list", "tuple"}


def one_row_parameters(
    functions: dict[str, cst.FunctionDef], sites: dict[str, list[Site]], stored: dict[int, frozenset[str]]
) -> dict[cst.FunctionDef, set[str]]:
    """Module-level functions -> their parameters that hold at most one item at every call in view
    (`sites`: call_sites.call_sites, the functions whose callers are all in view; `stored`: the
    names each def assigns, by its id, never_stored's memo)."""
    return parameters_every_call_hands(functions, sites, stored, _hands_one_row)


Hands = Callable[[Site, cst.FunctionDef, str, dict, dict], bool]


def parameters_every_call_hands(
    functions: dict[str, cst.FunctionDef], sites: dict[str, list[Site]], stored: dict[int, frozenset[str]], hands: Hands
) -> dict[cst.FunctionDef, set[str]]:
    """Module-level functions -> their parameters for which `hands(site, fn, param, known, stored)` holds
    at every call in view; `known` is what holds so far, so a caller passing its own such parameter on
    hands one too (the fixed point of giving parameters up)."""
    known = {name: P.parameter_names(functions[name]) for name in sites}
    changed = True
    while changed:
        changed = False
        for name, params in known.items():
            kept = {p for p in params if all(hands(site, functions[name], p, known, stored) for site in sites[name])}
            if kept != params:
                known[name], changed = kept, True
    return {functions[name]: params for name, params in known.items() if params}


def _hands_one_row(
    site: Site, fn: cst.FunctionDef, param: str, known: dict[str, set[str]], stored: dict[int, frozenset[str]]
) -> bool:
    """Does the call at `site` hand `param` of `fn` a one-element list: a list display of one item, a
    name its caller made one (`[item]`, `assert len(xs) == 1`), or a one-row parameter of its caller?"""
    arg = argument_for(site.call, fn, param)
    if arg is None:
        return False
    if is_one_element_list(arg.value):
        return True
    caller = site.caller
    if caller is None:
        # a call in script code: what the statements before it made the argument
        return site.module is not None and _keeps_one_row(arg.value, one_row_names_at(site.module, site.call))
    name = arg.value.value if isinstance(arg.value, cst.Name) else None
    if site.home and name in known.get(caller.name.value, set()) and never_stored(caller, name or "", stored):
        return True
    seeds = known.get(caller.name.value, set()) if site.home else set()
    return _keeps_one_row(arg.value, one_row_names_at(caller, site.call, seeds))


def argument_for(call: cst.Call, fn: cst.FunctionDef, param: str) -> cst.Arg | None:
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
    if isinstance(expr, cst.Subscript):  # `batch["question"]`: a column of a batch of one row
        return _keeps_one_row(expr, one_row_names_at(fn, expr, one_row))
    if not isinstance(expr, cst.Name):
        return False
    if expr.value in one_row and never_stored(fn, expr.value):
        return True
    return expr.value in one_row_names_at(fn, expr, one_row) or _grown_once(fn, expr.value, one_row)


def repeats_one_element(expr: cst.BaseExpression | None) -> bool:
    """`[prompt] * n` or `n * [prompt]`: a list of one element repeated."""
    if not (isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Multiply)):
        return False
    return any(is_one_element_list(side) for side in (expr.left, expr.right))


def copies_of_one_text(fn: cst.FunctionDef | cst.Module | None, expr: cst.BaseExpression) -> bool:
    """Does `expr` hold copies of one item where it is read in `fn`: `[text] * n`, or a name whose
    last store before it, on every path, is one (`texts = 4 * [prompt]`)? Padded to the longest, such
    rows pad nothing."""
    return repeats_one_element(expr) or repeats_one_element(value_bound_before(fn, expr))


def value_bound_before(fn: cst.FunctionDef | cst.Module | None, expr: cst.BaseExpression) -> cst.BaseExpression | None:
    """The value the name `expr` was given by its last store before it in `fn`, when that store runs on
    every path and nothing stores, grows or loops over the name after it (else None)."""
    if fn is None or not isinstance(expr, cst.Name):
        return None
    name, value = expr.value, None
    body = fn.body if isinstance(fn, cst.FunctionDef) else cst.IndentedBlock(body=list(fn.body))
    for small, top_level in _statements_before(body, expr, True):
        if isinstance(small, (cst.Assign, cst.AnnAssign)):
            targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
            if any(isinstance(t, cst.Name) and t.value == name for t in targets):
                value = small.value if top_level and len(targets) == 1 else None
        elif isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name) and small.target.value == name:
            value = None
        elif isinstance(small, cst.Expr) and _grown_name(small.value) == name:
            value = None  # `texts.append(other)`
        elif isinstance(small, (cst.For, cst.While)) and name in _names_stored(small):
            value = None
    return value


def script_one_row(module: cst.Module, expr: cst.BaseExpression) -> bool:
    """Does `expr`, read in the module's script code, hold at most one item: `[text]`, or a name the
    statements before it made a one-element list (`texts = [\n "one",\n # "two",\n]`)?"""
    return _keeps_one_row(expr, one_row_names_at(module, expr))


def one_row_names_at(
    fn: cst.FunctionDef | cst.Module, at: cst.CSTNode, parameters: set[str] | frozenset[str] = frozenset()
) -> set[str]:
    """Names of `fn` that hold at most one item where `at` runs: made a one-element list (`xs = [x]`),
    checked (`assert len(xs) == 1`) or made from one (`texts = [render(x) for x in xs]`,
    `copy.deepcopy(xs)`) by the statements before it; `parameters` hold one item on entry. A store in
    a branch or a loop only keeps a name one-row: the path that skips it leaves the name as it was."""
    # Also `=name` (UNIT_MARK) for a name that holds the int 1 (`batch_size = 1`): `xs[i : i + batch_size]`
    # is one row.
    one = set(parameters)
    body = fn.body if isinstance(fn, cst.FunctionDef) else cst.IndentedBlock(body=list(fn.body))
    for small, top_level in _statements_before(body, at, True):
        if isinstance(small, cst.Assert):
            name = _checked_single(small.test)
            if name is not None and top_level:
                one.add(name)
        elif isinstance(small, (cst.Assign, cst.AnnAssign)) and small.value is not None:
            targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
            keeps = _keeps_one_row(small.value, one)
            unit = P.int_value(small.value) == 1
            for target in targets:
                if isinstance(target, cst.Name) and keeps and (top_level or target.value in one):
                    one.add(target.value)
                elif isinstance(target, cst.Name):
                    one.discard(target.value)
                if isinstance(target, cst.Name) and unit and top_level:
                    one.add(UNIT_MARK + target.value)
                elif isinstance(target, cst.Name):
                    one.discard(UNIT_MARK + target.value)
        elif isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name):
            _forget(one, {small.target.value})
        elif isinstance(small, cst.Expr) and (grown := _grown_name(small.value)) is not None:
            one.discard(grown)  # `texts.append(t)`: more than one item now
        elif isinstance(small, (cst.For, cst.While)):
            stored = {n.value for n in _names_in(small.target)} if isinstance(small, cst.For) else set()
            if P.contains(small, at):
                # a loop around `at`: what its body stores anywhere, a pass before may have left there
                stored |= _names_stored(small.body)
            _forget(one, stored)
    return one


UNIT_MARK = "="  # one_row_names_at's mark of a name holding the int 1 (no identifier starts with it)


def _forget(one: set[str], names: set[str]) -> None:
    """Stored again: the names hold neither one row nor the int 1 any more."""
    one.difference_update(names)
    one.difference_update(UNIT_MARK + name for name in names)


def _names_stored(node: cst.CSTNode, fn: cst.CSTNode | None = None, grown: bool = True) -> set[str]:
    """The plain names `node` assigns (`x = ...`, `x += ...`, `for x in`) or, with `grown`, grows
    (`x.append(...)`), nested defs other than `fn` aside."""
    names: set[str] = set()
    for inner, _ in _nodes_with_loops_of(node, fn):
        if isinstance(inner, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
            targets = [t.target for t in inner.targets] if isinstance(inner, cst.Assign) else [inner.target]
            names.update(t.value for t in targets if isinstance(t, cst.Name))
        elif isinstance(inner, cst.For):
            names.update(n.value for n in _names_in(inner.target))
        elif grown and isinstance(inner, cst.Call) and (name := _grown_name(inner)) is not None:
            names.add(name)
    return names


def _grown_name(expr: cst.BaseExpression) -> str | None:
    """`xs.append(x)`, `xs.extend(ys)`, `xs.insert(0, x)`: the name of the list grown."""
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and isinstance(expr.func.value, cst.Name):
        if expr.func.attr.value in ("append", "extend", "insert"):
            return expr.func.value.value
    return None


def _statements_before(block: cst.BaseSuite, at: cst.CSTNode, top_level: bool) -> Iterator[tuple[cst.CSTNode, bool]]:
    """The small statements (and `for` headers) of `block` in order, each with whether it runs
    unconditionally before `at`, up to the statement holding `at` (not included). Nested defs are left
    out. In the body of a loop, an `if` branch or a `with` that holds `at`, the statements before it run
    before it on its path (not so in a `try` body, whose handlers hold `at`: the body may have stopped)."""
    for stmt in block.body if isinstance(block, cst.IndentedBlock) else [block]:
        holds = P.contains(stmt, at)
        if isinstance(stmt, cst.SimpleStatementLine):
            if holds:
                return
            for small in stmt.body:
                yield small, top_level
            continue
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            if holds:
                return
            continue
        if isinstance(stmt, cst.For) or (holds and isinstance(stmt, cst.While)):
            yield stmt, top_level
        on_path = holds and isinstance(stmt, (cst.For, cst.While, cst.If, cst.With))
        for inner in _blocks_of(stmt):
            yield from _statements_before(inner, at, top_level and on_path and P.contains(inner, at))
        if holds:
            return


def _blocks_of(stmt: cst.CSTNode) -> list[cst.BaseSuite]:
    """The bodies of a compound statement, in order."""
    blocks = []
    for child in P.child_nodes(stmt):
        if isinstance(child, cst.BaseSuite):
            blocks.append(child)
        elif isinstance(child, (cst.If, cst.Else, cst.ExceptHandler, cst.ExceptStarHandler, cst.Finally)):
            blocks.extend(_blocks_of(child))
    return blocks


def _checked_single(test: cst.BaseExpression) -> str | None:
    """`len(xs) == 1` -> "xs"."""
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    if not isinstance(test.comparisons[0].operator, cst.Equal) or P.int_value(test.comparisons[0].comparator) != 1:
        return None
    left = test.left
    if (
        isinstance(left, cst.Call)
        and isinstance(left.func, cst.Name)
        and left.func.value == "len"
        and len(left.args) == 1
    ):
        inner = left.args[0].value
        return inner.value if isinstance(inner, cst.Name) else None
    return None


# Calls that hand back their argument's items, as many as it has.
SAME_ITEMS = {"deepcopy", "copy", "list", "tuple"}


def _keeps_one_row(value: cst.BaseExpression, one: set[str]) -> bool:
    """Does `value` hold at most one item when the names in `one` do (`=name`: holds the int 1)?"""
    if is_one_element_list(value):
        return True
    if isinstance(value, cst.Name):
        return value.value in one
    if isinstance(value, cst.Subscript) and len(value.slice) == 1:
        index = value.slice[0].slice
        if isinstance(index, cst.Slice):
            return _width_one(index, one)
        # `batch["text"]` of a batch of one row (a dataset's slice, a dict of columns): a column of one
        keyed = isinstance(index, cst.Index) and P.string_value(index.value) is not None
        return keyed and _keeps_one_row(value.value, one)
    if isinstance(value, (cst.ListComp, cst.GeneratorExp)):
        comp = value.for_in
        return comp.inner_for_in is None and not comp.ifs and _iterates_one_row(comp.iter, one)
    if isinstance(value, cst.Call) and P.last_name(value.func) in SAME_ITEMS and len(value.args) == 1:
        return _keeps_one_row(value.args[0].value, one)
    return False


def _names_in(target: cst.BaseExpression) -> Iterator[cst.Name]:
    if isinstance(target, cst.Name):
        yield target
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _names_in(element.value)


def _width_one(bounds: cst.Slice, one: set[str]) -> bool:
    """`xs[i : i + 1]`, `xs[i : i + batch_size]` with `batch_size = 1`: a slice of at most one item."""
    upper, lower = bounds.upper, bounds.lower
    if bounds.step is not None or not isinstance(upper, cst.BinaryOperation) or lower is None:
        return False
    if not isinstance(upper.operator, cst.Add):
        return False
    for start, width in ((upper.left, upper.right), (upper.right, upper.left)):
        same_start = start.deep_equals(lower)
        unit = P.int_value(width) == 1 or (isinstance(width, cst.Name) and UNIT_MARK + width.value in one)
        if same_start and unit:
            return True
    return False


def _iterates_one_row(iterable: cst.BaseExpression, one_row: set[str]) -> bool:
    if isinstance(iterable, cst.Call) and P.last_name(iterable.func) in SAME_LENGTH_ITERATORS and iterable.args:
        return any(_iterates_one_row(a.value, one_row) for a in iterable.args if a.keyword is None)
    if (counted := _range_of_len(iterable)) is not None:
        return _keeps_one_row(counted, one_row)
    return (isinstance(iterable, cst.Name) and iterable.value in one_row) or is_one_element_list(iterable)


def _range_of_len(iterable: cst.BaseExpression) -> cst.BaseExpression | None:
    """`range(len(xs))` -> `xs`: as many passes as `xs` has items."""
    if not (isinstance(iterable, cst.Call) and P.last_name(iterable.func) == "range" and len(iterable.args) == 1):
        return None
    inner = iterable.args[0].value
    if isinstance(inner, cst.Call) and P.last_name(inner.func) == "len" and len(inner.args) == 1:
        return inner.args[0].value
    return None


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


def never_stored(fn: cst.FunctionDef, name: str, memo: dict[int, frozenset[str]] | None = None) -> bool:
    """`name` is not assigned again in `fn` (a parameter keeps what the caller handed). `memo`: the
    names each function stores, by the function's id, while one parse tree is being read."""
    if memo is None:
        return name not in _stored_names(fn)
    stored = memo.get(id(fn))
    if stored is None:
        stored = memo[id(fn)] = _stored_names(fn)
    return name not in stored


def stored_values(fn: cst.FunctionDef, name: str) -> list[cst.BaseExpression]:
    """The values `fn` assigns to `name` (`name = value`, `name: T = value`)."""
    values = []
    for node, _ in _nodes_with_loops(fn):
        if isinstance(node, (cst.Assign, cst.AnnAssign)) and node.value is not None:
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            if any(isinstance(t, cst.Name) and t.value == name for t in targets):
                values.append(node.value)
    return values


def _stored_names(fn: cst.FunctionDef) -> frozenset[str]:
    return frozenset(_names_stored(fn.body, fn, grown=False))


def own_nodes(place: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The nodes of `place`, the bodies of defs, classes and lambdas inside it left out."""
    return (node for node, _ in _nodes_with_loops_of(place, place))


def _nodes_with_loops(fn: cst.FunctionDef) -> Iterator[tuple[cst.CSTNode, tuple[cst.BaseExpression, ...]]]:
    """Every node of `fn`'s body (nested defs left out), with the iterables of the `for` loops around it;
    a `while` loop counts as an unknown iterable."""
    return _nodes_with_loops_of(fn.body, fn)


def _nodes_with_loops_of(
    start: cst.CSTNode, fn: cst.CSTNode | None = None
) -> Iterator[tuple[cst.CSTNode, tuple[cst.BaseExpression, ...]]]:
    stack: list[tuple[cst.CSTNode, tuple[cst.BaseExpression, ...]]] = [(start, ())]
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


def list_of_lists(expr: cst.BaseExpression) -> bool:
    """`[[a, b], [c]]`, `[texts[i : i + n] for i in ...]`, `[row["texts"] for row in rows]`? A display or
    comprehension whose items are lists, slices or other subscripts (a column may be a batch's)."""
    if isinstance(expr, (cst.ListComp, cst.GeneratorExp)):
        items = [expr.elt]
    elif isinstance(expr, (cst.List, cst.Tuple)):
        items = [e.value for e in expr.elements]
    else:
        return False
    return any(isinstance(item, (cst.List, cst.ListComp, cst.Tuple, cst.Subscript)) for item in items)


def read_by_item_index(fn: cst.FunctionDef, expr: cst.Subscript, memo: dict[int, frozenset[str]]) -> bool:
    """Is `expr` a value of the one example `__getitem__(self, idx)` is asked for, read by the index it is
    handed (`self.rows[idx]["text"]`, or through `row = self.rows[idx]` then `row["text"]`)? `memo`:
    never_stored's."""
    if fn.name.value != "__getitem__" or len(fn.params.params) < 2:
        return False
    index = fn.params.params[1].name.value
    if not never_stored(fn, index, memo):
        return False

    def read_by_index(node: cst.BaseExpression) -> bool:
        while isinstance(node, cst.Subscript):
            parts = node.slice
            if len(parts) == 1 and isinstance(parts[0].slice, cst.Index):
                key = parts[0].slice.value
                if isinstance(key, cst.Name) and key.value == index:
                    return True
            node = node.value
        return False

    if read_by_index(expr):
        return True
    root: cst.BaseExpression = expr
    while isinstance(root, cst.Subscript):
        root = root.value
    if not isinstance(root, cst.Name) or root.value == index:
        return False
    stored = stored_values(fn, root.value)
    return bool(stored) and all(read_by_index(v) for v in stored)
