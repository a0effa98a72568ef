"""In-place writes and loop bindings for the scope walker (flow.py): `labels[mask == 0] = -100`,
`ids[i, :len(s)] = s`, `tokens[i, :] = row`, `for i, s in enumerate(seqs)`, and what they make
of the padded values, masks and label copies they touch."""

from __future__ import annotations

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.env import EMPTY, key_of_subscript, place_key, single_index
from padlint.analysis.pad_ids import inequality
from padlint.analysis.values import (
    Copy,
    Encoding,
    Fill,
    GoodMask,
    Masked,
    Ones,
    Padded,
    SentinelFilled,
    TokenIds,
    TupleOf,
    Value,
    pad_masking,
    tags_of,
)
from padlint.analysis.walker_state import WalkerState
from padlint.analysis.zero_padding import part_of_row
from padlint.semantics import table as T

# Builders of class-score targets (one-hot, multi-label): what is written into them is a class, not a token.
SCORE_BUFFERS = {n.rsplit(".", 1)[-1] for n in T.names("fills", style="zeros") | T.names("fills", "method", "zeros")}


class StoresMixin(WalkerState):
    """Mixed into the scope walker."""

    def store_into(self, target: cst.Subscript, value: Value, value_node: cst.BaseExpression) -> None:
        """`labels[idx] = -100`, `mask[i, n:] = 0`: in-place writes that mask or correct."""
        self.written_into_loss(target.value)
        index = single_index(target)
        if index is not None and self.selects_no_position(index):
            # `labels[torch.tensor(ids_list == pad_id)] = -100`: a False index writes nothing
            self.facts.masking_selects_nothing.update((c, target) for c in tags_of(self.evaluate(target.value), Copy))
            return
        base = self.zero_row_fill(target, self.evaluate(target.value), value, value_node)
        if _whole_row(target):
            # `tokens[i, :] = row` over `torch.full(shape, pad_id)`: the fill only reserved the shape
            # (Jacobi decoding's random start), every row is written over: nothing is padding.
            self.facts.rows_overwritten.update(p.node for p in tags_of(base, Padded))
        self.note_row_fill(target, base)
        self.label_rows_written(target, base)
        if P.int_value(value_node) == 0 and tags_of(base, Ones):
            self.facts.corrected_ones.update(tags_of(base, Ones))
            self.zeroed_at_pad_ids(target, base)  # `mask[ids == pad_id] = 0`: now a mask from the pad id
            return
        generated_ones = [o for o in tags_of(base, Ones) if o.over is not None and o.over.generated_at is not None]
        if generated_ones and _prefix(target) and tags_of(value, GoodMask):
            # `mask = ones_like(seqs); mask[:, :n] = enc["attention_mask"]` over what a decoder's `generate`
            # continued: a right mask written over the leading columns, where the prompt's pads are; what
            # is left of the ones are the new tokens, whose pads (after each row's EOS) trail every real
            # token of a causal decoder.
            self.facts.corrected_ones.update(generated_ones)
            return
        self.written_in_place(target.value, value_node)
        if self.selects_ignored(target):
            return  # `labels[labels == -100] = 0`: ignored positions made valid indices (a gather), not padding
        # `-100`, a masked value, or a run of them (`labels[:gap] = [-100] * gap`)
        ignore = (
            self.is_ignore(value_node)
            or bool(tags_of(value, Masked))
            or any(f.what == "ignore" for f in tags_of(value, Fill))
        )
        labels = any(c.padded is not None for c in tags_of(base, Copy)) or (
            self.is_label_code(target.value, strict=True) and not self.is_score_buffer(target.value)
        )
        if not labels and not ignore and self.pads_become_text(target, value, value_node):
            # `ids[ids == pad_id] = tok.encode("0")[0]`: every pad is now a token of text the code chose
            # (a number written to a fixed width): the ids hold no padding any more, nothing to mask.
            key = place_key(target.value)
            held = self.env.get(key) if key is not None else None
            if key is not None and held is not None:
                self.env.put(key, frozenset(t for t in held if not isinstance(t, Padded)))
            return
        # A value the analysis cannot read, written into labels at the pad positions (`labels[pads] =
        # self.label_pad_token_id`, a field or argument whose value is out of view): the author marks the
        # pads with it, so it counts as masking (unknown code is never evidence of a bug). A value in
        # view decides: 0, the pad id, a token.
        unread = labels and not ignore and self.value_out_of_view(value_node, value)
        written = labels and (ignore or unread or P.int_value(value_node) is not None)
        # `labels[mask == 0] = ...`, or `labels[i] = ...` inside `if labels[i] == pad_id:`
        at_pads = (
            self.indexes_padding(target)
            or self.left_padding_prefix(target, base)
            or (written and self.guarded_by_pad_id(target, base))
        )
        known = _known_positions(target) and not (_prefix(target) and _left_padded(base))
        if ignore and labels and not at_pads and not known and not self.tested_positions(target):
            # The ignore value written where the analysis cannot tell which positions (`labels[row,
            # idx[1:, 0]] = ignore_index` with idx from `nonzero(labels == pad_id)`; a prefix of rows
            # padded on the left, `labels[i, :start] = -100`, which covers their pads when `start` counts
            # them): it may be the pads, so it counts as masking. Unknown code is never evidence of a bug.
            at_pads = True
        if written and at_pads:
            # masked with -1: compared with what the loss these labels reach ignores
            root = P.root_name(target)
            place = (self.current_fn, root) if root is not None else None
            self.note_label_value(target, value_node, tags=(target.value,), written=True, place=place)
            ignore = True
        if labels and not ignore:
            self.padded_rows_written_into_labels(target, base, value, value_node)
        index = single_index(target)
        if ignore and index is not None:
            self.masking_by_pad_id(target, index, base, "index")
        if ignore and at_pads:
            self.facts.masked_copies.update(tags_of(base, Copy))
            self.targets_by_role(target.value)
            self.mark_place_masked(target.value)
            if isinstance(target.value, cst.Subscript) and key_of_subscript(target.value) == "input_ids":
                self.ids_masked_in.update(tags_of(self.evaluate(target.value.value), Encoding))

    def targets_by_role(self, receiver: cst.BaseExpression) -> None:
        """The ignore value written at the pads of padded ids makes them targets, whatever their name: no
        embedding takes -100, so they are not a model's input and need no attention mask."""
        key = place_key(receiver)
        held = self.env.get(key) if key is not None else None
        if key is None or held is None:
            return
        self.env.put(
            key, frozenset(t.but(of_labels=True) if isinstance(t, Padded) and not t.of_labels else t for t in held)
        )

    def padded_rows_written_into_labels(
        self, target: cst.Subscript, base: Value, value: Value, value_node: cst.BaseExpression
    ) -> None:
        """`labels[:, n:] = answer_ids` (or a row of them, `labels[i, n:] = answer_ids[i]`) into a buffer
        of labels (`base`, what it held): the written ids bring their pads along, at other positions than
        in the ids (no mask, gap or lengths of theirs fits the labels)."""
        key = place_key(target.value)
        if key is None or len(target.slice) != 2 or not isinstance(target.slice[1].slice, cst.Slice):
            return
        if not _whole_value(value_node) or pad_masking(value):
            return
        # The ignore value the labels held before (a buffer of -100) is written over here: it does not
        # cover the pads written into it.
        before = tuple(tags_of(base, Masked))
        padded = [
            p.moved().but(masks_before=before)
            for p in tags_of(value, Padded)
            if not (p.of_labels or p.target_ids or p.filled)
        ]
        if padded:
            self.env.update(key, frozenset(padded))

    def value_out_of_view(self, value_node: cst.BaseExpression, value: Value) -> bool:
        """Is `value_node` a name or attribute whose value the analysis cannot read (no int, no pad id,
        no token ids, no EOS)?"""
        if not isinstance(value_node, (cst.Name, cst.Attribute)) or P.mentions_eos(value_node):
            return False
        if tags_of(value, TokenIds) or tags_of(value, Padded):
            return False
        return self.resolve_int(value_node) is None

    def pads_become_text(self, target: cst.Subscript, value: Value, value_node: cst.BaseExpression) -> bool:
        """Is `x[x == pad_id] = v` writing, at every pad, a token the tokenizer made from text (not the
        EOS, not another pad id, not a padded value)?"""
        if not tags_of(value, TokenIds) or tags_of(value, Padded) or P.mentions_eos(value_node):
            return False
        return not self.is_pad_id(value_node) and self.selects_own_pads(target)

    def is_score_buffer(self, place: cst.BaseExpression) -> bool:
        """Was `target` made as a zeros/empty buffer or a one-hot (`torch.zeros_like(logits)`,
        `F.one_hot(...)`)? Then it holds class scores, not language-model token ids: writing 1 into
        it sets a class, it does not pad or mask labels."""
        key = place_key(place)
        made = self.value_nodes.get(key) if key is not None else None
        while (
            isinstance(made, cst.Call)
            and isinstance(made.func, cst.Attribute)
            and made.func.attr.value in P.SAME_VALUE_METHODS
        ):
            made = made.func.value  # `torch.zeros(...).float()`
        return isinstance(made, cst.Call) and P.last_name(made.func) in SCORE_BUFFERS

    def tested_positions(self, target: cst.Subscript) -> bool:
        """Is `labels[i] = ...` inside an `if` that tests the value at `i` (`if labels[i] == IMAGE_TOKEN:`)?
        Then the analysis has read which positions are written: those the test selects."""
        index = single_index(target)
        if index is None:
            return False
        read = f"{self.code(target.value)}[{self.code(index)}]"
        return any(read in self.code(test) for test in self.guards)

    def note_row_fill(self, target: cst.Subscript, base: Value) -> None:
        """`ids[i, :len(s)] = s` in `for i, s in enumerate(seqs)`: the rows' lengths are `len(s)` of `seqs`.
        Also written from the end (`ids[i, -len(s):]`, `ids[i, width - len(s):]`: the row must fill the
        rest of the buffer, so it is padded on the left), with the length of a part of the loop's item
        (`len(f["input_ids"])`) or read from a list of lengths by the row index (`lengths[i]`)."""
        if len(target.slice) != 2 or not isinstance(target.slice[1].slice, cst.Slice):
            return
        cut = target.slice[1].slice
        if cut.step is not None or (cut.lower is None) == (cut.upper is None):
            return
        bound, side = (cut.upper, "right") if cut.lower is None else (_counted_from_end(cut.lower), "left")
        if side == "left" and bound is not None:
            # Each row fills the buffer up to its end, whatever its length is called (`t.shape[0]`): the
            # fill stays before it, so the rows are padded on the left.
            for padded in tags_of(base, Padded):
                if padded.kind in ("pt", "np") and not padded.from_tokenizer:
                    padded.side = "left"
        row_index = target.slice[0].slice
        found = self.row_lengths(bound, row_index.value if isinstance(row_index, cst.Index) else None)
        if found is None:
            return
        lengths, walked = found
        for padded in tags_of(base, Padded):
            if padded.lengths is None and padded.kind in ("pt", "np"):
                padded.lengths = lengths
                padded.lengths_names = ((walked, id(self.env.owner(walked)), self.env.version(walked)),)
                padded.side = side

    def row_lengths(self, bound: cst.BaseExpression | None, row_index) -> tuple[str, str] | None:
        """(code of every row's length, the name it reads) for the length of one row: `len(s)` with `s`
        (or `s["input_ids"]`) the item of a loop over a named list, or `lengths[i]` with `i` the row index."""
        if isinstance(bound, cst.Name) and isinstance(self.value_nodes.get(bound.value), cst.Call):
            bound = self.value_nodes[bound.value]  # `n = len(f["input_ids"])` in the loop, then `ids[i, :n]`
        if isinstance(bound, cst.Call) and P.last_name(bound.func) == "len" and len(bound.args) == 1:
            row = bound.args[0].value
            root = row
            while isinstance(root, (cst.Subscript, cst.Attribute)):
                root = root.value
            if not isinstance(root, cst.Name):
                return None
            walked = self.loop_aliases.get(root.value)
            if walked is None or not walked.isidentifier() or place_key(row) is None:
                return None
            return f"[len({self.code(row)}) for {root.value} in {walked}]", walked
        index = single_index(bound) if isinstance(bound, cst.Subscript) else None
        if (
            index is not None
            and isinstance(bound, cst.Subscript)
            and isinstance(bound.value, cst.Name)
            and isinstance(index, cst.Name)
            and isinstance(row_index, cst.Name)
            and index.value == row_index.value
        ):
            return bound.value.value, bound.value.value
        return None

    def label_rows_written(self, target: cst.Subscript, base: Value) -> None:
        """`labels[i, :len(s)] = s` into `torch.full((B, L), pad_id)`: the rest of each row keeps the
        fill, so the buffer pads the labels with it."""
        key = place_key(target.value)
        field_name = key_of_subscript(target.value) if isinstance(target.value, cst.Subscript) else key
        if key is None or not field_name or not P.TOKEN_LABELS.match(field_name.rsplit(".", 1)[-1]):
            return
        if not part_of_row(target):
            return
        for padded in tags_of(base, Padded):
            if padded.filled and padded.pad is not None and padded.node not in self.facts.pending_label_pads:
                self.label_padding(padded, padded.pad, "padding_value", rows_written=True)
        for sentinel in tags_of(base, SentinelFilled):
            # `labels = torch.full((B, L), -1)`, then rows written: the labels are padded with -1
            if sentinel.padded is None:
                sentinel.padded = self.padded(sentinel.node, kind=sentinel.kind, pad=sentinel.fill, of_labels=True)
                self.label_padding(sentinel.padded, sentinel.fill, "padding_value", rows_written=True)
            self.env.update(key, frozenset({sentinel.padded}))

    def left_padding_prefix(self, target: cst.Subscript, base: Value) -> bool:
        """`labels[:gap] = ...` on a row padded on the left by `[pad] * gap + ids`: the prefix is the padding."""
        if len(target.slice) != 1 or not isinstance(target.slice[0].slice, cst.Slice):
            return False
        cut = target.slice[0].slice
        if cut.lower is not None or cut.upper is None or cut.step is not None:
            return False
        bound = self.code(cut.upper)
        return any(p.side == "left" and p.gap == bound and self.still_valid(p.names) for p in tags_of(base, Padded))

    def indexes_padding(self, target: cst.Subscript) -> bool:
        """Does `x[index]` select pad positions (a mask, a comparison, a suffix) rather than a prompt prefix?"""
        for element in target.slice:
            s = element.slice
            if isinstance(s, cst.Slice):
                if s.lower is not None and s.upper is None:
                    return True  # `[n:]`: everything after the real tokens
                continue
            value = s.value if isinstance(s, cst.Index) else None
            if value is not None and self.selects_graded_positions(value):
                return False  # `targets[targets != -100] = 0`: the positions the loss grades, never its pads
            if value is not None and self.selects_padding(value):
                return True
        return False

    def selects_padding(self, condition: cst.BaseExpression) -> bool:
        """May `condition` pick the pad positions (a comparison, a negated mask, a mask or pads by name)?"""
        if isinstance(condition, (cst.Comparison, cst.UnaryOperation, cst.Call)):
            return True
        if isinstance(condition, (cst.Name, cst.Attribute, cst.Subscript)):
            code = self.code(condition).lower()
            return bool(tags_of(self.evaluate(condition), GoodMask)) or "mask" in code or "pad" in code
        return False

    def selects_graded_positions(self, index: cst.BaseExpression | None) -> bool:
        """`labels != -100` (either side, or `.ne(-100)`): the positions holding anything but the ignore
        value, the ones a loss grades."""
        pair = inequality(index) if index is not None else None
        return pair is not None and any(self.is_ignore(side) for side in pair)

    def bind_loop_target(self, target: cst.BaseExpression, iterable: cst.BaseExpression) -> None:
        value = self.iterated(self.evaluate(iterable))  # a loader yields batches (wiring.py)
        if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name):
            name = iterable.func.value
            sources = [self.iterated(self.evaluate(a.value)) for a in iterable.args if a.keyword is None]
            if name == "enumerate" and isinstance(target, cst.Tuple) and len(target.elements) == 2 and sources:
                self.assign(target.elements[0].value, EMPTY, iterable)
                item, walked = target.elements[1].value, iterable.args[0].value
                if isinstance(item, (cst.Tuple, cst.List)):
                    # `for i, (a, b) in enumerate(zip(xs, ys)):` binds the items as the loop over the
                    # inner iterable does
                    self.bind_loop_target(item, walked)
                    return
                self.assign(item, sources[0], iterable)
                walked_key = place_key(walked)
                if isinstance(item, cst.Name) and walked_key:
                    self.loop_aliases[item.value] = walked_key
                self.note_item_kind(item, walked)
                return
            if name == "zip" and isinstance(target, cst.Tuple) and len(target.elements) == len(sources):
                for element, source, arg in zip(target.elements, sources, iterable.args):
                    self.assign(element.value, source, iterable)
                    self.note_item_kind(element.value, arg.value)
                    arg_key = place_key(arg.value)
                    if isinstance(element.value, cst.Name) and arg_key:
                        self.loop_aliases[element.value.value] = arg_key
                return
        if isinstance(target, (cst.Tuple, cst.List)):
            if any(isinstance(t, TupleOf) and len(t.items) == len(target.elements) for t in value):
                self.assign(target, value, iterable)  # `for ids, labels in loader:` over tuple batches
                return
            for element in target.elements:
                self.assign(element.value, EMPTY, iterable)
            return
        self.assign(target, value, iterable)
        self.note_item_kind(target, iterable)
        iterable_key = place_key(iterable)
        if isinstance(target, cst.Name) and iterable_key:
            self.loop_aliases[target.value] = iterable_key

    def note_item_kind(self, target: cst.BaseExpression, iterable: cst.BaseExpression) -> None:
        """A loop's name holds one item of the iterable, not the iterable: what the assignment noted of
        the iterable's kind (a list of texts) is not the item's. An item of texts is one text, read as
        a comprehension over the same iterable reads it (`for text in strings`)."""
        if not isinstance(target, cst.Name):
            return
        for names in (self.str_names, self.list_names, self.str_seq_names):
            names.discard(target.value)
        if self.holds_texts(iterable):
            self.str_names.add(target.value)


def _counted_from_end(lower: cst.BaseExpression) -> cst.BaseExpression | None:
    """The length `n` in a slice start `-n` or `width - n` (a row written up to the end of the buffer)."""
    if isinstance(lower, cst.UnaryOperation) and isinstance(lower.operator, cst.Minus):
        return lower.expression
    if isinstance(lower, cst.BinaryOperation) and isinstance(lower.operator, cst.Subtract):
        return lower.right
    return None


def _known_positions(target: cst.Subscript) -> bool:
    """Does `x[...]` name positions that are not the padding whatever the values: a constant position
    (`labels[0]`, `labels[:, -1]`) or a prefix (`labels[:n]`, `labels[i, :len(prompt)]`)? The first
    index of several selects rows."""
    elements = [e.slice for e in target.slice]
    for position in elements[1:] if len(elements) > 1 else elements:
        if isinstance(position, cst.Slice):
            if position.lower is not None or position.step is not None:
                return False
        elif not isinstance(position, cst.Index) or P.int_value(position.value) is None:
            return False
    return True


def _prefix(target: cst.Subscript) -> bool:
    """`x[:n]`, `x[i, :n]`: positions from the start of the row."""
    cut = target.slice[-1].slice
    return isinstance(cut, cst.Slice) and cut.lower is None and cut.upper is not None and cut.step is None


def _left_padded(base: Value) -> bool:
    """Is the value (or the ids it copies) padded on the left: its pads come first in each row?"""
    padded = [*tags_of(base, Padded), *(c.padded for c in tags_of(base, Copy) if c.padded is not None)]
    return any(p.side == "left" for p in padded)


def _whole_row(target: cst.Subscript) -> bool:
    """`x[i, :]`: a whole row of a 2-D array."""
    if len(target.slice) != 2 or not isinstance(target.slice[0].slice, cst.Index):
        return False
    cut = target.slice[1].slice
    return isinstance(cut, cst.Slice) and cut.lower is None and cut.upper is None and cut.step is None


def _whole_value(node: cst.BaseExpression) -> bool:
    """A value as it is held (`ids`, `enc.input_ids`, `enc["input_ids"]`) or one row of it (`ids[i]`),
    not a slice of its positions (`ids[i, :n]` may stop before the pads)."""
    while isinstance(node, cst.Subscript):
        if any(not isinstance(s.slice, cst.Index) for s in node.slice):
            return False
        node = node.value
    return isinstance(node, (cst.Name, cst.Attribute))
