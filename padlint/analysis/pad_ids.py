"""Hooks of the flow pass for pad ids: masks made by comparing ids with the pad id (`ids != pad_id`, the same
token by token in a comprehension, or negated equalities), `pad_token_id or eos_token_id` fallbacks, and
whether an expression or a subscript's index is the pad id. The comparison helpers serve label_values.py too."""

from __future__ import annotations

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.env import EMPTY, Env, place_key, single_index
from padlint.analysis.facts import PadIdFallback
from padlint.analysis.padding import for_clauses
from padlint.analysis.values import Ones, Padded, PadId, PadIdMask, Value, first, tags_of
from padlint.analysis.walker_state import WalkerState

CASTS = frozenset({"long", "int", "float", "bool", "to", "type", "astype"})  # a mask's dtype, not its values


class PadIdMasks(WalkerState):
    """Mixed into the scope walker: pad ids and the masks made from them."""

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
            made = self.row_token_mask(comprehension, clause.iter, mask.padded, isinstance(element, cst.BaseComp))
            if made is not None:
                out.add(made)
        return frozenset(out)

    def row_token_mask(
        self, node: cst.CSTNode, iterated_expr: cst.BaseExpression, over: Padded | None, nested: bool
    ) -> PadIdMask | None:
        """The mask `node` makes of the ids `iterated_expr` token by token (None: those are a batch's rows,
        each tested whole, which is no token mask). `nested`: each element is itself a row's mask."""
        iterated = self.evaluate(iterated_expr) if place_key(iterated_expr) is not None else EMPTY
        padded = first(iterated, Padded) or over
        if padded is not None and padded.rows is True and self.row_of_enclosing(iterated_expr):
            padded = padded.but(rows=False)  # `for t in row` inside `... for row in rows`: one row's tokens
        if padded is not None and padded.rows is True and not nested:
            return None  # `t != pad` for each row `t` of a batch: not a token mask
        code = self.code(iterated_expr) if place_key(iterated_expr) is not None else None
        return self.pad_id_mask(node, padded, code)

    def mapped_token_mask(self, call: cst.Call) -> Value | None:
        """`map(lambda t: 0 if t == pad_id else 1, row)` (any spelling of one token's mask): the mask of the
        row made token by token, as `[0 if t == pad_id else 1 for t in row]` is (None: no such map)."""
        fn, rows = P.positional(call, 0), P.positional(call, 1)
        if fn is None or rows is None or len(call.args) != 2 or not isinstance(fn.value, cst.Lambda):
            return None
        params = list(P.parameters(fn.value.params))
        if len(params) != 1 or params[0].star:
            return None
        token = params[0].name.value
        outer = self.env
        self.env = Env(outer)
        self.env.vars[token] = EMPTY
        try:
            tested = self.evaluate(fn.value.body)
        finally:
            self.env = outer
        element = _unwrapped_mask(fn.value.body)
        if not any(m.ids_code == token and m.node is element for m in tags_of(tested, PadIdMask)):
            return None
        made = self.row_token_mask(call, rows.value, None, False)
        return frozenset({made}) if made is not None else None

    def zeroed_at_pad_ids(self, target: cst.Subscript, base: Value) -> None:
        """`mask[ids == pad_id] = 0` into a mask of ones: from here on the mask is `ids != pad_id` (right
        unless the pad id is also a real token: the EOS). It was made by a store, so there is no one
        expression a fix could put a correct mask in place of."""
        index = single_index(target)
        key = place_key(target.value)
        made = self.negated_pad_equality(target, index) if index is not None and key is not None else None
        if key is None or not made:
            return
        for mask in tags_of(made, PadIdMask):
            mask.zeroed_in_place = True
        held = self.env.get(key) or base
        self.env.put(key, frozenset(t for t in held if not isinstance(t, Ones)) | made)

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
        pair = equality(operand)
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
        picked = (_zero_or_one(chosen), _zero_or_one(other))
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

    def is_eos_pad(self, expr: cst.BaseExpression) -> bool:
        """The EOS id, where the module pads with it: comparing with it compares with the pad id."""
        return self.facts.pads_with_eos and P.is_eos_expression(expr)

    def is_pad_id(self, expr: cst.BaseExpression) -> bool:
        """`tok.pad_token_id`, `pad_id`, or a name holding one (only names are evaluated again)."""
        if P.is_pad_id_expression(expr) or self.is_eos_pad(expr):
            return True
        return isinstance(expr, (cst.Name, cst.Attribute)) and bool(tags_of(self.evaluate(expr), PadId))

    def selects_own_pads(self, target: cst.Subscript) -> bool:
        """Does `x[index]` select the positions where `x` itself holds the pad id (`ids[ids == pad_id]`,
        `ids[ids.eq(tok.pad_token_id)]`)?"""
        index = single_index(target)
        pair = equality(index) if index is not None else None
        if pair is None:
            return False
        place = self.code(target.value)
        return any(self.code(side) == place and self.is_pad_id(other) for side, other in (pair, pair[::-1]))


def equalities(test: cst.BaseExpression):
    """The `a == b` / `a.eq(b)` comparisons that make `test` true: the test itself, or an arm of
    `or` / `and` (a negation is not followed)."""
    if isinstance(test, cst.BooleanOperation):
        yield from equalities(test.left)
        yield from equalities(test.right)
        return
    pair = equality(test)
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


def inequality(expr: cst.BaseExpression) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """`a != b` or `a.ne(b)` -> (a, b)."""
    pair = P.comparison_operand(expr, (cst.NotEqual,))
    if pair is None and isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        if expr.func.attr.value == "ne" and expr.args:
            pair = (expr.func.value, expr.args[0].value)
    return pair


def equality(expr: cst.BaseExpression) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """`a == b`, `a.eq(b)` or `torch.eq(a, b)` / `np.equal(a, b)` -> (a, b)."""
    pair = P.comparison_operand(expr, (cst.Equal,))
    if pair is not None or not isinstance(expr, cst.Call):
        return pair
    operands = [a.value for a in expr.args if a.keyword is None and not a.star]
    func = expr.func
    if isinstance(func, cst.Attribute) and func.attr.value in ("eq", "equal") and len(operands) == 2:
        return operands[0], operands[1]  # the function, not the method: both operands are arguments
    if isinstance(func, cst.Attribute) and func.attr.value == "eq" and len(operands) == 1:
        return func.value, operands[0]
    return None


def _zero_or_one(expr: cst.BaseExpression) -> int | None:
    """0 or 1 as a choice of a mask: a literal, or `zeros_like(x)` / `ones_like(x)` of the same shape."""
    value = P.int_value(expr)
    if value is not None or not isinstance(expr, cst.Call):
        return value
    func = expr.func
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else None
    return {"zeros_like": 0, "ones_like": 1}.get(name or "")
