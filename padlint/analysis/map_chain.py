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
"""

from __future__ import annotations

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
        return DictOf({k: frozenset(_as_stored(t, held, batched) for t in v) for k, v in tag.entries.items()})
    if isinstance(tag, GoodMask):
        return GoodMask(tag.node, tag.padded, UNKNOWN_KIND if held.reformatted else STORED_KIND)
    return tag
