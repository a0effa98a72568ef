"""Where the module's functions are called: in the module, and in the modules beside it that import them.

A parameter's value is fixed by the callers in view when every call hands it the same kind of value:
a one-element list (one_row.py), or the same constant (`has_image=True`: only the branch it selects is
reached). The callers in view are the module's own code and the modules beside it that import the
function by name (project_text.importers). A function whose name is read other than as the callee of
a call (a callback, a table of functions, `module.function` of a module imported whole) may be called
from anywhere; a function no caller in view calls (library code, one file linted alone) has callers
out of view: neither has parameters fixed by its callers.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst

from padlint.analysis import patterns as P


@dataclass(frozen=True)
class Site:
    """One call of a function: the call, the innermost def it sits in, and whether that def is a
    module-level function of the module that defines the callee (a dispatcher handing its own
    parameter on)."""

    call: cst.Call
    caller: cst.FunctionDef | None
    home: bool
    module: cst.Module | None = None  # the module the call is in (its script code, where `caller` is None)


def call_sites(
    module: cst.Module, reads: Counter[str], filename: str, kind: type[cst.CSTNode] = cst.FunctionDef
) -> dict[str, list[Site]]:
    """Module-level function name -> every call of it in view, for the functions called only by name
    (`reads`: how often each name is read in the module, dead_code.name_reads). A function missing
    from the result has callers out of view. `kind` cst.ClassDef: the same for classes, whose calls
    are their constructions."""
    functions = {
        stmt.name.value
        for stmt in module.body
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) and isinstance(stmt, kind)
    }
    sites: dict[str, list[Site]] = {name: [] for name in functions}
    for call, caller, top in _calls_by_name(module, functions):
        sites[call.func.value].append(Site(call, caller, caller is top and caller is not None, module))  # type: ignore[attr-defined]
    fixed = {name for name in functions if reads[name] == len(sites[name])}
    if fixed and filename not in ("-", "<stdin>", ""):
        _add_importer_sites(os.path.abspath(filename), fixed, sites)
    return {name: sites[name] for name in fixed if sites[name]}


def _add_importer_sites(path: str, fixed: set[str], sites: dict[str, list[Site]]) -> None:
    """Calls of `fixed` functions in the modules beside `path` that import them by name; a function an
    importer reads any other way (or imports the module whole and names it) leaves `fixed`."""
    from padlint.analysis.dead_code import name_reads
    from padlint.analysis.importers import MAX_IMPORTER_BYTES, MAX_IMPORTERS
    from padlint.analysis.parsing import parse_module
    from padlint.look.project_text import from_imports, importers, importers_below, module_path, text_of

    for count, importer in enumerate(importers(path) + importers_below(path)):
        text = text_of(importer) or ""
        named = {name for name in fixed if name in text}
        if not named:
            continue
        if count >= MAX_IMPORTERS or len(text) > MAX_IMPORTER_BYTES:
            fixed.difference_update(named)  # not read for its calls: they are out of view
            continue
        local_names: dict[str, str] = {}  # the importer's name -> the function it is
        for local, (source, level, original) in from_imports(importer, text).items():
            if original in named and module_path(importer, source, level) == path:
                local_names[local] = original
        try:
            module = parse_module(text)
        except cst.ParserSyntaxError:
            fixed.difference_update(named)
            continue
        reads = name_reads(module) - _import_names(module)
        found: Counter[str] = Counter()
        for call, caller, _top in _calls_by_name(module, set(local_names)):
            local = call.func.value  # type: ignore[attr-defined]
            found[local] += 1
            sites[local_names[local]].append(Site(call, caller, False, module))
        for local, name in local_names.items():
            if reads[local] != found[local]:
                fixed.discard(name)  # handed on as a value: called from anywhere
        # Named without an import by name: `data.preprocess(...)` of a module imported whole.
        fixed.difference_update(named - set(local_names.values()))


def _import_names(module: cst.Module) -> Counter[str]:
    """The names `from m import a as b` spells (name_reads counts them as reads)."""
    names: Counter[str] = Counter()
    stack: list[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        if type(node) is cst.ImportFrom and not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                if isinstance(alias.name, cst.Name):
                    names[alias.name.value] += 1
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    names[alias.asname.name.value] += 1
        else:
            stack.extend(P.child_nodes(node))
    return names


def _calls_by_name(
    module: cst.Module, names: set[str]
) -> Iterator[tuple[cst.Call, cst.FunctionDef | None, cst.FunctionDef | None]]:
    """Calls `name(...)` of `names`, each with the innermost def it sits in and the module-level
    function around it."""
    stack: list[tuple[cst.CSTNode, cst.FunctionDef | None, cst.FunctionDef | None]] = [
        (stmt, None, None) for stmt in module.body
    ]
    while stack:
        node, inner, top = stack.pop()
        if type(node) is cst.FunctionDef:  # `type() is`: libcst's ABC checks are slow on every node
            inner = node
            if top is None and node in module.body:
                top = node
        elif type(node) is cst.Call:
            func = node.func
            if type(func) is cst.Name and func.value in names:
                yield node, inner, top
            mapped = _mapped_partial(node, names)
            if mapped is not None:
                yield mapped, inner, top
        stack.extend((child, inner, top) for child in P.child_nodes(node))


MAP_OPTIONS_THAT_ADD_ARGUMENTS = ("fn_kwargs", "with_indices", "with_rank", "input_columns")


def _mapped_partial(call: cst.Call, names: set[str]) -> cst.Call | None:
    """`ds.map(partial(f, a, k=v))`: the dataset calls `f(a, row, k=v)`, one row (or batch) after the
    bound arguments (library table: map's calling convention). Returned as that call, so that what
    the bound arguments fix (a flag left to its default) is known; not with options that hand more."""
    if not (isinstance(call.func, cst.Attribute) and call.func.attr.value == "map" and call.args):
        return None
    bound = call.args[0].value
    if call.args[0].keyword is not None or any(
        a.keyword and a.keyword.value in MAP_OPTIONS_THAT_ADD_ARGUMENTS for a in call.args
    ):
        return None
    if not (isinstance(bound, cst.Call) and P.last_name(bound.func) == "partial" and bound.args):
        return None
    target = bound.args[0].value
    if bound.args[0].keyword is not None or not (isinstance(target, cst.Name) and target.value in names):
        return None
    given = list(bound.args[1:])
    positional = [a for a in given if a.keyword is None]
    keywords = [a for a in given if a.keyword is not None]
    return cst.Call(func=target, args=[*positional, cst.Arg(cst.Name("__row__")), *keywords])


def constant_parameters(
    functions: dict[str, cst.FunctionDef], sites: dict[str, list[Site]], stored: dict[int, frozenset[str]]
) -> dict[cst.FunctionDef, dict[str, bool]]:
    """Module-level functions -> their parameters every call in view hands a constant of the same
    truth (`has_image=True`, a default of `False` left alone, a caller's own such parameter handed on):
    `if has_image:` then runs one branch only. `stored`: never_stored's memo."""
    # Grown from nothing: a parameter is fixed once every call's value is known (a dispatcher's own
    # parameter only after its callers fix it), so cycles fix nothing.
    known: dict[str, dict[str, bool]] = {name: {} for name in sites}
    changed = True
    while changed:
        changed = False
        for name, calls in sites.items():
            fn = functions[name]
            fixed: dict[str, bool] = {}
            for param in P.parameter_names(fn):
                truths = {_truth_handed(site, fn, param, known, stored) for site in calls}
                if truths == {True} or truths == {False}:
                    fixed[param] = truths.pop() is True
            if fixed != known[name]:
                known[name], changed = fixed, True
    return {functions[name]: params for name, params in known.items() if params}


def _truth_handed(
    site: Site, fn: cst.FunctionDef, param: str, known: dict[str, dict[str, bool]], stored: dict[int, frozenset[str]]
) -> bool | None:
    """The truth of the constant the call at `site` hands `param` of `fn`; None when not a constant."""
    from padlint.analysis.one_row import argument_for, never_stored

    arg = argument_for(site.call, fn, param)
    if arg is None:
        if any(a.star for a in site.call.args):
            return None
        default = next((p.default for p in P.parameters(fn.params) if p.name.value == param), None)
        return _literal_truth(default) if default is not None else None
    truth = _literal_truth(arg.value)
    if truth is not None or not isinstance(arg.value, cst.Name) or site.caller is None or not site.home:
        return truth
    handed_on = known.get(site.caller.name.value, {}).get(arg.value.value)
    return handed_on if handed_on is not None and never_stored(site.caller, arg.value.value, stored) else None


def _literal_truth(expr: cst.BaseExpression) -> bool | None:
    """The truth of a literal constant: True, False, None, a number, a string."""
    literal = literal_of(expr)
    return bool(literal[1]) if literal is not None else None


Literal = tuple[str, object]  # (kind, value): ("str", "train"), ("bool", True), ("none", None), ("int", 3)


def literal_of(expr: cst.BaseExpression | None) -> Literal | None:
    """The literal `expr` writes, or None."""
    if isinstance(expr, cst.Name) and expr.value in ("True", "False", "None"):
        return ("none", None) if expr.value == "None" else ("bool", expr.value == "True")
    number = P.int_value(expr) if not isinstance(expr, cst.Name) else None
    if number is not None:
        return ("int", number)
    text = P.string_value(expr)
    return ("str", text) if text is not None else None
