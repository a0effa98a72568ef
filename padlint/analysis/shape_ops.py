"""Shape operations that keep padding: rows of the library table's kind "keeps" (SEMANTICS.md).

A row says that the result of a call (or an attribute) holds the padded tokens of its receiver or
first argument, and what happened to their positions, which decides what a fix may still use:

- SAME: every token stays at its (row, position): the lengths and the tokenizer's mask still fit.
- TRANSPOSED: the batch and sequence axes swap (`ids.t()` of a time-major `pad_sequence`): the
  lengths still fit, read along the other axis.
- MOVED: positions shift or rows mix (`np.insert` of a start token, a `view` that folds pairs into
  rows, `torch.cat`/`stack` of several padded values): padding is still there, but neither the old
  lengths nor the tokenizer's own mask describe it any more.

The rows are in the library table (semantics/tensor_rows.py: kind "keeps", style "transposed" or
"moved"; semantics/padding_rows.py: kind "source", style "nested"), each checked against a named
version; this module reads them for the flow pass (calls.py, expressions.py, shape_flow.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from padlint.analysis import patterns as P
from padlint.semantics import table as T

SAME, TRANSPOSED, MOVED = "same", "transposed", "moved"


@dataclass(frozen=True)
class KeepsPadding:
    """One name of a "keeps" row of the library table whose positions move."""

    match: str  # a qualified function name, or ".name" for a method or attribute of a tensor / array
    effect: str  # TRANSPOSED or MOVED (the row's style); for TRANSPOSED only a swap of axes 0 and 1 transposes


def _rows() -> list[KeepsPadding]:
    return [
        KeepsPadding(f".{name}" if row.on == "method" else name, row.style)
        for row in T.ROWS
        if row.kind == "keeps" and row.style in (TRANSPOSED, MOVED)
        for name in row.match
    ]


METHODS: dict[str, KeepsPadding] = {r.match[1:]: r for r in _rows() if r.match.startswith(".")}
FUNCTIONS: dict[str, KeepsPadding] = {r.match: r for r in _rows() if not r.match.startswith(".")}
# Functions that pad nested rows: name -> (position, keyword) of the pad value (`torch.nested.to_padded_tensor`).
NESTED_TO_PADDED: dict[str, tuple[int, str]] = {
    name: (row.roles["value"][1] or 1, row.roles["value"][0])
    for row in T.ROWS
    if row.kind == "source" and row.style == "nested"
    for name in row.match
}


def transposes(method: str, axes: list[int | None]) -> bool | None:
    """Do the batch and sequence axes of a 2-D value swap under `method(*axes)`? True: they swap;
    False: nothing moves; None: it cannot be told (a non-literal axis, a value of more dimensions)."""
    known = [a for a in axes if a is not None]
    if len(known) != len(axes):
        return None
    normal = [a + 2 if a < 0 else a for a in known]  # -1, -2 of a 2-D value: 1, 0
    if not axes:
        return True  # `.t()`, `.T`, `np.transpose(x)`: a 2-D value's axes reversed
    if method in ("permute", "transpose_axes"):  # the new order of the axes
        return {(0, 1): False, (1, 0): True}.get((normal[0], normal[1])) if len(normal) == 2 else None
    return True if sorted(normal) == [0, 1] else None  # `transpose(a, b)`, `swapaxes(a, b)`: a and b swap


def row_count(expr: cst.BaseExpression) -> bool:
    """Is `expr` a count of rows: `len(x)`, `x.size(0)`, `x.shape[0]`, `x.size()[0]`?"""
    if isinstance(expr, cst.Call):
        if isinstance(expr.func, cst.Name) and expr.func.value == "len" and len(expr.args) == 1:
            return True
        if isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "size" and len(expr.args) == 1:
            return P.int_value(expr.args[0].value) == 0
    if isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):
        first = P.int_value(expr.slice[0].slice.value) == 0
        base = expr.value
        shape = isinstance(base, cst.Attribute) and base.attr.value == "shape"
        sized = (
            isinstance(base, cst.Call)
            and isinstance(base.func, cst.Attribute)
            and base.func.attr.value == "size"
            and not base.args
        )
        return first and (shape or sized)
    return False
