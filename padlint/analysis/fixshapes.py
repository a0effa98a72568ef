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
    """Code a fix writes in place of a node, and the values it names first.

    `setup` holds (preferred name, expression) pairs, in order: each becomes a statement of its own
    before the edited statement (a name already bound in the module gets a suffix), so a value the
    code needs more than once is computed once and the edited line stays short. Where no statement
    may go (a lambda, a comprehension), the expressions are written inline instead.
    """

    code: str
    applicability: Applicability
    title: str
    needs_torch: bool = False  # the code uses `torch` and the module does not import it
    setup: tuple = ()
    name: str | None = None  # what to call the whole value when it is named (`attention_mask`)
    imports: tuple = ()  # import statements the code needs (`import numpy`)

    def proposal(self, node, facts=None) -> FixProposal:
        """The fix that writes this shape in place of `node`."""
        replacements = self.replacements(node, facts)
        return FixProposal(self.applicability, self.title, replacements, self.needs_torch, self.imports)

    def replacements(self, node, facts=None) -> tuple:
        from padlint.rules import sites

        site = sites.site_of(facts, node) if facts is not None else None
        if site is None:
            return ((node, sites.bound_tightly(facts, node, self.inline())),)
        setup, code = list(self.setup), self.code
        if self.name and not _is_assigned_to_a_name(facts, node, site) and (setup or not site.fits(node, code)):
            setup.append((self.name, code))  # the value gets a name of its own: the edited line only uses it
            code = self.name
        if not setup:
            return tuple(sites.fit_line(facts, [(node, sites.bound_tightly(facts, node, code))]))
        statements = []
        for i, (preferred, expr) in enumerate(setup):
            name = site.fresh(preferred)
            if name != preferred:  # taken in the module: the later code reads the new name
                setup[i + 1 :] = [(n, rename(e, preferred, name)) for n, e in setup[i + 1 :]]
                code = rename(code, preferred, name)
            statements.append(f"{name} = {expr}")
        return (site.insertion(statements), *sites.fit_line(facts, [(node, sites.bound_tightly(facts, node, code))]))

    def inline(self) -> str:
        """The code with every named value written out where it is used."""
        code = self.code
        for preferred, expr in reversed(self.setup):
            code = rename(code, preferred, expr if _atomic(expr) else f"({expr})")
        return code


def rename(code: str, old: str, new: str) -> str:
    """`code` with the name `old` replaced by the code `new` (names only, not attributes or keys)."""
    replacement = cst.parse_expression(new)

    class _Rename(cst.CSTTransformer):
        def leave_Attribute(self, original, updated):
            return updated.with_changes(attr=original.attr)  # `x.lengths` keeps its attribute

        def leave_Arg(self, original, updated):
            return updated.with_changes(keyword=original.keyword)  # `f(lengths=...)` keeps its keyword

        def leave_Name(self, original, updated):
            return replacement if original.value == old else updated

    module = cst.parse_module(code)
    return module.visit(_Rename()).code


def _atomic(code: str) -> bool:
    """Does `code` need no parentheses where a name stood (a name, call, subscript, attribute, list)?"""
    try:
        expr = cst.parse_expression(code)
    except cst.ParserSyntaxError:
        return False
    return isinstance(expr, (cst.Name, cst.Call, cst.Subscript, cst.Attribute, cst.List, cst.ListComp, cst.Integer))


def _is_assigned_to_a_name(facts, node, site) -> bool:
    """Is `node` the whole right-hand side of `name = node` or `batch["key"] = node` (a value with a
    name already)?"""
    stmt = site.statement
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return False
    small = stmt.body[0]
    return isinstance(small, (cst.Assign, cst.AnnAssign)) and small.value is node


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


def _numpy(context: Context) -> tuple[str, tuple]:
    """numpy's name in the module, and the import a fix adds when the module has none (arrays can come
    from `return_tensors="np"` with numpy never imported)."""
    return (context.numpy, ()) if context.numpy else ("numpy", ("import numpy",))


MASK, LABELS = "attention_mask", "labels"
FROM_LENGTHS = "Build the attention mask from the sequence lengths"
FROM_GAP = "Build the attention mask from the padding length"


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
    name = MASK if cast else None  # `(ids != pad).long()` keeps its cast around the new comparison
    encoding_mask = padded.encoding_mask()
    if encoding_mask:
        code = with_dtype(encoding_mask, padded.kind, dtype) if cast else as_boolean(encoding_mask, padded.kind)
        return Shape(code, Applicability.SAFE, "Use the tokenizer's attention mask")
    if padded.kind == "list" and padded.rows is False and gap_ok and data_ok and padded.data and padded.gap:
        return Shape(list_mask(padded.data, padded.gap, padded.side), Applicability.SAFE, FROM_GAP, name=name)
    if ids is None or not is_place(ids):
        return None  # the fix names the ids several times: only a plain name or subscript will do
    if padded.kind == "pt" and lengths_ok and padded.batch_first:
        torch, missing = _torch(context)
        setup, real, _ = _positions_pt(torch, ids, padded)
        if not cast:
            return Shape(real, Applicability.SAFE, FROM_LENGTHS, needs_torch=missing, setup=setup)
        suffix = f".to({dtype})" if dtype else ".long()"
        return Shape(f"({real}){suffix}", Applicability.SAFE, FROM_LENGTHS, missing, setup, name)
    if padded.kind == "np" and lengths_ok:
        np, imports = _numpy(context)
        setup, real, _ = _positions_np(np, ids, padded)
        if not cast:
            return Shape(real, Applicability.SAFE, FROM_LENGTHS, setup=setup, imports=imports)
        suffix = f".astype({dtype})" if dtype else f".astype({np}.int64)"
        return Shape(f"({real}){suffix}", Applicability.SAFE, FROM_LENGTHS, setup=setup, name=name, imports=imports)
    if padded.kind == "list" and padded.rows and lengths_ok and padded.lengths:
        # rows of lists: each row's real length, and zeros for the rest of its padded width
        real, pads = "[1] * n", "[0] * (len(row) - n)"
        row = f"{real} + {pads}" if padded.side == "right" else f"{pads} + {real}"
        return Shape(f"[{row} for row, n in zip({ids}, {padded.lengths})]", Applicability.SAFE, FROM_LENGTHS, name=name)
    if padded.kind == "list" and gap_ok and padded.rows is False:
        gap = f"max({padded.gap}, 0)"
        real = f"[1] * (len({ids}) - {gap})"
        code = f"{real} + [0] * {gap}" if padded.side == "right" else f"[0] * {gap} + {real}"
        return Shape(code, Applicability.SAFE, FROM_GAP, name=name)
    if pad_code is None or pad_is_eos or padded.pad_may_be_eos:
        return None
    cast_code = f".to({dtype})" if dtype else ".long()"
    return _by_pad_id(
        padded,
        ids,
        context,
        "Derive the attention mask from the pad id (wrong if the pad id also occurs as a real token)",
        tensor=f"({ids} != {pad_code}){cast_code}",
        array=f"({ids} != {pad_code}).astype({_numpy(context)[0]}.int64)",
        item=f"int(t != {pad_code})",
        name=name,
    )


def as_boolean(mask: str, kind: str) -> str:
    """A mask of 0/1 numbers (the tokenizer's) written where a comparison stood (`ids != pad`): the code
    after it may invert it (`~mask`) or index with it, where numbers mean other positions. A tensor or
    an array is made boolean, as the comparison was."""
    if kind == "pt":
        return f"{mask}.bool()"
    if kind == "np":
        return f"{mask}.astype(bool)"
    return mask


def with_dtype(mask: str, kind: str, dtype: str | None) -> str:
    """The tokenizer's mask in the dtype the replaced mask was made with (`torch.ones_like(ids,
    dtype=torch.bool)`): code after it reads it as that type (`~mask`, an index)."""
    if dtype is None:
        return mask
    if kind == "pt":
        return f"{mask}.to({dtype})"
    if kind == "np":
        return f"{mask}.astype({dtype})"
    return mask


def list_mask(data: str, gap: str, side: str) -> str:
    """The mask of one row padded as `data + [pad] * gap` (or `[pad] * gap + data`): `[0] * n` is empty
    for n <= 0, so a row longer than the target gets ones only."""
    real, pads = f"[1] * len({data})", f"[0] * ({gap})" if _needs_parens(gap) else f"[0] * {gap}"
    return f"{real} + {pads}" if side == "right" else f"{pads} + {real}"


def _needs_parens(code: str) -> bool:
    try:
        expr = cst.parse_expression(code)
    except cst.ParserSyntaxError:
        return True
    return not expr.lpar and isinstance(
        expr, (cst.BinaryOperation, cst.BooleanOperation, cst.IfExp, cst.UnaryOperation)
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
    title = "Set the labels of padding positions to -100 (from the attention mask)"
    if not is_place(ids):
        # Named once by a shape from the mask: a call (`torch.tensor([...])`) is still evaluated once.
        # Every other shape names the ids more than once: evaluating a call twice is not a fix.
        if mask and padded.kind == "pt":
            operand = ids if _atomic(ids) else f"({ids})"
            return Shape(f"{operand}.masked_fill({mask} == 0, {IGNORE})", Applicability.SAFE, title, name=LABELS)
        return None
    by_lengths = "Set the labels of padding positions to -100 (from the lengths)"
    if padded.kind == "pt":
        if mask:
            return Shape(f"{ids}.masked_fill({mask} == 0, {IGNORE})", Applicability.SAFE, title, name=LABELS)
        if lengths_ok and padded.batch_first:
            torch, missing = _torch(context)
            setup, _, pads = _positions_pt(torch, ids, padded)
            return Shape(f"{ids}.masked_fill({pads}, {IGNORE})", Applicability.SAFE, by_lengths, missing, setup, LABELS)
    elif padded.kind == "np":
        np, imports = _numpy(context)
        if mask:
            code = f"{np}.where({mask} == 0, {IGNORE}, {ids})"
            return Shape(code, Applicability.SAFE, title, name=LABELS, imports=imports)
        if lengths_ok:
            setup, real, _ = _positions_np(np, ids, padded)
            code = f"{np}.where({real}, {ids}, {IGNORE})"
            return Shape(code, Applicability.SAFE, by_lengths, setup=setup, name=LABELS, imports=imports)
    elif padded.kind == "list":
        if mask and padded.rows is False:
            code = f"[t if m else {IGNORE} for t, m in zip({ids}, {mask})]"
            return Shape(code, Applicability.SAFE, title, name=LABELS)
        if mask and padded.rows:
            code = f"[[t if m else {IGNORE} for t, m in zip(row, row_mask)] for row, row_mask in zip({ids}, {mask})]"
            return Shape(code, Applicability.SAFE, title, name=LABELS)
        if mask and padded.rows is None and is_place(mask):
            # One row or a batch of rows (a map function whose `batched=` is not in view): numpy's
            # `where` is right for both, and padded rows are of one length.
            np, imports = _numpy(context)
            code = f"{np}.where({np}.asarray({mask}) == 0, {IGNORE}, {ids}).tolist()"
            return Shape(code, Applicability.SAFE, title, name=LABELS, imports=imports)
        if gap_ok and padded.rows is False:
            gap = f"max({padded.gap}, 0)"
            if padded.side == "right":
                code = f"{ids}[:len({ids}) - {gap}] + [{IGNORE}] * {gap}"
            else:
                code = f"[{IGNORE}] * {gap} + {ids}[{gap}:]"
            title = "Set the labels of padding positions to -100 (from the padding length)"
            return Shape(code, Applicability.SAFE, title, name=LABELS)
    if pad_code is None or pad_is_eos or padded.pad_may_be_eos:
        return None
    return _by_pad_id(
        padded,
        ids,
        context,
        "Set labels equal to the pad id to -100 (also hides real tokens equal to the pad id)",
        tensor=f"{ids}.masked_fill({ids} == {pad_code}, {IGNORE})",
        array=f"{_numpy(context)[0]}.where({ids} == {pad_code}, {IGNORE}, {ids})",
        item=f"{IGNORE} if t == {pad_code} else t",
        name=LABELS,
    )


def _by_pad_id(
    padded: Padded, ids: str, context: Context, title: str, *, tensor: str, array: str, item: str, name: str | None
) -> Shape | None:
    """The UNSAFE shape that compares each token with the pad id, written for the ids' kind."""
    if padded.kind == "pt":
        return Shape(tensor, Applicability.UNSAFE, title, name=name)
    if padded.kind == "np":
        return Shape(array, Applicability.UNSAFE, title, name=name, imports=_numpy(context)[1])
    if padded.kind == "list" and padded.rows is False:
        return Shape(f"[{item} for t in {ids}]", Applicability.UNSAFE, title, name=name)
    if padded.kind == "list" and padded.rows:
        return Shape(f"[[{item} for t in row] for row in {ids}]", Applicability.UNSAFE, title, name=name)
    return None


def _positions_pt(torch: str, ids: str, padded: Padded) -> tuple[tuple, str, str]:
    """(setup, real, pads): named positions and lengths, and the comparisons true on real tokens / on pads."""
    setup = (
        ("positions", f"{torch}.arange({ids}.size(1), device={ids}.device)"),
        ("lengths", f"{torch}.tensor({padded.lengths}, device={ids}.device)"),
    )
    return (setup, *_comparisons(f"{ids}.size(1)", padded.side))


def _positions_np(np: str, ids: str, padded: Padded) -> tuple[tuple, str, str]:
    setup = (("positions", f"{np}.arange({ids}.shape[1])"), ("lengths", f"{np}.array({padded.lengths})"))
    return (setup, *_comparisons(f"{ids}.shape[1]", padded.side))


def _comparisons(width: str, side: str) -> tuple[str, str]:
    if side == "left":
        start = f"({width} - lengths)[:, None]"
        return f"positions[None, :] >= {start}", f"positions[None, :] < {start}"
    return "positions[None, :] < lengths[:, None]", "positions[None, :] >= lengths[:, None]"
