"""The sinks where masks, labels and ids start to matter: feature dicts, model and loss keywords,
returns; and what their consumer needs (the library table's rows)."""

from __future__ import annotations

import dataclasses
import re

import libcst as cst

from padlint.analysis import batch_uses, output_use
from padlint.analysis import patterns as P
from padlint.analysis.env import EMPTY, Env, key_of_subscript, place_key
from padlint.analysis.facts import (
    LabelsAtSink,
    LabelsPaddedWithToken,
    MaskLost,
    MaskPaddedAsIds,
    OnesAtMask,
    PadIdMaskAtSink,
    UnmaskedIds,
    UnmaskedListPadding,
)
from padlint.analysis.fixshapes import is_place
from padlint.analysis.loader_uses import names_in
from padlint.analysis.values import (
    Const,
    Context,
    Copy,
    DictOf,
    Encoding,
    GoodMask,
    Instance,
    NoneValue,
    Ones,
    Padded,
    PadIdMask,
    ShapeOf,
    Value,
    pad_masking,
    tags_of,
)
from padlint.analysis.walker_state import WalkerState
from padlint.semantics import table as T

TOKENIZER_METHODS = T.names("tokenizer", on="method")
FORMAT_METHODS = {"set_format", "with_format"}
STRING_METHODS = {"format", "strip", "lstrip", "rstrip", "lower", "upper", "replace"}

# What a Dataset or a collator object runs for the framework: rows and batches for the model.
DATA_PROTOCOL = frozenset({"__getitem__", "__iter__", "__next__", "__call__", "__getitems__"})


class SinkChecks(WalkerState):
    """Mixed into the scope walker."""

    # ---- sinks ---------------------------------------------------------------------------------
    def context(self, padded: Padded | None = None) -> Context:
        return Context(
            torch=self.imports.local_name_for("torch"),
            numpy=self.imports.local_name_for("numpy"),
            mask_code=self.current_mask_code(padded),
        )

    def current_mask_code(self, padded: Padded | None) -> str | None:
        """A place holding a correct attention mask right now (for label fixes)."""
        candidates = []
        env: Env | None = self.env
        while env is not None:
            for key, value in env.vars.items():
                for mask in tags_of(value, GoodMask):
                    linked = mask.padded is padded and padded is not None
                    # A mask built here from lengths (`arange(k) < counts`) is the mask of the rows those
                    # lengths count: of these ids only where it is linked to their padding.
                    of_other_rows = isinstance(mask.node, cst.Comparison) and not self.spans_rows(mask.node, padded)
                    # the mask of another padding step (the prompts' encoding beside the targets')
                    made_by = mask.padded.node if mask.padded is not None else mask.made_by
                    of_other_padding = made_by is not None and padded is not None and made_by is not padded.node
                    if linked or ("mask" in key.lower() and not of_other_rows and not of_other_padding):
                        candidates.append(key)
            env = env.parent
        if padded is not None and padded.encoding_mask() and self.bound_here(padded.encoding, padded):
            return padded.encoding_mask()
        unique = sorted(set(candidates))
        if len(unique) > 1:
            # one mask held in several places (`self.attention_mask = attention_mask`): any of them
            # will do; the shortest spelling reads best (a parameter before the attribute it is stored in)
            held = {frozenset(tags_of(self.env.get(key) or EMPTY, GoodMask)) for key in unique}
            if len(held) == 1:
                unique = [min(unique, key=lambda key: (len(key), key))]
        if len(unique) != 1:
            return None
        kinds = {m.kind for m in tags_of(self.env.get(unique[0]) or EMPTY, GoodMask)}
        return _as_kind(
            _key_code(unique[0]),
            kinds,
            padded.kind if padded else "?",
            self.imports.local_name_for("torch"),
            self.imports.local_name_for("numpy"),
        )

    def spans_rows(self, comparison: cst.Comparison, padded: Padded | None) -> bool:
        """Does a mask built from lengths (`arange(width)[None] < lengths[:, None]`) span the width of the
        rows `padded` pads: an `arange` over their size (`ids.size(1)`, `ids.shape[-1]`) or over the
        width they were padded to? Then it is their mask, and a mask over some other width is not."""
        if padded is None:
            return False
        for node in P.walk(comparison):
            if isinstance(node, cst.Call) and P.last_name(node.func) == "arange" and node.args:
                extent = node.args[-1].value if len(node.args) <= 2 else node.args[1].value
                if padded.target is not None and self.code(extent) == padded.target:
                    return True
                if any(shape.padded is padded for shape in tags_of(self.evaluate(extent), ShapeOf)):
                    return True
        return False

    def bound_here(self, code: str | None, padded: Padded) -> bool:
        """Is the encoding `code` names readable here: padded in this function (not in a caller or a
        callee walked from here) and its name still bound (not a comprehension's variable, gone after it)
        to an encoding or a dict of fields (`inputs = torch.tensor(inputs["input_ids"])` leaves a
        tensor under the name: its mask is no longer there)?"""
        root = re.match(r"[A-Za-z_]\w*", code or "")
        if padded.made_in is not self.current_fn or root is None:
            return False
        held = self.env.get(root.group())
        if held is None:
            return False
        return code != root.group() or bool(tags_of(held, (Encoding, DictOf)))

    def grown_in_loop(self, sink: cst.CSTNode, ids_expr: cst.BaseExpression | None, made_at: cst.CSTNode) -> bool:
        """Is the name of the ids handed at `sink` stored again in a loop around it that does not make
        them anew (`ids = torch.cat([ids, next_token], dim=1)` in a decoding loop, the tokenizer call
        `made_at` before the loop)? The encoding's mask fits the first pass only: from the second on,
        the ids are longer than it."""
        name = ids_expr.value if isinstance(ids_expr, cst.Name) else None
        scope = self.current_fn or self.facts.module
        if name is None or scope is None:
            return False
        for node in P.walk(scope):
            if (
                isinstance(node, (cst.For, cst.While))
                and P.contains(node.body, sink)
                and not P.contains(node.body, made_at)
            ):
                if any(P.assigns_name(inner, name) and names_in(inner.value, {name}) for inner in P.walk(node.body)):
                    return True
        return False

    def mask_sink(
        self, value: Value, sink: cst.CSTNode, labels_masked: bool = False, handed: cst.Call | None = None
    ) -> None:
        """A mask reaches its place. `labels_masked`: the labels beside it hold -100 at the pads.
        `handed`: the call it is passed to as `attention_mask=`. A mask test code puts in a dict, a store or a
        return is the test's input for its checks, not what a model is run on (docs/usage.md)."""
        if not handed and self.in_test_code():
            return
        # Masks made on other paths to the same place (`if args.no_mask: ones, else: ids != pad`): where
        # the code also makes the right mask for the same ids, the ones are an option it chose, not an
        # omission (an ablation, a batch known to hold no pads).
        # The same ids: the same padding tag, or the same expression at both builders (ids padded by a
        # helper with two padding steps hold a tag for each, and the ones and `ids.ne(pad)` may each name
        # another of them).
        alternatives = tags_of(value, (GoodMask, PadIdMask))
        for ones in tags_of(value, Ones):
            if ones.over is not None and labels_masked and ones.over.side == "right" and self.causal_models_only():
                continue  # right pads, ignored labels, a causal decoder: the ones change nothing it reads
            if ones.over is not None and self.right_pads_unread(ones.over.side, handed, ones.over.side_stated):
                continue  # the same for pads the code puts on the right: graded pads are the labels' business
            if ones.over is not None and any(_same_ids(ones, mask) for mask in alternatives):
                # The same ones may have reached a mask place on their own path before the paths met
                # (`mask = ones(...)` in one arm of an `if`, `mask = ids.ne(pad)` in the other), on this
                # walk of the function or an earlier one: that was the option the code chose.
                self.facts.ones_at_mask[:] = [e for e in self.facts.ones_at_mask if e.ones.node is not ones.node]
                continue
            if ones.over is not None:
                self.facts.ones_at_mask.append(self.mask_event(ones, ones.over, ones.over_code, sink))
        if not tags_of(value, (Ones, PadIdMask, GoodMask)):
            for padded in tags_of(value, Padded):
                self.mask_padded_as_ids(padded, sink)
        for mask in tags_of(value, PadIdMask):
            if mask.padded is not None:  # wrong only where the pad is the EOS: the rules judge that
                at_sink = self.mask_event(mask, mask.padded, mask.ids_code, sink)
                self.facts.record(self.facts.pad_id_masks_at_sink, PadIdMaskAtSink(mask.node, at_sink))

    def mask_padded_as_ids(self, padded: Padded, sink: cst.CSTNode) -> None:
        """A padded value at a mask place: its fill is what the mask holds at the pads. A fill with
        the pad id (an explicit one, or a tokenizer's own pad) is recorded; the rule judges it."""
        if padded.of_labels or padded.target_ids:
            return
        key = place_key(padded.pad) if padded.pad is not None else None
        where = padded.made_in if isinstance(padded.made_in, cst.FunctionDef) else self.current_fn
        if (
            padded.pad_number is not None
            or key is not None
            and (
                tags_of(self.env.get(key) or EMPTY, Const)
                or _bound_to_int(where, key)
                or (key in self.constants and P.int_value(self.constants[key]) is not None)
            )
        ):
            return  # `pad_id = 0` (or any int) bound here: a pad-id name holding a number is that number
        fill = self.resolve_int(padded.pad) if padded.pad is not None else "pad" if padded.from_tokenizer else None
        if fill != "pad":
            return
        fact = MaskPaddedAsIds(padded.node, sink, fill, padded.pad)
        self.facts.record(self.facts.masks_padded_as_ids, fact)

    def ones(self, node: cst.CSTNode, over: Padded | None, code: str | None) -> Ones:
        """An all-ones mask built here over `over`, with what a fix written here may read."""
        ones = Ones(node, over, code, built_in=self.current_fn)
        if over is not None:
            ones.at_builder = self.mask_event(ones, over, code, node)  # its sink is set where it is found
        return ones

    def mask_event(self, mask, padded: Padded, code: str | None, sink: cst.CSTNode) -> OnesAtMask:
        """What a fix needs to write a correct mask for `padded` at this point."""
        if isinstance(mask, Ones) and mask.at_builder is not None and mask.built_in is not self.current_fn:
            # built in a function this one called: the fix is written there, with what is valid there
            return dataclasses.replace(mask.at_builder, sink=sink)
        if isinstance(mask, PadIdMask) and mask.at_builder is not None:
            # the fix replaces the comparison: what it reads must be valid there (a loop body's row)
            return dataclasses.replace(mask.at_builder, sink=sink)
        if code is None or not code.isidentifier():
            holders = [k for k in self.places_with(padded) if k.isidentifier()]
            code = holders[0] if holders else code
        if padded.from_tokenizer and not padded.encoding and not padded.lost_at:
            # Shaped by a tokenizer's max_length: the encoding holding the real mask.
            encodings = self.places_with(padded, encodings=True)
            if encodings:
                padded = padded.but(encoding=_key_code(encodings[0]))
        return OnesAtMask(
            mask,
            padded,
            sink,
            self.context(padded),
            code,
            lengths_ok=bool(padded.lengths) and self.still_valid(padded.lengths_names),
            gap_ok=bool(padded.gap) and self.still_valid(padded.names),
            pad_code=self.pad_code(padded),
            data_ok=bool(padded.data) and self.still_valid(padded.data_names),
        )

    def pad_code(self, padded: Padded) -> str | None:
        """The pad value spelled with names that mean the same here as where it was read."""
        for expr, names in padded.pad_spellings:
            if self.still_valid(names):
                return self.code(expr)
        return None

    def places_with(self, padded: Padded, encodings: bool = False) -> list[str]:
        found = []
        kind = Encoding if encodings else Padded
        env: Env | None = self.env
        while env is not None:
            for key, value in env.vars.items():
                # the same padding held as another type (the list rows of `torch.tensor(rows)`) is no
                # name for it: a fix would call tensor methods on a list
                if any(isinstance(t, kind) and t.node is padded.node and _same_kind(t, padded) for t in value):
                    found.append(key)
            env = env.parent
        return found

    def label_sink(
        self, value: Value, value_node: cst.CSTNode, sink: cst.CSTNode, kind: str, held_in: str | None = None
    ) -> None:
        if kind in ("dict", "store"):
            self.labels_built_here(value)
        if kind != "loss":  # (a loss noted them where it graded them)
            model = kind == "keyword"  # a model given `labels=` computes its own loss; other places hand them on
            self.note_labels_reaching(value, self.labels_ignored_by(sink) if model else None, graded_there=model)
        if pad_masking(value) or self.row_labels_at(sink, value):
            return
        self.label_pads_reaching(value, sink)
        self.note_tokenizer_label_padding(value | frozenset(c.padded for c in tags_of(value, Copy) if c.padded))
        # In reading order of their padding steps: the events, and so the findings, come out the same on every run.
        # Copies of one padding step (two paths to the same ids, their masks spelled apart) in reading order
        # of the copies, then by the mask they name: never the order a set hands them out in.
        copies = sorted(
            (c for c in tags_of(value, Copy) if c.padded is not None),
            key=lambda c: (self.facts.order(c.padded.node), self.facts.order(c.node), c.mask_code or "", c.source_code),
        )
        paddings = sorted(tags_of(value, Padded), key=lambda p: self.facts.order(p.node))
        # Padded on other paths with another value (`pad_sequence(xs)` when the tokenizer has no pad,
        # `padding_value=tok.pad_token_id` when it has): no one pad value masks the labels on every path.
        one_pad = len({self.pad_code(p) for p in [*paddings, *(c.padded for c in copies if c.padded)]}) == 1
        if copies:
            for copy in copies:
                self.record_labels(
                    copy.node, copy.padded, copy, sink, kind, copy.source_code, copy.mask_code, one_pad=one_pad
                )
            return
        for padded in paddings:
            self.record_labels(
                value_node,
                padded,
                None,
                sink,
                kind,
                self.code(value_node),
                self.current_mask_code(padded),
                held_in,
                one_pad=one_pad,
            )
            return

    def record_labels(
        self, node, padded: Padded, copy, sink, kind, source_code, mask_code, held_in=None, one_pad: bool = True
    ) -> None:
        if padded.target_ids and isinstance(padded.node, cst.Call) and self.graded_as_padded(padded, sink, kind):
            # Targets padded with the pad id, used as labels as they are.
            target = P.keyword(padded.node, "text_target")
            found = LabelsPaddedWithToken(
                target if target is not None else padded.node,
                "text_target",
                padded=padded,
                labels_at=node,
                labels_code=source_code,
                sink_kind=kind,
            )
            self.facts.record(self.facts.labels_padded_with_token, found)
        if padded.target_ids or padded.of_labels:
            return
        leaf = source_code.rsplit(".", 1)[-1].rsplit("[", 1)[-1]
        if P.LABEL_NAME.search(leaf) and not padded.from_tokenizer:
            return  # labels padded on their own (with the pad id: a fact of its own)
        reached = None
        if not self.facts.is_local(node) and self.home_call is not None and self.facts.is_local(padded.node):
            # Padded here, graded in another module of the project (a wrapper's forward hands them to a
            # model as `labels=`): nobody there sees the padding, so the call that hands them over is
            # where the harm leaves this module.
            reached, node, sink, kind = source_code, self.home_call, self.home_call, "call"
            source_code = self.code(self.home_call)
        self.facts.labels_at_sink.append(
            LabelsAtSink(
                node,
                padded,
                copy,
                sink,
                kind,
                self.context(padded),
                source_code,
                lengths_ok=bool(padded.lengths) and self.still_valid(padded.lengths_names),
                gap_ok=bool(padded.gap) and self.still_valid(padded.names),
                mask_code=mask_code,
                pad_code=self.pad_code(padded) if one_pad else None,
                in_test_code=self.in_test_code(),
                pads_differ=not one_pad,
                held_in=held_in,
                reached_in_other_module=reached,
            )
        )

    def graded_as_padded(self, padded: Padded, sink: cst.CSTNode, kind: str) -> bool:
        """Are target ids padded with the pad id graded as they are where they reach labels here? Label
        rows padded by `tokenizer.pad` are a processor's padding API: its caller masks them by the
        encoding's mask. They are graded as they are where a loss or a model takes them, or where the
        function makes the training batches (a collator's `__call__`, a collate or map function)."""
        call = padded.node
        if not (isinstance(call, cst.Call) and P.last_name(call.func) == "pad"):
            return True
        return kind in ("loss", "call") or self.makes_training_rows(sink)

    def ids_sink(
        self, value: Value, sink: cst.CSTNode, carries_mask: bool, ids_expr: cst.BaseExpression | None = None
    ) -> None:
        """Token ids reach a model input (dict key, keyword, positional model argument: `ids_expr`)."""
        accepted = self.accepts_mask(sink) if isinstance(sink, cst.Call) else None
        if accepted is False and not self.consumer_attends(sink):
            # Project code in view whose signature takes no mask and in which nothing attends (a CNN over
            # embeddings, a wrapper of a pretrained model): no mask can go here, and its walk with the ids
            # judges them where a model inside receives them. One that attends (hand-written
            # self-attention) reads the pads: reported, with no fix (its forward has no place for a mask).
            return
        for padded in tags_of(value, Padded):
            if not padded.from_tokenizer:
                if not carries_mask and isinstance(sink, cst.Call) and ids_expr is not None:
                    self.ids_without_any_mask(padded, sink, ids_expr, accepted)
                continue
            if (
                padded.target_ids
                or padded.of_labels
                or _prompt_encoder_input(padded.node, self.module_info)
                or self.right_pads_unread(padded.side, sink, padded.side_stated)
                or self.run_on_one_row(padded, sink)
            ):
                continue
            if padded.generated_at is not None:
                if not carries_mask:  # `generate`'s sequences: the prompt's mask no longer fits them
                    self.facts.mask_lost.append(
                        MaskLost(sink, "sink", padded=padded, sink=sink, mask_accepted=accepted)
                    )
                continue
            if padded.crossed_at is not None and padded.lost_at is None and not carries_mask:
                # Handed to a function of the project without their mask, and sent to a model there.
                self.facts.mask_lost.append(MaskLost(padded.crossed_at, "call", padded=padded, sink=sink))
                continue
            if padded.lost_at is not None:
                if carries_mask:
                    # The mask was made again (`ids.ne(pad_id)`, from lengths) and goes along with the
                    # ids: nothing is lost. An all-ones one reaches the mask place itself, and so does `ids != pad_id`.
                    continue
                how = (
                    "dropped"
                    if isinstance(padded.lost_at, cst.Arg)
                    else ("encode" if isinstance(padded.lost_at, cst.Call) else "subscript")
                )
                lost = MaskLost(
                    padded.lost_at,
                    how,
                    padded=padded,
                    sink=sink,
                    mask_accepted=accepted,
                    ids_grown=self.grown_in_loop(sink, ids_expr, padded.node),
                )
                self.facts.mask_lost.append(lost)
            elif padded.encoding and not carries_mask:
                mask = padded.encoding_mask() if self.bound_here(padded.encoding, padded) else None
                lost = MaskLost(
                    sink,
                    "sink",
                    padded=padded,
                    sink=sink,
                    mask_code=mask,
                    mask_accepted=accepted,
                    ids_grown=self.grown_in_loop(sink, ids_expr, padded.node),
                )
                self.facts.mask_lost.append(lost)

    def run_on_one_row(self, padded: Padded, sink: cst.CSTNode) -> bool:
        """Texts of unknown count padded to the longest, run through a model whose output the code reads
        at row 0 alone (`model(ids).logits[0, -1]`): the code runs a batch of one, where "longest" pads
        nothing. A list known to hold several texts is no batch of one (`rows`)."""
        if padded.rows is not None or not isinstance(padded.node, cst.Call) or not isinstance(sink, cst.Call):
            return False
        if P.padding_requested(padded.node, self.constants, self.class_attribute_value) != "longest":
            return False
        module = self.facts.module
        return module is not None and output_use.read_at_row_zero_only(module, self.current_fn or module, sink)

    def ids_without_any_mask(
        self, padded: Padded, call: cst.Call, ids_expr: cst.BaseExpression, accepted: bool | None
    ) -> None:
        """Ids the code padded itself (`pad_sequence`, `ids + [pad] * n`: no tokenizer made a mask for them)
        reach a model call that hands it no mask in any form, where the table says that model reads the
        pads (consumers.pads_read_unmasked). Code that passes anything more (another positional argument, a
        keyword naming a mask) may hand one the analysis cannot read: silent."""
        if padded.target_ids or padded.of_labels or padded.generated_at is not None:
            return
        if any(a.keyword is None for a in call.args[1:]) or any(
            a.keyword is not None and "mask" in a.keyword.value for a in call.args
        ):
            return
        reads = self.pads_read_unmasked(call, padded)
        if reads is None:
            return
        how, loaded = reads
        ids_code = self.code(ids_expr)
        found = UnmaskedIds(
            call,
            padded,
            how,
            loaded,
            self.context(padded),
            ids_code if is_place(ids_code) else None,
            lengths_ok=bool(padded.lengths) and self.still_valid(padded.lengths_names),
            gap_ok=bool(padded.gap) and self.still_valid(padded.names),
            pad_code=self.pad_code(padded),
            mask_accepted=accepted,
        )
        self.facts.record(self.facts.unmasked_ids, found)

    def returned(self, value: Value, node: cst.CSTNode) -> None:
        """A function or lambda hands back a padded encoding or ids whose mask was lost."""
        for enc in tags_of(value, Encoding):
            target = P.keyword(enc.node, "text_target")
            if enc.padded and target is not None and enc.target_ids is False and enc not in self.labels_replaced:
                # `labels` inside the encoding keep pad ids
                found = LabelsPaddedWithToken(target, "text_target", encoding=enc, sink_kind="return")
                self.facts.record(self.facts.labels_padded_with_token, found)
            if enc.padded and enc.lost_at is not None and not enc.target_ids:
                self.facts.mask_lost.append(MaskLost(enc.lost_at, "dropped", encoding=enc, sink=node))
        # Bare ids handed back (`return tok(texts, padding=True).input_ids`) go where the caller takes
        # them: decoded, scored, or to a model. A caller in view that hands them to a model is where the
        # mask is missed (the walk brings the ids back to it); elsewhere the consumer is not in view,
        # unless the function makes training rows or batches for the framework (a Dataset's items, a
        # map or collate function), whose consumer is the model being trained.
        if not self.makes_training_rows(node):
            return
        for padded in tags_of(value, Padded):
            if padded.from_tokenizer and padded.lost_at is not None and not padded.target_ids:
                if _context_width(padded.node, self.module_info) is not None:
                    continue  # a prompt encoder's fixed context (CLIP's 77 tokens): used without a mask
                self.note_batch_consumers(node)
                self.ids_sink(frozenset({padded}), node, self.mask_handed_beside(node))

    def mask_handed_beside(self, node: cst.CSTNode) -> bool:
        """Does the tuple handed back at `node` hold a mask beside the ids (`return ids, att_mask, label`
        with `att_mask` made again from the ids, `[int(t > 0) for t in ids]`)? A mask by what it holds or by
        its place's name: the ids leave with one, which the caller pairs with them."""
        expr = node.value if isinstance(node, cst.Return) else None
        if not isinstance(expr, cst.Tuple):
            return False
        return any(
            isinstance(element.value, cst.Name) and self.is_mask(element.value, self.evaluate(element.value))
            for element in expr.elements
        )

    def note_batch_consumers(self, node: cst.CSTNode) -> None:
        """The calls that receive the batches of the collate function returning at `node`, when all are
        in view (batch_uses.py): the rule judges the ids where they are consumed."""
        if node in self.facts.batch_consumers:
            return
        maker = node if isinstance(node, cst.Lambda) else self.current_fn
        found = None
        if maker is not None and self.facts.module is not None:
            found = batch_uses.batch_consumers(self.facts.module, maker, self.facts.imports)
        self.facts.batch_consumers[node] = found

    def makes_training_rows(self, node: cst.CSTNode) -> bool:
        """Is the function handing back `node`'s value a maker of rows or batches for the framework: a
        lambda (a map or collate function), a Dataset's `__getitem__` / `__iter__` / `__next__`, a
        collator's `__call__`, or a function the module hands to `.map(...)`, `collate_fn=` or
        `data_collator=`?"""
        if isinstance(node, cst.Lambda) or self.current_fn is None:
            return True
        name = self.current_fn.name.value
        info = self.module_info
        return name in DATA_PROTOCOL or name in info.map_batched or name in info.collate_functions

    def collated_labels_only_decoded(self, key: str) -> bool:
        """Is the function walked a collate function (or a Dataset's `__getitem__`) whose every batch this
        module reads, with the `key` item only decoded to text (library table: decodes rows), as an
        evaluation loop or a reward that scores decoded text does?"""
        fn = self.current_fn
        if fn is None or self.facts.module is None:
            return False
        readers = T.names("decodes", on="method")
        memo = self.facts.labels_decoded_memo  # asked at each store and return of the labels: read the module once
        if fn.name.value in self.module_info.collate_functions:
            if (fn, key) not in memo:
                memo[fn, key] = batch_uses.item_read_only_by(self.facts.module, fn, self.facts.imports, key, readers)
            return memo[fn, key]
        if fn.name.value == "__getitem__" and self.class_envs and self.walking_home():
            # a Dataset's items: its loaders' batches, followed the same way
            dataset = self.class_envs[-1][0]
            if (dataset, key) not in memo:
                memo[dataset, key] = batch_uses.dataset_item_read_only_by(
                    self.facts.module, dataset, self.facts.imports, key, readers
                )
            return memo[dataset, key]
        return False

    def check_feature_dict(self, node, entries: dict, splat: bool, kind: str) -> None:
        """A dict literal or `dict(...)` of features: the three keys that matter."""
        if (P.LOSS_MASK_KEYS | self.module_info.rebuilt_label_masks) & entries.keys():
            self.facts.loss_masked.add(node)  # the loss weighs the labels by a mask of its own
        labels_masked = any(pad_masking(value) for key, (value, _) in entries.items() if key in ("labels", "label_ids"))
        refused = self.masks_refused()
        for key, (value, value_node) in entries.items():
            if P.MASK_KEY.match(key) and not refused:
                self.mask_sink(value, value_node, labels_masked)
            elif key in ("labels", "label_ids"):
                if self.collated_labels_only_decoded(key):
                    self.facts.labels_unread.add(node)  # every batch's labels are decoded to text, never graded
                self.label_sink(value, value_node, node, kind)
        if "input_ids" in entries and not refused and not _reads_labels(entries["input_ids"][1]):
            # (`{"input_ids": f["labels"]}`: labels packed for `tokenizer.pad`, no model input)
            value, ids_node = entries["input_ids"]
            masked = splat or "attention_mask" in entries or self.mask_stored_later(node)
            if (
                not self.only_checkpoint_code()
            ):  # the checkpoint's own model: what it does without a mask is not in view
                self.ids_sink(value, node, masked)
            if not masked:
                for padded in tags_of(value, Padded):
                    if padded.kind == "list" and not padded.from_tokenizer:
                        found = UnmaskedListPadding(
                            node,
                            padded,
                            self.code(ids_node),
                            gap_ok=bool(padded.gap) and self.still_valid(padded.names),
                            data_ok=bool(padded.data) and self.still_valid(padded.data_names),
                        )
                        self.facts.record(self.facts.unmasked_list_padding, found)

    def mask_stored_later(self, literal: cst.CSTNode) -> bool:
        """Is the dict literal bound to a place that a later store gives a mask key (`batch =
        {"input_ids": ids}`, then `batch["attention_mask"] = (batch["input_ids"] != pad)`)? What the
        consumer receives is the dict after that store: the literal is not its final value (that
        mask is judged where it is stored)."""
        scope = self.current_fn or self.facts.module
        if scope is None:
            return False
        assigns = [node for node in P.walk(scope) if isinstance(node, cst.Assign)]
        made = next((a for a in assigns if a.value is literal and len(a.targets) == 1), None)
        holder = place_key(made.targets[0].target) if made is not None else None
        if made is None or holder is None:
            return False
        after = self.facts.order(made)
        for node in assigns:
            for target in node.targets:
                stored = target.target
                if (
                    isinstance(stored, cst.Subscript)
                    and place_key(stored.value) == holder
                    and P.MASK_KEY.match(key_of_subscript(stored) or "")
                    and self.facts.order(node) > after
                ):
                    return True
        return False

    def project_model_called(self, call: cst.Call) -> bool:
        """Is the callee an instance of a class of the project in view?"""
        found = self.callees.get(call)
        return found is not None and bool(tags_of(found[0], Instance))

    def outputs_hooked(self) -> bool:
        """Does the module register a forward hook (output_use.py)?"""
        if self.facts.outputs_hooked is None:  # once per module: rendering a module's code is costly
            text = self.facts.source_text
            if text is None:
                text = self.facts.module.code if self.facts.module is not None else ""
            self.facts.outputs_hooked = output_use.outputs_hooked(text)
        return self.facts.outputs_hooked

    def row_labels_at(self, sink: cst.CSTNode, labels: Value) -> bool:
        """Are `labels` handed to a model whose labels are one class per row (library table: row_labels)?
        Then they hold no positions, padded or not: the padding steps they came from are noted."""
        if not self.takes_row_labels(sink):
            return False
        for tag in labels:
            padded = tag.padded if isinstance(tag, Copy) else tag if isinstance(tag, Padded) else None
            if padded is not None:
                self.facts.row_label_paddings.add(padded.node)
        return True

    def check_call_keywords(self, call: cst.Call) -> None:
        keywords = {a.keyword.value: a for a in call.args if a.keyword is not None}
        spreads = [a for a in call.args if a.star == "**"]
        if spreads and self.takes_row_labels(call):
            # `model(**inputs)`: labels inside the dict reach the model too
            for spread in spreads:
                for held in tags_of(self.evaluate(spread.value), DictOf):
                    if "labels" in held.entries:
                        self.row_labels_at(call, held.entries["labels"])
        is_dict = isinstance(call.func, cst.Name) and call.func.value == "dict"
        if is_dict:
            entries = {k: (self.evaluate(a.value), a.value) for k, a in keywords.items()}
            self.check_feature_dict(call, entries, P.has_star_kwargs(call), "dict")
            return
        handed_ids = "input_ids" in keywords or bool(spreads)
        if (call in self.facts.dropped_results or handed_ids and self.only_sizes_read(call)) and not (
            self.project_model_called(call) or self.outputs_hooked()
        ):
            # `model(ids)` on its own (a warm-up, a timing loop), or read for sizes only: nothing reads what
            # the model makes of the batch, so neither its mask nor its labels harm anything. A model class of the project
            # may keep what it computes (on `self`, in a list): its output is more than its return.
            self.facts.mask_not_needed_at.add(call)
            return
        if self.rejects_mask(call):
            # The model refuses a mask with zeros (library table: rejects_mask): ids go without one, or
            # with all ones, on purpose. Only the labels are judged.
            self.facts.mask_not_needed_at.add(call)
            if "labels" in keywords and call not in self.unused_loss_calls and not self.loss_discarded(call):
                self.label_sink(self.evaluate(keywords["labels"].value), keywords["labels"].value, call, "keyword")
            return
        for name in ("attention_mask", "attn_mask"):
            if name in keywords:
                self.mask_sink(self.evaluate(keywords[name].value), keywords[name].value, handed=call)
        self.key_padding_masks(call, keywords)
        if "labels" in keywords and call not in self.unused_loss_calls and not self.loss_discarded(call):
            self.label_sink(self.evaluate(keywords["labels"].value), keywords["labels"].value, call, "keyword")
        ids = keywords.get("input_ids")
        model_like = ids is None and (
            P.model_callee(P.last_name(call.func)) or self.model_by_provenance(call) or self.loaded_model_called(call)
        )
        if ids is None and not model_like or P.FROZEN_ENCODER.search(self.code(call.func)):
            return
        if self.made_by_factory(call) or self.runs_checkpoint_code(call):
            # A model of a library the table does not know, or the checkpoint's own code: what it does
            # without a mask (build one from the pad id, replace it) is not in view.
            return
        if ids is not None and self.known_not_a_model(call):
            return  # `input_ids=` names a parameter, not a model: what the callee does with them decides
        self.decoder_inputs(call, keywords)
        if P.last_name(call.func) != "generate":
            self.note_forward_ids(call, keywords, spreads, model_like)
        mask = keywords.get("attention_mask")
        builds_mask = self.consumer_builds_mask(call, keywords)
        if builds_mask:
            self.facts.mask_not_needed_at.add(call)  # where a collate function's bare ids may be judged
        carries = (
            mask is not None
            and not _none_only(self.evaluate(mask.value))
            or P.has_star_kwargs(call)
            or any(self.hands_a_mask(a.value) for a in call.args[1:] if a.keyword is None)
            or builds_mask
        )
        if "input_ids" in keywords:
            self.ids_sink(self.evaluate(keywords["input_ids"].value), call, carries, keywords["input_ids"].value)
        elif model_like:
            first_arg = P.positional(call, 0)
            if first_arg is not None:
                self.ids_sink(self.evaluate(first_arg.value), call, carries, first_arg.value)
            elif mask is None and not builds_mask:
                self.spread_without_mask(call, spreads)

    def only_sizes_read(self, call: cst.Call) -> bool:
        """`out = model(...)` read only for sizes (`out.text_embeds.shape[1]`): no value of it is used."""
        module = self.facts.module
        if module is None or not self.facts.is_local(call):
            return False
        return output_use.sizes_read_only(module, self.current_fn or module, call)

    def note_forward_ids(self, call: cst.Call, keywords: dict, spreads: list[cst.Arg], model_like: bool) -> None:
        """The padding steps of the ids a model's forward pass reads (`input_ids=`, the first argument, a
        `**enc` spread): a fix that moves their pads (to the left) changes what it reads too."""
        first = P.positional(call, 0)
        if "input_ids" in keywords:
            ids = self.evaluate(keywords["input_ids"].value)
        elif model_like and first is not None:
            ids = self.evaluate(first.value)
        elif model_like and len(spreads) == 1:
            ids = self.encoding_field(self.evaluate(spreads[0].value), "input_ids", spreads[0].value, whole=True)
        else:
            return
        for padded in tags_of(ids or EMPTY, Padded):
            self.facts.ids_at_forward.setdefault(id(padded.node), call)

    def spread_without_mask(self, call: cst.Call, spreads: list[cst.Arg]) -> None:
        """`model(**enc)`, the one spread of the call (`spreads`), of an encoding made with
        `return_attention_mask=False`: the ids go in and no mask does (a spread is otherwise taken to carry
        its mask)."""
        if len(spreads) != 1 or any(a.keyword is None and not a.star for a in call.args):
            return
        held = self.evaluate(spreads[0].value)
        if not any(e.padded and e.lost_at is not None for e in tags_of(held, Encoding)):
            return
        self.ids_sink(self.encoding_field(held, "input_ids", spreads[0].value, whole=True), call, False)

    def hands_a_mask(self, expr: cst.BaseExpression) -> bool:
        """A positional argument that is a padding mask of either polarity: one of the real tokens (the
        tokenizer's, from lengths, `ids != pad_id`) or of the pads (`ids == pad_id`, for a layer that
        ignores what is True). The ids go in with their mask."""
        if tags_of(self.evaluate(expr), (GoodMask, PadIdMask)):
            return True
        pair = P.comparison_operand(expr, (cst.Equal,))
        return pair is not None and any(self.is_pad_id(side) for side in pair)

    def decoder_inputs(self, call: cst.Call, keywords: dict) -> None:
        """Left-padded `decoder_input_ids` reach an encoder-decoder without `decoder_attention_mask`:
        the decoder's real tokens attend to the pads before them (right pads come after them, which a
        causal decoder never reads). Silent where the model masks its pad id itself (a consumer row
        with `decoder_mask_from_pad`)."""
        given = keywords.get("decoder_input_ids")
        if given is None or "decoder_attention_mask" in keywords or P.has_star_kwargs(call):
            return
        if isinstance(call.func, cst.Attribute) and call.func.attr.value != "forward":
            model = self.model_class(call.func.value) if call.func.attr.value != "generate" else None
        else:
            model = self.model_class(call.func)
        row = T.class_row(model) if model else None
        if row is not None and "decoder_mask_from_pad" in row.roles and P.last_name(call.func) != "generate":
            return
        for padded in tags_of(self.evaluate(given.value), Padded):
            if padded.side == "left" and padded.from_tokenizer and not padded.of_labels:
                self.facts.mask_lost.append(MaskLost(given.value, "decoder", padded=padded, sink=call))


def _reads_labels(expr: cst.CSTNode) -> bool:
    """Is `expr` a read of token labels by name (`f["labels"]`, `label_ids`, `example.labels`)?"""
    if isinstance(expr, cst.Subscript):
        key = key_of_subscript(expr)
        return key is not None and bool(P.TOKEN_LABELS.match(key))
    if isinstance(expr, cst.Name):
        return bool(P.TOKEN_LABELS.match(expr.value))
    if isinstance(expr, cst.Attribute):
        return bool(P.TOKEN_LABELS.match(expr.attr.value))
    return False


def _none_only(value: Value) -> bool:
    """`None` handed down from a caller or a default (`attention_mask=None` not passed on)."""
    return bool(value) and all(isinstance(t, NoneValue) for t in value)


def _prompt_encoder_input(node: cst.CSTNode, info) -> bool:
    """Captions or prompts padded to the text encoder's full context: diffusion training feeds
    these to a frozen CLIP/T5 encoder without a mask, on purpose (evidence.md §1.2, x-flux#161).
    In a module that imports diffusers every padded text is such a prompt (textual inversion's
    templates, a collator's `tokenizer.pad(..., padding=True)`: CLIP's causal attention keeps
    trailing pads out of the real tokens anyway); so is any text padded to CLIP's 77 tokens
    (open_clip's tokenizer wrapper: its text tower makes the mask from the pad id)."""
    if info.diffusion:
        return True
    width = _context_width(node, info)
    if width is None:
        return False
    if width == "clip":
        return True
    if not isinstance(node, cst.Call):
        return False
    text = P.positional(node, 0) or P.keyword(node, "text")
    return text is not None and bool(re.search(r"caption|prompt", code_of(text.value), re.I))


def _context_width(node: cst.CSTNode, info) -> str | None:
    """ "model" for `tokenizer(..., max_length=tokenizer.model_max_length)` (the diffusion idiom, also
    through a name the module binds to it), "clip" for 77 tokens (a literal or a parameter
    defaulting to it), None for any other padding width."""
    if not isinstance(node, cst.Call):
        return None
    width = P.keyword(node, "max_length")
    if width is None:
        return None
    value = width.value
    if P.int_value(value) == P.CLIP_CONTEXT or (isinstance(value, cst.Name) and value.value in info.clip_context_names):
        return "clip"
    if isinstance(value, cst.Name) and value.value in info.model_context_names:
        return "model"
    if isinstance(value, cst.Attribute) and value.attr.value == "model_max_length":
        return "model"
    return None


def _as_kind(code: str, kinds: set, wanted: str, torch: str | None, numpy: str | None) -> str | None:
    """A mask place of one kind, used next to ids of another: convert lists, refuse the rest."""
    if kinds == {wanted} or wanted == "?" and len(kinds) == 1:
        return code
    if kinds == {"list"} and wanted == "pt" and torch:
        return f"{torch}.tensor({code})"
    if kinds == {"list"} and wanted == "np" and numpy:
        return f"{numpy}.array({code})"
    return None


def _key_code(key: str) -> str:
    # Keys are stored as "batch['attention_mask']"; emit the double-quoted form.
    return key.replace("['", '["').replace("']", '"]')


def _bound_to_int(fn: cst.CSTNode | None, key: str) -> bool:
    """Does the function (or module) assign an int literal to `key` anywhere (`pad_id = 0`)?"""
    stack = [fn] if fn is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Assign) and P.int_value(node.value) is not None:
            if any(place_key(t.target) == key for t in node.targets):
                return True
        stack.extend(P.child_nodes(node))
    return False


def _same_ids(ones: Ones, mask: GoodMask | PadIdMask) -> bool:
    """Is the right mask `mask` (GoodMask, PadIdMask) made for the ids the ones were shaped like?"""
    if mask.padded is None or mask.padded is ones.over:
        return True
    return isinstance(mask, PadIdMask) and mask.ids_code is not None and mask.ids_code == ones.over_code


def code_of(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def _same_kind(held, padded: Padded) -> bool:
    return not isinstance(held, Padded) or held.kind == padded.kind or "?" in (held.kind, padded.kind)
