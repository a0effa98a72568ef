"""What a function mapped over a dataset is handed: the rows an earlier map of that dataset returned.

`ds.map(encode)` stores what `encode` returns as the dataset's columns; a later `ds.map(add_labels)`
hands `add_labels` those columns again (library table, the `map` wiring row): a column padded by
`encode` is padded in `add_labels`'s `examples["input_ids"]`, with the attention mask column beside
it. The columns come back as stored, not as returned: python lists (a tensor `encode` returned was
written to Arrow), one example per call or, with `batched=True`, a list of rows per column.

Their form is known only where each stored example is one row: lists of rows from a batched map, one
list from a map of single examples, a tensor of rows from a batched map. A single text tokenized into
a tensor stores a batch of one row per example, and a format set on the dataset or columns removed or
renamed in between (`reformatted`) hand the rows in a form not in view: their kind is then unknown,
so they are still judged but no fix is written for them.

A map writes the columns it returns over the ones it was handed (library table, the `map` wiring row):
`ds.map(add_length)` returning `{"n": ...}` keeps `input_ids` and `attention_mask` as an earlier map
stored them, less the columns `remove_columns=` names. kept_columns carries them into the new rows where
both maps hand rows in the same form and every removed column is named in view.
"""

from __future__ import annotations

import dataclasses

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.values import DatasetOf, DictOf, Encoding, GoodMask, Padded, TupleOf, Value, tags_of

STORED_KIND = "list"  # what the default (python) format hands a map function
UNKNOWN_KIND = "?"


def rows_handed(dataset: Value, batched: bool) -> Value:
    """The value a map function's first parameter holds: the rows of `dataset` as stored, one example
    or (batched) a list of rows per column."""
    out: set = set()
    for held in tags_of(dataset, DatasetOf):
        for tag in held.item:
            if not isinstance(tag, TupleOf):  # a map function returns a dict of columns
                out.add(_as_stored(tag, held, batched))
    return frozenset(out)


# The columns a tokenizer's result stores, as the analysis reads them (expressions.encoding_field).
ENCODING_COLUMNS = frozenset({"input_ids", "attention_mask"})


def removed_columns(call: cst.Call) -> frozenset[str] | None:
    """The columns `ds.map(f, remove_columns=...)` drops from what it was handed: none without the
    keyword, the names of a literal; None where they are not in view (`remove_columns=ds.column_names`)."""
    removed = P.keyword(call, "remove_columns")
    if removed is None:
        return frozenset()
    items = removed.value.elements if isinstance(removed.value, (cst.List, cst.Tuple)) else [removed]
    names = [P.string_value(item.value) for item in items]
    return frozenset(n for n in names if n is not None) if None not in names else None


def kept_columns(dataset: Value, returned: Value, batched: bool, removed: frozenset[str] | None) -> Value:
    """The columns of `dataset`'s rows that a map returning `returned` keeps as they were: those it
    neither returns nor removes. Nothing where the removed columns or the returned ones are not known,
    or where the earlier rows were stored in another form (another `batched=`, a format set since)."""
    if removed is None:
        return frozenset()
    returned_keys: set[str] = set()
    for tag in returned:
        if isinstance(tag, DictOf):
            returned_keys |= tag.entries.keys()
        elif isinstance(tag, Encoding):
            returned_keys |= ENCODING_COLUMNS
    if not returned_keys:
        return frozenset()  # a value of no known columns: what it writes over is not in view
    gone = returned_keys | removed
    out: set = set()
    for held in tags_of(dataset, DatasetOf):
        if held.reformatted or held.batched != batched:
            continue
        for tag in held.item:
            if isinstance(tag, DictOf):
                entries = {k: v for k, v in tag.entries.items() if k not in gone}
                if entries:
                    out.add(DictOf(entries))
            elif isinstance(tag, Encoding) and not (ENCODING_COLUMNS & gone):
                out.add(tag)
    return frozenset(out)


def reformatted(dataset: Value) -> Value:
    """`dataset` after a format is set or columns are removed or renamed: the same rows, read in a form
    not in view."""
    return frozenset(DatasetOf(t.item, t.batched, reformatted=True) if isinstance(t, DatasetOf) else t for t in dataset)


def _stored_kind(kind: str, rows: bool | None, held: DatasetOf) -> str:
    """The kind a later map reads a column in: lists, where each stored example is one row."""
    if held.reformatted or rows is None or held.batched is None:
        return UNKNOWN_KIND
    if kind == STORED_KIND and rows == held.batched:
        return STORED_KIND
    if kind in ("pt", "np") and rows and held.batched:
        return STORED_KIND
    return UNKNOWN_KIND


def _as_stored(tag, held: DatasetOf, batched: bool):
    if isinstance(tag, Encoding):
        return Encoding(
            tag.node,
            tag.padded,
            tag.mask_kept,
            kind=_stored_kind(tag.kind, tag.rows, held),
            rows=batched,
            target_ids=tag.target_ids,
            lost_at=tag.lost_at,
            side=tag.side,
            of_labels=tag.of_labels,
        )
    if isinstance(tag, Padded):
        # written out and read back: the codes of the function that padded mean nothing here
        kind = _stored_kind(tag.kind, tag.rows, held)
        return tag.moved(kind).but(rows=batched, mask_kind=kind if tag.mask_kind else None)
    if isinstance(tag, DictOf):
        return DictOf(
            {k: frozenset(_as_stored(t, held, batched) for t in v) for k, v in tag.entries.items()}, tag.alike
        )
    if isinstance(tag, GoodMask):
        return dataclasses.replace(tag, kind=UNKNOWN_KIND if held.reformatted else STORED_KIND)
    return tag
