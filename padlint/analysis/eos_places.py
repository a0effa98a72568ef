"""Places that may hold the EOS id on some path the module's code takes.

`self.pad_id = pad_id if pad_id is not None else tokenizer.eos_token_id`, or a branch of `__init__`
that stores the separator token (`self.pad_id = self.sep_id`, itself EOS by default): rows padded with
such a place may hold the EOS id at their pads, so comparing tokens with it does not tell the pads from
a real EOS. Read from the module's assignments alone: attributes (`self.x`) module-wide, plain names
within the function (or module code) that assigns them.
"""

from __future__ import annotations

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.env import place_key


def eos_places(module: cst.Module) -> set[tuple[int, str]]:
    """(scope id, place) pairs that may hold the EOS id: scope 0 for attributes and module code, the
    id of the defining function for its names."""
    stores: list[tuple[tuple[int, str], cst.BaseExpression, int]] = []
    _collect(module, 0, stores)
    found: set[tuple[int, str]] = set()
    changed = True
    while changed:  # through aliases (`self.pad_id = self.sep_id`), to a fixed point
        changed = False
        for key, value, scope in stores:
            if key not in found and _may_hold_eos(value, scope, found):
                found.add(key)
                changed = True
    return found


def may_hold_eos(expr: cst.BaseExpression, fn: cst.CSTNode | None, places: set[tuple[int, str]]) -> bool:
    """Can `expr`, read in function `fn`, be the EOS id?"""
    return _may_hold_eos(expr, id(fn) if fn is not None else 0, places)


def _may_hold_eos(expr: cst.BaseExpression, scope: int, places: set[tuple[int, str]]) -> bool:
    if isinstance(expr, cst.IfExp):
        return _may_hold_eos(expr.body, scope, places) or _may_hold_eos(expr.orelse, scope, places)
    if isinstance(expr, cst.BooleanOperation):
        return _may_hold_eos(expr.left, scope, places) or _may_hold_eos(expr.right, scope, places)
    if P.is_eos_expression(expr):
        return True
    key = place_key(expr)
    if key is None:
        return False
    return (_scope_of(key, scope), key) in places or (0, key) in places


def _scope_of(key: str, scope: int) -> int:
    return 0 if "." in key or "[" in key else scope


def _collect(node: cst.CSTNode, scope: int, stores: list) -> None:
    for child in P.child_nodes(node):
        if isinstance(child, cst.FunctionDef):
            _collect(child, id(child), stores)
            continue
        targets: list[cst.BaseExpression] = []
        value: cst.BaseExpression | None = None
        if isinstance(child, cst.Assign):
            targets, value = [target.target for target in child.targets], child.value
        elif isinstance(child, cst.AnnAssign):
            targets, value = [child.target], child.value
        for key in (place_key(target) for target in targets) if value is not None else ():
            if key is not None:
                stores.append(((_scope_of(key, scope), key), value, scope))
        _collect(child, scope, stores)
