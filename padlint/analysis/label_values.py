"""Hooks of the flow pass for label values: what labels are padded with (a token id or the ignore value),
labels masked where they equal the pad id (a tensor write, `where`, a guarded loop, a comprehension),
collators configured with a label pad value, and labels built here that hide the prompt."""

from __future__ import annotations

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.env import place_key, single_index
from padlint.analysis.facts import (
    LabelPadValue,
    LabelsMaskedWherePadId,
    LabelsPaddedWithToken,
    LabelsReaching,
    PadIdFallback,
)
from padlint.analysis.output_use import value_never_read
from padlint.analysis.pad_ids import equalities, equality, inequality
from padlint.analysis.values import Const, Copy, Masked, Padded, PadId, Value, first, tags_of
from padlint.analysis.walker_state import WalkerState
from padlint.semantics import table as T

# Calls that make an array of what they are handed, element for element (a bool stays one bool).
_TO_ARRAY = frozenset({"torch.tensor", "torch.as_tensor", "torch.BoolTensor", "numpy.array", "numpy.asarray"})


class LabelValues(WalkerState):
    """Mixed into the scope walker: the values labels are padded or masked with."""

    # ---- values labels are padded with ------------------------------------------------------------
    def note_label_value(
        self,
        node: cst.CSTNode,
        value: cst.BaseExpression | None,
        by_collator: bool = False,
        tags: tuple[cst.CSTNode, ...] = (),
        written: bool = False,
        place: tuple[cst.FunctionDef | None, str] | None = None,
    ) -> None:
        """Labels are padded or masked with `value` (compared with what the losses ignore); `tags`: the
        nodes of the value tags that carry it on, beside `node`; `written`, `place`: a write into labels, and
        the function and name written into."""
        if value is None:
            self.facts.label_values.append(LabelPadValue(node, 0, "0"))  # pad_sequence's default padding_value
            return
        self.facts.label_values.append(
            LabelPadValue(
                node,
                self.resolve_int(value),
                self.code(value),
                by_collator=by_collator,
                tags=tags,
                written=written,
                place=place,
            )
        )

    def carry_label_value(self, written_at: cst.CSTNode, carried_by: cst.CSTNode) -> None:
        """The value noted where a run was written (`[-100] * n`) is carried on by the tag made at
        `carried_by` (the row it pads, `row + [-100] * n`; the list it extends)."""
        for label in self.facts.label_values:
            if any(node is carried_by for node in label.tags):
                continue  # (the walk evaluates an expression again in loops and callers)
            if label.node is written_at or any(node is written_at for node in label.tags):
                label.tags = (*label.tags, carried_by)

    def note_labels_reaching(
        self, value: Value, ignored: int | str | None, graded_there: bool = True
    ) -> frozenset[int]:
        """Labels (`value`) reached a labels place that grades them ignoring `ignored` (None: not known), or
        hands them on (`graded_there` False): the ids of the nodes of their padding and masking tags, so that
        each loss is compared with the values of the labels it grades."""
        seen = frozenset(id(t.node) for t in value if isinstance(t, (Padded, Masked)))
        if seen:
            self.facts.labels_reaching.append(LabelsReaching(seen, ignored, graded_there))
        return seen

    def note_tokenizer_label_padding(self, value: Value) -> None:
        """Labels that reach a labels place as a tokenizer padded them hold the pad id at the pads."""
        for padded in tags_of(value, Padded):
            if padded.from_tokenizer and isinstance(padded.node, cst.Call):
                padding = P.padding_requested(padded.node, self.constants, self.class_attribute_value)
                fixed = padding == "max_length"
                self.facts.label_values.append(LabelPadValue(padded.node, "pad", "pad", fixed_width=fixed))

    def resolve_int(self, expr: cst.BaseExpression) -> int | str | None:
        """An int literal or constant (also imported from a module of the project); "pad" for a pad id."""
        number = P.int_value(expr)
        if number is not None:
            return number
        value = self.evaluate(expr)
        handed = {t.value for t in value if isinstance(t, Const)}
        if handed == {P.IGNORE_VALUE} and all(isinstance(t, Const) for t in value):
            return P.IGNORE_VALUE  # `pad_value` handed -100 by its caller holds the ignore index, not a pad id
        if P.IGNORE_VALUE in handed:
            return None  # the ignore value on one path and another value on another: the user's switch
        if isinstance(expr, cst.Name) and all(isinstance(t, PadId) for t in value) and expr.value in self.constants:
            # a module constant's value decides before its name: `PAD_VALUE = -100` is the ignore value
            number = P.int_value(self.constants[expr.value])
            if number is not None:
                return number
        if tags_of(value, PadId) or P.is_pad_id_expression(expr):
            return "pad"
        if len(handed) == 1 and all(isinstance(t, Const) for t in value):
            return handed.pop()  # an int handed to a parameter or stored from one (`ignore_index=0`)
        if isinstance(expr, cst.Name):
            constant = self.constants.get(expr.value)
            if constant is not None:
                return P.int_value(constant)
            return self.module_info.resolve_imported(expr.value)
        if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name):
            if expr.value.value == "self":
                fixed = self.class_attribute_value(expr)  # a class constant, or a field every construction fixes
                return P.int_value(fixed) if fixed is not None else None
            return self.module_info.resolve_module_attribute(expr.value.value, expr.attr.value)
        return None

    def label_padding(
        self, padded: Padded, pad: cst.BaseExpression | None, how: str, rows_written: bool = False
    ) -> None:
        """Labels padded with the pad id / 0 / -1 rather than -100. A buffer filled with the pad id
        (`torch.full(shape, pad_id)`) pads nothing by being made; it pads once rows shorter than it
        are written into it (`rows_written`, stores.py)."""
        if padded.filled and not rows_written:
            return
        value = self.resolve_int(pad) if pad is not None else 0
        if value is None and pad is not None and P.is_eos_expression(pad):
            value = "eos"  # `labels + [tok.eos_token_id] * gap`: a real token, trained on at every pad
        if value is None or value == P.IGNORE_VALUE:
            return  # a value we cannot read (precision first), or -100 spelled another way
        # Reported once these labels reach a labels place (a batch key, `labels=`, a return):
        # SAM's point labels padded with -1 never do.
        self.facts.pending_label_pads[padded.node] = (how, pad, self.pad_origin(pad))

    def pad_origin(self, pad: cst.BaseExpression | None) -> cst.BaseExpression | None:
        """Where a label pad value not named as a pad id was handed in as one: the caller's
        argument (`SummaryCollator(label_pad=tokenizer.pad_token_id)`) is where it goes wrong."""
        if pad is None or P.is_pad_id_expression(pad):
            return None
        handed = [t.node for t in tags_of(self.evaluate(pad), PadId) if t.handed]
        return handed[0] if len(handed) == 1 and isinstance(handed[0], cst.BaseExpression) else None

    def label_pads_reaching(self, value: Value, sink: cst.CSTNode | None = None) -> None:
        """Labels padded with a token reached a labels place: `sink` (a feature dict, a store), or a loss."""
        for padded in tags_of(value, Padded):
            pending = self.facts.pending_label_pads.get(padded.node)
            if pending is not None:
                pad, origin = pending[1], pending[2]
                self.note_label_value(padded.node, pad.value if isinstance(pad, cst.Arg) else pad)
                # A pad value handed in by a caller is reported where it was handed (objects.py).
                found = (
                    LabelsPaddedWithToken(origin, pending[0], origin, sink=sink)
                    if isinstance(origin, cst.BaseExpression)
                    else LabelsPaddedWithToken(padded.node, pending[0], pad, sink=sink)
                )
                self.facts.record(self.facts.labels_padded_with_token, found)

    def collator_call(self, call: cst.Call, name: str) -> None:
        """Collators configured with a label pad value, or that pad features again."""
        row = T.class_row(name)
        if row is None:
            return
        if row.repads and not (self.facts.is_local(call) and value_never_read(self.facts.module, call)):
            self.facts.repadding_collator = True  # (a collator made and never used pads nothing)
        if "label_pad" in row.roles:
            keyword = row.roles["label_pad"][0]
            arg = P.keyword(call, keyword)
            if arg is not None:
                self.note_label_value(call, arg.value, by_collator=True)
                if not self.is_ignore(arg.value) and self.is_token_value(arg.value):
                    self.facts.record(self.facts.labels_padded_with_token, LabelsPaddedWithToken(call, "collator", arg))
            else:
                pad = row.defaults[keyword]
                self.facts.label_values.append(LabelPadValue(call, pad, str(pad), by_collator=True))

    def is_token_value(self, expr: cst.BaseExpression) -> bool:
        """Is this label pad value known to be a token id (the pad id, 0, -1...), not -100 or a value
        chosen elsewhere (a parameter, `-100 if args.ignore_pad_token_for_loss else pad_id`)?"""
        bound = self.value_nodes.get(expr.value) if isinstance(expr, cst.Name) else None
        for node in (expr, bound):
            if isinstance(node, cst.IfExp) and (self.is_ignore(node.body) or self.is_ignore(node.orelse)):
                return False  # a switch whose default is the ignore value: the user's choice
        number = self.resolve_int(expr)
        if number is not None:
            return number != P.IGNORE_VALUE
        value = self.evaluate(expr)
        if any(isinstance(t, Const) and t.value == P.IGNORE_VALUE for t in value):
            return False  # -100 on some path: the user's choice
        return bool(tags_of(value, PadId))

    # ---- labels masked where they equal the pad id ------------------------------------------------
    def masking_by_pad_id(self, node: cst.CSTNode, condition: cst.BaseExpression, labels: Value, how: str) -> None:
        """`labels[labels == pad_id] = -100` and its spellings."""
        pair = equality(condition)
        if pair is not None:
            self.masked_where_pad_id(node, pair[1], labels, how, condition)

    def selects_no_position(self, condition: cst.BaseExpression) -> bool:
        """`torch.tensor(ids == pad_id)` with `ids` a Python list: a list never equals a number, so the
        comparison is the one bool False, and a fill or write under it changes no position. Manifest from
        the code: the list is list padding the analysis followed, or a list display or comprehension."""
        expr = condition
        while isinstance(expr, cst.Call) and len(expr.args) == 1 and self.imports.qualify(expr.func) in _TO_ARRAY:
            expr = expr.args[0].value
        if not isinstance(expr, cst.Comparison) or len(expr.comparisons) != 1:
            return False
        if not isinstance(expr.comparisons[0].operator, cst.Equal):
            return False  # `!=` is the one bool True: every position is written, the pads too
        left, right = expr.left, expr.comparisons[0].comparator
        return any(self.python_list(a) and self.number(b) for a, b in ((left, right), (right, left)))

    def python_list(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, (cst.List, cst.ListComp)):
            return True
        padded = tags_of(self.evaluate(expr), Padded)
        return bool(padded) and all(p.kind == "list" for p in padded)

    def number(self, expr: cst.BaseExpression) -> bool:
        return P.int_value(expr) is not None or bool(tags_of(self.evaluate(expr), PadId))

    def where_masks_by_pad_id(self, call: cst.Call, values: list[Value]) -> None:
        """`np.where(ids == pad_id, -100, ids)`, `torch.where(ids != pad_id, ids, -100)`: labels set to
        -100 where they equal the pad id."""
        args = [a for a in call.args if a.keyword is None and not a.star]
        if len(args) != 3 or len(values) < 3:
            return
        condition = args[0].value
        if self.is_ignore(args[1].value):
            pair, labels = equality(condition), values[2]
        elif self.is_ignore(args[2].value):
            pair, labels = inequality(condition), values[1]
        else:
            return
        if pair is not None:
            self.masked_where_pad_id(call, pair[1], labels, "where", condition)

    def masked_where_pad_id(
        self, node: cst.CSTNode, pad: cst.BaseExpression, labels: Value, how: str, condition: cst.BaseExpression | None
    ) -> None:
        """Labels set to -100 where they equal `pad`, if it is a pad id. `condition` is the tensor
        comparison a fix can rewrite; None for a write inside `if labels[i] == pad_id:`."""
        pads = tags_of(self.evaluate(pad), PadId)
        if not (pads or P.is_pad_id_expression(pad) or self.is_eos_pad(pad)):
            return
        for fallback in (p for p in pads if p.eos_fallback):
            self.facts.record(self.facts.pad_id_fallbacks, PadIdFallback(fallback.node))  # masked with `pad or eos`
        copies = [c for c in tags_of(labels, Copy)]
        mask = copies[0].mask_code if copies else None
        if mask is None:
            # the padded ids themselves (`ids.masked_fill(ids == pad_id, -100)`), or a copy made before
            # their mask was: a correct mask of the same padding in view now will do
            padded = copies[0].padded if copies else first(labels, Padded)
            mask = self.current_mask_code(padded) if padded is not None else None
        self.facts.record(self.facts.labels_masked_where_pad_id, LabelsMaskedWherePadId(node, how, condition, mask))

    def selects_ignored(self, target: cst.Subscript) -> bool:
        """Does `x[index]` select the positions already set to the ignore value (`labels == -100`,
        `labels.eq(label_pad_token_id)`)? A write there undoes the masking for some other use."""
        index = single_index(target)
        if index is None:
            return False
        for left, right in equalities(index):
            for value in (right, left):
                if self.is_ignore(value) or "label_pad" in self.code(value).lower():
                    return True
        return False

    def guarded_by_pad_id(self, target: cst.Subscript, labels: Value) -> bool:
        """Is `labels[i] = ...` inside `if labels[i] == pad_id:` (also one arm of an `or`), or
        `if tok == pad_id:` where `tok` walks `labels` (`for i, tok in enumerate(labels)`)? Then the
        write masks the pad positions, one at a time."""
        index = single_index(target)
        if index is None:
            return False
        index_code, walked = self.code(index), place_key(target.value)
        for test in self.guards:
            for left, right in equalities(test):
                if not self.is_pad_id(right):
                    left, right = right, left
                    if not self.is_pad_id(right):
                        continue
                left_index = single_index(left) if isinstance(left, cst.Subscript) else None
                same_index = left_index is not None and self.code(left_index) == index_code
                item = isinstance(left, cst.Name) and walked is not None and self.loop_aliases.get(left.value) == walked
                if same_index or item:
                    self.masked_where_pad_id(target, right, labels, "loop", None)
                    return True
        return False

    def comprehension_masks_by_pad_id(self, expr, elt: cst.BaseExpression) -> None:
        """`[(t if t != pad_id else -100) for t in row]`."""
        if not isinstance(elt, cst.IfExp):
            return
        pair = P.comparison_operand(elt.test, (cst.NotEqual, cst.Equal))
        if pair is not None and (
            P.is_pad_id_expression(pair[1]) or self.is_eos_pad(pair[1]) or tags_of(self.evaluate(pair[1]), PadId)
        ):
            seen = [f for f in self.facts.labels_masked_where_pad_id if f.node is expr]
            found = seen[0] if seen else LabelsMaskedWherePadId(expr, "comprehension")
            walked = self.comprehension_walks_padded(expr, elt, pair[0])
            if walked is not None and found.padded is None:
                # the first walk that knows which padding the comprehension walks says so (a map
                # function walked on its own first, then with the rows an earlier map returned)
                found.rewrite, found.ids_code, found.padded, found.nested = walked
                found.mask_code = self.current_mask_code(found.padded)
            self.facts.record(self.facts.labels_masked_where_pad_id, found)

    def comprehension_walks_padded(self, expr, elt: cst.IfExp, compared: cst.BaseExpression) -> tuple | None:
        """(the comprehension to rewrite, code of the padded ids it walks, their padding, rows or not) when
        the comprehension only keeps each token or sets it to -100: one clause over a padded row, or
        inside a comprehension whose one clause walks padded rows and yields it."""
        clause = expr.for_in
        token_is_kept = isinstance(compared, cst.Name) and any(
            isinstance(branch, cst.Name) and branch.value == compared.value for branch in (elt.body, elt.orelse)
        )
        if not token_is_kept or clause.inner_for_in is not None or clause.ifs:
            return None
        if not isinstance(compared, cst.Name) or not isinstance(clause.target, cst.Name):
            return None
        if clause.target.value != compared.value:
            return None
        outer = self.comprehension_stack[-1] if self.comprehension_stack else None
        if isinstance(outer, (cst.ListComp, cst.GeneratorExp, cst.SetComp)) and outer.elt is expr:
            row = outer.for_in
            if (
                row.inner_for_in is not None
                or row.ifs
                or not isinstance(row.target, cst.Name)
                or not isinstance(clause.iter, cst.Name)
                or clause.iter.value != row.target.value
            ):
                return None
            expr, clause, nested = outer, row, True
        else:
            nested = False
        padded = first(self.evaluate(clause.iter), Padded)
        if padded is None or padded.kind != "list" or (padded.rows is True and not nested):
            return None
        return expr, self.code(clause.iter), padded, nested

    def labels_built_here(self, value: Value) -> None:
        """Features whose labels hide the prompt with -100 (what DCLM(mlm=False) would throw away).
        Labels set to -100 only where they equal the pad id are what that collator rebuilds: nothing of
        them is thrown away. Also notes whether the stored rows are all of one width."""
        self.facts.label_rows_one_width.append(self.rows_of_one_width_only(value))
        by_pad_id = {id(found.node) for found in self.facts.labels_masked_where_pad_id}
        if any(id(_innermost(masked.node)) not in by_pad_id for masked in tags_of(value, Masked)):
            self.facts.labels_built.append((self.function_name, self.facts.current_owner))

    def rows_of_one_width_only(self, value: Value) -> bool:
        """Are label rows `value` all of one width: padded by a tokenizer to `max_length` with truncation,
        or filled with -100 to one width (also element by element from such rows)?"""
        padded, masked = tags_of(value, Padded), tags_of(value, Masked)
        if not padded and not masked:
            return False
        return all(m.to_width for m in masked) and all(self.padded_to_one_width(p) for p in padded)

    def padded_to_one_width(self, padded: Padded) -> bool:
        """A tokenizer call that pads to `max_length` and truncates: every row comes out that long."""
        if not (padded.from_tokenizer and isinstance(padded.node, cst.Call)):
            return False
        call = padded.node
        if P.padding_requested(call, self.constants, self.class_attribute_value) != "max_length":
            return False
        truncation = P.keyword(call, "truncation")
        if truncation is None:
            return False
        text = P.string_value(truncation.value)
        return P.int_value(truncation.value) == 1 or text is not None and text != "do_not_truncate"


def _innermost(node: cst.CSTNode) -> cst.CSTNode:
    """`[[... for t in row] for row in rows]` -> the comprehension over tokens that holds the `if`."""
    while isinstance(node, (cst.ListComp, cst.GeneratorExp)) and isinstance(node.elt, (cst.ListComp, cst.GeneratorExp)):
        node = node.elt
    return node
