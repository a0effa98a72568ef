"""Padding spelled without a padding call: a block of pad ids (`pad_id * torch.ones(size)`), a buffer
filled with the pad id (`x.new(n, width).fill_(pad_id)`), a run written as a comprehension
(`[pad_id for _ in range(n)]`) and a list padded in a loop (`while len(ids) < n: ids.append(pad_id)`).
Each is the padding `torch.full(size, pad_id)` or `[pad_id] * n` makes (padding.py)."""

from __future__ import annotations

import re

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.env import EMPTY, place_key
from padlint.analysis.values import Fill, GoodMask, Masked, Ones, Padded, PadId, Value, ZeroFilled, first, tags_of
from padlint.analysis.walker_state import WalkerState


class PadFills(WalkerState):
    """Mixed into the scope walker next to PaddingSteps."""

    def pad_block(self, expr: cst.BinaryOperation, left: Value, right: Value) -> Padded | None:
        """`pad_value * torch.ones(shape)` (either order): a block of pad ids, as `torch.full(shape,
        pad_value)` makes it; what it is concatenated to is padded with it (trl's `pad_to_length`)."""
        for ones_side, ones_value, fill in ((expr.right, right, expr.left), (expr.left, left, expr.right)):
            made = self.imports.qualify(ones_side.func) if isinstance(ones_side, cst.Call) else None
            if made in P.ONES and tags_of(ones_value, Ones) and tags_of(self.evaluate(fill), PadId):
                return self.padded(expr, kind="np" if made.startswith("numpy") else "pt", pad=fill, filled=True)
        return None

    def comprehension_run(self, expr: cst.ListComp) -> Fill | None:
        """`[v for _ in range(n)]`: the run `[v] * n` written as a comprehension."""
        clause = expr.for_in
        if clause.inner_for_in is not None or clause.ifs or not isinstance(clause.target, cst.Name):
            return None
        it = clause.iter
        if not (isinstance(it, cst.Call) and P.last_name(it.func) == "range" and len(it.args) == 1):
            return None
        if not isinstance(expr.elt, (cst.Name, cst.Attribute, cst.Integer, cst.UnaryOperation)):
            return None
        if re.search(rf"\b{re.escape(clause.target.value)}\b", self.code(expr.elt)):
            return None  # the item changes with the loop: not a run of one value
        return self.run_of(expr.elt, it.args[0].value, expr)

    def padding_loop(self, loop: cst.While) -> None:
        """`while len(ids) < max_len: ids.append(pad_id); mask.append(0)` (Google BERT's examples): each
        list the loop appends one value to ends up `max_len` long, padded with that value, as
        `ids + [pad_id] * (max_len - len(ids))` would; a list of ones it appends 0 to is a mask, one it
        appends 1 to a mask of ones over the pads (`mask += [1] * gap`)."""
        measured = _measured_list(loop.test)
        if measured is None:
            return
        appended = _appended_values(loop.body)
        if measured not in appended:
            return
        padded_ids: Padded | None = None
        for name in sorted(appended, key=lambda n: n != measured):  # the measured list first
            item = appended[name]
            what = self.run_value(item, loop)
            current = self.env.get(name) or EMPTY
            if what == "zero" and tags_of(current, Ones):
                self.env.set(name, frozenset({GoodMask(loop, kind="list")}))
            elif what == "one" and tags_of(current, Ones):
                # the `1` appended at each pad position: the fix appends 0 there instead
                self.env.set(name, frozenset({Ones(item, padded_ids, None, pads_only=True)}))
            elif what in ("pad", "zero"):
                row_of = first(current, Padded)
                padded = self.padded(
                    loop,
                    kind="list",
                    pad=item,
                    side="right",
                    rows=False,
                    of_labels=self.is_label_code(cst.Name(name)),
                    from_tokenizer=False if row_of is None else row_of.from_tokenizer,
                )
                self.env.set(name, frozenset({padded}))
                if name == measured:
                    padded_ids = padded

    def fresh_buffer(self, receiver: cst.BaseExpression, recv: Value) -> bool:
        """Is `receiver` a tensor just made to be filled: `torch.empty(B, L)`, `torch.LongTensor(B, L)`,
        `x.new(B, L)`, `x.new_zeros(B, L)`, or a name holding a zero or ones buffer?"""
        if isinstance(receiver, cst.Call):
            made = self.imports.qualify(receiver.func) if isinstance(receiver.func, (cst.Name, cst.Attribute)) else None
            return made in P.BUFFER_MAKERS or P.last_name(receiver.func) in P.BUFFER_METHODS
        return bool(tags_of(recv, ZeroFilled) or tags_of(recv, Ones))

    def filled_buffer(self, call: cst.Call, receiver: cst.BaseExpression, fill: cst.BaseExpression) -> Value:
        """`buffer.fill_(pad_id)`: a buffer of pad ids, as `torch.full` makes it (fairseq's collate); with
        -100 a buffer of ignored labels. An in-place fill of a name rebinds it."""
        if self.is_ignore(fill):
            self.note_label_value(call, fill)
            value: Value = frozenset({Masked(call)})
        elif tags_of(self.evaluate(fill), PadId) or P.is_eos_expression(fill):
            value = frozenset({self.padded(call, kind="pt", pad=fill, filled=True)})
        else:
            return EMPTY
        key = place_key(receiver) if isinstance(receiver, (cst.Name, cst.Attribute)) else None
        if key is not None:
            self.env.update(key, value)
        return value


def _measured_list(test: cst.BaseExpression) -> str | None:
    """`len(ids) < n` / `len(ids) <= n` / `n > len(ids)`: the name whose length the loop grows."""
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    target = test.comparisons[0]
    if isinstance(target.operator, (cst.LessThan, cst.LessThanEqual)):
        side = test.left
    elif isinstance(target.operator, (cst.GreaterThan, cst.GreaterThanEqual)):
        side = target.comparator
    else:
        return None
    if (
        isinstance(side, cst.Call)
        and isinstance(side.func, cst.Name)
        and side.func.value == "len"
        and len(side.args) == 1
        and isinstance(side.args[0].value, cst.Name)
    ):
        return side.args[0].value.value
    return None


def _appended_values(body: cst.BaseSuite) -> dict[str, cst.BaseExpression]:
    """name -> the one value each `name.append(value)` statement of the loop body appends; a loop body
    that does anything else is not a padding loop (nothing is returned)."""
    found: dict[str, cst.BaseExpression] = {}
    statements = body.body if isinstance(body, cst.IndentedBlock) else [body]
    for line in statements:
        if not isinstance(line, cst.SimpleStatementLine):
            return {}
        for small in line.body:
            call = small.value if isinstance(small, cst.Expr) else None
            if not (
                isinstance(call, cst.Call)
                and isinstance(call.func, cst.Attribute)
                and call.func.attr.value == "append"
                and isinstance(call.func.value, cst.Name)
                and len(call.args) == 1
            ):
                return {}
            found[call.func.value.value] = call.args[0].value
    return found
