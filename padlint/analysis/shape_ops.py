"""Shape operations that keep padding: rows of the library table's kind "keeps" (SEMANTICS.md).

A row says that the result of a call (or an attribute) holds the padded tokens of its receiver or
first argument, and what happened to their positions, which decides what a fix may still use:

- SAME: every token stays at its (row, position): the lengths and the tokenizer's mask still fit.
- TRANSPOSED: the batch and sequence axes swap (`ids.t()` of a time-major `pad_sequence`): the
  lengths still fit, read along the other axis.
- MOVED: positions shift or rows mix (`np.insert` of a start token, a `view` that folds pairs into
  rows, `torch.cat`/`stack` of several padded values): padding is still there, but neither the old
  lengths nor the tokenizer's own mask describe it any more.

The rows are data, each checked against the named version's documentation or source; the flow pass
(calls.py, expressions.py) reads them. Kept apart so that the shared library table can fold them in.
"""

from __future__ import annotations

from dataclasses import dataclass

SAME, TRANSPOSED, MOVED = "same", "transposed", "moved"


@dataclass(frozen=True)
class KeepsPadding:
    match: str  # a qualified function name, or ".name" for a method or attribute of a tensor / array
    effect: str  # SAME, TRANSPOSED, MOVED; for a TRANSPOSED row only a swap of axes 0 and 1 transposes
    checked: str  # the version and the page or source the row was checked against


ROWS: tuple[KeepsPadding, ...] = (
    KeepsPadding(
        ".t",
        TRANSPOSED,
        "torch 2.13 Tensor.t: transposes dimensions 0 and 1 of a <= 2-D tensor",
    ),
    KeepsPadding(
        ".T",
        TRANSPOSED,
        "torch 2.13 Tensor.T / numpy 2.4 ndarray.T: the axes reversed (2-D: a swap)",
    ),
    KeepsPadding(
        ".mT",
        TRANSPOSED,
        "torch 2.13 Tensor.mT: the last two dimensions transposed (2-D: a swap)",
    ),
    KeepsPadding(
        ".transpose",
        TRANSPOSED,
        "torch 2.13 Tensor.transpose(dim0, dim1); numpy 2.4 ndarray.transpose(*axes)",
    ),
    KeepsPadding(
        ".swapaxes",
        TRANSPOSED,
        "torch 2.13 Tensor.swapaxes / numpy 2.4 ndarray.swapaxes(axis1, axis2)",
    ),
    KeepsPadding(
        ".permute",
        TRANSPOSED,
        "torch 2.13 Tensor.permute(*dims): the dimensions reordered",
    ),
    KeepsPadding("torch.transpose", TRANSPOSED, "torch 2.13 torch.transpose(input, dim0, dim1)"),
    KeepsPadding("torch.t", TRANSPOSED, "torch 2.13 torch.t(input)"),
    KeepsPadding("numpy.transpose", TRANSPOSED, "numpy 2.4 numpy.transpose(a, axes=None)"),
    KeepsPadding("numpy.swapaxes", TRANSPOSED, "numpy 2.4 numpy.swapaxes(a, axis1, axis2)"),
    KeepsPadding(
        "numpy.insert",
        MOVED,
        "numpy 2.4 numpy.insert(arr, obj, values, axis): values inserted before obj",
    ),
    KeepsPadding(
        "numpy.append",
        MOVED,
        "numpy 2.4 numpy.append(arr, values, axis): values appended along axis",
    ),
    KeepsPadding(
        "numpy.roll",
        MOVED,
        "numpy 2.4 numpy.roll(a, shift, axis): elements rolled along axis",
    ),
    KeepsPadding("torch.roll", MOVED, "torch 2.13 torch.roll(input, shifts, dims)"),
    KeepsPadding(".roll", MOVED, "torch 2.13 Tensor.roll(shifts, dims)"),
    KeepsPadding(
        "torch.flip",
        MOVED,
        "torch 2.13 torch.flip(input, dims): reversed along dims (left <-> right)",
    ),
    KeepsPadding("numpy.flip", MOVED, "numpy 2.4 numpy.flip(m, axis)"),
)

METHODS: dict[str, KeepsPadding] = {r.match[1:]: r for r in ROWS if r.match.startswith(".")}
FUNCTIONS: dict[str, KeepsPadding] = {r.match: r for r in ROWS if not r.match.startswith(".")}

# Functions that pad, by qualified name, with the positional index and keyword of their pad value.
# torch 2.13 torch.nested.to_padded_tensor(input, padding, output_size=None): a nested tensor made
# into a padded one, filled with `padding`.
NESTED_TO_PADDED = {"torch.nested.to_padded_tensor": (1, "padding")}


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
