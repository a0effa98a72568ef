"""Calls in an expression: which handler a call goes to (wiring, known functions, local helpers,
losses, project objects, tokenizers, methods), and the library functions known by name."""

from __future__ import annotations

import dataclasses

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis import shape_ops
from padlint.analysis.env import EMPTY, place_key
from padlint.analysis.loader_uses import method_named
from padlint.analysis.values import (
    Arange,
    ClassRef,
    Copy,
    Fill,
    FunctionRef,
    GoodMask,
    Instance,
    LossInstance,
    Masked,
    Model,
    ModelHolder,
    Padded,
    PadIdMask,
    Partial,
    ShapeOf,
    Tokenizer,
    Value,
    first,
    tags_of,
)
from padlint.analysis.walker_state import WalkerState
from padlint.semantics import table as T

ARANGE = {"torch.arange", "numpy.arange"}
LOSSES = T.names("loss")
# Reductions over every element of a tensor (library table: reduces rows), and those that average.
WHOLE_REDUCTIONS = T.names("reduces")
MEANS = T.names("reduces", style="mean")
POOLS = T.names("pools", style="max")  # `torch.max(h, dim=1)`: the largest value of each row along an axis
MULTIPLIES = T.names("multiplies")  # `tf.multiply(loss, mask)` is `loss * mask`
FILLS_WHERE = T.names("fills_where")  # `np.place(labels, mask == 0, -100)` is `labels.masked_fill_(mask == 0, -100)`


class CallDispatch(WalkerState):
    """Mixed into the scope walker."""

    # ---- calls ------------------------------------------------------------------------------
    def eval_Call(self, call: cst.Call) -> Value:
        saved = self.home_call
        if self.walking_home():
            self.home_call = call
        try:
            value = self.dispatch_call(call)
        finally:
            self.home_call = saved
        self.check_call_keywords(call)
        return value | self.model_output(call)

    def dispatch_call(self, call: cst.Call) -> Value:
        func = call.func
        qualified = self.imports.qualify(func) if isinstance(func, (cst.Name, cst.Attribute)) else None
        if isinstance(func, cst.Attribute) and func.attr.value in T.handing_back_methods():
            qualified = self.instance_method(func) or qualified  # `accelerator.prepare(...)`
        self.note_ids_restored(call, qualified)
        if qualified is not None:
            wired = self.wiring_call(call, qualified)
            if wired is not None:
                return wired
            handled = self.known_function(call, qualified)
            if handled is not None:
                return handled
        self.note_ignore_told(call)
        local = self.local_call(call)
        if local is not None:
            return local
        if isinstance(func, (cst.Name, cst.Attribute)):
            key = place_key(func)
            held = self.env.get(key) if key is not None else None
            if held and tags_of(held, LossInstance):
                self.evaluate_args(call)
                return self.loss_module_called(call, held)
        inherited = self.super_call(call)
        if inherited is not None:
            return inherited
        if isinstance(func, cst.Attribute):
            if P.is_tokenizer_expression(func):  # `self.tokenizer(...)`
                return self.tokenizer_call(call, None)
            held = self.env.get(place_key(func) or "")
            if held and any(isinstance(t, (Instance, FunctionRef, ClassRef, Partial)) for t in held):
                self.callees[call] = (held, None)  # `self.collator(rows)`: an object stored on self
                made = self.object_call(call, held)
                if made is not None:
                    return made
            member = self.module_member(func) if not held else None  # `data.collate(rows)`: a module's function
            if member:
                self.callees[call] = (member, None)
                made = self.object_call(call, member)
                if made is not None:
                    return made
            recv = self.evaluate(func.value)
            self.callees[call] = (recv, func.attr.value)
            if tags_of(recv, Instance):
                found = self.method_of_instance(call, func.attr.value, recv)
                if found is not None:
                    return found
            return self.method_call(call, func.attr.value, func.value, recv)
        callee = self.callee_value(func, call) if isinstance(func, cst.Name) else self.evaluate(func)
        self.callees[call] = (callee, None)
        made = self.object_call(call, callee)
        if made is not None:
            return made
        if tags_of(callee, Tokenizer) or P.is_tokenizer_expression(func):
            return self.tokenizer_call(call, None)
        values = self.evaluate_args(call)
        if isinstance(func, cst.Name) and func.value in P.NUMBER_CASTS and len(values) == 1 and not callee:
            return frozenset(tags_of(values[0], PadIdMask))  # `int(t != pad_id)`: the comparison as a number
        return EMPTY

    def pads_joined_to_data(self, call: cst.Call, name: str, parts: cst.List | cst.Tuple) -> Value | None:
        """`torch.cat([torch.full((n,), pad_id), ids])`: a run of pads joined along the sequence to data
        pads it on the side the run is on (the tensor form of `[pad] * n + ids`). Two parts only, one
        of them a buffer made whole of the pad value; along the last axis of one row, or dim 1 / -1 of
        a batch."""
        if not name.endswith(("cat", "concatenate")) or len(parts.elements) != 2:
            return None
        values = [self.evaluate(e.value) for e in parts.elements]
        runs = [[p for p in tags_of(v, Padded) if p.filled and isinstance(p.node, cst.Call)] for v in values]
        if bool(runs[0]) == bool(runs[1]):
            return None
        run = (runs[0] or runs[1])[0]
        data = values[1] if runs[0] else values[0]
        if tags_of(data, Padded) or not self.along_sequence(call, run.node):
            return None  # data padded already, or rows stacked: no one side
        side = "left" if runs[0] else "right"
        return frozenset({run.but(side=side, filled=False, target=None)}) | frozenset(
            t for t in data if not isinstance(t, (Padded, GoodMask))
        )

    def row_joined_to_run(self, call: cst.Call, name: str, parts: cst.List | cst.Tuple) -> Value | None:
        """`np.concatenate([row, [v] * gap])`: a row joined to a run of one value along its only axis is
        the row padded as `row + [v] * gap` pads it."""
        if not name.endswith(("cat", "concatenate")) or len(parts.elements) != 2 or len(call.args) != 1:
            return None
        first_node, second_node = (e.value for e in parts.elements)
        first_value, second_value = self.evaluate(first_node), self.evaluate(second_node)
        if (first(first_value, Fill) is None) == (first(second_value, Fill) is None):
            return None
        if tags_of(first_value | second_value, Padded):
            return None  # rows padded already: the join keeps their padding (the general join below)
        return self.concatenate(call, first_value, second_value, parts=(first_node, second_node))

    def along_sequence(self, call: cst.Call, run: cst.Call) -> bool:
        """Does the join run along the sequence: one row (`full((n,), pad)`, the default axis 0) or a
        batch of rows joined on axis 1 / -1 (`full((B, n), pad)`, `dim=1`)?"""
        shape = P.positional(run, 0) or P.keyword(run, "size")
        dims = len(shape.value.elements) if shape is not None and isinstance(shape.value, (cst.Tuple, cst.List)) else 1
        axis = P.keyword(call, "dim") or P.keyword(call, "axis") or P.positional(call, 1)
        at = P.int_value(axis.value) if axis is not None else 0
        return (dims == 1 and at in (0, -1)) or (dims == 2 and at in (1, -1))

    def without_other_parts_ignore(self, parts: cst.List | cst.Tuple, joined: Value) -> Value:
        """`torch.cat([torch.full((B, n), -100), labels], 1)`: a block of the ignore value joined to labels
        copied from padded ids masks its own positions, not the copy's pads. Its mark (Masked) is dropped
        when another part is such a copy with no masking of its own; parts the analysis cannot tell
        apart (other calls) leave the joined value as it was."""
        blocks: set[Masked] = set()
        unmasked_copy = False
        for element in parts.elements:
            expr = element.value
            key = place_key(expr)
            if key is not None:
                part = self.env.get(key) or EMPTY
            elif isinstance(expr, cst.Call):
                part = frozenset(t for t in joined if isinstance(t, Masked) and t.node is expr)  # a fill written here
                if not part:
                    return joined
            else:
                return joined
            masked = set(tags_of(part, Masked))
            if masked and not tags_of(part, (Copy, Padded)):
                blocks |= masked
            elif tags_of(part, Copy) and not masked:
                unmasked_copy = True
        return joined - blocks if unmasked_copy and blocks else joined

    def note_ignore_told(self, call: cst.Call) -> None:
        """`self.get_loss(logits, target=t, ignore_index=pad_id)`: a call that is not a loss of the table
        told which value marks the positions it does not grade (the project's own loss or metric)."""
        arg = P.keyword(call, "ignore_index")
        if arg is not None:
            self.facts.ignores_told.append(self.resolve_int(arg.value))

    def instance_method(self, func: cst.Attribute) -> str | None:
        """`acc.prepare` -> "accelerate.Accelerator.prepare" where the module binds `acc` only to
        `Accelerator(...)` (as imported)."""
        module = self.facts.module
        return method_named(func, self.module_info.instance_classes(module, self.imports)) if module else None

    def evaluate_args(self, call: cst.Call) -> list[Value]:
        return [self.evaluate(a.value) for a in call.args]

    def known_function(self, call: cst.Call, name: str) -> Value | None:
        if name in LOSSES:
            self.evaluate_args(call)
            return self.loss_call(call)
        if name in P.NOT_EQUAL_CALLS or name in P.LOGICAL_NOT_CALLS:
            self.evaluate_args(call)
            operands = [a.value for a in call.args if a.keyword is None and not a.star]
            if name in P.NOT_EQUAL_CALLS:
                return self.pad_comparison(call, *operands) if len(operands) == 2 else EMPTY
            return (self.negated_pad_equality(call, operands[0]) if len(operands) == 1 else None) or EMPTY
        if name == "map":
            return self.mapped_token_mask(call)  # `map(lambda t: 0 if t == pad_id else 1, row)`; else any call
        if name.rsplit(".", 1)[-1] in P.REPADDING_COLLATORS:
            self.evaluate_args(call)
            self.collator_call(call, name)
            return EMPTY
        if name in MULTIPLIES:
            factors = [a.value for a in call.args if a.keyword is None and not a.star]
            if len(factors) == 2 and len(call.args) == 2:
                # the product as `x * y` is read: a padding mask among the factors makes it a masked product
                return self.evaluate(cst.BinaryOperation(factors[0], cst.Multiply(), factors[1]))
        row = T.row_for(name) if name in FILLS_WHERE else None
        if row is not None:
            target, where, fill = (P.role_argument(call, row.roles[r]) for r in ("target", "mask", "value"))
            self.evaluate_args(call)
            if target is not None and where is not None and fill is not None:
                self.masked_fill(call, "masked_fill_", target.value, self.evaluate(target.value), where, fill)
            return EMPTY  # they return None
        if name in MEANS and len(call.args) == 1:
            over = self.mean_over_ignored(call, call.args[0].value, self.evaluate_args(call)[0])
            if over:
                return over
        if name in POOLS and call.args:
            self.mean_over_positions(
                call, call.args[0].value, self.evaluate(call.args[0].value), method=False, reduction="max"
            )
        if name in MEANS and call.args:
            self.mean_over_positions(call, call.args[0].value, self.evaluate(call.args[0].value), method=False)
            mean = self.masked_mean(call, call.args[0].value, dims=len(call.args) > 1)
            if mean:
                self.evaluate_args(call)
                return mean
        if name in WHOLE_REDUCTIONS and call.args:
            self.reduced_whole(self.evaluate_args(call)[0], averaged=name in MEANS)
            return EMPTY
        if name in P.PAD_SEQUENCE:
            return self.pad_sequence(call)
        if name in P.FUNCTIONAL_PAD:
            return self.functional_pad(call, "np" if name.startswith("numpy") else "pt")
        if name in P.KERAS_PAD:
            return self.keras_pad(call)
        if name in P.ONES_LIKE or name in P.FULL_LIKE:
            source = P.positional(call, 0)
            data = self.evaluate(source.value) if source else EMPTY
            fill = P.positional(call, 1) or P.keyword(call, "fill_value")
            self.evaluate_args(call)
            if name in P.FULL_LIKE and (fill is None or P.int_value(fill.value) != 1):
                return frozenset({Masked(call)}) if fill is not None and self.is_ignore(fill.value) else EMPTY
            padded = first(data, Padded)
            return frozenset({self.ones(call, padded, self.code(source.value) if padded and source else None)})
        if name in P.ZEROS or name in P.FULL and _fills_zero(call):
            self.evaluate_args(call)
            dims = [a.value for a in call.args if a.keyword is None and not a.star]
            return self.zero_buffer(
                call, "np" if name.startswith("numpy") else "pt", dims[:1] if name in P.FULL else dims
            )
        if name in P.ONES or name in P.FULL:
            return self.ones_or_full(call, name in P.FULL, "np" if name.startswith("numpy") else "pt")
        if name in P.WHERE:
            values = self.evaluate_args(call)
            if any(self.is_ignore(a.value) or tags_of(v, Masked) for a, v in zip(call.args[1:], values[1:])):
                self.where_masks_by_pad_id(call, values)
                return frozenset({Masked(call)})
            args = [a.value for a in call.args if a.keyword is None and not a.star]
            mask = self.pad_mask_choice(call, args[0], values[0], *args[1:]) if len(args) == 3 else None
            return mask or EMPTY  # `np.where(ids == pad, 0, 1)`: a mask from the pad id
        if name in shape_ops.FUNCTIONS:
            values = self.evaluate_args(call)
            data = values[0] if values and P.positional(call, 0) is not None else EMPTY
            made = "np" if name.startswith("numpy") else "pt"
            return self.keep_padding(call, data, shape_ops.FUNCTIONS[name], self.axes_of(call, skip=1), made)
        if name in shape_ops.NESTED_TO_PADDED:
            return self.nested_to_padded(call, *shape_ops.NESTED_TO_PADDED[name])
        if name in P.COPY_CALLS:
            arg = P.positional(call, 0)
            data = self.evaluate(arg.value) if arg else EMPTY
            return data | self.make_copies(call, data, self.code(arg.value)) if arg else EMPTY
        if name in P.SAME_VALUE_CALLS:
            values = self.evaluate_args(call)
            arg = P.positional(call, 0)
            data = values[0] if values and arg is not None else EMPTY
            if arg is not None and isinstance(arg.value, (cst.List, cst.Tuple)) and len(arg.value.elements) > 1:
                data = self.without_other_parts_ignore(arg.value, data)
                row_and_run = self.row_joined_to_run(call, name, arg.value)
                if row_and_run is not None:
                    return row_and_run
            kind = "np" if name.startswith("numpy") else "pt" if name.startswith("torch") else None
            if arg is None or not kind or not any(isinstance(t, (Padded, GoodMask)) for t in data):
                return data
            if isinstance(arg.value, (cst.List, cst.Tuple)) and len(arg.value.elements) > 1:
                joined = self.pads_joined_to_data(call, name, arg.value)
                if joined is not None:
                    return joined
                # `torch.cat([bos, ids], 1)`, `torch.stack([chosen, rejected], 1)`: the padding is there,
                # at positions that no earlier mask or lengths describe.
                padded = sorted(tags_of(data, Padded), key=lambda t: self.code(t.node))[:1]  # one, the same every run
                rest = (t for t in data if not isinstance(t, (Padded, GoodMask)))
                # Correct masks joined (`torch.stack([c_mask, r_mask], 1)`) make the correct mask of the
                # rows joined the same way; which padded value it belongs to is no longer one of them.
                masks = () if padded else (GoodMask(call, None, kind),) if tags_of(data, GoodMask) else ()
                return frozenset([*rest, *(t.moved(kind) for t in padded), *masks])
            text, inner = self.code(call), self.code(arg.value)
            start = text.find(inner, len(self.code(call.func)))
            before, after = text[:start], text[start + len(inner) :]
            return frozenset(
                t.derived(before, after, kind)
                if isinstance(t, Padded)
                else dataclasses.replace(t, kind=kind)
                if isinstance(t, GoodMask)
                else t
                for t in data
            )
        if name in ARANGE:
            self.evaluate_args(call)
            return frozenset({Arange(call)})
        if name == "len":
            arg = P.positional(call, 0)
            if arg is None:
                return EMPTY
            data = self.evaluate(arg.value)
            return frozenset(ShapeOf(p, self.code(arg.value)) for p in tags_of(data, Padded))
        if name.endswith(".from_pretrained") and P.TOKENIZER_FACTORIES.search(name):
            self.evaluate_args(call)
            return frozenset({Tokenizer(call)})
        if name.endswith(".from_pretrained") and self.pretrained_model(name):
            self.evaluate_args(call)
            return frozenset({Model(call, name.removesuffix(".from_pretrained"))})
        factory = T.row_for(name)
        if factory is not None and factory.kind == "makes_model":  # `pipeline(...)`: its .model is a model
            self.evaluate_args(call)
            return frozenset({ModelHolder(call, {attr: role for role, (attr, _) in factory.roles.items()})})
        return None

    def make_copies(self, node, data: Value, source_code: str) -> frozenset[Copy]:
        """Labels copied from `data`: one copy for each padded value it may hold (two branches that pad
        differently), so that what is judged does not depend on which one a set hands out first."""
        padded = tags_of(data, Padded)
        if not padded:
            return frozenset({Copy(node, None, source_code, self.current_mask_code(None))})
        return frozenset(Copy(node, p, source_code, self.current_mask_code(p)) for p in padded)


def _fills_zero(call: cst.Call) -> bool:
    fill = P.positional(call, 1) or P.keyword(call, "fill_value")
    return fill is not None and P.int_value(fill.value) == 0
