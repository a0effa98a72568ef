"""Expression evaluation for the flow pass: what tags does this expression's value carry?

Calls are matched by qualified name through the module's imports (`T.ones_like` is
`torch.ones_like` under `import torch as T`); unknown calls produce no tags (precision first).
"""

from __future__ import annotations

import dataclasses

import libcst as cst

from padlint.analysis import map_chain, shape_ops
from padlint.analysis import patterns as P
from padlint.analysis.env import EMPTY, key_of_subscript, place_key, single_index
from padlint.analysis.losses import LOSS_NAME
from padlint.analysis.padding import for_clauses
from padlint.analysis.script_names import names_in
from padlint.analysis.values import (
    Arange,
    Const,
    Copy,
    DatasetOf,
    DictOf,
    Encoding,
    Gap,
    GoodMask,
    ItemsWritten,
    Masked,
    MaskedProduct,
    MeanValue,
    Model,
    ModelHolder,
    NoneValue,
    Ones,
    OneText,
    Padded,
    PadId,
    PadIdMask,
    PerPositionLoss,
    RealCount,
    ShapeOf,
    TokenIds,
    Tokenizer,
    Truth,
    TupleOf,
    Value,
    first,
    tags_of,
)
from padlint.analysis.walker_state import WalkerState
from padlint.semantics import table as T

ARANGE = {"torch.arange", "numpy.arange"}
LOSSES = T.names("loss")
# Methods of a boolean mask that select the same entries (`m.bool()`, `m.view(-1)`, `m.nonzero()`).
SELECTION_KEEPERS = frozenset({"bool", "reshape", "view", "flatten", "to", "contiguous", "nonzero"})


class ExpressionEvaluator(WalkerState):
    """Mixed into the scope walker, which provides env, facts, code(), sinks and local calls."""

    # ---- entry -------------------------------------------------------------------------
    def evaluate(self, expr: cst.BaseExpression | None) -> Value:
        if expr is None:
            return EMPTY
        method = getattr(self, "eval_" + type(expr).__name__, None)
        if method is None:
            return EMPTY
        return method(expr)

    # ---- names, attributes, subscripts --------------------------------------------------
    def eval_Name(self, expr: cst.Name) -> Value:
        if expr.value in ("True", "False"):
            return frozenset({Truth(expr.value == "True")})
        self.read_place(expr.value, whole=not self.partial_read)
        held = self.env.get(expr.value)
        if held is None and (expr.value in self.imports.from_imports or self.module_context is not None):
            held = self.project_value(expr.value)  # a function or class of another module
        if held:
            if (
                all(isinstance(t, (Const, NoneValue)) for t in held)
                and P.is_pad_id_expression(expr)
                and not any(isinstance(t, Const) and t.value == P.IGNORE_VALUE for t in held)
            ):
                # `pad_id` handed an int or left to its default: still named as the pad id (a
                # `padding_value` handed the ignore value is that value, whatever its name).
                return held | {PadId(expr, names=self.versions_of(expr))}
            return self.seen_as(expr, held)
        if P.is_pad_id_expression(expr):
            return frozenset({PadId(expr, names=self.versions_of(expr))})
        return held or EMPTY

    def seen_as(self, expr: cst.BaseExpression, held: Value) -> Value:
        """A pad id read through a name: remember this spelling too (a fix may only be able to use it)."""
        if not any(isinstance(t, PadId) for t in held):
            return held
        here = (expr, self.versions_of(expr))
        return frozenset(
            PadId(t.node, t.eos_fallback, t.names, (here, *t.aliases), t.handed) if isinstance(t, PadId) else t
            for t in held
        )

    def eval_Attribute(self, expr: cst.Attribute) -> Value:
        key = place_key(expr)
        held = self.env.get(key) if key else None
        if held is not None:
            return self.seen_as(expr, held)
        attr = expr.attr.value
        if attr in P.PAD_ID_ATTR:
            return frozenset({PadId(expr, names=self.versions_of(expr))})
        if isinstance(expr.value, cst.Call) and attr in ("logits", "last_hidden_state", "hidden_states"):
            self.unused_loss_calls.add(expr.value)
        base = self.evaluate(expr.value)
        for holder in tags_of(base, ModelHolder):  # `clf.model`, `clf.tokenizer` of a pipeline
            role = holder.attributes.get(attr)
            if role is not None:
                return frozenset({Model(expr) if role == "model" else Tokenizer(expr)})
        states = self.states_field(base, attr)  # `out.last_hidden_state` of a padded batch
        if states is not None:
            return states
        if attr in ("input_ids", "attention_mask"):
            return self.encoding_field(base, attr, expr)
        if attr == "shape":
            return frozenset(ShapeOf(p, self.code(expr.value)) for p in tags_of(base, Padded))
        if attr in shape_ops.METHODS:  # `ids.T`, `ids.mT`
            return self.keep_padding(expr, base, shape_ops.METHODS[attr], [])
        return (self.module_member(expr) if not base else None) or EMPTY  # `collate_fn=data.collate`

    def eval_Subscript(self, expr: cst.Subscript) -> Value:
        key = place_key(expr)
        held = self.read_held(key)
        if held is not None:
            return held
        base = self.evaluate_base(expr.value, key is not None)
        self.last_position_read(expr, base)
        name = key_of_subscript(expr)
        states = self.states_field(base, name) if name is not None else self.one_layer(base)
        if states is not None:
            return states  # `out["last_hidden_state"]`, `out.hidden_states[-1]`
        if name is not None:
            # `mapped["train"]`: a split of a mapped DatasetDict holds the same rows (a column indexed by
            # one int is no row: reading a field of it would fail, so nothing else reads rows from it)
            return self.encoding_field(base, name, expr) | frozenset(tags_of(base, DatasetOf))
        item = _tuple_item(base, expr)
        if item is not None:
            return item  # `pair[0]`, `batch[1]` of a tuple of values: that one value
        # A row, a column slice or a shape entry of a value keeps what the value is.
        kept: Value = frozenset(
            t
            for t in base
            if isinstance(t, (ShapeOf, Ones, Copy, Masked, GoodMask, PadId, Arange, TokenIds, MeanValue))
        )
        if _is_run_of_items(expr):
            kept |= frozenset(
                t for t in base if isinstance(t, (DictOf, ItemsWritten))
            )  # `rows[i : i + n]` of a list of feature dicts: such dicts still
        elif _is_one_index(expr):
            # `rows[idx]` of a list of feature dicts or encodings (a Dataset's `__getitem__`): one of them;
            # of a mapped dataset (a wrapper Dataset holding it): one example as the map stored it
            kept |= frozenset(t for t in base if isinstance(t, (DictOf, Encoding, ItemsWritten)))
            kept |= map_chain.rows_handed(base, batched=False)
        if self.selects_unignored(expr):
            # `labels[labels != -100]`: no entry holding the ignore value is left to be graded as a 0.
            return frozenset(t for t in kept if not isinstance(t, (Copy, Ones, GoodMask, Masked)))
        if self.selects_by_mask(expr):
            # `ids[mask.bool()]`, `cand[torch.where(mask)]`: only the real tokens are left (table: removes).
            return frozenset(t for t in kept if not isinstance(t, (Copy, Ones, GoodMask)))
        padded = tags_of(base, Padded)
        if not padded:
            return kept
        if self.slices_to_real_count(expr):
            return frozenset(t for t in kept if not isinstance(t, (Copy, Ones, GoodMask)))  # pads cut off
        index = self.code(expr)[len(self.code(expr.value)) :]
        # One index into a list of padded rows (`enc["input_ids"][k]`) picks one row of them.
        one = _is_one_index(expr)
        picked = single_index(expr) if one else None
        if picked is not None and P.int_value(picked) == 0:
            # the first token of one row padded on the right is a real token, never a pad (nor a copy of one)
            # one row: a row picked from rows, or the name a loop over the rows binds (`for row in rows`)
            loop_row = isinstance(expr.value, cst.Name) and expr.value.value in self.loop_aliases
            first = {
                p.node
                for p in padded
                if (p.rows is False or (p.rows and loop_row)) and p.kind == "list" and p.side == "right"
            }
            padded = [p for p in padded if p.node not in first]
            kept = frozenset(t for t in kept if not (isinstance(t, Copy) and t.padded and t.padded.node in first))
        kept |= {
            p.derived("", index).but(rows=False) if one and p.rows and p.kind == "list" else p.derived("", index)
            for p in padded
        }
        if _is_full_slice(expr):
            return kept | self.make_copies(expr, base, self.code(expr.value))
        return kept

    def slices_to_real_count(self, expr: cst.Subscript) -> bool:
        """`row[-mask.sum():]` (left padding) or `row[:n]` with `n = mask.sum()` (right padding): a
        row cut to its count of real tokens (issue 12: padding removed before use)."""
        if len(expr.slice) != 1 or not isinstance(expr.slice[0].slice, cst.Slice):
            return False
        bounds = expr.slice[0].slice
        if bounds.step is not None:
            return False
        if bounds.lower is None and bounds.upper is not None:
            count = bounds.upper
        elif bounds.upper is None and isinstance(bounds.lower, cst.UnaryOperation):
            if not isinstance(bounds.lower.operator, cst.Minus):
                return False
            count = bounds.lower.expression
        else:
            return False
        return bool(tags_of(self.evaluate(count), RealCount))

    def selects_by_mask(self, expr: cst.Subscript) -> bool:
        """Is `x[index]` a selection by a mask: a mask value or a place named as one, a `!=`/`==`
        comparison, `where(m)` with one argument, `m.nonzero()`?"""
        if len(expr.slice) != 1 or not isinstance(expr.slice[0].slice, cst.Index):
            return False
        index = expr.slice[0].slice.value
        if isinstance(index, cst.Call):
            name = P.last_name(index.func)
            if name == "nonzero" or name == "where" and len(index.args) == 1:
                return True
        if isinstance(index, cst.Comparison):
            return True
        stripped = index
        while isinstance(stripped, cst.Call) and isinstance(stripped.func, cst.Attribute):
            stripped = stripped.func.value  # `mask.bool()`, `mask.to(torch.bool)`
        value = self.evaluate(index)
        named = "mask" in (place_key(stripped) or "").lower()
        return named or bool(tags_of(value, GoodMask)) or bool(tags_of(value, PadIdMask))

    def selects_unignored(self, expr: cst.Subscript) -> bool:
        """Is the index of `x[index]` the entries that differ from the ignore value (`labels != -100`,
        `labels.ne(-100)`, through names bound to it, `.bool()` and reshapes, `where(m)`, `m.nonzero()`)?"""
        if len(expr.slice) != 1 or not isinstance(expr.slice[0].slice, cst.Index):
            return False
        index: cst.BaseExpression = expr.slice[0].slice.value
        for _ in range(8):
            if isinstance(index, cst.Name):
                bound = self.value_bound(index)
                if bound is None:
                    return False
                index = bound
            elif (
                isinstance(index, cst.Call) and isinstance(index.func, cst.Attribute) and index.func.attr.value == "ne"
            ):
                first = P.positional(index, 0)
                return first is not None and self.resolve_int(first.value) == P.IGNORE_VALUE
            elif isinstance(index, cst.Call) and P.last_name(index.func) == "where" and len(index.args) == 1:
                index = index.args[0].value
            elif (
                isinstance(index, cst.Call)
                and isinstance(index.func, cst.Attribute)
                and (index.func.attr.value in SELECTION_KEEPERS)
            ):
                index = index.func.value
            else:
                pair = P.comparison_operand(index, (cst.NotEqual,))
                return pair is not None and P.IGNORE_VALUE in (self.resolve_int(pair[0]), self.resolve_int(pair[1]))
        return False

    def read_held(self, key: str | None) -> Value | None:
        """What the place `key` holds now, read as a whole (None: no place, or nothing known there)."""
        if not key:
            return None
        self.read_place(key, whole=True)
        return self.env.get(key)

    def evaluate_base(self, base: cst.BaseExpression, partial: bool) -> Value:
        """Evaluate `x` of `x["k"]`: reading one key is not reading the whole of `x`."""
        saved, self.partial_read = self.partial_read, partial
        try:
            return self.evaluate(base)
        finally:
            self.partial_read = saved

    def encoding_field(self, base: Value, name: str, expr: cst.BaseExpression, whole: bool = False) -> Value:
        """The value of field `name` of `base`, read at `expr` (`enc["input_ids"]`, `enc.input_ids`,
        `batch.pop("input_ids")`). `whole`: every field is taken together (a comprehension over the
        fields), so reading one of a call's result directly does not lose the others."""
        written = [w.entries[name] for w in tags_of(base, ItemsWritten) if name in w.entries]
        if written:
            return frozenset().union(*written)  # a loop wrote this field of every item
        out: set = set()  # the tags of the value read
        for held in tags_of(base, DictOf):
            out |= self.dict_field(held, name, expr, whole)  # `b["mask"]` of a dict literal a helper returned
        for enc in tags_of(base, Encoding):
            if name == "input_ids" and enc in self.ids_masked_in:
                out.add(Masked(expr))  # masked in place at the pads where it was made
            elif name == "input_ids" and enc.padded:
                direct = isinstance(_base_of(expr), cst.Call) and not whole
                lost = enc.lost_at or (expr if direct and enc.mask_kept else None)
                out.add(
                    Padded(
                        enc.node,
                        made_in=self.current_fn,
                        kind=enc.kind,
                        mask_kind=enc.kind,
                        from_tokenizer=True,
                        side=enc.side,
                        encoding=None if lost else self.code(_base_of(expr)),
                        by_attribute=isinstance(expr, cst.Attribute),
                        lost_at=lost,
                        target_ids=enc.target_ids,
                        rows=enc.rows,
                        of_labels=enc.of_labels,
                    )
                )
            elif name == "input_ids":
                out.add(TokenIds(expr))  # ids of one example, or a batch padded by nobody yet
            elif name == "attention_mask" and enc.mask_kept:
                out.add(GoodMask(expr, kind=enc.kind, made_by=enc.node))
                self.facts.masks_read.add(enc.node)
        return frozenset(out)

    def eval_Yield(self, expr: cst.Yield) -> Value:
        """`yield item` (`yield from items`): a generator hands its items out as a function returns its
        value, so what iterating a call of it gives (a Dataset's `__iter__` feeding a DataLoader) is
        what it yields. The value `yield` itself evaluates to is what `send` hands in: unknown."""
        inner = expr.value.item if isinstance(expr.value, cst.From) else expr.value
        if inner is not None:
            self.return_nodes.append(inner)
            self.returns.append(self.evaluate(inner) | self.returned_fields(inner))
        return EMPTY

    # ---- literals and operators ----------------------------------------------------------
    def eval_Integer(self, expr: cst.Integer) -> Value:
        return EMPTY

    def eval_SimpleString(self, expr: cst.BaseExpression) -> Value:
        return frozenset({OneText(expr)})

    def eval_FormattedString(self, expr: cst.FormattedString) -> Value:
        for part in expr.parts:
            if isinstance(part, cst.FormattedStringExpression):
                self.evaluate(part.expression)
        return frozenset({OneText(expr)})

    eval_ConcatenatedString = eval_SimpleString

    def eval_List(self, expr: cst.List) -> Value:
        return _many(self.union(e.value for e in expr.elements))

    def eval_Tuple(self, expr: cst.Tuple) -> Value:
        items = tuple(self.evaluate(e.value) for e in expr.elements)
        return _many(frozenset().union(*items)) | {TupleOf(items)}

    eval_Set = eval_List

    def eval_Dict(self, expr: cst.Dict) -> Value:
        entries: dict[str, tuple[Value, cst.BaseExpression]] = {}
        splat = False
        for element in expr.elements:
            if not isinstance(element, cst.DictElement):  # `**other`
                splat = True
                self.evaluate(element.value)
                continue
            value = self.evaluate(element.value)
            key = P.string_value(element.key)
            if key is not None:
                entries[key] = (value, element.value)
                if LOSS_NAME.search(key):
                    self.is_loss(value)  # `return {"loss": loss, ...}`
        self.check_feature_dict(expr, entries, splat, "dict")
        self.last_dict = (expr, entries)
        return frozenset({DictOf({k: v for k, (v, _) in entries.items()})}) if entries and not splat else EMPTY

    def eval_BooleanOperation(self, expr: cst.BooleanOperation) -> Value:
        if isinstance(expr.operator, cst.And):
            self.note_pads_excluded(expr)
        left, right = self.evaluate(expr.left), self.evaluate(expr.right)
        if isinstance(expr.operator, cst.Or) and tags_of(left, PadId) and P.mentions_eos(expr.right):
            return frozenset({PadId(expr, eos_fallback=True, names=self.versions_of(expr))})
        return left | right

    def eval_IfExp(self, expr: cst.IfExp) -> Value:
        test = self.evaluate(expr.test)
        made = self.pad_mask_choice(expr, expr.test, test, expr.body, expr.orelse)  # `0 if t == pad_id else 1`
        if made is not None:
            return made
        value = self.evaluate(expr.body) | self.evaluate(expr.orelse)
        ignore = P.IGNORE_VALUE
        if isinstance(ignore, int) and any(self.is_ignore(branch) for branch in (expr.body, expr.orelse)):
            # `IGNORE_INDEX if ignore_pads else pad_id`: the ignore value on one path, whatever it is
            # named, is part of what the expression holds.
            value |= {Const(ignore)}
        return value

    def eval_UnaryOperation(self, expr: cst.UnaryOperation) -> Value:
        value = self.evaluate(expr.expression)
        if isinstance(expr.operator, (cst.BitInvert, cst.Not)):
            negated = self.negated_pad_equality(expr, expr.expression)  # `~(ids == pad_id)`: ids != pad_id
            if negated is not None:
                return negated
            # `~attention_mask.bool()`: True at the pads, no longer a mask of the real tokens
            return frozenset(t for t in value if not isinstance(t, (GoodMask, PadIdMask)))
        return value

    def eval_Comparison(self, expr: cst.Comparison) -> Value:
        values = [self.evaluate(expr.left)] + [self.evaluate(target.comparator) for target in expr.comparisons]
        # `arange(L)[None, :] < lengths[:, None]`: a mask from lengths.
        if any(tags_of(v, Arange) for v in values) or self.mentions_call(expr, ARANGE):
            if self.marks_positions_past_length(expr, values[0]):
                return EMPTY  # `arange(L) >= lengths`: True at the pads, not a mask of the real tokens
            return frozenset({GoodMask(expr, kind="np" if self.mentions_call(expr, {"numpy.arange"}) else "pt")})
        pair = P.comparison_operand(expr, (cst.NotEqual, cst.Equal))
        if pair is not None and self.graded_labels(expr, *pair):
            return EMPTY
        pair = P.comparison_operand(expr, (cst.NotEqual,))
        if pair is not None:
            return self.pad_comparison(expr, *pair)
        return EMPTY

    def marks_positions_past_length(self, expr: cst.Comparison, left: Value) -> bool:
        """`arange(L) >= lengths`, `lengths <= arange(L)`: a comparison of positions with lengths that is True
        past each row's length (the pads), the reverse of a mask of the real tokens."""
        if len(expr.comparisons) != 1:
            return False
        op = expr.comparisons[0].operator
        arange_left = bool(tags_of(left, Arange)) or self.mentions_call(expr.left, ARANGE)
        past = (cst.GreaterThan, cst.GreaterThanEqual) if arange_left else (cst.LessThan, cst.LessThanEqual)
        return isinstance(op, past)

    def note_ids_restored(self, call: cst.Call, qualified: str | None) -> None:
        """`x.masked_fill_(x == -100, pad_id)`, `np.where(y != -100, y, pad_id)`: the ignore index is
        replaced by a token id, which makes model inputs (`decoder_input_ids` shifted from labels) or ids
        to decode; the comparison picks positions to write ids into, it grades no labels."""
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in ("masked_fill", "masked_fill_"):
            condition = P.positional(call, 0) or P.keyword(call, "mask")
            fills = [P.positional(call, 1) or P.keyword(call, "value")]
        elif qualified in P.WHERE:
            condition = P.positional(call, 0) or P.keyword(call, "condition")
            fills = [P.positional(call, 1), P.positional(call, 2)]
        else:
            return
        if condition is None or any(fill is None or self.is_ignore(fill.value) for fill in fills):
            return
        pair = P.comparison_operand(condition.value, (cst.NotEqual, cst.Equal))
        if pair is not None and any(self.is_ignore(side) for side in pair):
            self.ids_restored_at.add(condition.value)

    def note_pads_excluded(self, expr: cst.BooleanOperation) -> None:
        """`t != -100 and t != pad_id`: the positions picked are neither ignored nor pads, so the
        comparison with the ignore value grades no pad, whatever the labels hold there."""
        operands: list[cst.BaseExpression] = []
        stack: list[cst.BaseExpression] = [expr]
        while stack:
            part = stack.pop()
            if isinstance(part, cst.BooleanOperation) and isinstance(part.operator, cst.And):
                stack.extend((part.right, part.left))
            else:
                operands.append(part)
        unpadded = set()
        for part in operands:
            pair = P.comparison_operand(part, (cst.NotEqual,))
            for value, other in (pair, pair[::-1]) if pair is not None else ():
                if self.is_pad_id(other) and not self.is_pad_id(value):
                    unpadded.add(self.code(value))
        for part in operands:
            pair = P.comparison_operand(part, (cst.NotEqual,))
            if pair is not None and any(self.code(side) in unpadded for side in pair):
                self.pads_excluded_at.add(part)

    def graded_labels(self, node: cst.CSTNode, left: cst.BaseExpression, right: cst.BaseExpression) -> bool:
        """`labels != -100`, `labels.ne(IGNORE_INDEX)`: the code grades the positions whose label is not
        the ignore value (a hand-written loss, sequence log-probs), so the labels reach a consumer that
        needs -100 at the pads, as a loss's target does. Not where the same test also leaves the pad id
        out (`t != -100 and t != pad_id`)."""
        if node in self.ids_restored_at:
            return True
        if node in self.pads_excluded_at:
            return True
        for labels, other in ((left, right), (right, left)):
            if self.is_ignore(other) and not self.is_ignore(labels):
                self.label_sink(self.evaluate(labels), labels, node, "compare")
                return True
        return False

    def eval_BinaryOperation(self, expr: cst.BinaryOperation) -> Value:
        op = expr.operator
        if isinstance(op, cst.Multiply):
            fill = self.repeat(expr)
            if fill is not None:
                return frozenset({fill, fill.ones} if fill.ones else {fill})
        left, right = self.evaluate(expr.left), self.evaluate(expr.right)
        product: Value = EMPTY
        if isinstance(op, cst.Multiply):
            block = self.pad_block(expr, left, right)
            if block is not None:
                return frozenset({block})
            mask = self.padding_mask_of(expr, left, right)
            if mask is not None:  # `x * mask`: its mean, wherever taken, counts the pads (losses.py)
                product = frozenset({MaskedProduct(expr, mask)})
                mask_value, other = (right, left) if mask is expr.right else (left, right)
                self.mask_after_average(expr, mask, mask_value, other)
            else:
                product = _scaled_losses(expr, left, right)
        means = frozenset(t for t in left | right if isinstance(t, MeanValue))  # `mean * t ** 2`, `ce + kl`
        return self.arithmetic(expr, op, left, right) | means | product

    def arithmetic(self, expr: cst.BinaryOperation, op, left: Value, right: Value) -> Value:
        if isinstance(op, cst.Subtract) and P.int_value(expr.left) == 1:
            negated = self.negated_pad_equality(expr, expr.right)  # `1 - (ids == pad_id).long()`
            if negated is not None:
                return negated
        if isinstance(op, cst.Subtract):
            # `max_length - len(ids)`: the padding gap towards max_length.
            if _is_len_call(expr.right):
                return frozenset({Gap(self.code(expr.left))})
            return frozenset(t for t in left if isinstance(t, ShapeOf))
        if isinstance(op, cst.Add):
            return self.concatenate(expr, left, right)
        return EMPTY

    # ---- comprehensions and lambdas -----------------------------------------------------
    def eval_ListComp(self, expr) -> Value:
        run = self.comprehension_run(expr) if isinstance(expr, cst.ListComp) else None
        if run is not None:
            return frozenset({run, run.ones} if run.ones else {run})  # `[pad_id for _ in range(n)]`
        saved = self.env
        self.env = self.env.branch()
        try:
            for clause in for_clauses(expr.for_in):
                self.bind_loop_target(clause.target, clause.iter)
                self.str_names.discard(getattr(clause.target, "value", None))
                if isinstance(clause.target, cst.Name) and self.holds_texts(clause.iter):
                    self.str_names.add(clause.target.value)
                for cond in clause.ifs:
                    self.evaluate(cond.test)
            self.comprehension_stack.append(expr)
            value = self.evaluate(expr.elt)
            self.comprehension_stack.pop()
            if self.comprehension_has_ignore(expr.elt):
                self.comprehension_masks_by_pad_id(expr, expr.elt)  # the comprehension holding the `if`
                # element by element over one row of one width (`[t if t != pad else -100 for t in row]`):
                # a row of that width
                clauses = list(for_clauses(expr.for_in))
                whole = len(clauses) == 1 and self.rows_of_one_width_only(self.evaluate(clauses[0].iter))
                return frozenset({Masked(expr, whole)})
            ones = self.comprehension_ones(expr, value)
            if ones is not None:
                return frozenset({ones})
            value = self.lift_token_masks(expr, value)
            return _many(frozenset(self.as_rows(t) for t in value))
        finally:
            self.env = saved

    eval_GeneratorExp = eval_ListComp
    eval_SetComp = eval_ListComp

    def eval_DictComp(self, expr: cst.DictComp) -> Value:
        """`{k: v.squeeze(0) for k, v in enc.items()}`: each field of `enc` through the same expression
        (a Dataset's `__getitem__` taking one row of a tokenizer's output); other shapes are unknown."""
        shape = _fields_comprehension(expr)
        if shape is None:
            return EMPTY
        source, value_name = shape
        fields = self.fields_of(self.evaluate(source), source)
        if not fields:
            return EMPTY
        saved = self.env
        self.env = self.env.branch()
        try:
            entries = {}
            for name, value in fields.items():
                self.env.set(value_name, value)
                entries[name] = self.evaluate(expr.value)
        finally:
            self.env = saved
        return frozenset({DictOf(entries, alike=True)})

    def dict_field(self, held: DictOf, name: str, expr: cst.BaseExpression, whole: bool) -> Value:
        """Field `name` of a dict; the ids of a dict whose fields are alike keep their mask, which is
        the same dict's "attention_mask" (a fix reads it there)."""
        entry = held.entries.get(name, EMPTY)
        masks = tags_of(held.entries.get("attention_mask", EMPTY), GoodMask)
        base = _base_of(expr)
        if not held.alike or name != "input_ids" or not masks or whole or isinstance(base, cst.Call):
            return entry
        kinds = {m.kind for m in masks}
        if len(kinds) != 1:
            return entry
        where, kind = self.code(base), kinds.pop()
        return frozenset(
            t.but(encoding=where, template="§", lost_at=None, crossed_at=None, mask_kind=kind, made_in=self.current_fn)
            if isinstance(t, Padded) and t.template is not None
            else t
            for t in entry
        )

    def fields_of(self, base: Value, node: cst.BaseExpression) -> dict[str, Value]:
        """The values of the fields a dict or a tokenizer's output holds, read as `node[name]` reads them."""
        names: set[str] = set()
        for held in tags_of(base, DictOf):
            names |= held.entries.keys()
        for enc in tags_of(base, Encoding):
            names |= {"input_ids", "attention_mask"} if enc.mask_kept else {"input_ids"}
        return {name: self.encoding_field(base, name, node, whole=True) for name in sorted(names)}

    def eval_Lambda(self, expr: cst.Lambda) -> Value:
        return self.walk_lambda(expr)

    def comprehension_ones(self, expr, value: Value) -> Ones | None:
        """`[[1] * len(r) for r in rows]`, `[1 for _ in ids]`: the comprehension is the ones mask."""
        clauses = for_clauses(expr.for_in)
        iterated = self.evaluate(clauses[0].iter) if len(clauses) == 1 else EMPTY
        padded = first(iterated, Padded)
        code = self.code(clauses[0].iter) if padded is not None else None
        if P.int_value(expr.elt) == 1 and not isinstance(expr.elt, cst.Name):
            return self.ones(expr, padded, code) if padded is not None else Ones(expr)
        inner = [o for o in tags_of(value, Ones) if o.over is not None]
        if inner and padded is not None and any(o.over.node is padded.node for o in inner):
            return self.ones(expr, padded, code)
        if inner and padded is None and inner[0].over_code is None:
            return Ones(expr, inner[0].over, None)  # `[[1] * MAX_LEN for _ in range(n)]`
        return None

    def comprehension_has_ignore(self, elt: cst.BaseExpression) -> bool:
        """`[t if m else -100 for ...]`, `[(l if l != pad else -100) for l in row]`, nested once. Not where
        the test compares with a token's text (`l != tok.pad_token`): an id never equals a string, so the
        -100 branch is never taken."""
        if isinstance(elt, cst.IfExp):
            if _compares_with_token_text(elt.test):
                return False
            return self.is_ignore(elt.body) or self.is_ignore(elt.orelse)
        if isinstance(elt, (cst.ListComp, cst.GeneratorExp)):
            return self.comprehension_has_ignore(elt.elt)
        return False

    def as_rows(self, tag):
        return tag.but(rows=True) if isinstance(tag, Padded) and tag.kind == "list" else tag

    # ---- helpers ---------------------------------------------------------------------------
    def union(self, exprs) -> Value:
        out: frozenset = EMPTY
        for e in exprs:
            out = out | self.evaluate(e)
        return out

    def mentions_call(self, node: cst.CSTNode, names: set[str]) -> bool:
        """Does `node` contain a call to one of `names` (qualified; only arange is ever asked)?"""
        stack = [node]
        while stack:
            n = stack.pop()
            if (
                type(n) is cst.Call
                and P.last_name(n.func) in self.arange_names
                and self.imports.qualify(n.func) in names
            ):
                return True
            stack.extend(P.child_nodes(n))
        return False

    def is_ignore(self, expr: cst.BaseExpression | None) -> bool:
        """-100 or a name for it (`IGNORE_INDEX`, `self.ignore_index`)."""
        if expr is None:
            return False
        number = P.int_value(expr)
        if number is not None:
            return number == P.IGNORE_VALUE
        if isinstance(expr, (cst.Name, cst.Attribute)):
            # A value in view decides (`from .consts import IGNORE` with `IGNORE = -1` there is not
            # -100); only a name whose value is not in view is taken at its word.
            resolved = self.resolve_int(expr)
            if isinstance(resolved, int):
                return resolved == P.IGNORE_VALUE
            if resolved == "pad":
                return False  # `ignore_index` handed the pad id: the value in view decides, not the name
            name = expr.value if isinstance(expr, cst.Name) else expr.attr.value
            return "ignore" in name.lower()
        return False

    def is_label_code(self, expr: cst.BaseExpression, strict: bool = False, hops: int = 0) -> bool:
        """Named like labels (`tgt`, `f["labels"]`); `strict`: token labels only, not `label_map`."""
        if hops > 8:
            return False  # `x = x + ...` chains: give up rather than loop
        if isinstance(expr, (cst.ListComp, cst.GeneratorExp)):
            return self.is_label_code(expr.elt, strict, hops + 1)
        if isinstance(expr, cst.Call) and expr.args:
            return self.is_label_code(expr.args[0].value, strict, hops + 1)
        if isinstance(expr, cst.Subscript) and key_of_subscript(expr) is None:
            return self.is_label_code(expr.value, strict, hops + 1)  # `f["labels"][:n]`, `labels[i]`
        key = place_key(expr) or ""
        if strict:
            leaf = key_of_subscript(expr) if isinstance(expr, cst.Subscript) else key.rsplit(".", 1)[-1]
            if leaf and P.TOKEN_LABELS.match(leaf):
                return True
            source = self.value_nodes.get(key) if isinstance(expr, cst.Name) else None
            return source is not None and source is not expr and self.is_label_code(source, True, hops + 1)
        return bool(P.LABEL_NAME.search(key.rsplit(".", 1)[-1]))

    def versions_of(self, expr: cst.CSTNode) -> tuple:
        """The bindings `expr`'s code reads: (name, defining scope, version) each."""
        names = set()
        stack = [expr]
        while stack:
            n = stack.pop()
            if isinstance(n, cst.Name):
                names.add(n.value)
            elif isinstance(n, cst.Attribute):
                stack.append(n.value)
            else:
                stack.extend(P.child_nodes(n))
        return tuple((name, id(self.env.owner(name)), self.env.version(name)) for name in sorted(names))

    def still_valid(self, names: tuple) -> bool:
        """Is code written where those bindings were read still right here (same scope, not rebound)?"""
        return all(
            id(self.env.owner(name)) == owner and self.env.version(name) == version for name, owner, version in names
        )


def _many(value: Value) -> Value:
    """A list, tuple or comprehension of values: several texts are not one text."""
    return frozenset(t for t in value if not isinstance(t, OneText))


def _base_of(expr: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "pop":
        return expr.func.value  # `batch.pop("input_ids")`: the dict read
    return expr.value if isinstance(expr, (cst.Subscript, cst.Attribute)) else expr


def _fields_comprehension(expr: cst.DictComp) -> tuple[cst.BaseExpression, str] | None:
    """(`src`, "v") of `{k: <expr of v> for k, v in src.items()}`: one clause, no filter, the key kept
    as it is and the value not chosen by it (a filter or a key-dependent value changes which fields
    hold what, which is not in view)."""
    clause = expr.for_in
    if clause.inner_for_in is not None or clause.ifs or not isinstance(clause.target, cst.Tuple):
        return None
    names = [e.value.value for e in clause.target.elements if isinstance(e.value, cst.Name)]
    call = clause.iter
    if len(names) != 2 or len(clause.target.elements) != 2 or not isinstance(call, cst.Call) or call.args:
        return None
    if not isinstance(call.func, cst.Attribute) or call.func.attr.value != "items":
        return None
    key_name, value_name = names
    if not isinstance(expr.key, cst.Name) or expr.key.value != key_name or names_in(expr.value, {key_name}):
        return None
    return call.func.value, value_name


def _is_len_call(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "len"


def _is_full_slice(expr: cst.Subscript) -> bool:
    if len(expr.slice) != 1:
        return False
    s = expr.slice[0].slice
    return isinstance(s, cst.Slice) and s.lower is None and s.upper is None and s.step is None


def _tuple_item(base: Value, expr: cst.Subscript) -> Value | None:
    """The item a literal index picks out of a tuple of values (`batch[0]` of a TensorDataset's
    batches, `out[1]` of a helper's returned pair); None where the base holds no such tuple."""
    if len(expr.slice) != 1 or not isinstance(expr.slice[0].slice, cst.Index):
        return None
    position = P.int_value(expr.slice[0].slice.value)
    if position is None:
        return None
    tuples = [t for t in base if isinstance(t, TupleOf) and -len(t.items) <= position < len(t.items)]
    return frozenset().union(*(t.items[position] for t in tuples)) if tuples else None


def _is_run_of_items(expr: cst.Subscript) -> bool:
    """`rows[a:b]`: a run of the items of a list (one dimension, a slice)."""
    return len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Slice)


def _is_one_index(expr: cst.Subscript) -> bool:
    """`rows[idx]`: one item picked by a computed index (not a string key, not a slice)."""
    if len(expr.slice) != 1 or not isinstance(expr.slice[0].slice, cst.Index):
        return False
    return not isinstance(expr.slice[0].slice.value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString))


# A tokenizer's special tokens as text (`tok.pad_token` is "<pad>"; `tok.pad_token_id` is its id).
TOKEN_TEXTS = frozenset({"pad_token", "eos_token", "bos_token", "unk_token", "sep_token", "cls_token", "mask_token"})


def _compares_with_token_text(test: cst.BaseExpression) -> bool:
    """`t != tok.pad_token`, `tok.pad_token == t`: a comparison (`==`/`!=`) with a special token's text."""
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        if isinstance(target.operator, (cst.Equal, cst.NotEqual)):
            return any(
                isinstance(side, cst.Attribute) and side.attr.value in TOKEN_TEXTS
                for side in (test.left, target.comparator)
            )
    return False


# What a factor made from a count calls: `losses * (n / mask.sum())` may scale the mean back to the real positions.
COUNTING_CALLS = frozenset({"sum", "mean", "nansum", "nanmean", "count_nonzero", "numel", "len"})


def _scaled_losses(expr: cst.BinaryOperation, left: Value, right: Value) -> Value:
    """`losses * weights`: the per-position losses of one side, scaled by a factor that is not made from a
    count (a mask was ruled out before). Each position a loss ignores is still a 0 that a mean counts."""
    found: set = set()
    for losses, factor in ((left, expr.right), (right, expr.left)):
        if any(P.last_name(n.func) in COUNTING_CALLS for n in P.walk(factor) if isinstance(n, cst.Call)):
            continue
        found.update(dataclasses.replace(t, scaled=True) for t in tags_of(losses, PerPositionLoss))
    return frozenset(found)
