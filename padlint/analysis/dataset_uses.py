"""Where the rows of a mapped dataset go in script or notebook code: to a model, or nowhere.

A feature dict a function mapped over a dataset returns is judged where the dataset's rows are read.
In a script (or a notebook, one module in cell order) the dataset is a module-level name, the body of an
`if __name__ == "__main__":` block included; every later statement that names it is read here. It may become another dataset of the same rows (the library
table's "rows" wiring: `select`, `shuffle`, `Dataset.from_dict`, ...), be shown, or be kept by an
object that hands its rows on only through some attributes (a "holds" wiring row: trl 0.x's
`PPOTrainer(dataset=...)` exposes them as `trainer.dataloader`). When every use is one of these and
none of the exposing attributes is read, no model ever receives the rows: what they hold harms
nothing. So too where a program nothing imports (dead_code.program_nobody_imports) goes on running
code and never names the dataset again. Any other use (a DataLoader, a trainer that feeds its dataset, a function, a loop, a save)
counts as a consumer: unknown code is never evidence that nothing reads them. For one column (the
labels), one row read by its index (`ex = ds[0]`) whose column goes into a name nothing reads, and a
DataLoader nobody iterates, drop it; a program that goes on past its last such use never grades it.
"""

from __future__ import annotations

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis import script_names as S
from padlint.analysis.dead_code import is_main_block, runs_code
from padlint.semantics import table as T

# Calls that only show a value (a notebook's display, a length).
SHOWS = frozenset({"print", "display", "len", "repr", "type"})


def rows_reach_no_model(
    module: cst.Module,
    map_call: cst.Call,
    imports: P.Imports,
    models: set[str],
    column: str | None = None,
    program: bool = False,
) -> bool:
    """Is `map_call` the value of a module-level `name = ds.map(...)` whose dataset, and every dataset
    made of its rows, is never handed to anything that could give the rows to a model? `models`: the
    places the module loads models into (a mapped function that calls one of them feeds it).

    With `column`, the question is about that column only: the rows may also go through a DataLoader
    that keeps their keys (no collate function) into loops over its batches that read the column, if at
    all, into a variable nothing reads (a distillation loop that grades logits, not the labels)."""
    body = script_statements(module)
    start = next((i for i, stmt in enumerate(body) if S.value_of(stmt) is map_call), None)
    if start is None:
        return False
    stmt = body[start]
    target = S.single_target(stmt)
    if target is None:
        return False
    walk = _Uses(imports, models, {target}, module, column)
    # Handed to a holder (or, for a column, to loops that drop it) and never to anything else: that is
    # the consumer, and it passes the rows on to no model. A dataset only left at the end of a module
    # has an unknown consumer (an importer, the reader of a dataset set up to be read), unless the
    # module is a `program` that went on past it without ever naming it again (code runs after it):
    # then nothing ever reads it.
    later = body[start + 1 :]
    last_use = -1  # the last later statement that names the rows (or what holds them)
    for i, stmt in enumerate(later):
        if not walk.harmless(stmt):
            return False
        last_use = i if walk.named_here else last_use
    # never named again, or every name holding the rows bound to something else before anything got
    # them (a later cell that maps again into the same name): nothing can read them any more
    forgotten = (program and last_use < 0) or walk.all_rebound()
    # For a column, every later use dropped it (loops and row reads into names nothing reads, a loader
    # nobody iterates) and the program went on past the last: it never hands the column to a model. (One
    # that ends on a use, `ds.set_format("torch")`, has set the rows up for a reader not in view.)
    if program and column is not None and any(runs_code(stmt) for stmt in later[last_use + 1 :]):
        return True
    return walk.held or (forgotten and any(runs_code(stmt) for stmt in later))


def script_statements(module: cst.Module) -> list[cst.BaseStatement]:
    """The module's top-level statements in the order a run takes them, the body of its `if __name__ ==
    "__main__":` block (with no `else`) spliced in where the block stands: script code all the same."""
    out: list[cst.BaseStatement] = []
    for stmt in module.body:
        if is_main_block(stmt) and isinstance(stmt, cst.If) and stmt.orelse is None:
            out.extend(stmt.body.body if isinstance(stmt.body, cst.IndentedBlock) else ())
        else:
            out.append(stmt)
    return out


class _Uses:
    def __init__(
        self, imports: P.Imports, models: set[str], datasets: set[str], module: cst.Module, column: str | None
    ) -> None:
        self.imports = imports
        self.models = models
        self.datasets = datasets
        self.module = module
        self.column = column
        self.holders: dict[str, tuple[str, ...]] = {}  # name -> the attributes its rows leave through
        self.loaders: set[str] = set()  # DataLoaders over the rows that keep their keys (column mode)
        self.rows: set[str] = set()  # one row read by its index (`ex = ds[0]`, column mode)
        self.held = False  # some holder was given the rows, or a loop read the loader's batches
        self.named_here = False  # the statement last asked about names the rows (or what holds them)

    def all_rebound(self) -> bool:
        """Is every name that held the rows (or a holder or loader of them) now bound to something else?"""
        return not (self.datasets or self.holders or self.loaders)

    def harmless(self, stmt: cst.CSTNode) -> bool:
        """Does this statement use the dataset (or its holders) only in ways that feed no model? It
        also follows the names the rows are bound to next."""
        tracked = self.datasets | set(self.holders) | self.loaders | self.rows
        found = S.names_in(_read_part(stmt), tracked)
        self.named_here = bool(found)
        if not found:
            for name in S.bound_at_top(stmt):  # the name now holds something else
                self.datasets.discard(name)
                self.holders.pop(name, None)
                self.loaders.discard(name)
                self.rows.discard(name)
            return True
        if found & self.rows and not all(self.column_dropped(stmt, row) for row in found & self.rows):
            return False  # a row's column read into something that is read
        if not self.holder_uses_harmless(stmt):
            return False
        if found & self.loaders and not self.loader_uses_harmless(stmt):
            return False
        if not found & self.datasets:
            return True
        target = S.single_target(stmt)
        value = S.value_of(stmt)
        if value is None:
            return False
        if target is None:  # an expression statement
            return isinstance(stmt, cst.SimpleStatementLine) and self.shown_or_formatted(value)
        if self.column is not None and _one_row_read(value, self.datasets):
            self.rows.add(target)  # `example = ds[0]`: one row, its columns read one by one
            self.datasets.discard(target)
            return True
        if self.same_rows(value):
            self.datasets.add(target)
            self.holders.pop(target, None)
            return True
        if self.column is not None and self.loads_rows(value):
            self.loaders.add(target)
            self.datasets.discard(target)
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
        mentions = S.names_in(stmt, set(self.holders), count=True)
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
            and all(not S.names_in(a.value, self.datasets) for a in value.args[1:])
        )

    def argument_harmless(self, expr: cst.BaseExpression) -> bool:
        """An argument of a rows method: no tracked name handed on, and a function given to `map` or
        `filter` calls no model (a lambda, or a module function read by its body)."""
        if S.names_in(expr, self.datasets | set(self.holders)):
            return False
        return not any(self.calls_a_model(call) for call in S.calls_in(expr))

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
            if S.names_in(arg.value, self.datasets | set(self.holders)) and not (
                given and isinstance(arg.value, cst.Name)
            ):
                return None  # the dataset (or a holder) handed under another role, or inside an expression
        return row.exposes

    def loads_rows(self, value: cst.BaseExpression) -> bool:
        """`DataLoader(ds, batch_size=...)` with no collate function: its default collate keeps each row's
        keys (library table: the loader row's collate role left out)."""
        if not isinstance(value, cst.Call) or not isinstance(value.func, (cst.Name, cst.Attribute)):
            return False
        row = T.wiring_row(self.imports.qualify(value.func) or "")
        if row is None or row.style != "loader":
            return False
        collate_keyword, collate_at = row.roles["collate"]
        dataset_keyword, dataset_at = row.roles["dataset"]
        for i, arg in enumerate(value.args):
            if arg.star or arg.keyword is None and i == collate_at:
                return False
            if arg.keyword is not None and arg.keyword.value == collate_keyword:
                return False
            is_dataset = arg.keyword.value == dataset_keyword if arg.keyword is not None else i == dataset_at
            mentions = S.names_in(arg.value, self.datasets | set(self.holders) | self.loaders)
            if mentions and not (is_dataset and isinstance(arg.value, cst.Name) and arg.value.value in self.datasets):
                return False
        return True

    def loader_uses_harmless(self, stmt: cst.CSTNode) -> bool:
        """Every mention of a loader is `len(loader)` or the iterable of a loop (through `enumerate`, or a
        wiring row that yields its argument's items: `tqdm`), whose batches read the column, if at all,
        into a variable nothing reads."""
        reads = _LoaderLoops(self)
        stmt.visit(reads)
        if reads.ok and reads.count == S.names_in(stmt, self.loaders, count=True):
            self.held = self.held or reads.loops > 0
            return True
        return False

    def column_dropped(self, body: cst.CSTNode, batch: str) -> bool:
        """In a loop body, is every mention of `batch` a string-keyed item, the column's only as the whole
        value of `name = batch[column]` (or a tensor method of it: `.to(device)`) with `name` never read?"""
        explained = 0
        stack: list[cst.CSTNode] = [body]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
                item = S.item_of(node.value, batch)
                if item == self.column and not S.read_anywhere(self.module, node.targets[0].target.value):
                    explained += 1
                    continue
            if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and node.value.value == batch:
                key = S.string_key(node)
                if key is None or key == self.column:
                    return False
                explained += 1
                continue
            stack.extend(P.child_nodes(node))
        return explained == S.names_in(body, {batch}, count=True)


class _LoaderLoops(cst.CSTVisitor):
    """Counts the loader mentions a loop or `len()` explains, and checks each loop's batches."""

    def __init__(self, uses: _Uses) -> None:
        self.uses = uses
        self.count = 0
        self.loops = 0
        self.ok = True

    def visit_For(self, node: cst.For) -> None:
        iterable: cst.BaseExpression = node.iter
        target: cst.BaseExpression = node.target
        while isinstance(iterable, cst.Call) and (first := P.positional(iterable, 0)) is not None:
            qualified = (
                self.uses.imports.qualify(iterable.func)
                if isinstance(iterable.func, (cst.Name, cst.Attribute))
                else None
            )
            if qualified == "enumerate" and isinstance(target, cst.Tuple) and len(target.elements) == 2:
                target = target.elements[1].value
            elif not (qualified and (row := T.wiring_row(qualified)) and row.style == "same"):
                return
            iterable = first.value
        if not (isinstance(iterable, cst.Name) and iterable.value in self.uses.loaders):
            return
        self.count += 1
        self.loops += 1
        if not isinstance(target, cst.Name) or not self.uses.column_dropped(node.body, target.value):
            self.ok = False

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "len" and len(node.args) == 1:
            if isinstance(node.args[0].value, cst.Name) and node.args[0].value.value in self.uses.loaders:
                self.count += 1


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
            if any(S.names_in(a.value, set(self.holders)) for a in node.args):
                self.ok = False


def _one_row_read(value: cst.BaseExpression, datasets: set[str]) -> bool:
    """`ds[0]`, `ds[i]`: one row of a tracked dataset by an index that is not a string (a split, a
    column) nor a slice (rows)."""
    if not (isinstance(value, cst.Subscript) and isinstance(value.value, cst.Name) and value.value.value in datasets):
        return False
    if len(value.slice) != 1 or not isinstance(value.slice[0].slice, cst.Index):
        return False
    index = value.slice[0].slice.value
    return isinstance(index, (cst.Integer, cst.Name, cst.UnaryOperation))


def _read_part(stmt: cst.CSTNode) -> cst.CSTNode:
    """What a statement reads: the value of `name = value` (its target is bound, not read); else itself."""
    if (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Assign)
        and all(isinstance(t.target, cst.Name) for t in stmt.body[0].targets)
    ):
        return stmt.body[0].value
    return stmt
