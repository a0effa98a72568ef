"""Framework wiring: how datasets, loaders, collators and trainers hand values to one another.

What a library entry point does with the callables and datasets it is given is data (the library
table's "wiring" rows, semantics/wiring_rows.py, each checked against the named version's source); the
scope walker applies a row where the call is made: `DataLoader(ds, collate_fn=f)` walks `f` over a list of `ds`'s items and yields what
it returns; `Trainer(train_dataset=ds, data_collator=f)` walks `f` over `ds`'s rows (the trainer then
calls the model with `**batch`); `for batch in loader:` reads one batch. An item of a dataset is what
its `__getitem__` returns (objects.py) or what the function mapped over it returns (calls.py).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.env import EMPTY
from padlint.analysis.objects import partial_arguments
from padlint.analysis.values import (
    Batches,
    DatasetOf,
    Encoding,
    FunctionRef,
    GoodMask,
    Instance,
    OneText,
    Padded,
    Partial,
    TupleOf,
    Value,
    each_tag,
    tags_of,
)
from padlint.analysis.walker_state import WalkerState
from padlint.semantics import table as T
from padlint.semantics.row import Row


class Wiring(WalkerState):
    """Mixed into the scope walker."""

    def wiring_call(self, call: cst.Call, qualified: str) -> Value | None:
        row = T.wiring_row(qualified)
        if row is None:
            return None
        if row.style == "partial":
            fn = P.positional(call, 0)
            if fn is None:
                return None
            bound = tuple(
                (a.keyword.value if a.keyword else None, self.argument_value(a.value))
                for a in call.args[1:]
                if not a.star
            )
            return frozenset({Partial(self.callee_value(fn.value), bound)})
        if row.style == "tensors":  # `TensorDataset(ids, labels)`: item i is (ids[i], labels[i])
            # rows the framework picks: the encoding's mask as written here no longer fits them
            items = tuple(
                frozenset(t.moved() if isinstance(t, Padded) else t for t in self.evaluate(a.value))
                for a in call.args
                if a.keyword is None and not a.star
            )
            return frozenset({DatasetOf(frozenset().union(*items) | {TupleOf(items)})})
        if row.style == "splits":  # `train, val = random_split(ds, [n, len(ds) - n])`: each holds ds's items
            first, lengths = P.positional(call, 0), P.positional(call, 1) or P.keyword(call, "lengths")
            self.evaluate_args(call)
            if first is None or lengths is None or not isinstance(lengths.value, (cst.List, cst.Tuple)):
                return EMPTY
            value = self.evaluate(first.value)
            return frozenset({TupleOf(tuple(value for _ in lengths.value.elements))})
        if row.style in ("same", "next"):
            first = P.role_argument(call, row.roles["items"]) if "items" in row.roles else P.positional(call, 0)
            self.evaluate_args(call)
            if first is None:
                return EMPTY
            value = self.evaluate(first.value)
            return self.iterated(value) if row.style == "next" else value
        if row.style in ("returns arguments", "returns roles"):
            return self.handed_back(call, row)
        return self.wired_constructor(qualified, call, None)

    def handed_back(self, call: cst.Call, row: Row) -> Value:
        """What a call that hands its arguments back returns (`model, opt, dl = accelerator.prepare(model,
        opt, dl)`): each argument's value in its place; one value alone, several as a tuple."""
        values = dict(zip((id(a) for a in call.args), self.evaluate_args(call)))
        if any(a.star for a in call.args):
            return EMPTY
        if row.style == "returns arguments":
            handed = [values[id(a)] for a in call.args if a.keyword is None]
        else:
            for name, default in row.defaults.items():
                given = P.keyword(call, name)
                if given is not None and P.string_value(given.value) != default:
                    return EMPTY  # another value of it returns another tuple (the row's condition)
            args = [P.role_argument(call, role) for role in row.roles.values()]
            if any(a is None for a in args):
                return EMPTY
            handed = [values[id(a)] for a in args if a is not None]
        if not handed:
            return EMPTY
        return handed[0] if len(handed) == 1 else frozenset({TupleOf(tuple(handed))})

    def wired_constructor(self, qualified: str, call: cst.Call, values: list | None) -> Value | None:
        """A DataLoader or a Trainer: walk the collate function over the dataset's items."""
        row = T.wiring_row(qualified)
        if row is None or row.style not in ("loader", "trainer"):
            return None
        given = values if values is not None else [(a, self.evaluate(a.value)) for a in call.args]
        # A lambda is walked where it is written; handed to the wiring, it is walked with the rows.
        given = [(a, frozenset({LambdaRef(a.value)}) if isinstance(a.value, cst.Lambda) else v) for a, v in given]
        roles: dict[str, Value] = {}
        positional = [v for a, v in given if a.keyword is None and not a.star]
        for role, (name, position) in row.roles.items():
            role = "dataset" if role.endswith("dataset") else role  # a trainer's train and eval datasets alike
            for arg, value in given:
                if arg.keyword is not None and arg.keyword.value == name:
                    roles[role] = roles.get(role, EMPTY) | value
            if position is not None and position < len(positional):
                roles[role] = roles.get(role, EMPTY) | positional[position]
        items = frozenset().union(*(d.item for d in tags_of(roles.get("dataset", EMPTY), DatasetOf)))
        collate = roles.get("collate", EMPTY)
        if collate:
            batch = self.collated(collate, items, call)
        else:
            batch = default_collated(items) if row.default_collate == "stacks" else items
        if row.style == "trainer" and batch:
            self.batch_to_model(roles.get("model", EMPTY), batch)
        return frozenset({Batches(batch)}) if row.style == "loader" else EMPTY

    def batch_to_model(self, model: Value, batch: Value) -> None:
        """A trainer calls its model with `**batch`: the forward of a model class of the project is walked
        with the batch's fields (a pretrained model's own forward is the library's, judged at the table)."""
        spread = cst.Arg(cst.Name("_"), star="**")
        for inst in tags_of(model, Instance):
            found = self.find_method(inst, "forward") if inst.model else None
            if found is not None:
                self.call_method(inst, found, [(spread, batch)], None)

    def collated(self, collate: Value, items: Value, call: cst.Call) -> Value:
        """What a collate function returns for a list of these items."""
        out: Value = EMPTY
        rows = _Rows(items)
        for tag in collate:
            if isinstance(tag, FunctionRef):
                out |= self.call_function(tag.node, tag.env, [rows.arg()], False, None)
            elif isinstance(tag, Partial):
                for fn in tags_of(tag.func, FunctionRef):
                    out |= self.call_function(fn.node, fn.env, partial_arguments(tag, [rows.arg()]), False, None)
            elif isinstance(tag, Instance):
                found = self.find_method(tag, "__call__")
                if found is not None:
                    out |= self.call_method(tag, found, [rows.arg()], None)
            elif isinstance(tag, LambdaRef):
                out |= self.walk_lambda(tag.node, args={_first_param(tag.node): items})
        return out

    def iterated(self, value: Value) -> Value:
        """What a loop over this value binds: a batch of a loader, an item of a dataset; else the
        value itself (a list of padded rows is read as its rows)."""
        found = [t for t in value if isinstance(t, (Batches, DatasetOf))]
        if not found:
            return value
        out = frozenset(t for t in value if not isinstance(t, (Batches, DatasetOf, Instance)))
        for tag in found:
            out |= tag.item
        return out


@dataclass(eq=False)
class LambdaRef:
    """A lambda handed to a wiring call (`collate_fn=lambda rows: ...`), walked with its rows."""

    node: cst.Lambda


class _Rows:
    """A value handed to a parameter as if by an argument (for summarise's binding)."""

    def __init__(self, value: Value):
        self.value = value

    def arg(self, keyword: str | None = None) -> tuple:
        node = cst.Arg(cst.Name("_"), keyword=cst.Name(keyword) if keyword else None)
        return node, self.value


def _first_param(node: cst.Lambda) -> str:
    params = list(P.parameters(node.params))
    return params[0].name.value if params else "_"


def default_collated(items: Value) -> Value:
    """What a loader without a collate function hands on for rows like `items` (the DataLoader row's
    default_collate): tensors and arrays become stacked tensors; lists are transposed into lists of
    per-position tensors, a form no fix can be written for ("?"); one string per row becomes a list of
    them (no longer one text)."""
    return each_tag(items, _collated)


def _collated_kind(kind: str) -> str:
    return kind if kind == "pt" else "pt" if kind == "np" else "?"


def _collated(tag):
    if isinstance(tag, OneText):
        return None  # one string per row, collated: a list of them
    if isinstance(tag, Padded):
        mask_kind = _collated_kind(tag.mask_kind) if tag.mask_kind is not None else None
        return tag.but(kind=_collated_kind(tag.kind), mask_kind=mask_kind)
    if isinstance(tag, (Encoding, GoodMask)):
        return dataclasses.replace(tag, kind=_collated_kind(tag.kind))
    return tag
