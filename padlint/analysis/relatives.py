"""Hooks of the flow pass for pad ids, label values, losses, means and aliases.

The walker calls these at the points where the facts arise (a pad-id comparison, a label padding
step, an in-place write, a loss call); each records a fact (padlint.analysis.facts) with what a fix needs.
"""

from __future__ import annotations

import re

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.env import EMPTY, place_key, single_index
from padlint.analysis.facts import (
    AliasWrittenInPlace,
    LabelPadValue,
    LabelsMaskedWherePadId,
    LabelsPaddedWithToken,
    LossIgnoreIndex,
    MaskedMean,
    PadIdFallback,
)
from padlint.analysis.padding import for_clauses
from padlint.analysis.values import (
    Const,
    Copy,
    GoodMask,
    LossInstance,
    Masked,
    MeanValue,
    Ones,
    Padded,
    PadId,
    PadIdMask,
    Value,
    first,
    tags_of,
)
from padlint.analysis.walker_state import WalkerState
from padlint.semantics import table as T

CASTS = frozenset({"long", "int", "float", "bool", "to", "type", "astype"})  # a mask's dtype, not its values
PADDING_MASK_NAME = re.compile(
    r"(^|[.'\[])(attention_mask|attn_mask|padding_mask|pad_mask|loss_mask|label_mask|labels_mask|token_mask|"
    r"seq_mask|target_mask|completion_mask|response_mask|action_mask|mask)(['\]]*)$",
    re.I,
)
# What names a training objective: a value, function or class so named is a loss.
LOSS_NAME = re.compile(r"loss|criterion|objective|penalty|nll|training_step", re.I)
IDS_NAME = re.compile(r"(^|_)(input_)?ids$|tokens$|token_ids$", re.I)


class RelativesMixin(WalkerState):
    """Mixed into the scope walker."""

    # ---- pad ids: masks made from them, `pad or eos` fallbacks -----------------------------------
    def pad_comparison(self, node: cst.CSTNode, ids: cst.BaseExpression, pad: cst.BaseExpression) -> Value:
        """`ids != pad_id` / `ids.ne(pad_id)`: a mask that hides every real token equal to the pad id."""
        if self.is_pad_id(ids) and not self.is_pad_id(pad):
            ids, pad = pad, ids  # `pad_id != t`: the same comparison
        pads = tags_of(self.evaluate(pad), PadId)
        if not pads and not P.is_pad_id_expression(pad) and not self.is_eos_pad(pad):
            return EMPTY
        for fallback in (p for p in pads if p.eos_fallback):
            self.facts.record(self.facts.pad_id_fallbacks, PadIdFallback(fallback.node))
        ids_value = self.evaluate(ids)
        return frozenset({self.pad_id_mask(node, first(ids_value, Padded), self.code(ids))})

    def pad_id_mask(self, node: cst.CSTNode, padded: Padded | None, ids_code: str | None) -> PadIdMask:
        """`ids != pad_id` built here over `padded`, with what a fix written here may read."""
        mask = PadIdMask(node, padded, ids_code)
        if padded is not None:
            mask.at_builder = self.mask_event(mask, padded, ids_code, node)  # its sink is set where it is found
        return mask

    def lift_token_masks(self, comprehension, value: Value) -> Value:
        """`[t != pad_id for t in row]` (also `int(...)`, `1 if ... else 0`, and rows of those): the
        comprehension is the mask of the ids it walks, made token by token. Its comparison becomes the
        whole comprehension's, so that a fix rewrites the comprehension, not one token's test inside it."""
        masks = tags_of(value, PadIdMask)
        clause = comprehension.for_in
        if not masks or clause.inner_for_in is not None or clause.ifs or not isinstance(clause.target, cst.Name):
            return value
        element = _unwrapped_mask(comprehension.elt)
        out = set(t for t in value if not isinstance(t, PadIdMask))
        for mask in masks:
            if mask.ids_code != clause.target.value or mask.node is not element:
                out.add(mask)
                continue
            iterated = self.evaluate(clause.iter) if place_key(clause.iter) is not None else EMPTY
            padded = first(iterated, Padded) or mask.padded
            if padded is not None and padded.rows is True and self.row_of_enclosing(clause.iter):
                padded = padded.but(rows=False)  # `for t in row` inside `... for row in rows`: one row's tokens
            if padded is not None and padded.rows is True and not isinstance(element, cst.BaseComp):
                continue  # `t != pad` for each row `t` of a batch: not a token mask
            code = self.code(clause.iter) if place_key(clause.iter) is not None else None
            out.add(self.pad_id_mask(comprehension, padded, code))
        return frozenset(out)

    def row_of_enclosing(self, iterated: cst.BaseExpression) -> bool:
        """Is `iterated` the variable of an enclosing comprehension or for loop (`row` of `for row in
        rows`)? Iterating a padded batch binds the batch itself (wiring.iterated), so that is what says
        it is one row of it."""
        if not isinstance(iterated, cst.Name):
            return False
        targets = [clause.target for outer in self.comprehension_stack for clause in for_clauses(outer.for_in)]
        return any(isinstance(t, cst.Name) and t.value == iterated.value for t in targets + self.loop_targets)

    def negated_pad_equality(self, node: cst.CSTNode, operand: cst.BaseExpression) -> Value | None:
        """`~(ids == pad_id)`, `ids.eq(pad_id).logical_not()`, `1 - (ids == pad_id).long()`: the same
        mask as `ids != pad_id`, made at `node` (None: `operand` is no equality with a pad id)."""
        while isinstance(operand, cst.Call):
            if isinstance(operand.func, cst.Attribute) and operand.func.attr.value in CASTS:
                operand = operand.func.value  # `(ids == pad_id).long()`
            elif isinstance(operand.func, cst.Name) and operand.func.value in P.NUMBER_CASTS and len(operand.args) == 1:
                operand = operand.args[0].value  # `int(t == pad_id)`
            else:
                break
        pair = _equality(operand)
        if pair is None:
            return None
        made = self.pad_comparison(node, *pair)
        return made or None

    def pad_mask_choice(
        self,
        node: cst.CSTNode,
        condition: cst.BaseExpression,
        tested: Value,
        chosen: cst.BaseExpression,
        other: cst.BaseExpression,
    ) -> Value | None:
        """`1 if t != pad_id else 0`, `0 if t == pad_id else 1`, `np.where(ids == pad_id, 0, 1)`: a choice
        of 1 and 0 on a comparison with the pad id (`tested`: its value) is the mask `ids != pad_id`, made
        at `node` (None: no such choice)."""
        picked = (P.int_value(chosen), P.int_value(other))
        if picked == (1, 0):
            return frozenset(tags_of(tested, PadIdMask)) or None
        if picked == (0, 1):
            return self.negated_pad_equality(node, condition)
        return None

    def note_pad_fallback(self, pad: cst.BaseExpression | None) -> None:
        """A padding step fills with `pad_token_id or eos_token_id`."""
        if pad is None:
            return
        for origin in tags_of(self.evaluate(pad), PadId):
            if origin.eos_fallback:
                self.facts.record(self.facts.pad_id_fallbacks, PadIdFallback(origin.node))

    # ---- labels: masking by pad id, padding with a token value, the values used ---------------
    def note_label_value(self, node: cst.CSTNode, value: cst.BaseExpression | None) -> None:
        """Labels are padded or masked with `value` (compared with what the losses ignore)."""
        if value is None:
            self.facts.label_values.append(LabelPadValue(node, 0, "0"))  # pad_sequence's default padding_value
            return
        self.facts.label_values.append(LabelPadValue(node, self.resolve_int(value), self.code(value)))

    def resolve_int(self, expr: cst.BaseExpression) -> int | str | None:
        """An int literal or constant (also imported from a module of the project); "pad" for a pad id."""
        number = P.int_value(expr)
        if number is not None:
            return number
        value = self.evaluate(expr)
        handed = {t.value for t in value if isinstance(t, Const)}
        if handed == {P.IGNORE_VALUE} and all(isinstance(t, Const) for t in value):
            return P.IGNORE_VALUE  # `pad_value` handed -100 by its caller holds the ignore index, not a pad id
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
            return self.module_info.resolve_module_attribute(expr.value.value, expr.attr.value)
        return None

    def label_padding(
        self, padded: Padded, pad: cst.BaseExpression | None, how: str, rows_written: bool = False
    ) -> None:
        """Labels padded with the pad id / 0 / -1 rather than -100. A buffer filled with the pad id
        (`torch.full(shape, pad_id)`) pads nothing by being made; it pads once rows shorter than it
        are written into it (`rows_written`, stores.py)."""
        if isinstance(padded.node, cst.Call) and P.last_name(padded.node.func) == "full" and not rows_written:
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

    def label_pads_reaching(self, value: Value) -> None:
        for padded in tags_of(value, Padded):
            pending = self.facts.pending_label_pads.get(padded.node)
            if pending is not None:
                pad, origin = pending[1], pending[2]
                self.note_label_value(padded.node, pad.value if isinstance(pad, cst.Arg) else pad)
                # A pad value handed in by a caller is reported where it was handed (objects.py).
                found = (
                    LabelsPaddedWithToken(origin, pending[0], origin)
                    if isinstance(origin, cst.BaseExpression)
                    else LabelsPaddedWithToken(padded.node, pending[0], pad)
                )
                self.facts.record(self.facts.labels_padded_with_token, found)

    def masking_by_pad_id(self, node: cst.CSTNode, condition: cst.BaseExpression, labels: Value, how: str) -> None:
        """`labels[labels == pad_id] = -100` and its spellings."""
        pair = _equality(condition)
        if pair is not None:
            self.masked_where_pad_id(node, pair[1], labels, how, condition)

    def where_masks_by_pad_id(self, call: cst.Call, values: list[Value]) -> None:
        """`np.where(ids == pad_id, -100, ids)`, `torch.where(ids != pad_id, ids, -100)`: labels set to
        -100 where they equal the pad id."""
        args = [a for a in call.args if a.keyword is None and not a.star]
        if len(args) != 3 or len(values) < 3:
            return
        condition = args[0].value
        if self.is_ignore(args[1].value):
            pair, labels = _equality(condition), values[2]
        elif self.is_ignore(args[2].value):
            pair, labels = _inequality(condition), values[1]
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
        for left, right in _equalities(index):
            for value in (right, left):
                if self.is_ignore(value) or "label_pad" in self.code(value).lower():
                    return True
        return False

    def selects_own_pads(self, target: cst.Subscript) -> bool:
        """Does `x[index]` select the positions where `x` itself holds the pad id (`ids[ids == pad_id]`,
        `ids[ids.eq(tok.pad_token_id)]`)?"""
        index = single_index(target)
        pair = _equality(index) if index is not None else None
        if pair is None:
            return False
        place = self.code(target.value)
        return any(self.code(side) == place and self.is_pad_id(other) for side, other in (pair, pair[::-1]))

    def guarded_by_pad_id(self, target: cst.Subscript, labels: Value) -> bool:
        """Is `labels[i] = ...` inside `if labels[i] == pad_id:` (also one arm of an `or`), or
        `if tok == pad_id:` where `tok` walks `labels` (`for i, tok in enumerate(labels)`)? Then the
        write masks the pad positions, one at a time."""
        index = single_index(target)
        if index is None:
            return False
        index_code, walked = self.code(index), place_key(target.value)
        for test in self.guards:
            for left, right in _equalities(test):
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

    def is_eos_pad(self, expr: cst.BaseExpression) -> bool:
        """The EOS id, where the module pads with it: comparing with it compares with the pad id."""
        return self.facts.pads_with_eos and P.is_eos_expression(expr)

    def is_pad_id(self, expr: cst.BaseExpression) -> bool:
        """`tok.pad_token_id`, `pad_id`, or a name holding one (only names are evaluated again)."""
        if P.is_pad_id_expression(expr) or self.is_eos_pad(expr):
            return True
        return isinstance(expr, (cst.Name, cst.Attribute)) and bool(tags_of(self.evaluate(expr), PadId))

    def comprehension_masks_by_pad_id(self, expr, elt: cst.BaseExpression) -> None:
        """`[(t if t != pad_id else -100) for t in row]`."""
        if not isinstance(elt, cst.IfExp):
            return
        pair = P.comparison_operand(elt.test, (cst.NotEqual, cst.Equal))
        if pair is not None and (
            P.is_pad_id_expression(pair[1]) or self.is_eos_pad(pair[1]) or tags_of(self.evaluate(pair[1]), PadId)
        ):
            found = LabelsMaskedWherePadId(expr, "comprehension")
            walked = self.comprehension_walks_padded(expr, elt, pair[0])
            if walked is not None:
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

    def collator_call(self, call: cst.Call, name: str) -> None:
        """Collators configured with a label pad value, or that pad features again."""
        row = T.class_row(name)
        if row is None:
            return
        if row.repads:
            self.facts.repadding_collator = True
        if "label_pad" in row.roles:
            keyword = row.roles["label_pad"][0]
            arg = P.keyword(call, keyword)
            if arg is not None:
                self.note_label_value(call, arg.value)
                if not self.is_ignore(arg.value) and self.is_token_value(arg.value):
                    self.facts.record(self.facts.labels_padded_with_token, LabelsPaddedWithToken(call, "collator", arg))
            else:
                pad = row.defaults[keyword]
                self.facts.label_values.append(LabelPadValue(call, pad, str(pad)))

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
        return bool(tags_of(self.evaluate(expr), PadId))

    def loss_call(self, call: cst.Call) -> Value:
        """A loss function called (`F.cross_entropy(logits, labels)`) or a loss module made; the module
        is returned as a value, so that its calls tell what it grades."""
        target = P.keyword(call, "target") or P.positional(call, 1)
        arg = P.keyword(call, "ignore_index")
        qualified = self.imports.qualify(call.func) if isinstance(call.func, (cst.Name, cst.Attribute)) else None
        value = self.resolve_int(arg.value) if arg is not None else T.default(qualified or "", "ignore_index")
        fact = LossIgnoreIndex(call, arg, value)
        self.facts.loss_ignores.append(fact)
        if target is not None:  # `F.cross_entropy(logits, labels)`: the labels reach the loss
            labels = self.evaluate(target.value)
            self.label_pads_reaching(labels)
            if value == P.IGNORE_VALUE:  # a loss that ignores the pad id itself needs no -100 (094)
                self.label_sink(labels, target.value, call, "loss")
            fact.labels_target = self.is_token_labels(target.value)
            return EMPTY
        return frozenset({LossInstance(fact)})

    def loss_module_called(self, call: cst.Call, callee: Value) -> None:
        """`self.criterion(logits, y_true)`: what the loss module grades."""
        target = P.keyword(call, "target") or P.positional(call, 1)
        if target is None:
            return
        labels = self.is_token_labels(target.value)
        for instance in tags_of(callee, LossInstance):
            instance.fact.labels_target = bool(instance.fact.labels_target) or labels

    def is_token_labels(self, target: cst.BaseExpression) -> bool:
        """Is a loss target known as token labels: labels padded or masked here, a copy of ids, or a
        place named as labels or targets (`labels.flatten()`, `tgt[:, 1:]`)? Class indices named
        otherwise (`y_true`) give no evidence that the value is a language model's token ids."""
        value = self.evaluate(target)
        if any(isinstance(t, (Padded, Masked, Copy)) for t in value):
            return True
        return self.is_label_code(_strip_calls(target)) or _per_position(target)

    # ---- masked means, labels aliasing the ids -------------------------------------------------------
    def masked_mean(self, call: cst.Call, product: cst.BaseExpression, dims: bool) -> Value:
        if not (isinstance(product, cst.BinaryOperation) and isinstance(product.operator, cst.Multiply)):
            return EMPTY
        for mask, _other in ((product.right, product.left), (product.left, product.right)):
            value = self.evaluate(mask)
            named = PADDING_MASK_NAME.search(place_key(_strip_calls(mask)) or "")
            if named or tags_of(value, GoodMask) or tags_of(value, Ones) or tags_of(value, PadIdMask):
                self.facts.record(self.facts.masked_means, MaskedMean(call, product, mask, dims))
                recorded = next(f for f in self.facts.masked_means if f.node is call)
                return frozenset({MeanValue(recorded)})
        return EMPTY

    def is_loss(self, value: Value, by_name: bool = True) -> None:
        """The masked means in `value` are losses: they reach a backward pass, or (`by_name`) a
        function, class or place that names them a loss. In test code a name is not enough: a mean
        that only reaches an assert is compared, not trained on."""
        if by_name and self.in_test_code():
            return
        for mean in tags_of(value, MeanValue):
            mean.fact.loss = True

    def in_test_code(self) -> bool:
        """A `test*` function, a method of a `Test*` class, or any code of a module pytest collects
        (`test_*.py`, `*_test.py`) or reads for fixtures (`conftest.py`): what its values reach is the
        test's own checks, not training (docs/usage.md, "Test code")."""
        name = self.function_name or ""
        cls = self.class_envs[-1][0].name.value if self.class_envs else ""
        return name.startswith("test") or cls.startswith("Test") or P.is_test_module(self.module_context.path)

    def returns_a_loss(self) -> bool:
        """Is the function being walked a loss: named as one (`masked_lm_loss`, `compute_loss`), a
        training step, or `forward`/`__call__` of a class named as one (`Seq2SeqCriterion`)?"""
        if LOSS_NAME.search(self.function_name or ""):
            return True
        cls = self.class_envs[-1][0].name.value if self.class_envs else ""
        return self.function_name in ("forward", "__call__") and bool(LOSS_NAME.search(cls))

    def note_alias(self, key: str, target: cst.BaseExpression, value_node: cst.BaseExpression) -> None:
        """`labels = input_ids`: no copy; an in-place write into labels would reach the ids."""
        source = place_key(value_node) or self.view_of(value_node)
        leaf = (source or "").rsplit(".", 1)[-1].split("[")[-1].strip("'\"]")
        rebinding = source is not None and source.startswith((key + "[", key + "."))  # `labels = labels["input_ids"]`
        # The value is evaluated (again) only for an alias: this runs for every name assigned.
        held = tags_of(self.evaluate(value_node), Padded) if source is not None else ()
        if (
            source is not None
            # ids by name, or by value: a row or batch a padding step made (`label_row = row`)
            and (IDS_NAME.search(leaf) or bool(held))
            and P.LABEL_NAME.search(key)
            and not rebinding
            and not any(p.target_ids or p.of_labels for p in held)
        ):
            padded = first(self.evaluate(value_node), Padded)
            kind = padded.kind if padded is not None and padded.kind in ("pt", "np", "list") else self.kind_of(source)
            self.label_aliases[key] = (value_node, self.env.version(key), kind, source)
        else:
            self.label_aliases.pop(key, None)

    def view_of(self, expr: cst.BaseExpression) -> str | None:
        """`input_ids[:, 1:]`, `ids[..., :-1]`: a slice of a tensor or array is a view of it (a list's
        slice is a copy): the place it views, if so. Indexing two axes at once is only for arrays."""
        if not isinstance(expr, cst.Subscript) or not any(isinstance(e.slice, cst.Slice) for e in expr.slice):
            return None
        if any(isinstance(e.slice, cst.Index) and not _is_ellipsis(e.slice.value) for e in expr.slice):
            return None  # `ids[i, 1:]`: one row (still a view, but not labels for the whole batch)
        source = place_key(expr.value)
        if source is None:
            return None
        if len(expr.slice) > 1 or self.kind_of(source) in ("pt", "np"):
            return source
        return None

    def written_in_place(self, receiver: cst.BaseExpression, value_node: cst.BaseExpression | None) -> None:
        key = place_key(receiver)
        into_rows = False
        while key is None and isinstance(receiver, cst.Subscript):
            receiver = receiver.value  # `labels[i][j] = -100`: a write into a row of `labels` is one into it
            key, into_rows = place_key(receiver), True
        walked = self.loop_aliases.get(key) if key and key not in self.label_aliases else None
        if walked is not None and walked in self.label_aliases:
            key, into_rows = walked, True  # `for row in labels: row[j] = -100`: a write into a row of `labels`
        alias = self.label_aliases.get(key) if key else None
        if alias is None or key is None or self.env.version(key) != alias[1]:
            return
        # It matters only if the ids are read again after the write (returned, passed to the model):
        # a tokenizer output used only for its labels may be written into freely.
        source = alias[3]
        write = AliasWrittenInPlace(alias[0], alias[2], _is_list_value(value_node), into_rows)
        # `input_ids = batch["input_ids"]; labels = input_ids`: returning `batch` returns the write too.
        for _ in range(3):
            event = (write, source)
            self.pending_alias_writes[source] = event
            base = re.split(r"[.\[]", source, maxsplit=1)[0]
            if base != source:
                self.pending_alias_writes.setdefault(base, event)
            origin = place_key(self.value_nodes[source]) if source in self.value_nodes else None
            if origin is None or origin == source:
                break
            source = origin

    def read_place(self, key: str, whole: bool) -> None:
        """A read of `key` after an aliased write; `whole`: the object itself, not another of its keys."""
        event = self.pending_alias_writes.get(key) if self.pending_alias_writes else None
        if event is None or not (whole or key == event[1]):
            return
        self.facts.record(self.facts.aliases_written_in_place, event[0])
        for stale in [k for k, e in self.pending_alias_writes.items() if e is event]:
            del self.pending_alias_writes[stale]

    def kind_of(self, key: str) -> str:
        """What the aliased ids are: "pt", "np", "list" or "?"."""
        value = self.env.get(key) or EMPTY
        padded = first(value, Padded)
        if padded is not None and padded.kind in ("pt", "np", "list"):
            return padded.kind
        node = self.value_nodes.get(key)
        while isinstance(node, cst.Subscript):
            node = node.value
        if isinstance(node, (cst.List, cst.ListComp)) or (
            isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add)
        ):
            return "list"
        if isinstance(node, cst.Call):
            qualified = self.imports.qualify(node.func) or ""
            if qualified.startswith("torch."):
                return "pt"
            if qualified.startswith("numpy."):
                return "np"
            if qualified == "list":
                return "list"
        return "?"

    def labels_built_here(self, value: Value) -> None:
        """Features whose labels hide the prompt with -100 (what DCLM(mlm=False) would throw away)."""
        if tags_of(value, Masked):
            self.facts.labels_built.append((self.function_name, self.facts.current_owner))


def _is_ellipsis(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Ellipsis)


def _strip_calls(node: cst.BaseExpression) -> cst.BaseExpression:
    """`mask[:, 1:].float()` -> `mask`: the place a mask expression reads."""
    while True:
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            node = node.func.value
        elif isinstance(node, cst.Subscript) and place_key(node) is None:
            node = node.value
        else:
            return node


def _per_position(target: cst.BaseExpression) -> bool:
    """Is the target reshaped or sliced along a sequence axis (`y.flatten()`, `y.view(-1)`,
    `y[:, 1:]`)? Then it holds one label per position: token labels, not one class per example."""
    node = target
    while True:
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            if node.func.attr.value in ("flatten", "view", "reshape"):
                return True
            node = node.func.value
        elif isinstance(node, cst.Subscript):
            if len(node.slice) >= 2:
                return True
            node = node.value
        else:
            return False


def _is_list_value(node) -> bool:
    return isinstance(node, (cst.List, cst.ListComp, cst.BinaryOperation))


def _equalities(test: cst.BaseExpression):
    """The `a == b` / `a.eq(b)` comparisons that make `test` true: the test itself, or an arm of
    `or` / `and` (a negation is not followed)."""
    if isinstance(test, cst.BooleanOperation):
        yield from _equalities(test.left)
        yield from _equalities(test.right)
        return
    pair = _equality(test)
    if pair is not None:
        yield pair


def _unwrapped_mask(elt: cst.BaseExpression) -> cst.BaseExpression:
    """The comparison (or inner comprehension) a comprehension's element is made of: `int(c)`,
    `bool(c)`, `float(c)` and `1 if c else 0` are `c`."""
    while True:
        if isinstance(elt, cst.Call) and isinstance(elt.func, cst.Name) and len(elt.args) == 1:
            if elt.func.value in P.NUMBER_CASTS:
                elt = elt.args[0].value
                continue
        if isinstance(elt, cst.IfExp) and (P.int_value(elt.body), P.int_value(elt.orelse)) == (1, 0):
            elt = elt.test
            continue
        return elt


def _inequality(expr: cst.BaseExpression) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """`a != b` or `a.ne(b)` -> (a, b)."""
    pair = P.comparison_operand(expr, (cst.NotEqual,))
    if pair is None and isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        if expr.func.attr.value == "ne" and expr.args:
            pair = (expr.func.value, expr.args[0].value)
    return pair


def _equality(expr: cst.BaseExpression) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """`a == b` or `a.eq(b)` -> (a, b)."""
    pair = P.comparison_operand(expr, (cst.Equal,))
    if (
        pair is None
        and isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Attribute)
        and expr.func.attr.value == "eq"
        and expr.args
    ):
        pair = (expr.func.value, expr.args[0].value)
    return pair
