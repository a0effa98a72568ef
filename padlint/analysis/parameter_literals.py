"""The literal a parameter holds wherever its def runs: `def encode(rows, tok, padding="max_length")`.

A parameter that its def never assigns again holds one literal when every call in view hands it that
literal, or leaves it to a default that is that literal. The calls in view are complete only where the
def's name is read nowhere but as their callee: a module-level function or class through call_sites.py
(the module's calls and those of the project's modules that import it by name; a class's calls are its
constructions, which run `__init__`), a method through method_flags.py. A def no call in view reaches
(library code, a callback handed to a framework) has callers out of view and holds nothing known.

`self.x` read in a method holds such a literal when the class stores `self.x` exactly once, in
`__init__`, straight from one of its parameters.
"""

from __future__ import annotations

import functools

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.call_sites import literal_of
from padlint.analysis.one_row import never_stored


def parameter_literal(
    fn: cst.FunctionDef, param: str, calls: list[cst.Call] | None, bound: bool
) -> cst.BaseExpression | None:
    """The literal every call of `calls` (all the calls in view) hands `param` of `fn` (its default where a call leaves it): the
    node of one of them. None when the calls differ, a value is not a literal, or `fn` assigns `param`.
    `bound`: the calls bind the first parameter themselves (a construction binds `self`)."""
    if not calls or not never_stored(fn, param):
        return None
    every = [*fn.params.posonly_params, *fn.params.params]
    positional = every[1:] if bound else every
    target = next((p for p in [*every, *fn.params.kwonly_params] if p.name.value == param), None)
    if target is None or bound and target is every[0]:
        return None
    literals = set()
    node = None
    for call in calls:
        handed = _handed(call, positional, target)
        literal = literal_of(handed) if handed is not None else None
        if literal is None:
            return None
        literals.add(literal)
        node = handed
    return node if len(literals) == 1 else None


def _handed(call: cst.Call, positional: list[cst.Param], param: cst.Param) -> cst.BaseExpression | None:
    """What `call` hands `param`: an argument's value, or the default where the call leaves it."""
    if any(a.star for a in call.args):
        return None
    given = [a for a in call.args if a.keyword is None]
    if param in positional and positional.index(param) < len(given):
        return given[positional.index(param)].value
    keyword = next((a for a in call.args if a.keyword is not None and a.keyword.value == param.name.value), None)
    if keyword is not None:
        return keyword.value
    return param.default


@functools.lru_cache(maxsize=1024)
def init_parameter_stored_as(cls: cst.ClassDef, attribute: str) -> tuple[cst.FunctionDef, str] | None:
    """(`__init__`, its parameter) when `cls` stores `self.<attribute>` once, in `__init__`, from that
    parameter; None when it is stored elsewhere too, more than once, or from anything else."""
    init = next(
        (s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"),
        None,
    )
    if init is None:
        return None
    stores = self_stores(cls).get(attribute, ())
    if len(stores) != 1 or not isinstance(stores[0], cst.Assign) or not P.contains(init, stores[0]):
        return None
    value = stores[0].value
    if not isinstance(value, cst.Name) or value.value not in P.parameter_names(init):
        return None
    return init, value.value


@functools.lru_cache(maxsize=64)
def self_stores(cls: cst.ClassDef) -> dict[str, tuple[cst.CSTNode, ...]]:
    """Each attribute the class writes as `self.<attribute>` -> the statements that write it, in one walk
    of the class (asked for every `self.x` the analysis reads: a walk per question cost seconds on a
    trainer class of thousands of lines)."""
    found: dict[str, list[cst.CSTNode]] = {}
    for node in P.walk(cls):
        for attribute in _attributes_stored(node):
            found.setdefault(attribute, []).append(node)
    return {attribute: tuple(nodes) for attribute, nodes in found.items()}


def _attributes_stored(node: cst.CSTNode) -> set[str]:
    """The attributes `node` writes as `self.<attribute>` (assigned, augmented, annotated, a `for` or `with`
    target)."""
    if isinstance(node, cst.Assign):
        targets = [t.target for t in node.targets]
    elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
        targets = [node.target]
    elif isinstance(node, (cst.For, cst.CompFor)):
        targets = [node.target]
    elif isinstance(node, cst.AsName):
        targets = [node.name]
    else:
        return set()
    return {
        part.attr.value
        for target in targets
        for part in P.walk(target)
        if isinstance(part, cst.Attribute) and isinstance(part.value, cst.Name) and part.value.value == "self"
    }


def constructs_itself(cls: cst.ClassDef) -> bool:
    """Does `cls` make instances of itself without its name (`cls(...)` in a class method, `type(self)(...)`,
    `self.__class__(...)`)? Then its constructions by name are not all of them."""
    for node in P.walk(cls):
        if not isinstance(node, cst.Call):
            continue
        func = node.func
        if isinstance(func, cst.Name) and func.value == "cls":
            return True
        if isinstance(func, cst.Call) and isinstance(func.func, cst.Name) and func.func.value == "type":
            return True
        if isinstance(func, cst.Attribute) and func.attr.value == "__class__":
            return True
    return False
