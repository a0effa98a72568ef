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
from padlint.analysis.loader_uses import LoaderUses, definition_names, names_in, parents_of


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


def made_collator_item_unread(module: cst.Module, made: cst.Call, imports: P.Imports, key: str) -> bool:
    """Is the collator object `made` (`collator = DataCollatorForLanguageModeling(...)`) handed only to
    DataLoaders whose every batch is read in view, and its `key` item never read (the loop computes its
    loss from the ids and reads no `batch["labels"]`)? What the collator puts in that item reaches nothing."""
    parents = parents_of(module)
    assign = parents.get(made)
    if not (isinstance(assign, cst.Assign) and assign.value is made and len(assign.targets) == 1):
        return False
    target = assign.targets[0].target
    if not isinstance(target, cst.Name):
        return False
    uses = LoaderUses(module, parents, imports, (key, frozenset()))
    followed = _follow_handed(uses, [n for n in names_in(module, {target.value}) if not uses.bound_at(n)])
    return followed is not None and followed.loops > 0


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
    parents = parents_of(module)
    defined = definition_names(module)
    made = [n for n in names_in(module, {dataset.name.value}) if id(n) not in defined]
    uses = LoaderUses(module, parents, imports, (key, readers))
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
        for mention in names_in(module, {instance}):
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
) -> LoaderUses | None:
    """The uses of the batches `maker` makes, every one followed into DataLoaders read in view; None when
    it is handed nowhere, or somewhere the analysis cannot follow."""
    parents = parents_of(module)
    if isinstance(maker, cst.Lambda):
        handed: list[cst.CSTNode] = [maker]
    else:
        if isinstance(parents.get(maker), cst.IndentedBlock) and isinstance(parents.get(parents[maker]), cst.ClassDef):
            return None  # a method: handed as `self.collate`, whose uses are attributes
        defined = definition_names(module)  # another def of that name (a method) is no use of this one
        handed = [n for n in names_in(module, {maker.name.value}) if id(n) not in defined]
    return _follow_handed(LoaderUses(module, parents, imports, item), handed)


def _follow_handed(uses: LoaderUses, handed: list[cst.CSTNode]) -> LoaderUses | None:
    """`uses`, once every one of `handed` (mentions of a collate function or collator) is followed into
    the DataLoader it is the collate function of; None when it is handed nowhere, or one goes elsewhere."""
    for node in handed:
        loader = uses.collate_of(node)
        if loader is None or not uses.follow_loader(loader):
            return None
    return uses if handed else None
