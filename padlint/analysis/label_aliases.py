"""Hooks of the flow pass for labels that alias the ids: `labels = input_ids` (or a view of them) binds no
copy, so an in-place write into the labels that is followed by a read of the ids is a write into the ids."""

from __future__ import annotations

import re

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.env import EMPTY, place_key
from padlint.analysis.facts import AliasWrittenInPlace
from padlint.analysis.values import Encoding, Padded, first, tags_of
from padlint.analysis.walker_state import WalkerState

IDS_NAME = re.compile(r"(^|_)(input_)?ids$|tokens$|token_ids$", re.I)
# A place named as labels holds labels, whatever its suffix (`batch["labels_ids"]`): not the input ids.
# (Targets are left: `target_ids` are also a decoder's inputs, shifted.)
LABELS_PLACE = re.compile(r"label", re.I)


class LabelAliases(WalkerState):
    """Mixed into the scope walker: labels aliasing the ids, and writes through them."""

    def note_alias(self, key: str, target: cst.BaseExpression, value_node: cst.BaseExpression) -> None:
        """`labels = input_ids`: no copy; an in-place write into labels would reach the ids."""
        source = place_key(value_node) or self.view_of(value_node)
        leaf = (source or "").rsplit(".", 1)[-1].split("[")[-1].strip("'\"]")
        rebinding = source is not None and source.startswith((key + "[", key + "."))  # `labels = labels["input_ids"]`
        # The value is evaluated (again) only for an alias: this runs for every name assigned.
        held = tags_of(self.evaluate(value_node), Padded) if source is not None else ()
        if (
            source is not None
            # ids by name, or by value: a row or batch a padding step made (`label_row = row`)
            and ((IDS_NAME.search(leaf) and not LABELS_PLACE.search(leaf)) or bool(held))
            and P.LABEL_NAME.search(key)
            and not rebinding
            and not any(p.target_ids or p.of_labels for p in held)
        ):
            padded = first(self.evaluate(value_node), Padded)
            kind = (
                padded.kind
                if padded is not None and padded.kind in ("pt", "np", "list")
                else self.kind_of(source, value_node)
            )
            self.label_aliases[key] = (value_node, self.env.version(key), kind, source)
        else:
            self.label_aliases.pop(key, None)

    def view_of(self, expr: cst.BaseExpression) -> str | None:
        """`input_ids[:, 1:]`, `ids[..., :-1]`: a slice of a tensor or array is a view of it (a list's
        slice is a copy): the place it views, if so. Indexing two axes at once is only for arrays."""
        if not isinstance(expr, cst.Subscript) or not any(isinstance(e.slice, cst.Slice) for e in expr.slice):
            return None
        if any(isinstance(e.slice, cst.Index) and not _is_ellipsis(e.slice.value) for e in expr.slice):
            return None  # `ids[i, 1:]`: one row (still a view, but not labels for the whole batch)
        source = place_key(expr.value)
        if source is None:
            return None
        if len(expr.slice) > 1 or self.kind_of(source) in ("pt", "np"):
            return source
        return None

    def written_in_place(self, receiver: cst.BaseExpression, value_node: cst.BaseExpression | None) -> None:
        key = place_key(receiver)
        into_rows = False
        while key is None and isinstance(receiver, cst.Subscript):
            receiver = receiver.value  # `labels[i][j] = -100`: a write into a row of `labels` is one into it
            key, into_rows = place_key(receiver), True
        walked = self.loop_aliases.get(key) if key and key not in self.label_aliases else None
        if walked is not None and walked in self.label_aliases:
            key, into_rows = walked, True  # `for row in labels: row[j] = -100`: a write into a row of `labels`
        alias = self.label_aliases.get(key) if key else None
        if alias is None or key is None or self.env.version(key) != alias[1]:
            return
        # It matters only if the ids are read again after the write (returned, passed to the model):
        # a tokenizer output used only for its labels may be written into freely.
        source = alias[3]
        write = AliasWrittenInPlace(alias[0], alias[2], _is_list_value(value_node), into_rows)
        # `input_ids = batch["input_ids"]; labels = input_ids`: returning `batch` returns the write too.
        for _ in range(3):
            event = (write, source)
            self.pending_alias_writes[source] = event
            base = re.split(r"[.\[]", source, maxsplit=1)[0]
            if base != source:
                self.pending_alias_writes.setdefault(base, event)
            origin = place_key(self.value_nodes[source]) if source in self.value_nodes else None
            if origin is None or origin == source:
                break
            source = origin

    def read_place(self, key: str, whole: bool) -> None:
        """A read of `key` after an aliased write; `whole`: the object itself, not another of its keys."""
        event = self.pending_alias_writes.get(key) if self.pending_alias_writes else None
        if event is None or not (whole or key == event[1]):
            return
        self.facts.record(self.facts.aliases_written_in_place, event[0])
        for stale in [k for k, e in self.pending_alias_writes.items() if e is event]:
            del self.pending_alias_writes[stale]

    def kind_of(self, key: str, value_node: cst.BaseExpression | None = None) -> str:
        """What the aliased ids are: "pt", "np", "list" or "?". `value_node`: the expression that reads
        them, when it is not a place's stored value (`enc["input_ids"]` itself)."""
        value = self.env.get(key) or EMPTY
        padded = first(value, Padded)
        if padded is not None and padded.kind in ("pt", "np", "list"):
            return padded.kind
        encoding = self.encoding_read(value_node if value_node is not None else self.value_nodes.get(key))
        if encoding is not None and encoding.kind in ("pt", "np", "list"):
            return encoding.kind
        node = self.value_nodes.get(key)
        while isinstance(node, cst.Subscript):
            node = node.value
        if isinstance(node, (cst.List, cst.ListComp)) or (
            isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add)
        ):
            return "list"
        if isinstance(node, cst.Call):
            qualified = self.imports.qualify(node.func) or ""
            if qualified.startswith("torch."):
                return "pt"
            if qualified.startswith("numpy."):
                return "np"
            if qualified == "list":
                return "list"
        return "?"

    def encoding_read(self, node: cst.BaseExpression | None) -> Encoding | None:
        """The tokenizer encoding `node` reads its ids from (`enc["input_ids"]`, `enc.input_ids`, through a
        name bound to one): its `return_tensors=` says what they are (lists when none is asked for)."""
        for _ in range(4):
            while isinstance(node, (cst.Subscript, cst.Attribute)):
                node = node.value
                encoding = first(self.env.get(place_key(node) or "") or EMPTY, Encoding)
                if encoding is not None:
                    return encoding
            key = place_key(node) if node is not None else None
            if key is None or key not in self.value_nodes:
                return None
            node = self.value_nodes[key]
        return None


def _is_ellipsis(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Ellipsis)


def _is_list_value(node) -> bool:
    return isinstance(node, (cst.List, cst.ListComp, cst.BinaryOperation))
