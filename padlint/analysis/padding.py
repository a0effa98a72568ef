"""Padding steps for the flow pass: what pads (pad_sequence, F.pad, np.pad, `ids + [pad] * n`,
`torch.full` filled row by row, keras) and how, so that fixes can rebuild masks from lengths."""

from __future__ import annotations

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.env import EMPTY, key_of_subscript, place_key
from padlint.analysis.values import (
    Const,
    Fill,
    Gap,
    GoodMask,
    Masked,
    Ones,
    Padded,
    PadId,
    SentinelFilled,
    ShapeOf,
    TokenIds,
    Value,
    first,
    tags_of,
)
from padlint.analysis.walker_state import WalkerState


class PaddingSteps(WalkerState):
    """Mixed into the scope walker next to ExpressionEvaluator."""

    def repeat(self, expr: cst.BinaryOperation) -> Fill | None:
        """`[v] * n` (or `n * [v]`): a run of pad ids, -100, ones or zeros."""
        for seq, count in ((expr.left, expr.right), (expr.right, expr.left)):
            if isinstance(seq, cst.List) and len(seq.elements) == 1:
                return self.run_of(seq.elements[0].value, count, expr)
        return None

    def run_of(self, item: cst.BaseExpression, count: cst.BaseExpression, expr: cst.CSTNode) -> Fill | None:
        """A run of `item`, `count` long, written at `expr`."""
        self.evaluate(count)
        what = self.run_value(item, expr)
        if what == "one":
            over, code = self.shape_source(count)
            ones = self.ones(expr, over, code)
            ones.longer = over is not None and _sum_of_lengths(count)
            return Fill("one", count, ones=ones)
        if what == "ignore":
            return Fill("ignore", count)
        if what is not None:
            return Fill(what, count, pad=item)
        if self.value_out_of_view(item, self.evaluate(item)):
            return Fill("unread", count, pad=item)  # `[self.label_pad_token_id] * n`, its value out of view
        if isinstance(item, cst.List) and isinstance(expr, cst.BinaryOperation):
            inner = self.repeat_inner(item, count, expr)
            if inner is not None:
                return inner
        return None

    def run_value(self, item: cst.BaseExpression, expr: cst.CSTNode) -> str | None:
        """What a run of `item` written at `expr` holds: "one", "ignore" (-100, noted as a label value),
        "pad" (the pad id, or EOS used as the pad), "zero", "value" (a sentinel such as -1); None: else."""
        number = P.int_value(item)
        if number is None and isinstance(item, cst.Name):
            number = self.held_int(item)  # `[padding_value] * n`, the parameter's default or the caller's 0
        elif number is None and isinstance(item, cst.Attribute) and P.dotted(item).startswith("self."):
            fixed = self.class_attribute_value(item)  # a field every construction in view fixes
            number = P.int_value(fixed) if fixed is not None else None
        if number == 1:
            return "one"
        if self.is_ignore(item):
            self.note_label_value(expr, item)
            return "ignore"
        if number is None and (tags_of(self.evaluate(item), PadId) or P.is_eos_expression(item)):
            return "pad"
        if number == 0:
            return "zero"
        return "value" if number is not None else None

    def held_int(self, name: cst.Name) -> int | None:
        """The one int a name holds on every path here (a constant handed to a parameter, its default)."""
        # A parameter named like a pad value is guessed to hold the pad id; the int it is handed or
        # defaults to (`padding_value=0`) is what it holds.
        held = frozenset(t for t in self.evaluate(name) if not (isinstance(t, PadId) and t.node is name))
        values = {t.value for t in held if isinstance(t, Const)}
        if len(values) == 1 and held and all(isinstance(t, Const) for t in held):
            value = values.pop()
            return value if isinstance(value, int) and not isinstance(value, bool) else None
        return None

    def repeat_inner(self, item: cst.List, count, expr) -> Fill | None:
        # `[[1] * L] * B`: a batch of ones.
        if len(item.elements) == 1 and isinstance(item.elements[0].value, cst.BinaryOperation):
            fill = self.repeat(item.elements[0].value)
            if fill is not None and fill.what == "one":
                return fill
        return None

    def concatenate(
        self,
        expr: cst.CSTNode,
        left: Value,
        right: Value,
        parts: tuple[cst.BaseExpression, cst.BaseExpression] | None = None,
    ) -> Value:
        """`left + right` of lists (or `np.concatenate([left, right])`, `parts` its two nodes)."""
        if parts is None:
            assert isinstance(expr, cst.BinaryOperation)
            parts = (expr.left, expr.right)
        left_node, right_node = parts
        lfill, rfill = first(left, Fill), first(right, Fill)
        zeros = first(left, Padded)
        if zeros is not None and zeros.side == "right" and P.int_value(zeros.pad) == 0 and not rfill:
            # `ids[:i] + [0] * n + ids[i:]`, or `row += [0] * n` then `row + more_ids`: zeros with tokens after
            # them hold a place (image or speech tokens), not padding (which ends a row).
            return frozenset(t for t in left | right if not isinstance(t, (Padded, Fill, Gap)))
        for fill, data, side, data_node in ((rfill, left, "right", left_node), (lfill, right, "left", right_node)):
            if fill is None:
                continue
            if fill.what == "pad" and self.handed_zero(fill.pad) and self.holds_ones(data):
                # `values + [pad_value] * n` in a helper its caller handed 0, over a row of ones: a mask
                # padded by the helper that pads the ids (`pad(masks, 0)` beside `pad(ids, pad_id)`)
                return frozenset({GoodMask(expr, kind="list")})
            if fill.what == "pad":
                return frozenset({self.list_padded(expr, data, data_node, fill, side)})
            one_run = first(data, Fill) is not None and first(data, Fill).what == "one"
            if fill.what == "one" and (tags_of(data, Ones) or tags_of(data, GoodMask) or one_run):
                over = self.padded_by_gap(fill.count)
                if over is not None:  # `mask += [1] * gap`: a mask padded with ones, as its ids with pads
                    return frozenset({Ones(fill.ones.node if fill.ones else expr, over, None, pads_only=True)})
            if fill.what == "unread" and self.is_label_code(data_node, strict=True):
                # Labels filled with a value not in view (a field or parameter the constructions out of
                # view set): the author's padding value for labels counts as masking; unknown code is
                # never evidence of a bug.
                return frozenset({Masked(expr, bool(tags_of(self.evaluate(fill.count), Gap)))})
            if fill.what == "ignore":
                # Labels padded with -100 on the padding side are masked; `[-100] * n + ids[n:]`
                # on a right-padded row only hides the prompt.
                padded = first(data, Padded)
                if padded is not None and padded.side != side and not tags_of(data, Masked):
                    return data
                # Still token ids where they are not -100 (`[-100] * len(prompt) + answer_ids`): zeros
                # added to them later pad token labels (zero_padding.py).
                self.carry_label_value(right_node if side == "right" else left_node, expr)
                to_width = bool(tags_of(self.evaluate(fill.count), Gap))
                return frozenset({Masked(expr, to_width)}) | frozenset(t for t in data if isinstance(t, TokenIds))
            if fill.what == "zero" and (first(data, Fill) and first(data, Fill).what == "one" or tags_of(data, Ones)):
                return frozenset({GoodMask(expr, kind="list")})
            if fill.what == "zero" and self.holds_token_ids(data, data_node):
                return frozenset({self.list_padded(expr, data, data_node, fill, side)})  # pad id 0 (zero_padding.py)
            if fill.what == "value" and not tags_of(data, Fill):
                # Padding with a sentinel such as -1: labels padded wrongly if they reach a labels place.
                # (A list padded with 0 is left alone: 0 is a real "no" label in TAPAS-style binary labels.)
                padded = self.padded(expr, kind="list", pad=fill.pad, side=side, of_labels=True)
                # A value >= 0 padding rows that are not token ids is a class of their own tag set (a tagger's
                # pad tag): judged only where a loss in view grades them (losses.py), not wherever they go.
                number = self.resolve_int(fill.pad) if fill.pad is not None else None
                if not (isinstance(number, int) and number >= 0) or self.holds_token_ids(data, data_node):
                    self.label_padding(padded, fill.pad, "list")
                return frozenset({padded})
        joined = frozenset(t for t in left | right if not isinstance(t, (Fill, Gap)))
        if _empty_list(left_node) or _empty_list(right_node):
            return joined
        # `prompt_ids + completion_ids`: lists joined end to end. Each part's pads keep their place in the
        # joined row, but the row is longer than either part: no part's mask, gap or lengths spans it.
        return frozenset(t.moved() if isinstance(t, Padded) and t.kind == "list" else t for t in joined)

    def handed_zero(self, item: cst.BaseExpression | None) -> bool:
        """Does `item` hold the int 0 its caller handed in (a pad-named parameter set to 0 by the call)?"""
        if not isinstance(item, cst.Name):
            return False
        held = self.evaluate(item)
        return {t.value for t in held if isinstance(t, Const)} == {0} and all(
            isinstance(t, (Const, PadId)) for t in held
        )

    def holds_ones(self, data: Value) -> bool:
        """A run or row of ones (a per-example mask before padding)."""
        run = first(data, Fill)
        return bool(tags_of(data, Ones) or tags_of(data, GoodMask) or (run is not None and run.what == "one"))

    def list_padded(self, expr, data: Value, data_node, fill: Fill, side: str) -> Padded:
        gap = self.code(fill.count)
        target = None
        gap_value = self.evaluate(fill.count)
        for g in tags_of(gap_value, Gap):
            target = g.target
        row_of = first(data, Padded)
        lengths, names = self.comprehension_lengths(data_node)
        padded = self.padded(
            expr,
            kind="list",
            pad=fill.pad,
            side=side,
            gap=gap,
            names=self.versions_of(fill.count),
            data=self.code(data_node),
            data_names=self.versions_of(data_node),
            target=target,
            rows=False,
            of_labels=self.is_label_code(data_node),
            from_tokenizer=False if row_of is None else row_of.from_tokenizer,
            lengths=lengths,
            lengths_names=names,
            masks_before=tuple(tags_of(data, Masked)),
        )
        if padded.of_labels and self.is_label_code(data_node, strict=True):
            self.label_padding(padded, fill.pad, "list")
        if target is not None and padded not in self.padded_targets:
            self.padded_targets.append(padded)  # `[1] * width` later is a mask over these rows
        return padded

    def padded_by_gap(self, count: cst.BaseExpression) -> Padded | None:
        """The ids padded by a run of `count` pads (`ids + [pad] * gap`, or to the same width), if seen."""
        code = self.code(count)
        targets = {g.target for g in tags_of(self.evaluate(count), Gap)}
        for padded in reversed(self.padded_targets):
            if padded.gap == code or padded.target in targets:
                return padded
        return None

    def comprehension_lengths(self, data_node) -> tuple[str | None, tuple]:
        """Inside `[pad(x) for x in xs]`: the lengths `[len(x) for x in xs]`, valid while `xs` is."""
        if not self.comprehension_stack or data_node is None:
            return None, ()
        comprehension = self.comprehension_stack[-1]
        clauses = for_clauses(comprehension.for_in)
        if len(clauses) != 1 or clauses[0].ifs:
            return None, ()
        clause = clauses[0]
        code = f"[len({self.code(data_node)}) for {self.code(clause.target)} in {self.code(clause.iter)}]"
        return code, self.versions_of(clause.iter)

    def ones_or_full(self, call: cst.Call, is_full: bool, kind: str) -> Value:
        shape = P.positional(call, 0) or P.keyword(call, "size")
        self.evaluate_args(call)
        if is_full:
            fill = P.positional(call, 1) or P.keyword(call, "fill_value")
            if fill is None:
                return EMPTY
            if self.is_ignore(fill.value):
                self.note_label_value(call, fill.value)
                return frozenset({Masked(call)})
            if tags_of(self.evaluate(fill.value), PadId):
                width = _last_element(shape.value) if shape else None
                target = self.code(width) if width else None
                return frozenset({self.padded(call, kind=kind, pad=fill.value, target=target, filled=True)})
            if P.int_value(fill.value) != 1:
                sentinel = self.resolve_int(fill.value)
                if isinstance(sentinel, int) and sentinel < 0:
                    return frozenset({SentinelFilled(call, kind, fill.value)})
                return EMPTY
        dims = [shape.value] if shape is not None else []
        if shape is None or shape.keyword is None:
            dims = [
                a.value for a in call.args if a.keyword is None and a.star != "**"
            ]  # `ones(B, L)`, `ones(*ids.shape)`
        if dims:
            over, code = self.shape_source(dims[-1] if len(dims) > 1 else dims[0])
            if over is not None:
                return frozenset({self.ones(call, over, code)})
        return frozenset({Ones(call)})

    def shape_source(self, expr: cst.BaseExpression) -> tuple[Padded | None, str | None]:
        """Is this shape / length taken from a padded value (or the padding target)? Of a shape of
        several dimensions, the last one decides: `ones((batch_size, n_queries))` shares only the batch
        size with the padded ids (BLIP-2's query tokens), it is not a mask over them."""
        elements = [e.value for e in expr.elements] if isinstance(expr, (cst.Tuple, cst.List)) else [expr]
        for element in elements[-1:]:
            for shape in tags_of(self.evaluate(element), ShapeOf):
                return shape.padded, shape.code
            code = self.code(element)
            for padded in reversed(self.padded_targets):  # the latest padding to that width
                if padded.target == code:
                    return padded, None
        return None, None

    def pad_sequence(self, call: cst.Call) -> Value:
        data_arg = P.positional(call, 0) or P.keyword(call, "sequences")
        data = self.evaluate(data_arg.value) if data_arg else EMPTY
        self.evaluate_args(call)
        only = _only_element(data_arg.value) if data_arg is not None else None
        if only is not None:
            # `pad_sequence([row])`: a batch of one is padded to its own length, no pad is added; the row
            # keeps what it held (a tokenizer's padding, -100s)
            return self.evaluate(only)
        value_arg = P.keyword(call, "padding_value") or P.positional(call, 2)
        pad = value_arg.value if value_arg else None
        if pad is not None and self.is_ignore(pad):
            self.note_label_value(call, pad)
            return frozenset({Masked(call)})
        if (pad is None or P.int_value(pad) == 0) and tags_of(data, Ones):
            return frozenset({GoodMask(call, kind="pt")})  # per-example ones padded with 0
        first_arg = P.keyword(call, "batch_first") or P.positional(call, 1)
        side_arg = P.keyword(call, "padding_side")
        lengths = names = None
        if data_arg is not None and isinstance(data_arg.value, (cst.Name, cst.Attribute)):
            lengths = f"[len(s) for s in {self.code(data_arg.value)}]"
            names = self.versions_of(data_arg.value)
        padded = self.padded(
            call,
            kind="pt",
            pad=pad,
            side="left" if side_arg and P.string_value(side_arg.value) == "left" else "right",
            lengths=lengths,
            lengths_names=names or (),
            batch_first=bool(first_arg and P.int_value(first_arg.value) == 1),
            of_labels=bool(tags_of(data, Masked)) or (data_arg is not None and self.is_label_code(data_arg.value)),
        )
        if padded.of_labels and data_arg is not None and self.is_label_code(data_arg.value, strict=True):
            self.label_padding(padded, pad, "padding_value")
        return frozenset({padded})

    def functional_pad(self, call: cst.Call, kind: str) -> Value:
        data_arg = P.positional(call, 0)
        data = self.evaluate(data_arg.value) if data_arg else EMPTY
        self.evaluate_args(call)
        value_arg = P.keyword(call, "value" if kind == "pt" else "constant_values") or (
            P.positional(call, 3) if kind == "pt" else None
        )
        pad = value_arg.value if value_arg else None
        if pad is not None and self.is_ignore(pad):
            self.note_label_value(call, pad)
            return frozenset({Masked(call)})
        if tags_of(data, Ones):
            return frozenset({GoodMask(call, kind=kind)}) if pad is None or P.int_value(pad) == 0 else EMPTY
        if not self.may_be_token_ids(data_arg.value if data_arg else None, data, pad):
            return EMPTY  # an array of something else (pixels, features) padded: no token ids, no padding to judge
        widths = P.positional(call, 1)
        side = "right"
        if widths is not None and isinstance(widths.value, (cst.Tuple, cst.List)) and widths.value.elements:
            side = "left" if P.int_value(widths.value.elements[-1].value) == 0 else "right"
        lengths, names = self.comprehension_lengths(data_arg.value if data_arg else None)
        padded = self.padded(
            call,
            kind=kind,
            pad=pad,
            side=side,
            lengths=lengths,
            lengths_names=names,
            of_labels=data_arg is not None and self.is_label_code(data_arg.value),
        )
        if (
            padded.of_labels
            and pad is not None
            and data_arg is not None
            and self.is_label_code(data_arg.value, strict=True)
        ):
            self.label_padding(padded, pad, "padding_value")
        return frozenset({padded})

    def may_be_token_ids(self, data_code: cst.BaseExpression | None, data: Value, pad) -> bool:
        """Is there evidence that an array padded by a generic `F.pad`/`np.pad` holds token ids: ids
        the analysis followed there, a name of ids or labels, or a fill that is the pad id or the EOS?
        An array of pixels padded with 0 (an image processor) is none of them (issue 12, class 8)."""
        if any(not isinstance(t, (Const, ShapeOf)) for t in data):
            return True  # a value the analysis follows (ids, an encoding, a copy): judged as before
        if pad is not None and (
            P.is_pad_id_expression(pad) or P.is_eos_expression(pad) or self.resolve_int(pad) == "pad"
        ):
            return True
        if data_code is None:
            return True  # no data in view: unknown, judged as before
        if self.is_label_code(data_code) or not isinstance(data_code, (cst.Name, cst.Attribute, cst.Subscript)):
            return True  # labels, or an expression whose parts are not read here: judged as before
        key = place_key(data_code) or ""
        leaf = (key_of_subscript(data_code) if isinstance(data_code, cst.Subscript) else None) or key.rsplit(".", 1)[-1]
        return bool(P.TOKEN_IDS_NAME.match(leaf))

    def nested_to_padded(self, call: cst.Call, index: int, keyword: str) -> Value:
        """`torch.nested.to_padded_tensor(nt, pad)`: the rows of a nested tensor padded with `pad`."""
        data_arg = P.positional(call, 0)
        data = self.evaluate(data_arg.value) if data_arg else EMPTY
        self.evaluate_args(call)
        value_arg = P.keyword(call, keyword) or P.positional(call, index)
        pad = value_arg.value if value_arg else None
        if pad is not None and self.is_ignore(pad):
            self.note_label_value(call, pad)
            return frozenset({Masked(call)})
        if tags_of(data, Ones):
            return frozenset({GoodMask(call, kind="pt")}) if pad is None or P.int_value(pad) == 0 else EMPTY
        of_labels = data_arg is not None and self.is_label_code(data_arg.value)
        padded = self.padded(call, kind="pt", pad=pad, side="right", of_labels=of_labels)
        if of_labels and pad is not None and data_arg is not None and self.is_label_code(data_arg.value, strict=True):
            self.label_padding(padded, pad, "padding_value")
        return frozenset({padded})

    def keras_pad(self, call: cst.Call) -> Value:
        self.evaluate_args(call)
        value_arg = P.keyword(call, "value")
        side_arg = P.keyword(call, "padding")
        side = "right" if side_arg and P.string_value(side_arg.value) == "post" else "left"
        if value_arg is not None and self.is_ignore(value_arg.value):
            return frozenset({Masked(call)})
        return frozenset({self.padded(call, kind="np", pad=value_arg.value if value_arg else None, side=side)})

    def padded(self, node: cst.CSTNode, **fields) -> Padded:
        """A new padding step; remembers which bindings its pad value's code depends on."""
        fields["made_in"] = self.current_fn
        pad = fields.get("pad")
        if pad is None:
            return Padded(node, **fields)
        self.note_pad_fallback(pad)
        fields["pad_may_be_eos"] = self.module_info.may_hold_eos(pad, self.current_fn, self.facts.module)
        spellings = [(pad, self.versions_of(pad))]
        value = self.evaluate(pad)
        numbers = {t.value for t in value if isinstance(t, Const)}
        if len(numbers) == 1 and all(isinstance(t, (Const, PadId)) for t in value):
            fields["pad_number"] = numbers.pop()  # `pad_token_id` handed 0 by this call: it pads with 0
        for origin in tags_of(value, PadId):
            # A helper's `fill` parameter is the caller's `self.pad_id`: keep every spelling, and
            # let the fix use the first one that is valid where it is written.
            spellings += [a for a in origin.aliases if place_key(a[0]) is not None]
            if place_key(origin.node) is not None:
                spellings.append((origin.node, origin.names))
        return Padded(node, pad_spellings=tuple(spellings), **fields)


def for_clauses(node) -> list:
    clauses = []
    while node is not None:
        clauses.append(node)
        node = node.inner_for_in
    return clauses


def _last_element(expr: cst.BaseExpression) -> cst.BaseExpression | None:
    if isinstance(expr, (cst.Tuple, cst.List)) and expr.elements:
        return expr.elements[-1].value
    return None


def _empty_list(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, (cst.List, cst.Tuple)) and not expr.elements


def _sum_of_lengths(count: cst.BaseExpression) -> bool:
    """`len(prompt) + len(ids)`, `len(ids) + 1`: a count that adds to the padded value's length, so a run
    that long covers more than that value."""
    return isinstance(count, cst.BinaryOperation) and isinstance(count.operator, cst.Add)


def _only_element(expr: cst.BaseExpression) -> cst.BaseExpression | None:
    """`x` of `[x]` or `(x,)`: a list or tuple display of exactly one item, not unpacked."""
    if isinstance(expr, (cst.List, cst.Tuple)) and len(expr.elements) == 1:
        element = expr.elements[0]
        return element.value if isinstance(element, cst.Element) else None
    return None
