"""Names and statements of script code (a module body, a notebook's cells in order): who mentions,
binds or reads a module-level name. Used by dataset_uses.py to follow a dataset through a script."""

from __future__ import annotations

import libcst as cst

from padlint.analysis import patterns as P
from padlint.semantics import table as T


def names_in(node: cst.CSTNode, names: set[str], count: bool = False):
    """The tracked names mentioned in `node` (or how many mentions, with `count`). An attribute's own
    name (`x.dataset`) and a keyword's name are not mentions."""
    found = name_nodes([node], names)
    return len(found) if count else {n.value for n in found}


def name_nodes(region: list, names: set[str]) -> list[cst.Name]:
    """The `Name` nodes in the nodes of `region` that mention one of `names` (as names_in counts them)."""
    found: list[cst.Name] = []
    stack: list[cst.CSTNode] = list(region)
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Name):
            if current.value in names:
                found.append(current)
            continue
        if isinstance(current, (cst.Attribute, cst.Arg)):
            stack.append(current.value)
            continue
        stack.extend(P.child_nodes(current))
    return found


def feature_dicts(body: cst.CSTNode) -> list[cst.CSTNode]:
    """The dict literals and `dict(...)` calls in a mapped function's body, the keys it stores into
    (`enc["labels"] = ...`, a store into the encoding it returns) and its returns: the rows it returns."""
    out: list[cst.CSTNode] = []
    stack: list[cst.CSTNode] = [body]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Dict) or (
            isinstance(current, cst.Call) and isinstance(current.func, cst.Name) and current.func.value == "dict"
        ):
            out.append(current)
        elif isinstance(current, cst.Return):
            out.append(current)  # `return enc`: the rows are what it returns
        elif isinstance(current, cst.Assign):
            out.extend(
                t.target for t in current.targets if isinstance(t.target, cst.Subscript) and string_key(t.target)
            )
        stack.extend(P.child_nodes(current))
    return out


def calls_in(node: cst.CSTNode) -> list[cst.Call]:
    out: list[cst.Call] = []
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Call):
            out.append(current)
        stack.extend(P.child_nodes(current))
    return out


def string_key(node: cst.Subscript) -> str | None:
    """The key of `x["key"]`: one index, a string literal."""
    if len(node.slice) != 1:
        return None
    index = node.slice[0].slice
    return P.string_value(index.value) if isinstance(index, cst.Index) else None


def item_of(value: cst.BaseExpression, batch: str) -> str | None:
    """The key of `batch["key"]`, also under tensor methods that keep it (`.to(device)`, `.long()`)."""
    while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute):
        if value.func.attr.value not in T.names("keeps", on="method"):
            return None
        value = value.func.value
    if isinstance(value, cst.Subscript) and isinstance(value.value, cst.Name) and value.value.value == batch:
        return string_key(value)
    return None


def read_anywhere(module: cst.Module, name: str) -> bool:
    """Is `name` read anywhere in the module: any mention but a plain assignment's target, outside the
    functions that bind a name of their own under it?"""
    stack: list[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.Lambda)) and name in local_names(node):
            continue  # a local of that function: another variable
        if isinstance(node, cst.AssignTarget) and isinstance(node.target, cst.Name):
            continue
        if isinstance(node, cst.Name) and node.value == name:
            return True
        if isinstance(node, cst.Attribute):
            stack.append(node.value)
            continue
        if isinstance(node, cst.Arg):
            stack.append(node.value)
            continue
        stack.extend(P.child_nodes(node))
    return False


def local_names(fn: cst.FunctionDef | cst.Lambda) -> set[str]:
    """Parameters and plainly assigned names of a function (its locals, without `global`)."""
    names = P.parameter_names(fn)
    if isinstance(fn, cst.FunctionDef):
        stack: list[cst.CSTNode] = [fn.body]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Global):
                return set()
            if isinstance(node, cst.AssignTarget) and isinstance(node.target, cst.Name):
                names.add(node.target.value)
            if not isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                stack.extend(P.child_nodes(node))
    return names


def value_of(stmt: cst.CSTNode) -> cst.BaseExpression | None:
    """The value of a one-statement line: an assignment's value or an expression."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        return small.value
    if isinstance(small, cst.Expr):
        return small.value
    return None


def single_target(stmt: cst.CSTNode) -> str | None:
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
        return small.targets[0].target.value
    return None


def bound_at_top(stmt: cst.CSTNode) -> set[str]:
    """Names a module-level statement binds (assignment targets, imports, definitions)."""
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return {stmt.name.value}
    bound: set[str] = set()
    if isinstance(stmt, cst.SimpleStatementLine):
        for small in stmt.body:
            if isinstance(small, cst.Assign):
                for target in small.targets:
                    if isinstance(target.target, cst.Name):
                        bound.add(target.target.value)
            elif isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar):
                for alias in small.names:
                    name = alias.asname.name if alias.asname else alias.name
                    if isinstance(name, cst.Name):
                        bound.add(name.value)
                    elif isinstance(name, cst.Attribute):
                        bound.add(P.dotted(name).split(".")[0])
    return bound
