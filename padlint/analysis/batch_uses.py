"""Who receives the batches a collate function makes: the calls its DataLoaders' batches reach.

Bare ids a collate function hands back (`return tok(texts, padding=True).input_ids`) lose their
attention mask where they are returned, but whether that harms depends on who reads the batches. The
DataLoader wiring row says where they go: `DataLoader(ds, collate_fn=f)` yields what `f` returns, and
`for batch in loader:` (through `enumerate`, `tqdm`, `iter`) or `batch = next(iter(loader))` reads one
batch. This module lists the calls that receive such a batch (or one of its items, or the batch moved
by a method that keeps its values: `.to(device)`), when every use of the function, of its loaders and of
their batches is one of these shapes. Anything else (the function handed elsewhere, a loader returned,
given to a Trainer or `accelerator.prepare`, a batch stored, returned or handed to code as something
other than the ids) is a consumer not in view: the answer is None. Which of the calls rebuilds or
needs the mask is the flow's judgement (facts.mask_not_needed_at), from the library table.
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


def batch_consumers(
    module: cst.Module, maker: cst.FunctionDef | cst.Lambda, imports: P.Imports
) -> tuple[cst.Call, ...] | None:
    """The calls that receive the batches `maker` (a collate function, or a lambda handed as one) makes,
    when every one is in view; None when some use goes where the analysis cannot follow it."""
    uses = _followed(module, maker, imports)
    return tuple(uses.consumers) if uses is not None and uses.consumers else None


def batches_unread(module: cst.Module, maker: cst.FunctionDef, imports: P.Imports) -> bool:
    """Is `maker` (a collate function) handed only to DataLoaders that nothing iterates, hands on or
    returns (a script that builds its loaders and stops before the loop)? Then no batch is ever made."""
    uses = _followed(module, maker, imports)
    return uses is not None and uses.loops == 0 and not uses.consumers


def item_read_only_by(
    module: cst.Module, maker: cst.FunctionDef | cst.Lambda, imports: P.Imports, key: str, readers: frozenset[str]
) -> bool:
    """Is every batch `maker` (a collate function) makes read in view, its `key` item only ever handed
    straight to a call of `readers` (`tokenizer.batch_decode(batch["labels"])`: text for a metric)? Any
    other read of that item, or of the batch whole (`model(**batch)`, handed to a function), may grade
    it."""
    uses = _followed(module, maker, imports, item=(key, readers))
    return uses is not None and uses.loops > 0  # no loop reads them: batches_unread's business


def dataset_item_read_only_by(
    module: cst.Module, dataset: cst.ClassDef, imports: P.Imports, key: str, readers: frozenset[str]
) -> bool:
    """Is every batch of every DataLoader over an instance of `dataset` (a Dataset class of the module)
    read in view, its `key` item only ever handed to a call of `readers` (a reward or metric that decodes
    the labels to text)? The instances, their loaders and the batches are followed as for a collate
    function, also into a function of the module the loader is handed to (`train(train_loader, ...)`)."""
    parents = _parents(module)
    defined = _definition_names(module)
    made = [n for n in _names(module, {dataset.name.value}) if id(n) not in defined]
    uses = _Uses(module, parents, imports, (key, readers))
    for name in made:
        call = parents.get(name)
        if not (isinstance(call, cst.Call) and call.func is name):
            return False  # the class handed on, subclassed or named otherwise: uses out of view
        instance = uses.alias_bound(call)
        if instance is None:
            return False  # made and handed straight on (`DataLoader(Rows(...))` aside: not followed)
        if instance in uses.seen_datasets:
            continue
        uses.seen_datasets.add(instance)
        loaders = 0
        for mention in _names(module, {instance}):
            if uses.bound_at(mention) or uses.is_size_read(mention):
                continue
            loader = uses.dataset_of(mention)
            if loader is None or not uses.follow_loader(loader):
                return False
            loaders += 1
        if not loaders:
            return False  # an instance no loader in view reads: whoever reads its items is out of view
    return bool(made) and uses.loops > 0  # loaders no loop reads: their batches go out of view


def _followed(
    module: cst.Module,
    maker: cst.FunctionDef | cst.Lambda,
    imports: P.Imports,
    item: tuple[str, frozenset[str]] | None = None,
) -> _Uses | None:
    """The uses of the batches `maker` makes, every one followed into DataLoaders read in view; None when
    it is handed nowhere, or somewhere the analysis cannot follow."""
    parents = _parents(module)
    if isinstance(maker, cst.Lambda):
        handed: list[cst.CSTNode] = [maker]
    else:
        if isinstance(parents.get(maker), cst.IndentedBlock) and isinstance(parents.get(parents[maker]), cst.ClassDef):
            return None  # a method: handed as `self.collate`, whose uses are attributes
        defined = _definition_names(module)  # another def of that name (a method) is no use of this one
        handed = [n for n in _names(module, {maker.name.value}) if id(n) not in defined]
    uses = _Uses(module, parents, imports, item)
    for node in handed:
        loader = uses.collate_of(node)
        if loader is None or not uses.follow_loader(loader):
            return None
    return uses if handed else None


class _Uses:
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
        arg = self.parents.get(node)
        call = self.parents.get(arg)
        if not (isinstance(arg, cst.Arg) and arg.value is node and isinstance(call, cst.Call) and not arg.star):
            return False
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

    def follow_loader(self, loader: cst.Call) -> bool:
        """Is every batch of this loader read where its consumers are in view?"""
        parent = self.parents.get(loader)
        if isinstance(parent, cst.Assign) and len(parent.targets) == 1:
            target = parent.targets[0].target
            if not isinstance(target, cst.Name):
                return False
            if target.value in self.seen_loaders:
                return True
            self.seen_loaders.add(target.value)
            return all(self.loader_mention(n) for n in _names(self.module, {target.value}))
        return self.iterated(loader)

    def loader_mention(self, node: cst.Name) -> bool:
        """A mention of a loader's name: bound (a target), its length, or read for its batches."""
        parent = self.parents.get(node)
        if isinstance(parent, cst.AssignTarget) and parent.target is node:
            return True
        if self.is_size_read(node):
            return True
        return self.iterated(node) or self.handed_to_function(node)

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
            parent = self.parents.get(node)
            if self.bound_at(node) or self.is_size_read(node):
                continue
            if not isinstance(parent, cst.Subscript) or parent.value is not node or len(parent.slice) != 1:
                return False  # the batch whole goes somewhere
            index = parent.slice[0].slice
            read = P.string_value(index.value) if isinstance(index, cst.Index) else None
            if read is None:
                return False
            if read != key:
                continue
            carried = self.carried(parent)  # `batch["labels"].cpu()`: the same values
            alias = self.alias_bound(carried)
            if alias is not None:  # `answers = batch["labels"]`: every read of the name is judged
                if not all(self.read_by(n, readers) for n in S.name_nodes(region, {alias}) if not self.bound_at(n)):
                    return False
            elif not self.read_by(parent, readers):
                return False
        return True

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


def _parents(module: cst.Module) -> dict[cst.CSTNode, cst.CSTNode]:
    """Each node's parent (libcst's nodes have no parent link), by identity."""
    parents: dict[cst.CSTNode, cst.CSTNode] = {}
    stack: list[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        for child in P.child_nodes(node):
            parents[child] = node
            stack.append(child)
    return parents


def _names(root: cst.CSTNode, names: set[str]) -> list[cst.Name]:
    """Every `Name` node spelling one of `names` (an attribute's own name and a keyword are not)."""
    return S.name_nodes([root], names)


def _definition_names(root: cst.CSTNode) -> set[int]:
    """The ids of the `Name` nodes that name a def or a class (where a name is defined, not used)."""
    found: set[int] = set()
    stack: list[cst.CSTNode] = [root]
    while stack:
        current = stack.pop()
        if isinstance(current, (cst.FunctionDef, cst.ClassDef)):
            found.add(id(current.name))
        stack.extend(P.child_nodes(current))
    return found
