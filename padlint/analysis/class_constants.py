"""Class attributes that hold one value for every instance: `padding = True` in a class body, read as
`self.padding` by its methods.

A plain assignment in the class body, with no `self.NAME = ...` anywhere in the class, is the value
every instance reads. A dataclass field (or an annotated attribute that is not a ClassVar) is only a
default: the constructor may replace it, so it is not one value here; `dataclass_init` writes the
constructor the dataclass makes, whose parameters parameter_literals.py reads at the constructions in view.
"""

from __future__ import annotations

import functools

import libcst as cst

from padlint.analysis.patterns import dotted, walk


def class_constant(cls: cst.ClassDef, name: str) -> cst.BaseExpression | None:
    """The value every instance of `cls` reads as `self.<name>`, when the class body fixes it."""
    if is_dataclass(cls):
        return None
    found: list[cst.BaseExpression] = []
    for stmt in cls.body.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.Assign) and any(_is_name(t.target, name) for t in small.targets):
                found.append(small.value)
            elif (
                isinstance(small, cst.AnnAssign)
                and small.value is not None
                and _is_name(small.target, name)
                and "ClassVar" in dotted(_annotation_base(small.annotation.annotation))
            ):
                found.append(small.value)
    if len(found) != 1 or stored_on_self(cls, name):
        return None
    return found[0]


def _is_name(target: cst.BaseExpression, name: str) -> bool:
    return isinstance(target, cst.Name) and target.value == name


def _annotation_base(annotation: cst.BaseExpression) -> cst.BaseExpression:
    return annotation.value if isinstance(annotation, cst.Subscript) else annotation


def stored_on_self(cls: cst.ClassDef, name: str) -> bool:
    """Does any method of the class store `self.<name>` (then each instance may hold its own)?"""
    return f"self.{name}" in _stored_targets(cls) or f"cls.{name}" in _stored_targets(cls)


@functools.lru_cache(maxsize=64)
def _stored_targets(cls: cst.ClassDef) -> frozenset[str]:
    """The dotted targets the class's statements assign (one walk per class, asked for every attribute)."""
    found: set[str] = set()
    for node in walk(cls):
        if isinstance(node, cst.Assign):
            found.update(dotted(t.target) for t in node.targets)
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
            found.add(dotted(node.target))
    return frozenset(found)


def is_dataclass(cls: cst.ClassDef) -> bool:
    return any(
        "dataclass" in dotted(d.decorator if not isinstance(d.decorator, cst.Call) else d.decorator.func)
        for d in cls.decorators
    )


def dataclass_init(cls: cst.ClassDef) -> cst.FunctionDef | None:
    """`def __init__(self, <fields>)` as `@dataclass` writes it: one parameter per annotated field of the
    class body (not a ClassVar), in order, its default the field's (`= v` or `field(default=v)`). A base
    class may add fields before these, so with bases the parameters are keyword-only (a positional
    argument then matches none of them)."""
    if not is_dataclass(cls):
        return None
    params = []
    for stmt in cls.body.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if not isinstance(small, cst.AnnAssign) or not isinstance(small.target, cst.Name):
                continue
            if "ClassVar" in dotted(_annotation_base(small.annotation.annotation)):
                continue
            params.append(cst.Param(cst.Name(small.target.value), default=_field_default(small.value)))
    if not params:
        return None
    self_param = cst.Param(cst.Name("self"))
    try:
        parameters = (
            cst.Parameters(params=[self_param], star_arg=cst.ParamStar(), kwonly_params=params)
            if cls.bases
            else cst.Parameters(params=[self_param, *params])
        )
    except cst.CSTValidationError:
        return None  # a field without a default after one with it: the class cannot be made
    return cst.FunctionDef(cst.Name("__init__"), parameters, cst.IndentedBlock([]))


def _field_default(value: cst.BaseExpression | None) -> cst.BaseExpression | None:
    """The default of a field: `= v`, `field(default=v)`, or a call of its `default_factory` (no literal)."""
    if isinstance(value, cst.Call) and dotted(value.func).rsplit(".", 1)[-1] == "field":
        for arg in value.args:
            if arg.keyword is not None and arg.keyword.value == "default":
                return arg.value
            if arg.keyword is not None and arg.keyword.value == "default_factory":
                return cst.Call(arg.value)
        return None
    return value
