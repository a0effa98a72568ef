"""What libraries do to padded batches, as data: the library table and the queries the analysis makes of it.

The analysis reads the rows through the small queries in this module; rules never spell a library name.
A new library fact is a new row (and a fixture), not new code. Each row (`Row`, semantics/row.py) says
what a callable does to the values padlint follows (token ids, attention masks, labels), the arguments
that matter, their defaults, and `checked`: the library version, file and function it was read from.
The rows live by concern: padding_rows.py (calls that pad, tokenizers, collators), model_rows.py
(losses, models, loaders), tensor_rows.py (operations that keep, copy or remove padding; constant
builders), wiring_rows.py (what hands datasets and batches on).
"""

from __future__ import annotations

import functools

from padlint.semantics.model_rows import MODEL_ROWS
from padlint.semantics.padding_rows import PADDING_ROWS
from padlint.semantics.row import Default, Kind, On, Row
from padlint.semantics.tensor_rows import TENSOR_ROWS
from padlint.semantics.wiring_rows import WIRING_ROWS

# A name belongs to one row of its kind of callee (tests/test_library_table.py), so the order of the rows
# does not change what a query answers.
ROWS: tuple[Row, ...] = PADDING_ROWS + MODEL_ROWS + TENSOR_ROWS + WIRING_ROWS


# ---- queries the analysis makes ------------------------------------------------------------------
@functools.cache
def names(kind: Kind, on: On = "function", style: str | None = None) -> frozenset[str]:
    """Every name matched by rows of this kind (and style)."""
    return frozenset(
        name
        for row in ROWS
        if row.kind == kind and row.on == on and (style is None or row.style == style)
        for name in row.match
    )


@functools.cache
def short_names(
    kind: Kind | None = None, repads: bool | None = None, attends: tuple[str, ...] | None = None
) -> frozenset[str]:
    """The last part of every class name of this kind (`DataCollatorForSeq2Seq`), for code that sees
    a class by its bare name (text before parsing); `attends`: only consumers that attend so."""
    return frozenset(
        name.rsplit(".", 1)[-1]
        for row in ROWS
        if row.on == "class"
        and (kind is None or row.kind == kind)
        and (repads is None or row.repads == repads)
        and (attends is None or row.attends in attends)
        for name in row.match
    )


@functools.cache
def class_row(qualified: str) -> Row | None:
    """The row of a class by its qualified name; a bare name (no import seen) takes the row marked `bare`."""
    row = row_for(qualified, "class")
    if row is not None or "." in qualified:
        return row
    for candidate in ROWS:
        if (
            candidate.on == "class"
            and candidate.bare
            and any(n.rsplit(".", 1)[-1] == qualified for n in candidate.match)
        ):
            return candidate
    return None


@functools.cache
def takes_row_labels(qualified: str) -> bool:
    """Does the model class take one label per row (a `row_labels` row, or a consumer row's `labels="row"`),
    so its labels hold no positions?"""
    row = class_row(qualified)
    return row is not None and (row.kind == "row_labels" or row.labels == "row")


@functools.cache
def row_for(name: str, on: On = "function") -> Row | None:
    """The row matching a qualified name (or a method name), if any."""
    for row in ROWS:
        if row.on == on and name in row.match:
            return row
    return None


@functools.cache
def wiring_row(qualified: str) -> Row | None:
    """The wiring row of a callable by its qualified name (a DataLoader, a Trainer, `partial`, `next`)."""
    row = row_for(qualified, "class") or row_for(qualified)
    return row if row is not None and row.kind == "wiring" else None


@functools.cache
def handing_back_methods() -> frozenset[str]:
    """The method names of wiring rows that hand their arguments back (`prepare`, `make_private`): called
    on an instance of the row's class (`accelerator.prepare(...)`)."""
    return frozenset(
        name.rsplit(".", 1)[-1]
        for row in ROWS
        if row.kind == "wiring" and row.style in ("returns arguments", "returns roles")
        for name in row.match
    )


@functools.cache
def collate_keywords() -> frozenset[str]:
    """The keywords that hand a function the batches to make (wiring rows' "collate" role:
    DataLoader's `collate_fn`, Trainer's `data_collator`)."""
    return frozenset(row.roles["collate"][0] for row in ROWS if row.kind == "wiring" and "collate" in row.roles)


@functools.cache
def rebuilt_label_masks(qualified: str) -> frozenset[str]:
    """The batch keys a consumer made with this class reads to set labels to -100 (rebuilds_labels rows)."""
    row = row_for(qualified, "class")
    if row is None or row.kind != "rebuilds_labels":
        return frozenset()
    return frozenset(name for name, _ in row.roles.values())


def dataset_rows(name: str, on: On = "function") -> bool:
    """Does this function or method of datasets hand back (or reformat) a dataset's rows, calling no model?"""
    row = row_for(name, on)
    return row is not None and row.kind == "wiring" and row.style == "rows"


def reformats_rows(method: str) -> str:
    """How this dataset method changes the form a later `map` reads the rows in: "returns" (a new
    dataset), "in place", or "" (it does not)."""
    row = row_for(method, "method")
    return row.reformats if row is not None and row.kind == "wiring" else ""


def holds_rows(qualified: str | None) -> Row | None:
    """The row of a class that keeps a dataset and hands its rows on only through `exposes`."""
    row = row_for(qualified, "class") if qualified else None
    return row if row is not None and row.kind == "wiring" and row.style == "holds" else None


def tokenizer_default_side(qualified: str) -> str | None:
    """The side a tokenizer of this class pads on when nothing states one (tokenizer class rows); None
    when it is not known (an Auto class, a class of no row, one whose side changed between versions)."""
    row = row_for(qualified, "class")
    side = row.defaults.get("padding_side") if row is not None and row.kind == "tokenizer" else None
    return side if isinstance(side, str) else None


@functools.cache
def appends_eos(qualified: str) -> bool:
    """Does the class's tokenizer (a model class: its checkpoints') end every text with its EOS when the call
    adds special tokens? A bare name (no import seen) is matched by its last part: these names are the
    library's own."""
    row = class_row(qualified)
    if row is None and "." not in qualified:
        row = next(
            (
                r
                for r in ROWS
                if r.on == "class" and r.appends_eos and any(n.endswith("." + qualified) for n in r.match)
            ),
            None,
        )
    return row is not None and row.appends_eos


def rejects_mask(qualified: str | None) -> bool:
    """Does a model of this class refuse an attention mask with zeros (rejects_mask rows)?"""
    row = row_for(qualified, "class") if qualified else None
    return row is not None and row.kind == "rejects_mask"


@functools.cache
def checkpoint_code_switch(qualified: str | None) -> str | None:
    """The keyword that, true, makes this loader (`transformers.AutoModel.from_pretrained`) return the
    checkpoint's own class (checkpoint_code rows); None for any other callable."""
    row = row_for(qualified) if qualified else None
    return row.roles["remote"][0] if row is not None and row.kind == "checkpoint_code" else None


@functools.cache
def checkpoint_code_switches() -> frozenset[str]:
    """Every keyword of the checkpoint_code rows (`trust_remote_code`), as a dict of keyword arguments spells it."""
    return frozenset(row.roles["remote"][0] for row in ROWS if row.kind == "checkpoint_code")


def kept_attribute(name: str, role: str) -> str | None:
    """The attribute in which an instance of the class `name` keeps the argument of `role`, if it does."""
    row = row_for(name, "function")
    return row.keeps.get(role) if row is not None else None


def default(name: str, argument: str, on: On = "function") -> Default:
    """The default of `argument` for the callable `name` in the checked version (None if unknown)."""
    row = row_for(name, on)
    return row.defaults.get(argument) if row is not None else None
