"""Class attributes that hold one value for every instance: `padding = True` in a class body, read as
`self.padding` by its methods.

A plain assignment in the class body, with no `self.NAME = ...` anywhere in the class, is the value
every instance reads. A dataclass field (or an annotated attribute that is not a ClassVar) is only a
default: the constructor may replace it, so it is not one value.
"""

from __future__ import annotations

import libcst as cst

from padlint.analysis.patterns import dotted, walk


def class_constant(cls: cst.ClassDef, name: str) -> cst.BaseExpression | None:
    """The value every instance of `cls` reads as `self.<name>`, when the class body fixes it."""
    if any(
        "dataclass" in dotted(d.decorator if not isinstance(d.decorator, cst.Call) else d.decorator.func)
        for d in cls.decorators
    ):
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
    if len(found) != 1 or _stored_on_self(cls, name):
        return None
    return found[0]


def _is_name(target: cst.BaseExpression, name: str) -> bool:
    return isinstance(target, cst.Name) and target.value == name


def _annotation_base(annotation: cst.BaseExpression) -> cst.BaseExpression:
    return annotation.value if isinstance(annotation, cst.Subscript) else annotation


def _stored_on_self(cls: cst.ClassDef, name: str) -> bool:
    """Does any method of the class store `self.<name>` (then each instance may hold its own)?"""
    for node in walk(cls):
        targets: list[cst.BaseExpression] = []
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets]
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
            targets = [node.target]
        if any(dotted(t) in (f"self.{name}", f"cls.{name}") for t in targets):
            return True
    return False
