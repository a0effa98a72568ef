"""Where the rows of a mapped dataset go in script or notebook code: to a model, or nowhere.

A feature dict a function mapped over a dataset returns is judged where the dataset's rows are read.
In a script (or a notebook, one module in cell order) the dataset is a module-level name; every later
statement that names it is read here. It may become another dataset of the same rows (the library
table's "rows" wiring: `select`, `shuffle`, `Dataset.from_dict`, ...), be shown, or be kept by an
object that hands its rows on only through some attributes (a "holds" wiring row: trl 0.x's
`PPOTrainer(dataset=...)` exposes them as `trainer.dataloader`). When every use is one of these and
none of the exposing attributes is read, no model ever receives the rows: what they hold harms
nothing. Any other use (a DataLoader, a trainer that feeds its dataset, a function, a loop, a save)
counts as a consumer: unknown code is never evidence that nothing reads them.
"""

from __future__ import annotations

import libcst as cst

from padlint.analysis import patterns as P
from padlint.semantics import table as T

# Calls that only show a value (a notebook's display, a length).
SHOWS = frozenset({"print", "display", "len", "repr", "type"})


def rows_reach_no_model(module: cst.Module, map_call: cst.Call, imports: P.Imports, models: set[str]) -> bool:
    """Is `map_call` the value of a module-level `name = ds.map(...)` whose dataset, and every dataset
    made of its rows, is never handed to anything that could give the rows to a model? `models`: the
    places the module loads models into (a mapped function that calls one of them feeds it)."""
    start = _statement_of(module, map_call)
    if start is None:
        return False
    stmt = module.body[start]
    target = _single_target(stmt)
    if target is None or _value(stmt) is not map_call:
        return False
    walk = _Uses(imports, models, {target})
    # Handed to a holder and never to anything else: that holder is the consumer, and it passes the
    # rows on to no model. A dataset only left at the end of the script has an unknown consumer.
    return all(walk.harmless(later) for later in module.body[start + 1 :]) and walk.held


class _Uses:
    def __init__(self, imports: P.Imports, models: set[str], datasets: set[str]) -> None:
        self.imports = imports
        self.models = models
        self.datasets = datasets
        self.holders: dict[str, tuple[str, ...]] = {}  # name -> the attributes its rows leave through
        self.held = False  # some holder was given the rows

    def harmless(self, stmt: cst.CSTNode) -> bool:
        """Does this statement use the dataset (or its holders) only in ways that feed no model? It
        also follows the names the rows are bound to next."""
        tracked = self.datasets | set(self.holders)
        found = _names_in(stmt, tracked)
        if not found:
            for name in _bound_at_top(stmt):  # the name now holds something else
                self.datasets.discard(name)
                self.holders.pop(name, None)
            return True
        if not self.holder_uses_harmless(stmt):
            return False
        if not found & self.datasets:
            return True
        target = _single_target(stmt)
        value = _value(stmt)
        if value is None:
            return False
        if target is None:  # an expression statement
            return isinstance(stmt, cst.SimpleStatementLine) and self.shown_or_formatted(value)
        if self.same_rows(value):
            self.datasets.add(target)
            self.holders.pop(target, None)
            return True
        exposes = self.held_by(value)
        if exposes is not None:
            self.holders[target] = exposes
            self.held = True
            self.datasets.discard(target)
            return True
        return False

    def holder_uses_harmless(self, stmt: cst.CSTNode) -> bool:
        """Every mention of a holder is a method call that is not one of its exposing attributes
        (`trainer.step(...)`, `trainer.log_stats(...)`), with no tracked name among the arguments."""
        if not self.holders:
            return True
        mentions = _names_in(stmt, set(self.holders), count=True)
        calls = _HolderCalls(self.holders)
        stmt.visit(calls)
        return calls.ok and calls.count == mentions

    def shown_or_formatted(self, value: cst.BaseExpression) -> bool:
        """`ds` alone (a notebook shows it), `print(ds)`, `len(ds)`, `ds.set_format("torch")`."""
        if isinstance(value, cst.Name):
            return value.value in self.datasets
        if not isinstance(value, cst.Call):
            return False
        if isinstance(value.func, cst.Name) and value.func.value in SHOWS:
            return True
        return self.same_rows(value)  # a format set in place; the result unused

    def same_rows(self, value: cst.BaseExpression) -> bool:
        """A dataset of the same rows made from a tracked one, calling no model."""
        if isinstance(value, cst.Subscript):  # `ds[:1000]`, `split["train"]`
            return isinstance(value.value, cst.Name) and value.value.value in self.datasets
        if not isinstance(value, cst.Call):
            return False
        func = value.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value in self.datasets:
            if not T.dataset_rows(func.attr.value, "method"):
                return False
            return all(self.argument_harmless(a.value) for a in value.args)
        qualified = self.imports.qualify(func) if isinstance(func, (cst.Name, cst.Attribute)) else None
        first = P.positional(value, 0)
        return (
            qualified is not None
            and T.dataset_rows(qualified)
            and first is not None
            and (
                self.same_rows(first.value) or isinstance(first.value, cst.Name) and first.value.value in self.datasets
            )
            and all(not _names_in(a.value, self.datasets) for a in value.args[1:])
        )

    def argument_harmless(self, expr: cst.BaseExpression) -> bool:
        """An argument of a rows method: no tracked name handed on, and a function given to `map` or
        `filter` calls no model (a lambda, or a module function read by its body)."""
        if _names_in(expr, self.datasets | set(self.holders)):
            return False
        return not any(self.calls_a_model(call) for call in _calls_in(expr))

    def calls_a_model(self, call: cst.Call) -> bool:
        receiver = call.func.value if isinstance(call.func, cst.Attribute) else call.func
        return P.model_callee(P.last_name(call.func)) or P.dotted(receiver) in self.models

    def held_by(self, value: cst.BaseExpression) -> tuple[str, ...] | None:
        """`PPOTrainer(..., dataset=ds)`: an object that keeps the rows (a "holds" wiring row), with the
        dataset given only under the row's dataset keyword. What leaves it: the row's `exposes`."""
        if not isinstance(value, cst.Call) or not isinstance(value.func, (cst.Name, cst.Attribute)):
            return None
        row = T.holds_rows(self.imports.qualify(value.func))
        if row is None:
            return None
        keyword = row.roles["dataset"][0]
        for arg in value.args:
            given = arg.keyword is not None and arg.keyword.value == keyword
            if _names_in(arg.value, self.datasets | set(self.holders)) and not (
                given and isinstance(arg.value, cst.Name)
            ):
                return None  # the dataset (or a holder) handed under another role, or inside an expression
        return row.exposes


class _HolderCalls(cst.CSTVisitor):
    """Counts `holder.method(...)` calls whose method does not expose the rows."""

    def __init__(self, holders: dict[str, tuple[str, ...]]) -> None:
        self.holders = holders
        self.count = 0
        self.ok = True

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value in self.holders:
            if func.attr.value in self.holders[func.value.value]:
                self.ok = False
            else:
                self.count += 1
            if any(_names_in(a.value, set(self.holders)) for a in node.args):
                self.ok = False


def _names_in(node: cst.CSTNode, names: set[str], count: bool = False):
    """The tracked names mentioned in `node` (or how many mentions, with `count`). An attribute's own
    name (`x.dataset`) and a keyword's name are not mentions."""
    found: list[str] = []
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Name):
            if current.value in names:
                found.append(current.value)
            continue
        if isinstance(current, cst.Attribute):
            stack.append(current.value)
            continue
        if isinstance(current, cst.Arg):
            stack.append(current.value)
            continue
        stack.extend(P.child_nodes(current))
    return len(found) if count else set(found)


def feature_dicts(body: cst.CSTNode) -> list[cst.CSTNode]:
    """The dict literals and `dict(...)` calls in a mapped function's body: the rows it returns."""
    out: list[cst.CSTNode] = []
    stack: list[cst.CSTNode] = [body]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Dict) or (
            isinstance(current, cst.Call) and isinstance(current.func, cst.Name) and current.func.value == "dict"
        ):
            out.append(current)
        stack.extend(P.child_nodes(current))
    return out


def _calls_in(node: cst.CSTNode) -> list[cst.Call]:
    out: list[cst.Call] = []
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Call):
            out.append(current)
        stack.extend(P.child_nodes(current))
    return out


def _statement_of(module: cst.Module, node: cst.CSTNode) -> int | None:
    """The index of the module-level statement whose single small statement holds `node` directly
    as its value (`name = ds.map(...)`)."""
    for i, stmt in enumerate(module.body):
        if _value(stmt) is node:
            return i
    return None


def _value(stmt: cst.CSTNode) -> cst.BaseExpression | None:
    """The value of a one-statement line: an assignment's value or an expression."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        return small.value
    if isinstance(small, cst.Expr):
        return small.value
    return None


def _single_target(stmt: cst.CSTNode) -> str | None:
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
        return small.targets[0].target.value
    return None


def _bound_at_top(stmt: cst.CSTNode) -> set[str]:
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
