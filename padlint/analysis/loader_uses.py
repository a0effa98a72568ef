"""How the batches of a DataLoader are read, followed through the module's text (batch_uses.py asks).

`LoaderUses` follows a loader's name to the loops that read its batches (through `enumerate`, the
wiring rows that yield their argument's items, `next(iter(...))`, a module function the loader is
handed to, and calls that hand their arguments back such as `accelerator.prepare`), and judges each read
of a batch: handed to a call as its ids, or (for one item) read only by given readers.
"""

from __future__ import annotations

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis import script_names as S
from padlint.analysis.one_row import argument_for
from padlint.semantics import table as T

# Reads of a batch that give its size, not its values.
SIZE_ATTRIBUTES = frozenset({"shape", "size", "dtype", "device", "ndim"})
SIZE_CALLS = frozenset({"len"})


class LoaderUses:
    def __init__(
        self, module: cst.Module, parents: dict, imports: P.Imports, item: tuple[str, frozenset[str]] | None = None
    ) -> None:
        self.item = item  # (key, reader methods): only that item's reads are judged (item_read_only_by)
        self.module = module
        self.parents = parents
        self.imports = imports
        self.consumers: list[cst.Call] = []
        self.seen_loaders: set[str] = set()
        self.seen_datasets: set[str] = set()
        self.loops = 0  # `for` loops over a loader's batches found (and `next(iter(loader))` takes)
        self.seen_parameters: set[cst.Name] = set()
        self.instance_classes: dict[str, str | None] | None = None

    def qualified(self, call: cst.Call) -> str | None:
        func = call.func
        return self.imports.qualify(func) if isinstance(func, (cst.Name, cst.Attribute)) else None

    def collate_of(self, node: cst.CSTNode) -> cst.Call | None:
        """The DataLoader call `node` is handed to as its collate function, if that is where it is."""
        return self.loader_taking(node, "collate")

    def dataset_of(self, node: cst.CSTNode) -> cst.Call | None:
        """The DataLoader call `node` is handed to as its dataset, if that is where it is."""
        return self.loader_taking(node, "dataset")

    def loader_taking(self, node: cst.CSTNode, role: str) -> cst.Call | None:
        """The loader call (wiring row of style "loader") `node` is handed to in `role` (the row's
        keyword and position for it), if that is where it is."""
        arg = self.parents.get(node)
        call = self.parents.get(arg)
        if not isinstance(arg, cst.Arg) or arg.value is not node or not isinstance(call, cst.Call):
            return None
        row = T.wiring_row(self.qualified(call) or "")
        if row is None or row.style != "loader":
            return None
        keyword, position = row.roles[role]
        if arg.keyword is not None:
            return call if arg.keyword.value == keyword else None
        positional = [a for a in call.args if a.keyword is None and not a.star]
        return call if position is not None and arg in positional and positional.index(arg) == position else None

    def handed_to_function(self, node: cst.Name) -> bool:
        """A loader handed to a module-level function of the module (`train(train_loader, model)`):
        every mention of the parameter it binds is read as the loader's."""
        handed = self.argument_of(node)
        if handed is None:
            return False
        arg, call = handed
        name = call.func.value if isinstance(call.func, cst.Name) else None
        fn = next((s for s in self.module.body if isinstance(s, cst.FunctionDef) and s.name.value == name), None)
        if fn is None:
            return False
        params = (*fn.params.posonly_params, *fn.params.params)
        param = next((p.name for p in params if argument_for(call, fn, p.name.value) is arg), None)
        if param is None:
            return False
        if param in self.seen_parameters:
            return True
        self.seen_parameters.add(param)
        mentions = [n for n in S.name_nodes([fn.body], {param.value})]
        return all(not self.bound_at(n) and (self.is_size_read(n) or self.iterated(n)) for n in mentions)

    def argument_of(self, node: cst.CSTNode) -> tuple[cst.Arg, cst.Call] | None:
        """The argument `node` is (not starred), and the call it is handed to."""
        arg = self.parents.get(node)
        call = self.parents.get(arg)
        if isinstance(arg, cst.Arg) and arg.value is node and isinstance(call, cst.Call) and not arg.star:
            return arg, call
        return None

    def follow_loader(self, loader: cst.Call) -> bool:
        """Is every batch of this loader read where its consumers are in view?"""
        parent = self.parents.get(loader)
        if isinstance(parent, cst.Assign) and len(parent.targets) == 1:
            target = parent.targets[0].target
            return isinstance(target, cst.Name) and self.follow_loader_name(target.value)
        return self.iterated(loader)

    def follow_loader_name(self, name: str) -> bool:
        if name in self.seen_loaders:
            return True
        self.seen_loaders.add(name)
        return all(self.loader_mention(n) for n in names_in(self.module, {name}))

    def loader_mention(self, node: cst.Name) -> bool:
        """A mention of a loader's name: bound (a target), its length, or read for its batches."""
        parent = self.parents.get(node)
        if isinstance(parent, cst.AssignTarget) and parent.target is node:
            return True
        if isinstance(parent, cst.Element) and self.bound_in_tuple(parent):
            return True  # `model, loader = accelerator.prepare(model, loader)` binds it again
        if self.is_size_read(node):
            return True
        return self.iterated(node) or self.handed_to_function(node) or self.handed_back(node)

    def bound_in_tuple(self, element: cst.Element) -> bool:
        tuple_node = self.parents.get(element)
        target = self.parents.get(tuple_node)
        return isinstance(tuple_node, (cst.Tuple, cst.List)) and isinstance(target, cst.AssignTarget)

    def handed_back(self, node: cst.Name) -> bool:
        """A loader handed to a call that hands each argument back in order (wiring rows of style "returns
        arguments": `train_dl, model = accelerator.prepare(train_dl, model)`): the name it is bound to
        again is the loader, followed as such."""
        handed = self.argument_of(node)
        if handed is None:
            return False
        arg, call = handed
        row = T.wiring_row(self.method_of_instance(call) or "")
        assign = self.parents.get(call)
        if row is None or row.style != "returns arguments" or arg.keyword is not None:
            return False
        if not (isinstance(assign, cst.Assign) and assign.value is call and len(assign.targets) == 1):
            return False
        positional = [a for a in call.args if a.keyword is None]
        if any(a.star for a in positional):
            return False
        target = assign.targets[0].target
        bound: cst.BaseExpression | None = target if len(positional) == 1 else None
        if isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == len(positional) > 1:
            bound = target.elements[positional.index(arg)].value
        return isinstance(bound, cst.Name) and self.follow_loader_name(bound.value)

    def method_of_instance(self, call: cst.Call) -> str | None:
        """`acc.prepare` -> `accelerate.Accelerator.prepare` when the module binds `acc` only to
        `Accelerator(...)` (as imported)."""
        if not isinstance(call.func, cst.Attribute):
            return None
        if self.instance_classes is None:
            self.instance_classes = instance_classes(self.module, self.imports)
        return method_named(call.func, self.instance_classes)

    def iterated(self, node: cst.CSTNode) -> bool:
        """`node` read for its batches: a loop's iterable (through `enumerate` and the wiring rows that
        yield their argument's items: `tqdm`, `iter`), or `name = next(iter(node))`."""
        enumerated = 0
        current: cst.CSTNode = node
        while True:
            arg = self.parents.get(current)
            call = self.parents.get(arg)
            if not (isinstance(arg, cst.Arg) and isinstance(call, cst.Call) and P.positional(call, 0) is arg):
                break
            qualified = self.qualified(call)
            row = T.wiring_row(qualified or "")
            if qualified == "enumerate":
                enumerated += 1
            elif row is not None and row.style == "next":
                return enumerated == 0 and self.batch_bound(call)
            elif row is None or row.style != "same":
                return False
            current = call
        loop = self.parents.get(current)
        if not isinstance(loop, cst.For) or loop.iter is not current:
            return False
        target: cst.BaseExpression = loop.target
        for _ in range(enumerated):  # `for i, batch in enumerate(...)`: the second element
            if not isinstance(target, cst.Tuple) or len(target.elements) != 2:
                return False
            target = target.elements[1].value
        if not isinstance(target, cst.Name):
            return False
        self.loops += 1
        return self.read(target.value, [loop.body])

    def batch_bound(self, call: cst.Call) -> bool:
        """`batch = next(iter(loader))`: the batch is read by the statements after it in its block."""
        assign = self.parents.get(call)
        line = self.parents.get(assign)
        block = self.parents.get(line)
        if not (isinstance(assign, cst.Assign) and len(assign.targets) == 1 and assign.value is call):
            return False
        target = assign.targets[0].target
        body = getattr(block, "body", None)
        if not isinstance(target, cst.Name) or not isinstance(body, (list, tuple)):
            return False
        at = next((i for i, stmt in enumerate(body) if stmt is line), None)
        self.loops += 1  # a batch taken is a batch read, as by a loop
        return at is not None and self.read(target.value, list(body[at + 1 :]))

    def read(self, name: str, region: list) -> bool:
        return self.item_read(name, region) if self.item is not None else self.batch_read(name, region)

    def item_read(self, name: str, region: list) -> bool:
        """Is every mention of the batch `name` in `region` a read of its size, of another item, or of
        the item judged straight into a reader's call?"""
        assert self.item is not None
        key, readers = self.item
        for node in S.name_nodes(region, {name}):
            if self.bound_at(node) or self.is_size_read(node):
                continue
            found = self.item_taken(node)
            if found is None:
                return False  # the batch whole goes somewhere
            read, taken = found
            if read is None:
                return False
            if read != key:
                continue
            carried = self.carried(taken)  # `batch["labels"].cpu()`: the same values
            alias = self.alias_bound(carried)
            if alias is not None:  # `answers = batch["labels"]`: every read of the name is judged
                reads = [n for n in S.name_nodes(region, {alias}) if not self.bound_at(n)]
                if not all(self.read_by(n, readers) or self.rows_read_by(n, readers) for n in reads):
                    return False
            elif not self.read_by(taken, readers):
                return False
        return True

    def item_taken(self, node: cst.CSTNode) -> tuple[str | None, cst.CSTNode] | None:
        """`batch["labels"]`, `batch.pop("labels")`, `batch.get("labels")`: the key read (None: not a
        constant) and the expression that reads it; None for any other use of the batch."""
        parent = self.parents.get(node)
        if isinstance(parent, cst.Subscript) and parent.value is node and len(parent.slice) == 1:
            index = parent.slice[0].slice
            return (P.string_value(index.value) if isinstance(index, cst.Index) else None), parent
        call = self.parents.get(parent)
        if (
            isinstance(parent, cst.Attribute)
            and parent.value is node
            and parent.attr.value in ("pop", "get")
            and isinstance(call, cst.Call)
            and call.func is parent
        ):
            return P.popped_key(call), call
        return None

    def rows_read_by(self, node: cst.CSTNode, readers: frozenset[str]) -> bool:
        """`for text, answer in zip(preds, answers):` or `for answer in answers:` over the item (`node`):
        is every read of the loop's variable for its rows an argument of a call of `readers`?"""
        arg = self.parents.get(node)
        call = self.parents.get(arg)
        position = None
        if isinstance(arg, cst.For) and arg.iter is node:
            loop: cst.CSTNode | None = arg
        elif (
            isinstance(arg, cst.Arg)
            and arg.value is node
            and isinstance(call, cst.Call)
            and isinstance(call.func, cst.Name)
            and call.func.value == "zip"
            and not any(a.star or a.keyword for a in call.args)
        ):
            loop, position = self.parents.get(call), list(call.args).index(arg)
            if not isinstance(loop, cst.For) or loop.iter is not call:
                return False
        else:
            return False
        assert isinstance(loop, cst.For)
        target: cst.BaseExpression = loop.target
        if position is not None:
            if not isinstance(target, cst.Tuple) or position >= len(target.elements):
                return False
            target = target.elements[position].value
        if not isinstance(target, cst.Name):
            return False
        reads = [n for n in S.name_nodes([loop.body], {target.value}) if not self.bound_at(n)]
        return bool(reads) and all(self.read_by(n, readers) for n in reads)

    def read_by(self, node: cst.CSTNode, readers: frozenset[str]) -> bool:
        """Is `node` (moved or indexed on the way) an argument of a call of `readers`, or read for its size?"""
        if self.is_size_read(node):
            return True
        arg = self.parents.get(self.carried(node))
        call = self.parents.get(arg)
        return isinstance(arg, cst.Arg) and isinstance(call, cst.Call) and P.last_name(call.func) in readers

    def bound_at(self, node: cst.CSTNode) -> bool:
        parent = self.parents.get(node)
        return isinstance(parent, cst.AssignTarget) and parent.target is node

    def batch_read(self, name: str, region: list) -> bool:
        """Is every mention of the batch `name` in `region` a read by a call that receives it as its
        ids (first argument or `input_ids=`), perhaps moved (`.to(device)`) or indexed (`batch[0]`)
        on the way, or through a name bound to such a read; or a read of its size?"""
        tracked = {name}
        grown = True
        while grown:  # names bound to the batch moved or indexed (`ids = batch.to(device)`) are the batch
            grown = False
            for node in S.name_nodes(region, tracked):
                alias = self.alias_bound(self.carried(node))
                if alias is not None and alias not in tracked:
                    tracked.add(alias)
                    grown = True
        for node in S.name_nodes(region, tracked):
            parent = self.parents.get(node)
            if isinstance(parent, cst.AssignTarget) and parent.target is node:
                continue
            if self.is_size_read(node):
                continue
            carried = self.carried(node)
            if self.alias_bound(carried) is not None:
                continue
            consumer = self.consumer_of(carried)
            if consumer is None:
                return False
            self.consumers.append(consumer)
        return True

    def carried(self, node: cst.CSTNode) -> cst.CSTNode:
        """The outermost expression that is `node` moved by methods that keep its values, or indexed."""
        keeps = T.names("keeps", on="method")
        while True:
            parent = self.parents.get(node)
            if isinstance(parent, cst.Subscript) and parent.value is node:
                node = parent
                continue
            call = self.parents.get(parent)
            if (
                isinstance(parent, cst.Attribute)
                and parent.value is node
                and parent.attr.value in keeps
                and isinstance(call, cst.Call)
                and call.func is parent
            ):
                node = call
                continue
            return node

    def alias_bound(self, node: cst.CSTNode) -> str | None:
        parent = self.parents.get(node)
        if isinstance(parent, cst.Assign) and parent.value is node and len(parent.targets) == 1:
            target = parent.targets[0].target
            return target.value if isinstance(target, cst.Name) else None
        return None

    def consumer_of(self, node: cst.CSTNode) -> cst.Call | None:
        """The call receiving `node` as its ids: its first positional argument, or `input_ids=`."""
        arg = self.parents.get(node)
        call = self.parents.get(arg)
        if not isinstance(arg, cst.Arg) or not isinstance(call, cst.Call) or arg.value is not node:
            return None
        if arg.keyword is not None:
            return call if arg.keyword.value == "input_ids" else None
        return call if P.positional(call, 0) is arg else None

    def is_size_read(self, node: cst.CSTNode) -> bool:
        """`len(batch)`, `batch.shape`, `batch.size(0)`: the batch's size, not its values."""
        parent = self.parents.get(node)
        if isinstance(parent, cst.Attribute) and parent.value is node:
            return parent.attr.value in SIZE_ATTRIBUTES
        call = self.parents.get(parent)
        return (
            isinstance(parent, cst.Arg)
            and isinstance(call, cst.Call)
            and isinstance(call.func, cst.Name)
            and call.func.value in SIZE_CALLS
            and len(call.args) == 1
        )


def method_named(func: cst.Attribute, classes: dict[str, str | None]) -> str | None:
    """`acc.prepare` -> "accelerate.Accelerator.prepare" where `classes` (instance_classes) binds `acc` only to
    `Accelerator(...)`."""
    made_by = classes.get(func.value.value) if isinstance(func.value, cst.Name) else None
    return f"{made_by}.{func.attr.value}" if made_by else None


def instance_classes(module: cst.Module, imports: P.Imports) -> dict[str, str | None]:
    """Each name the module binds to a call (`acc = Accelerator()`) -> the qualified name of what is
    called; None for a name bound to two different things or in another way too."""
    found: dict[str, str | None] = {}
    stack: list[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        stack.extend(P.child_nodes(node))
        if not isinstance(node, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
            continue
        targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
        value = node.value
        made = None
        if isinstance(value, cst.Call) and isinstance(value.func, (cst.Name, cst.Attribute)):
            made = imports.qualify(value.func)
        for target in targets:
            if isinstance(target, cst.Name):
                name = target.value
                found[name] = made if found.get(name, made) == made else None
            elif isinstance(target, (cst.Tuple, cst.List)):
                for element in target.elements:
                    if isinstance(element.value, cst.Name):
                        found[element.value.value] = None
    return found


# The module whose parents were last mapped, and its map: the questions about a module's loaders (whose
# batches reach which calls, whose labels are read, which collate function is fed) come one module at a
# time, so one entry serves them all and no earlier module's tree is kept alive.
_LAST: list[tuple[cst.Module, dict[cst.CSTNode, cst.CSTNode]]] = []


def parents_of(module: cst.Module) -> dict[cst.CSTNode, cst.CSTNode]:
    """Each node's parent (libcst's nodes have no parent link), by identity."""
    if _LAST and _LAST[0][0] is module:
        return _LAST[0][1]
    parents: dict[cst.CSTNode, cst.CSTNode] = {}
    stack: list[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        for child in P.child_nodes(node):
            parents[child] = node
            stack.append(child)
    _LAST[:] = [(module, parents)]
    return parents


def nearest(
    parents: dict[cst.CSTNode, cst.CSTNode], node: cst.CSTNode, kind: type | tuple[type, ...]
) -> cst.CSTNode | None:
    """The innermost node of type `kind` (or of one of the types) that `node` sits in (itself left out),
    by the parents map."""
    current = parents.get(node)
    while current is not None and not isinstance(current, kind):
        current = parents.get(current)
    return current


def names_in(root: cst.CSTNode, names: set[str]) -> list[cst.Name]:
    """Every `Name` node spelling one of `names` (an attribute's own name and a keyword are not)."""
    return S.name_nodes([root], names)


def definition_names(root: cst.CSTNode) -> set[int]:
    """The ids of the `Name` nodes that name a def or a class (where a name is defined, not used)."""
    found: set[int] = set()
    stack: list[cst.CSTNode] = [root]
    while stack:
        current = stack.pop()
        if isinstance(current, (cst.FunctionDef, cst.ClassDef)):
            found.add(id(current.name))
        stack.extend(P.child_nodes(current))
    return found
