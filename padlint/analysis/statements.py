"""The statements of a scope, as the scope walker runs them: blocks in order, branches (`if`, loops,
`with`, `try`; an `if x is None:` over a value known at the call runs one arm), assignments (what a
name, attribute or key now holds: labels, masks and losses judged by their last store, aliases,
text kinds) and returns (what a function hands back, and where that is a sink). The scopes
themselves (functions, classes, lambdas) are walked by flow.py.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from padlint.analysis import one_row
from padlint.analysis import patterns as P
from padlint.analysis.call_sites import literal_of
from padlint.analysis.dead_code import unread_after
from padlint.analysis.env import EMPTY, key_of_subscript, place_key
from padlint.analysis.facts import RaisedByStore
from padlint.analysis.losses import LOSS_NAME
from padlint.analysis.values import (
    ClassRef,
    Copy,
    Encoding,
    Fields,
    FunctionRef,
    GoodMask,
    Instance,
    ItemsWritten,
    MaskedProduct,
    NoneValue,
    Ones,
    Padded,
    PadIdMask,
    Truth,
    TupleOf,
    Value,
    pad_masking,
    tags_of,
)
from padlint.analysis.walker_state import WalkerState

# Values that are never None: what only an object can be (a pad id can: a tokenizer without one).
KNOWN_OBJECTS = (GoodMask, Padded, Encoding, Ones, Instance)


class StatementWalker(WalkerState):
    """Mixed into the scope walker: statements, branches, assignments, returns."""

    def execute_block(self, body, module_level: bool = False) -> None:
        for stmt in body:
            if module_level and isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                # bound in order: a def made again further down (a notebook's later cell) is what the name
                # holds from there on
                if isinstance(stmt, cst.FunctionDef):
                    self.env.vars[stmt.name.value] = frozenset({FunctionRef(stmt, self.env)})
                else:
                    self.env.vars[stmt.name.value] = frozenset({ClassRef(stmt, self.env)})
                continue
            self.execute(stmt)
            if self.returned_early:
                self.returned_early = False
                break  # `if mode == "train": ... return x` with the test known true: what follows never runs

    def execute(self, stmt: cst.CSTNode) -> None:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                self.execute_small(small)
        elif isinstance(stmt, cst.BaseSmallStatement):
            # the body of a one-line suite (`def tokenize(batch): return tok(...)`, `if x: y = z`) holds
            # its small statements directly
            self.execute_small(stmt)
        elif isinstance(stmt, cst.If):
            self.evaluate(stmt.test)
            known = self.none_test(stmt.test)
            if known is None:
                truth = self.fixed_by_callers(stmt.test)
                known = None if truth is None else not truth
            if known is True:  # `if mask is None:` over a mask the caller passed: never runs
                self.execute_block(_orelse_body(stmt.orelse))
                self.returned_early = _ends_in_return(_orelse_body(stmt.orelse))
            elif known is False:
                self.execute_block(stmt.body.body)
                self.returned_early = _ends_in_return(stmt.body.body)
            else:
                narrowed = not_a_sequence_test(stmt.test)
                self.run_branches(
                    [stmt.body.body, _orelse_body(stmt.orelse)],
                    guards=[stmt.test, None],
                    not_sequences=[
                        narrowed[0] if narrowed and narrowed[1] else None,
                        narrowed[0] if narrowed and not narrowed[1] else None,
                    ],
                )
        elif isinstance(stmt, (cst.For, cst.While)):
            arm = self.env.branch()
            saved, self.env = self.env, arm
            if isinstance(stmt, cst.For):
                self.bind_loop_target(stmt.target, stmt.iter)
                self.loop_targets.append(stmt.target)
            else:
                self.evaluate(stmt.test)
            try:
                self.execute_block(stmt.body.body)
            finally:
                if isinstance(stmt, cst.For):
                    self.loop_targets.pop()
            self.env = saved
            self.env.merge(arm, self.env.branch())
            for walked in self.loop_item_writes.pop(id(stmt.target), ()) if isinstance(stmt, cst.For) else ():
                # a loop that never runs walks no items: the list's items hold what the body wrote
                self.env.put(walked, arm.get(walked) or EMPTY)
            if isinstance(stmt, cst.While):
                self.padding_loop(stmt)
            if stmt.orelse is not None:
                self.execute_block(stmt.orelse.body.body)
        elif isinstance(stmt, cst.Match):
            # each `case` an arm, and the path where none matches (no `case _:` in view of it)
            self.evaluate(stmt.subject)
            self.run_branches([case.body.body for case in stmt.cases] + [[]])
        elif isinstance(stmt, cst.With):
            target_ctx = self.in_target_context
            for item in stmt.items:
                value = self.evaluate(item.item)
                if "as_target_tokenizer" in self.code(item.item):
                    self.in_target_context = True
                if item.asname is not None:
                    self.assign(item.asname.name, value, item.item)
            self.execute_block(stmt.body.body)
            self.in_target_context = target_ctx
        elif isinstance(stmt, (cst.Try, cst.TryStar)):
            self.execute_block(stmt.body.body)
            self.run_branches([[]] + [h.body.body for h in stmt.handlers])
            if stmt.orelse is not None:
                self.execute_block(stmt.orelse.body.body)
            if stmt.finalbody is not None:
                self.execute_block(stmt.finalbody.body.body)
        elif isinstance(stmt, cst.FunctionDef):
            self.env.set(stmt.name.value, frozenset({FunctionRef(stmt, self.env)}))
            if stmt not in self.walked:
                self.walked.add(stmt)
                self.walk_function(stmt, self.env)
        elif isinstance(stmt, cst.ClassDef):
            self.env.set(stmt.name.value, frozenset({ClassRef(stmt, self.env)}))
            self.walk_class(stmt, self.env)

    def fixed_by_callers(self, test: cst.BaseExpression) -> bool | None:
        """The truth of `if flag:` / `if not flag:` when every call in view of the function hands
        `flag` a constant of the same truth and the function never stores it (call_sites.py), or a
        local holds only `True` or only `False` where the test reads it: the branch it does not select
        is never reached. `flag and more` is false when `flag` is, `flag or
        more` true when `flag` is. None when unknown."""
        if isinstance(test, cst.BooleanOperation):
            first = self.fixed_by_callers(test.left)
            if isinstance(test.operator, cst.And) and first is False:
                return False
            if isinstance(test.operator, cst.Or) and first is True:
                return True
            return None
        negated = isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
        name = test.expression if isinstance(test, cst.UnaryOperation) and negated else test
        fn = self.current_fn
        if isinstance(name, cst.Name) and (fn is None or name.value not in P.parameter_names(fn)):
            # a local (or script code's own): its callers fix nothing (and the module's call sites are
            # not needed); one that holds only `True` or only `False` on every path here selects one
            # branch. A global read in a function may be written between the def and a call: unknown.
            if fn is not None and one_row.never_stored(fn, name.value, self.module_info.stored_names):
                return None
            held = self.env.get(name.value)
            truths = {t.value for t in held} if held and all(isinstance(t, Truth) for t in held) else set()
            return truths.pop() != negated if len(truths) == 1 else None
        if fn is None or not self.walking_home() or self.facts.module is None:
            return None
        compared = P.comparison_operand(name, (cst.Equal, cst.NotEqual))
        if compared is not None:
            return self._compared_with_literal(fn, test, compared) if not negated else None
        if not isinstance(name, cst.Name):
            return None
        if fn not in self.facts.module.body:
            literal = self.module_info.method_literals(self.facts.module, fn).get(name.value)
            return None if literal is None else bool(literal[1]) != negated
        truth = self.module_info.constant_parameters(self.facts.module, fn).get(name.value)
        if truth is None or not one_row.never_stored(fn, name.value, self.module_info.stored_names):
            return None
        return not truth if negated else truth

    def _compared_with_literal(self, fn: cst.FunctionDef, test: cst.BaseExpression, compared: tuple) -> bool | None:
        """`mode == "train"` (or `!=`, either side) where every call in view of the method hands `mode`
        that same literal (method_flags.py): the test's value."""
        left, right = compared
        name, other = (left, right) if isinstance(left, cst.Name) else (right, left)
        literal = literal_of(other)
        if not isinstance(name, cst.Name) or literal is None or self.facts.module is None:
            return None
        if fn in self.facts.module.body or name.value not in P.parameter_names(fn):
            return None
        fixed = self.module_info.method_literals(self.facts.module, fn).get(name.value)
        if fixed is None:
            return None
        equal = fixed == literal
        assert isinstance(test, cst.Comparison)
        return equal if isinstance(test.comparisons[0].operator, cst.Equal) else not equal

    def none_test(self, test: cst.BaseExpression) -> bool | None:
        """False when `x is None` is known to be true, True when it is known to be false (and the
        other way round for `is not None`); None when unknown. Known only for values handed to a
        walked call: `None` itself, or a mask, padded ids or an encoding (never a pad id: a
        tokenizer's pad token may be unset)."""
        pair = P.comparison_operand(test, (cst.Is, cst.IsNot))
        if pair is None or not (isinstance(pair[1], cst.Name) and pair[1].value == "None"):
            return None
        key = place_key(pair[0])
        value = self.env.get(key) if key else None
        if not value:
            return None
        if all(isinstance(t, NoneValue) for t in value):
            is_none = True
        elif all(isinstance(t, KNOWN_OBJECTS) for t in value):
            is_none = False
        else:
            return None
        negated = isinstance(test, cst.Comparison) and isinstance(test.comparisons[0].operator, cst.IsNot)
        # True: the body never runs (the test is false).
        return is_none == negated

    def run_branches(self, bodies: list, guards: list | None = None, not_sequences: list | None = None) -> None:
        """Walk each body on its own copy of the environment, then merge them. `not_sequences[i]`: a
        place the i-th body only runs for when it holds no tuple or list (`if not isinstance(b, (tuple,
        list)):`): what it holds as a tuple's parts is not there."""
        arms = []
        # A write through an alias in one arm is not pending in another (trl's DPO: `labels =
        # completion_input_ids; labels[...] = -100` in the encoder-decoder arm, the ids read in the
        # other); after the branches, what any arm left pending is.
        pending_before, pending_after = self.pending_alias_writes, {}
        for i, body in enumerate(bodies):
            arm = self.env.branch()
            saved, self.env = self.env, arm
            self.pending_alias_writes = dict(pending_before)
            guard = guards[i] if guards else None
            if guard is not None:
                self.guards.append(guard)
            place = not_sequences[i] if not_sequences else None
            if place is not None and (held := self.env.get(place)) is not None:
                self.env.put(place, _without_tuples(held))
            self.execute_block(body)
            if guard is not None:
                self.guards.pop()
            self.env = saved
            pending_after.update(self.pending_alias_writes)
            arms.append(arm)
        self.pending_alias_writes = pending_after
        self.env.merge(*arms)

    def execute_small(self, small: cst.BaseSmallStatement) -> None:
        if isinstance(small, cst.Assign):
            value = self.evaluate(small.value)
            for target in small.targets:
                self.assign(target.target, value, small.value)
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            self.assign(small.target, self.evaluate(small.value), small.value)
        elif isinstance(small, cst.AugAssign):
            self.aug_assign(small)
        elif isinstance(small, cst.Expr):
            if isinstance(small.value, cst.Call):
                self.facts.dropped_results.add(small.value)  # a call on its own: its result is dropped
            self.evaluate(small.value)
        elif isinstance(small, cst.Return) and small.value is not None:
            value = self.evaluate(small.value) | self.returned_fields(small.value)
            self.note_labels_reaching(value, None, graded_there=False)  # handed back: the caller's to use
            self.return_nodes.append(small.value)
            self.returns.append(value)
            if self.returns_a_loss():
                self.is_loss(value)
            self.returned_by_stores(small.value)  # a feature dict built by stores, as a literal would be
            if self.function_name in self.module_info.called:
                # A helper hands its value back to its caller, whose walk follows it on (a later
                # helper may mask the labels): only the end of the line makes its return a sink.
                return
            self.returned(value, small)
            parts = small.value.elements if isinstance(small.value, cst.Tuple) else [small.value]
            if any(
                isinstance(part.value, cst.Name) and part.value.value in P.LOSS_MASK_KEYS
                for part in parts
                if isinstance(part, cst.Element)
            ):
                # `return input_ids, target_ids, loss_mask`: the loss weighs the targets by the mask handed
                # back beside them, as with a `"loss_mask"` key of a feature dict
                self.facts.loss_masked.add(small)
            for part in parts:
                if isinstance(part, cst.Name) and self.env.get(f"{part.value}['labels']"):
                    # `model_inputs["labels"].append(labels)` in a batched map function: the features
                    # handed back hold what was appended (ChatGLM-style preprocessing).
                    if (self.current_fn, part.value) in self.facts.loss_masked:
                        self.facts.loss_masked.add(small)  # and the loss mask stored beside them
                    held = self.env.get(f"{part.value}['labels']") or EMPTY
                    if self.collated_labels_only_decoded("labels"):
                        self.facts.labels_unread.add(small)  # every batch's labels are decoded to text
                    self.label_sink(held, part, small, "store", held_in=part.value)
                expr = getattr(part, "value", part)  # a tuple's element; else what the value is made of
                if not isinstance(expr, cst.BaseExpression):
                    continue  # the text of a name or a number (`return labels`): no place
                key = place_key(expr)
                if key is not None and P.LABEL_NAME.search(key.rsplit(".", 1)[-1]):
                    self.label_sink(self.evaluate(expr), expr, small, "return")

    def returned_fields(self, expr: cst.BaseExpression) -> Value:
        """A returned dict's entries (a literal, or a place its keys were stored into), so that the
        caller can read `batch["input_ids"]` of what a helper or a collate function hands back."""
        if isinstance(expr, cst.Dict) and self.last_dict is not None and self.last_dict[0] is expr:
            return frozenset({Fields({k: v for k, (v, _) in self.last_dict[1].items()})})
        key = place_key(expr)
        if key is None or not isinstance(expr, cst.Name):
            return EMPTY
        prefix = f"{key}['"
        entries = {
            k[len(prefix) : -2]: v for k, v in self.env.vars.items() if k.startswith(prefix) and k.endswith("']")
        }
        return frozenset({Fields(entries)}) if entries else EMPTY

    def returned_by_stores(self, expr: cst.BaseExpression) -> None:
        """`batch = {}; batch["input_ids"] = ids; return batch`: the stores make a feature dict (also
        handed back field by field: `{k: torch.as_tensor(v) for k, v in batch.items()}`)."""
        key = place_key(_items_source(expr) or expr)
        labels = self.env.get(f"{key}['labels']") if key is not None else None
        if labels:
            self.labels_built_here(labels)  # `out["labels"].append(...)`
        if key is None or f"{key}['input_ids']" not in self.store_nodes:
            return
        if self.env.get(f"{key}['attention_mask']") is not None:
            self.rows_masked_in_batch(expr)
            return  # the mask is stored too
        if tags_of(self.env.get(key) or EMPTY, Encoding):
            return  # `batch` is an encoding that carries it
        ids = self.env.get(f"{key}['input_ids']") or EMPTY
        self.ids_sink(ids, self.store_nodes[f"{key}['input_ids']"], False)

    def rows_masked_in_batch(self, returned: cst.BaseExpression) -> None:
        """The batch handed back gets its mask stored key by key (`batch["attention_mask"] = (batch[
        "input_ids"] != pad)`): feature dicts written in this function without one (`rows.append({
        "input_ids": ids})`, collated into that batch) are steps on the way, not what the consumer
        receives. Their findings are withdrawn; a dict returned as it is stays a sink."""
        fn = self.current_fn
        if fn is None:
            return
        direct = {
            id(node.value) for node in P.walk(fn) if isinstance(node, cst.Return) and isinstance(node.value, cst.Dict)
        }

        def step(node: cst.CSTNode | None) -> bool:
            return isinstance(node, cst.Dict) and id(node) not in direct and P.contains(fn, node)

        self.facts.mask_lost[:] = [m for m in self.facts.mask_lost if not step(m.sink) and not step(m.node)]
        self.facts.unmasked_list_padding[:] = [u for u in self.facts.unmasked_list_padding if not step(u.node)]

    def aug_assign(self, stmt: cst.AugAssign) -> None:
        current = self.evaluate(stmt.target)
        added = self.evaluate(stmt.value)
        key = place_key(stmt.target)
        if not isinstance(stmt.operator, cst.AddAssign):
            self.written_into_loss(stmt.target)  # `losses *= mask`
        if isinstance(stmt.operator, (cst.MultiplyAssign, cst.BitAndAssign)) and tags_of(current, Ones):
            self.facts.corrected_ones.update(tags_of(current, Ones))  # `mask *= (ids != pad)`
        elif isinstance(stmt.operator, cst.MultiplyAssign) and key is not None:
            # `losses *= mask`: the name now holds the product, whose mean counts the pads (losses.py)
            product = cst.BinaryOperation(stmt.target, cst.Multiply(), stmt.value)
            mask = self.padding_mask_of(product, current, added)
            if mask is not None:
                self.env.set(key, current | frozenset({MaskedProduct(product, mask)}))
        elif isinstance(stmt.operator, cst.AddAssign) and key is not None:
            if LOSS_NAME.search(key):
                self.is_loss(added)  # `loss += (x * mask).mean()`
            fake = cst.BinaryOperation(stmt.target, cst.Add(), stmt.value)
            value = self.concatenate(fake, current, added)
            for padded in tags_of(value, Padded):
                if padded.node is fake:
                    padded.node = stmt  # messages and fixes point at `ids += [pad] * gap` itself
            if fake in self.facts.pending_label_pads:
                self.facts.pending_label_pads[stmt] = self.facts.pending_label_pads.pop(fake)
            self.env.set(key, value | (current if not added else EMPTY))

    def assign(self, target: cst.BaseExpression, value: Value, value_node: cst.BaseExpression) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            elements = [e.value for e in target.elements]
            tuples = [t for t in value if isinstance(t, TupleOf) and len(t.items) == len(elements)]
            if isinstance(value_node, (cst.Tuple, cst.List)) and len(value_node.elements) == len(elements):
                for element, source in zip(elements, value_node.elements):
                    self.assign(element, self.evaluate(source.value), source.value)
            elif tuples:  # `ids, lengths = helper(...)` where the helper returns a tuple
                for i, element in enumerate(elements):
                    self.assign(element, frozenset().union(*(t.items[i] for t in tuples)), value_node)
            else:
                for element in elements:
                    self.assign(element, EMPTY, value_node)
            return
        if isinstance(target, cst.Subscript) and key_of_subscript(target) is None:
            self.store_into(target, value, value_node)
            return
        key = place_key(target)
        if key is None:
            return
        leaf = key.rsplit(".", 1)[-1]
        subscript_key = key_of_subscript(target) if isinstance(target, cst.Subscript) else None
        field_name = subscript_key or leaf
        if LOSS_NAME.search(field_name):
            self.is_loss(value)  # `loss = (x * mask).mean()`, `out["loss"] = ...`
        if P.LABEL_NAME.search(field_name) and not pad_masking(value):
            padded = [t for t in value if isinstance(t, Padded)]
            if any(p.node is value_node for p in padded):
                # `labels = pad_sequence(...)`: labels padded on their own, not a copy of ids.
                for p in padded:
                    if p.node is value_node and not p.of_labels and P.TOKEN_LABELS.match(field_name):
                        if not p.from_tokenizer:  # (a tokenizer's rows: targets by design, below)
                            self.label_padding(p, p.pad, "padding_value")
                # A tokenizer call bound as the labels (`targets = tok.encode(code, padding=...)`) pads them
                # with its pad id, as `text_target=` does: targets by design.
                value = frozenset(
                    t.but(of_labels=True, target_ids=t.target_ids or t.from_tokenizer) if isinstance(t, Padded) else t
                    for t in value
                )
            elif padded and not [c for c in tags_of(value, Copy) if c.padded is not None]:
                value = value | self.make_copies(value_node, value, self.code(value_node))
        self.withdraw_store_events(key)
        labels_before, masks_before = len(self.facts.labels_at_sink), len(self.facts.ones_at_mask)
        label_pads_before = len(self.facts.labels_padded_with_token)
        if (subscript_key is not None and P.MASK_KEY.match(subscript_key)) or (
            subscript_key is None and P.MASK_NAME.search(leaf)
        ):
            fn = self.current_fn
            # a local nothing reads after this store hands its value to no consumer
            unread = (
                isinstance(target, cst.Name)
                and isinstance(fn, cst.FunctionDef)
                and bool(tags_of(value, (Ones, PadIdMask, Padded)))
                and unread_after(fn, target)
            )
            if not unread:
                self.mask_sink(value, value_node)
        container = target.value if isinstance(target, cst.Subscript) else None  # `batch` of `batch[k]`
        loss_masks = P.LOSS_MASK_KEYS | self.module_info.rebuilt_label_masks
        if subscript_key in loss_masks and container is not None:
            self.facts.loss_masked.add((self.current_fn, place_key(container)))
        if isinstance(target, cst.Name) and isinstance(value_node, cst.Dict) and loss_masks & P.dict_keys(value_node):
            # `batch = {..., "loss_mask": m}`, then `batch["labels"] = ...`: the labels go with that mask
            self.facts.loss_masked.add((self.current_fn, key))
        if subscript_key in ("labels", "label_ids") and container is not None:
            if self.collated_labels_only_decoded(subscript_key):
                self.facts.labels_unread.add(target)  # every batch's labels are decoded to text, never graded
            self.facts.label_store_places[target] = (self.current_fn, place_key(container))
            self.label_sink(value, value_node, target, "store")
            self.labels_replaced.update(tags_of(self.evaluate(container), Encoding))
        if subscript_key is not None or isinstance(target, cst.Name):
            # A mask or labels stored under a name or key are judged by their last value: a later store
            # of the same place withdraws what this one raised (and raises what the new value holds).
            self.store_events[key] = RaisedByStore(
                self.facts.labels_at_sink[labels_before:],
                self.facts.ones_at_mask[masks_before:],
                self.facts.labels_padded_with_token[label_pads_before:],
            )
        self.env.set(key, value)
        self.store_nodes[key] = target
        self.value_nodes[key] = value_node
        if subscript_key is not None and isinstance(container, cst.Name):
            self.store_into_items(container.value, subscript_key, value)
        if isinstance(target, cst.Name):
            self.note_alias(key, target, value_node)
        for padded in tags_of(value, Padded):
            if padded.target and padded not in self.padded_targets:
                self.padded_targets.append(padded)
        if isinstance(target, cst.Name):
            self.note_text_kind(target.value, value_node, value)
        if self.last_dict is not None and self.last_dict[0] is value_node:
            for name, (entry, _) in self.last_dict[1].items():
                self.env.put(f"{key}[{name!r}]", entry)

    def store_into_items(self, item: str, field: str, value: Value) -> None:
        """`for f in features: f["labels"] = padded`: a store through the loop's name writes the field of
        every item of the list it walks, so a later `[f["labels"] for f in features]` reads it there."""
        walked = self.loop_aliases.get(item)
        loop = next((t for t in reversed(self.loop_targets) if isinstance(t, cst.Name) and t.value == item), None)
        if walked is None or loop is None:
            return
        self.loop_item_writes.setdefault(id(loop), set()).add(walked)
        held = self.env.get(walked) or EMPTY
        earlier = [t for t in held if isinstance(t, ItemsWritten)]
        others = frozenset(t for t in held if not isinstance(t, ItemsWritten))
        written = [ItemsWritten({**w.entries, field: value}) for w in earlier] or [ItemsWritten({field: value})]
        self.env.put(walked, others | frozenset(written))

    def withdraw_store_events(self, key: str) -> None:
        """`out["labels"] = ids.copy()` then `out["labels"] = [... -100 ...]`: the consumer receives the
        second value; what the first store raised is judged no more. (A store in one branch replaces
        the value on that path only; precision first, it withdraws as a later masking step would.)"""
        earlier = self.store_events.pop(key, None)
        if earlier is not None:
            earlier.withdraw_from(self.facts)

    def note_text_kind(self, name: str, value_node: cst.BaseExpression, value: Value) -> None:
        # `value` is what the assignment already evaluated: evaluating the call again costs as much.
        single = self.is_single_text(value_node, value) if not isinstance(value_node, cst.Name) else None
        self.str_names.discard(name)
        self.list_names.discard(name)
        self.str_seq_names.discard(name)
        if single is True:
            self.str_names.add(name)
        elif single is False:
            self.list_names.add(name)
        if self.texts_one_by_one(value_node):
            self.str_seq_names.add(name)

    def texts_one_by_one(self, expr: cst.BaseExpression) -> bool:
        """Is `expr` a sequence whose every item is one text: a list or tuple of string literals, the
        lines of a text or a file (`text.splitlines()`, `f.readlines()`), the parts of one text
        (`text.split(sep)`; a tensor's `.split` gives tensors, so the receiver must be known as text)?"""
        if isinstance(expr, (cst.List, cst.Tuple)):
            items = [e.value for e in expr.elements if not isinstance(e, cst.StarredElement)]
            strings = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)
            return bool(items) and len(items) == len(expr.elements) and all(isinstance(i, strings) for i in items)
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
            method = expr.func.attr.value
            if method in ("splitlines", "readlines"):
                return True
            if method in ("split", "rsplit"):
                return self.is_single_text(expr.func.value) is True
        if isinstance(expr, (cst.ListComp, cst.GeneratorExp)) and expr.for_in.inner_for_in is None:
            # `[" ".join(seq) for seq in proteins]`: one text per item (the item read in the comprehension's
            # own scope: its loop variable is not a name of the walk)
            return self.is_single_text(expr.elt) is True
        return False


def _ends_in_return(body: Sequence[cst.CSTNode]) -> bool:
    """Does the block's last statement return (a direct `return`, not one inside a nested block)?"""
    last = body[-1] if body else None
    if isinstance(last, cst.SimpleStatementLine):
        return any(isinstance(small, cst.Return) for small in last.body)
    return isinstance(last, cst.Return)


def _orelse_body(orelse) -> list:
    if orelse is None:
        return []
    if isinstance(orelse, cst.If):
        return [orelse]
    return list(orelse.body.body)


SEQUENCE_TYPES = frozenset({"tuple", "list"})


def not_a_sequence_test(test: cst.BaseExpression) -> tuple[str, bool] | None:
    """`isinstance(b, (tuple, list))` -> (b's place, False): the test holds when b is a sequence, so the
    else branch runs only for b that is none; `not isinstance(...)` or `isinstance(b, torch.Tensor)`
    -> (b's place, True): the body runs only for b that is no sequence."""
    negated = isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
    call = test.expression if isinstance(test, cst.UnaryOperation) and negated else test
    if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value == "isinstance"):
        return None
    if len(call.args) != 2 or any(a.keyword is not None or a.star for a in call.args):
        return None
    place = place_key(call.args[0].value)
    kinds = call.args[1].value
    names = [e.value for e in kinds.elements] if isinstance(kinds, cst.Tuple) else [kinds]
    dotted = [P.dotted(n) for n in names]
    if place is None or any(d is None for d in dotted):
        return None
    short = {d.rsplit(".", 1)[-1] for d in dotted if d is not None}
    if short <= SEQUENCE_TYPES:
        return place, negated  # a sequence in the body (not negated): the else branch holds none
    if short == {"Tensor"} or short == {"ndarray"}:
        return (place, True) if not negated else None
    return None


def _without_tuples(held: Value) -> Value:
    """What a place holds once it is known to be no tuple: its tuples, and the parts they hand out, go."""
    tuples = tags_of(held, TupleOf)
    # a loader hands a tuple's parts on as copies (stacked, moved): the same padding step, another object
    parts = {_made_at(t) for tup in tuples for item in tup.items for t in item}
    return frozenset(t for t in held if not isinstance(t, TupleOf) and _made_at(t) not in parts)


def _made_at(tag: object) -> tuple[type, int]:
    """A tag by its kind and the node that made it (its own identity where it names none)."""
    node = getattr(tag, "node", None)
    return type(tag), id(node if node is not None else tag)


def _items_source(expr: cst.BaseExpression) -> cst.BaseExpression | None:
    """`{k: f(v) for k, v in batch.items()}` -> `batch`: a dict remade field by field from another."""
    if not isinstance(expr, cst.DictComp) or expr.for_in.inner_for_in is not None:
        return None
    source = expr.for_in.iter
    if isinstance(source, cst.Call) and isinstance(source.func, cst.Attribute) and source.func.attr.value == "items":
        return source.func.value
    return None
