"""The code that fixes write: masks from lengths or the tokenizer, labels masked from a mask.

Every builder returns (code, applicability) or None. A shape that depends on the pad id is only
ever UNSAFE, and is not offered at all when the module makes the pad token the EOS token
(evidence.md §3: derive masks from lengths or from the tokenizer, never from the pad id).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from padlint.analysis.env import place_key
from padlint.analysis.values import Context, Padded
from padlint.rules.base import FixProposal
from padlint.types import Applicability

IGNORE = "-100"


@dataclass
class Shape:
    code: str
    applicability: Applicability
    title: str
    needs_torch: bool = False  # the code uses `torch` and the module does not import it

    def proposal(self, node) -> FixProposal:
        """The fix that writes this shape in place of `node`."""
        return FixProposal(self.applicability, self.title, ((node, self.code),), self.needs_torch)


def is_place(code: str) -> bool:
    """A plain name, attribute or constant subscript: safe to write twice."""
    try:
        return place_key(cst.parse_expression(code)) is not None or _is_simple_subscript(code)
    except cst.ParserSyntaxError:
        return False


def _is_simple_subscript(code: str) -> bool:
    expr = cst.parse_expression(code)
    while isinstance(expr, (cst.Subscript, cst.Attribute)):
        expr = expr.value
    return isinstance(expr, cst.Name) and "(" not in code


def _torch(context: Context) -> tuple[str, bool]:
    return (context.torch, False) if context.torch else ("torch", True)


def attention_mask(
    padded: Padded,
    ids: str | None,
    context: Context,
    *,
    lengths_ok: bool,
    gap_ok: bool,
    pad_code: str | None,
    pad_is_eos: bool,
    dtype: str | None,
    data_ok: bool = False,
    cast: bool = True,
) -> Shape | None:
    """An attention mask for the padded ids `ids`: 1 on real tokens, 0 on padding."""
    if padded.encoding_mask():
        return Shape(padded.encoding_mask(), Applicability.SAFE, "Use the tokenizer's attention mask")
    if padded.kind == "list" and padded.rows is False and gap_ok and data_ok:
        # `x + [pad] * gap` pads with max(gap, 0) items: ones over x, zeros over the rest.
        real, pads = f"[1] * len({padded.data})", f"[0] * max({padded.gap}, 0)"
        code = f"{real} + {pads}" if padded.side == "right" else f"{pads} + {real}"
        return Shape(code, Applicability.SAFE, "Build the attention mask from the padding length")
    if ids is None or not is_place(ids):
        return None  # the fix names the ids several times: only a plain name or subscript will do
    if padded.kind == "pt" and lengths_ok and padded.batch_first:
        torch, missing = _torch(context)
        suffix = (f".to({dtype})" if dtype else ".long()") if cast else ""
        return Shape(
            f"{_real_positions_pt(torch, ids, padded)}{suffix}",
            Applicability.SAFE,
            "Build the attention mask from the sequence lengths",
            needs_torch=missing,
        )
    if padded.kind == "np" and lengths_ok and context.numpy:
        np = context.numpy
        suffix = (f".astype({dtype})" if dtype else f".astype({np}.int64)") if cast else ""
        return Shape(
            f"{_real_positions_np(np, ids, padded)}{suffix}",
            Applicability.SAFE,
            "Build the attention mask from the sequence lengths",
        )
    if padded.kind == "list" and gap_ok and padded.rows is False:
        gap = f"max({padded.gap}, 0)"
        real = f"[1] * (len({ids}) - {gap})"
        code = f"{real} + [0] * {gap}" if padded.side == "right" else f"[0] * {gap} + {real}"
        return Shape(code, Applicability.SAFE, "Build the attention mask from the padding length")
    if pad_code is None or pad_is_eos:
        return None
    cast = f".to({dtype})" if dtype else ".long()"
    return _by_pad_id(
        padded,
        ids,
        context,
        "Derive the attention mask from the pad id (wrong if the pad id also occurs as a real token)",
        tensor=f"({ids} != {pad_code}){cast}",
        array=f"({ids} != {pad_code}).astype({context.numpy}.int64)",
        item=f"int(t != {pad_code})",
    )


def masked_labels(
    padded: Padded,
    ids: str,
    mask: str | None,
    context: Context,
    *,
    lengths_ok: bool,
    gap_ok: bool,
    pad_code: str | None,
    pad_is_eos: bool,
) -> Shape | None:
    """Labels equal to `ids` on real tokens and -100 on padding."""
    if not is_place(ids):
        return None  # the fix names the ids more than once: evaluating a call twice is not a fix
    title = "Set the labels of padding positions to -100 (from the attention mask)"
    if padded.kind == "pt":
        if mask:
            return Shape(f"{ids}.masked_fill({mask} == 0, {IGNORE})", Applicability.SAFE, title)
        if lengths_ok and padded.batch_first:
            torch, missing = _torch(context)
            return Shape(
                f"{ids}.masked_fill(~{_real_positions_pt(torch, ids, padded)}, {IGNORE})",
                Applicability.SAFE,
                "Set the labels of padding positions to -100 (from the lengths)",
                needs_torch=missing,
            )
    elif padded.kind == "np" and context.numpy:
        np = context.numpy
        if mask:
            return Shape(f"{np}.where({mask} == 0, {IGNORE}, {ids})", Applicability.SAFE, title)
        if lengths_ok:
            return Shape(
                f"{np}.where({_real_positions_np(np, ids, padded)}, {ids}, {IGNORE})",
                Applicability.SAFE,
                "Set the labels of padding positions to -100 (from the lengths)",
            )
    elif padded.kind == "list":
        if mask and padded.rows is False:
            return Shape(f"[t if m else {IGNORE} for t, m in zip({ids}, {mask})]", Applicability.SAFE, title)
        if mask and padded.rows:
            return Shape(
                f"[[t if m else {IGNORE} for t, m in zip(row, row_mask)] for row, row_mask in zip({ids}, {mask})]",
                Applicability.SAFE,
                title,
            )
        if gap_ok and padded.rows is False:
            gap = f"max({padded.gap}, 0)"
            if padded.side == "right":
                code = f"{ids}[:len({ids}) - {gap}] + [{IGNORE}] * {gap}"
            else:
                code = f"[{IGNORE}] * {gap} + {ids}[{gap}:]"
            return Shape(
                code, Applicability.SAFE, "Set the labels of padding positions to -100 (from the padding length)"
            )
    if pad_code is None or pad_is_eos:
        return None
    return _by_pad_id(
        padded,
        ids,
        context,
        "Set labels equal to the pad id to -100 (also hides real tokens equal to the pad id)",
        tensor=f"{ids}.masked_fill({ids} == {pad_code}, {IGNORE})",
        array=f"{context.numpy}.where({ids} == {pad_code}, {IGNORE}, {ids})",
        item=f"{IGNORE} if t == {pad_code} else t",
    )


def _by_pad_id(
    padded: Padded, ids: str, context: Context, title: str, *, tensor: str, array: str, item: str
) -> Shape | None:
    """The UNSAFE shape that compares each token with the pad id, written for the ids' kind."""
    if padded.kind == "pt":
        return Shape(tensor, Applicability.UNSAFE, title)
    if padded.kind == "np" and context.numpy:
        return Shape(array, Applicability.UNSAFE, title)
    if padded.kind == "list" and padded.rows is False:
        return Shape(f"[{item} for t in {ids}]", Applicability.UNSAFE, title)
    if padded.kind == "list" and padded.rows:
        return Shape(f"[[{item} for t in row] for row in {ids}]", Applicability.UNSAFE, title)
    return None


def _real_positions_pt(torch: str, ids: str, padded: Padded) -> str:
    lengths = f"{torch}.tensor({padded.lengths}, device={ids}.device)"
    positions = f"{torch}.arange({ids}.size(1), device={ids}.device)[None, :]"
    if padded.side == "left":
        return f"({positions} >= ({ids}.size(1) - {lengths})[:, None])"
    return f"({positions} < {lengths}[:, None])"


def _real_positions_np(np: str, ids: str, padded: Padded) -> str:
    lengths = f"{np}.array({padded.lengths})"
    positions = f"{np}.arange({ids}.shape[1])[None, :]"
    if padded.side == "left":
        return f"({positions} >= ({ids}.shape[1] - {lengths})[:, None])"
    return f"({positions} < {lengths}[:, None])"
