"""Method calls, tokenizer calls and the sinks where masks, labels and ids start to matter."""

from __future__ import annotations

import dataclasses
import re

import libcst as cst

from padlint.analysis import dataset_uses, one_row, output_use, script_names, shape_ops
from padlint.analysis import patterns as P
from padlint.analysis.env import EMPTY, Env, key_of_subscript, place_key
from padlint.analysis.facts import (
    LabelsAtSink,
    LabelsPaddedWithToken,
    MaskLost,
    MaskPaddedAsIds,
    OnesAtMask,
    PadIdMaskAtSink,
    UnmaskedListPadding,
)
from padlint.analysis.objects import MODEL_SELF_METHODS
from padlint.analysis.values import (
    Const,
    Context,
    Copy,
    DatasetOf,
    Encoding,
    Fill,
    GoodMask,
    Instance,
    MappedDataset,
    Masked,
    Model,
    NoneValue,
    Ones,
    OneText,
    Padded,
    PadId,
    PadIdMask,
    RealCount,
    ShapeOf,
    TokenIds,
    Tokenizer,
    Value,
    first,
    tags_of,
)
from padlint.analysis.walker_state import WalkerState
from padlint.semantics import table as T

TOKENIZER_METHODS = T.names("tokenizer", on="method")
FORMAT_METHODS = {"set_format", "with_format"}
STRING_METHODS = {"format", "strip", "lstrip", "rstrip", "lower", "upper", "replace"}


class CallEvaluator(WalkerState):
    """Mixed into the scope walker next to ExpressionEvaluator."""

    def method_call(
        self, call: cst.Call, method: str, receiver: cst.BaseExpression, recv: Value | None = None
    ) -> Value:
        recv = self.evaluate(receiver) if recv is None else recv
        if method in MODEL_SELF_METHODS and any(isinstance(t, (Model, Instance)) for t in recv):
            self.evaluate_args(call)
            return frozenset(t for t in recv if isinstance(t, (Model, Instance)))
        if method in TOKENIZER_METHODS and (tags_of(recv, Tokenizer) or P.is_tokenizer_expression(receiver)):
            return self.tokenizer_call(call, method)
        args = self.evaluate_args(call)
        if method in P.COPY_METHODS:
            return recv | {self.make_copy(call, recv, self.code(receiver))}
        if method in shape_ops.METHODS:
            return self.keep_padding(call, recv, shape_ops.METHODS[method], self.axes_of(call))
        if method in P.SAME_VALUE_METHODS and (cast := self.cast_buffer(method, call, recv)) is not None:
            return cast
        if method in P.SAME_VALUE_METHODS:
            if not any(isinstance(t, (Padded, GoodMask)) for t in recv):
                return recv
            suffix = self.code(call)[len(self.code(receiver)) :]
            kind = {"numpy": "np", "tolist": "list"}.get(method)
            return frozenset(
                t.derived("", suffix, kind) if isinstance(t, Padded) else (_mask_as(t, kind) if kind else t)
                for t in recv
            )
        if method in P.SHAPE_METHODS:
            return frozenset(ShapeOf(p, self.code(receiver)) for p in tags_of(recv, Padded))
        if method == "new_zeros":
            return self.zero_buffer(call, "pt", [a.value for a in call.args if a.keyword is None and not a.star])
        if method in ("new_ones", "new_full"):
            if method == "new_full":
                fill = P.positional(call, 1) or P.keyword(call, "fill_value")
                if fill is None or P.int_value(fill.value) != 1:
                    return EMPTY
            shape = P.positional(call, 0) or P.keyword(call, "size")
            over, code = self.shape_source(shape.value) if shape else (None, None)
            return frozenset({self.ones(call, over, code)})
        if method in ("masked_fill", "masked_fill_"):
            return self.masked_fill(call, method, receiver, recv)
        if method in ("ne", "eq") and call.args and self.graded_labels(call, receiver, call.args[0].value):
            return EMPTY
        if method in ("logical_not", "bitwise_not") and not call.args:
            negated = self.negated_pad_equality(call, receiver)  # `ids.eq(pad_id).logical_not()`
            if negated is not None:
                return negated
        if method == "ne" and call.args:
            return self.pad_comparison(call, receiver, call.args[0].value)
        if method == "mean":
            return self.masked_mean(call, receiver, dims=bool(call.args))
        if method == "sum" and not call.args and self.is_mask(receiver, recv):
            return frozenset({RealCount(call)})
        if method in ("backward", "manual_backward"):
            # `loss.backward()`, `accelerator.backward(loss)`, `self.manual_backward(loss)`
            self.is_loss(recv | frozenset().union(*args), by_name=False)
            return EMPTY
        if method in ("append", "extend"):
            self.grow(call, method, receiver, args)
            return EMPTY
        if method == "map":
            return self.dataset_map(call, recv)
        if method in FORMAT_METHODS or method == "remove_columns":
            self.check_columns(call, method, recv)
            return recv if method != "set_format" else EMPTY
        if (
            method in STRING_METHODS
            and tags_of(recv, OneText)
            or method == "join"
            and isinstance(receiver, cst.SimpleString)
        ):
            return frozenset({OneText(call)})
        tokenize = P.keyword(call, "tokenize") if method == "apply_chat_template" else None
        if tokenize is not None and P.int_value(tokenize.value) == 0:
            return frozenset({OneText(call)})  # one conversation rendered to text (is_single_text's reading)
        if method in ("rename_column", "filter", "shuffle", "select", "with_transform"):
            return recv
        return EMPTY

    def is_mask(self, expr: cst.BaseExpression, value: Value) -> bool:
        """A mask by what it holds (a good mask, `ids != pad_id`) or by its place's name."""
        named = "mask" in (place_key(expr) or "").lower()
        return named or bool(tags_of(value, GoodMask)) or bool(tags_of(value, PadIdMask))

    def masked_fill(self, call: cst.Call, method: str, receiver, recv: Value) -> Value:
        fill = P.positional(call, 1) or P.keyword(call, "value")
        if fill is None:
            return EMPTY
        if self.is_ignore(fill.value):
            self.note_label_value(call, fill.value)
            condition = P.positional(call, 0) or P.keyword(call, "mask")
            if condition is not None:
                self.masking_by_pad_id(call, condition.value, recv, method)
            if method == "masked_fill_":
                self.facts.masked_copies.update(tags_of(recv, Copy))
                self.mark_place_masked(receiver)
                self.written_in_place(receiver, None)
            return frozenset({Masked(call)})
        if P.int_value(fill.value) == 0 and tags_of(recv, Ones):
            self.facts.corrected_ones.update(tags_of(recv, Ones))
            return frozenset({GoodMask(call, kind="pt")})
        return recv

    def grow(self, call: cst.Call, method: str, receiver, args: list[Value]) -> None:
        key = place_key(receiver)
        if key is None or not args:
            return
        added = args[0]
        fill = first(added, Fill)
        if method == "extend" and fill is not None:
            current = self.env.get(key) or EMPTY
            if fill.what == "pad":
                padded = self.list_padded(call, current, receiver, fill, "right")
                self.env.set(key, frozenset({padded}))
            elif fill.what == "ignore":
                self.env.set(key, frozenset({Masked(call)}))
            container = self.loop_aliases.get(key)
            if container is not None:  # `for r in rows: r.extend(...)` pads the rows of `rows`
                tag = padded.but(rows=True, gap=None) if fill.what == "pad" else Masked(call)
                self.env.update(container, frozenset({tag}))
            return
        if method == "append" and call.args:
            added = self.padded_into_labels(receiver, call.args[0].value, added)
        rows = frozenset(t.but(rows=True) if isinstance(t, Padded) and t.kind == "list" else t for t in added)
        self.env.update(key, frozenset(t for t in rows if not isinstance(t, Fill)))

    def padded_into_labels(self, receiver, row: cst.BaseExpression, added: Value) -> Value:
        """`labels.append(ids + [pad] * gap)`: a row padded right where it joins a list of token labels
        pads labels with that value, as `labels = pad_sequence(..., padding_value=pad)` does."""
        key = place_key(receiver)
        field_name = (
            key_of_subscript(receiver) if isinstance(receiver, cst.Subscript) else (key or "").rsplit(".", 1)[-1]
        )
        if not field_name or not P.TOKEN_LABELS.match(field_name):
            return added
        out = []
        for tag in added:
            if isinstance(tag, Padded) and tag.node is row and not tag.of_labels:
                self.label_padding(tag, tag.pad, "list")
                tag = tag.but(of_labels=True)
            out.append(tag)
        return frozenset(out)

    def mark_place_masked(self, receiver) -> None:
        key = place_key(receiver)
        if key is not None:
            self.env.update(key, frozenset({Masked(receiver)}))

    # ---- tokenizers --------------------------------------------------------------------------
    def tokenizer_call(self, call: cst.Call, method: str | None) -> Value:
        self.evaluate_args(call)
        tensors = P.keyword(call, "return_tensors")
        kind = {"pt": "pt", "np": "np", "tf": "tf"}.get(
            (P.string_value(tensors.value) if tensors else None) or "", "list"
        )
        if tensors is not None and kind == "list":
            kind = "?"
        mask_arg = P.keyword(call, "return_attention_mask")
        dropped = mask_arg is not None and P.int_value(mask_arg.value) == 0
        text = P.positional(call, 0) or P.keyword(call, "text")
        if method != "pad" and (text is not None or P.keyword(call, "text_target") is not None):
            self.facts.text_tokenized = True
        single = self.is_single_text(text.value) if text is not None else None
        rows = None if single is None else not single
        # Tokenizing or padding `labels` / `targets`: label ids by design (their padding value is a fact of its own).
        of_labels = text is not None and self.is_label_code(text.value)
        if method == "pad":
            self.facts.repadding_collator = True
            # `tokenizer.pad(labels)` pads label ids (a processor's API, masked by the caller): labels
            # by design, never recorded as labels padded with a token themselves.
            return frozenset(
                {
                    Encoding(
                        call,
                        True,
                        not dropped,
                        kind,
                        True,
                        lost_at=mask_arg if dropped else None,
                        side=self.padding_side(call),
                        of_labels=of_labels,
                    )
                }
            )
        padding = P.padding_requested(call, self.constants)
        # `[prompt] * n` (no second text): n copies of one text, all of one length: "longest" pads nothing.
        pair = P.positional(call, 1) or P.keyword(call, "text_pair")
        identical = text is not None and pair is None and _repeats_one_text(text.value)
        # `encode`, `encode_plus` encode one sequence (a list of strings is one pre-tokenized text in 4.x, a
        # batch only from 5.x): "longest" pads there only where the text is known to be a list of texts.
        one_sequence = single is True or (method in ("encode", "encode_plus") and single is None)
        padded = padding == "max_length" or (padding == "longest" and not one_sequence and not identical)
        if padded and padding == "longest" and text is not None and pair is None and self.one_row_text(text.value):
            padded = False  # at most one row: nothing to pad
        width = P.keyword(call, "max_length")
        if padding == "max_length" and width is not None:
            # `[1] * max_length` later is a mask over this padded batch.
            self.padded_targets.append(
                Padded(
                    call,
                    made_in=self.current_fn,
                    kind=kind,
                    from_tokenizer=True,
                    target=self.code(width.value),
                    rows=rows,
                    side=self.padding_side(call),
                )
            )
        target_ids = (
            (P.keyword(call, "text_target") is not None and text is None) or self.in_target_context or of_labels
        )
        if method == "encode":
            if not padded:
                return frozenset({TokenIds(call)})
            return frozenset(
                {
                    Padded(
                        call,
                        made_in=self.current_fn,
                        kind=kind if tensors else "list",
                        from_tokenizer=True,
                        lost_at=call,
                        rows=False,
                        target_ids=target_ids,
                        side=self.padding_side(call),
                    )
                }
            )
        return frozenset(
            {
                Encoding(
                    call,
                    padded,
                    not dropped,
                    kind,
                    rows,
                    target_ids=target_ids,
                    lost_at=mask_arg if dropped else None,
                    side=self.padding_side(call),
                )
            }
        )

    def padding_side(self, call: cst.Call) -> str:
        arg = P.keyword(call, "padding_side")
        if arg is not None:
            return "left" if P.string_value(arg.value) == "left" else "right"
        return self.module_info.padding_side

    def is_single_text(self, expr: cst.BaseExpression, value: Value | None = None) -> bool | None:
        """True for one string, False for a list of strings, None when unknown. `value`: what `expr`
        evaluates to, when the caller has it already."""
        if isinstance(expr, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
            return True
        if isinstance(expr, (cst.List, cst.ListComp, cst.Tuple)):
            return False
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
            left, right = self.is_single_text(expr.left), self.is_single_text(expr.right)
            if left is False or right is False:
                return False
            if left or right or _is_token_text(expr.left) or _is_token_text(expr.right):
                return True
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
            if expr.func.attr.value in ("format", "strip", "join", "lower", "replace"):
                return self.is_single_text(expr.func.value) if expr.func.attr.value != "join" else True
            if expr.func.attr.value == "apply_chat_template":
                return True
        if isinstance(expr, cst.Name):
            if expr.value in self.str_names:
                return True
            if expr.value in self.list_names:
                return False
        if isinstance(expr, cst.Subscript) and self.map_batched is not None:
            return not self.map_batched
        if isinstance(expr, (cst.Name, cst.Attribute, cst.Call)) and tags_of(
            self.evaluate(expr) if value is None else value, OneText
        ):
            return True  # a helper that returns one string (`prompt = render(conversation)`)
        return None

    def dataset_map(self, call: cst.Call, recv: Value) -> Value:
        fn = P.positional(call, 0) or P.keyword(call, "function")
        self.evaluate_args(call)
        if fn is None:
            return EMPTY
        returned = self.summary_of_callable(fn.value, call)
        self.note_rows_unconsumed(call, fn.value)
        encodings = [e for e in tags_of(returned, Encoding) if e.padded and e.mask_kept]
        # The rows a collate function or a loop reads from the mapped dataset (wiring.py).
        rows = frozenset({DatasetOf(returned)}) if returned else EMPTY
        return frozenset(MappedDataset(e) for e in encodings) | rows

    def note_rows_unconsumed(self, call: cst.Call, fn: cst.BaseExpression) -> None:
        """A script's `ds = ds.map(f)` whose rows no model ever reads: the feature dicts `f` returns
        reach no consumer (dataset_uses.py)."""
        if self.current_fn is not None or self.facts.module is None:
            return
        if isinstance(fn, cst.Lambda):
            body: cst.CSTNode = fn.body
        elif isinstance(fn, cst.Name) and fn.value in self.module_info.functions:
            body = self.module_info.functions[fn.value]
        else:
            return
        models = set(self.module_info.loaded_models())
        if dataset_uses.rows_reach_no_model(self.facts.module, call, self.facts.imports, models):
            self.facts.rows_unconsumed.update(script_names.feature_dicts(body))
        elif dataset_uses.rows_reach_no_model(self.facts.module, call, self.facts.imports, models, "labels"):
            self.facts.labels_unread.update(script_names.feature_dicts(body))

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
                    if "mask" in key.lower() or mask.padded is padded and padded is not None:
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

    def bound_here(self, code: str | None, padded: Padded) -> bool:
        """Is the encoding `code` names readable here: padded in this function (not in a caller or a
        callee walked from here) and its name still bound (not a comprehension's variable, gone after it)?"""
        root = re.match(r"[A-Za-z_]\w*", code or "")
        return padded.made_in is self.current_fn and root is not None and self.env.get(root.group()) is not None

    def mask_sink(self, value: Value, sink: cst.CSTNode, labels_masked: bool = False, handed: bool = False) -> None:
        """A mask reaches its place. `labels_masked`: the labels beside it hold -100 at the pads.
        `handed`: passed as a call's `attention_mask=`. A mask test code puts in a dict, a store or a
        return is the test's input for its checks, not what a model is run on (docs/usage.md)."""
        if not handed and self.in_test_code():
            return
        for ones in tags_of(value, Ones):
            if ones.over is not None and labels_masked and ones.over.side == "right" and self.causal_consumer():
                continue  # right pads, ignored labels, a causal decoder: the ones change nothing it reads
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
                if any(isinstance(t, kind) and t.node is padded.node for t in value):
                    found.append(key)
            env = env.parent
        return found

    def label_sink(
        self, value: Value, value_node: cst.CSTNode, sink: cst.CSTNode, kind: str, held_in: str | None = None
    ) -> None:
        if kind in ("dict", "store"):
            self.labels_built_here(value)
        if not tags_of(value, Masked):
            self.label_pads_reaching(value)
        if tags_of(value, Masked):
            return
        copies = [c for c in tags_of(value, Copy) if c.padded is not None]
        if copies:
            for copy in copies:
                self.record_labels(copy.node, copy.padded, copy, sink, kind, copy.source_code, copy.mask_code)
            return
        for padded in tags_of(value, Padded):
            self.record_labels(
                value_node, padded, None, sink, kind, self.code(value_node), self.current_mask_code(padded), held_in
            )
            return

    def record_labels(self, node, padded: Padded, copy, sink, kind, source_code, mask_code, held_in=None) -> None:
        if padded.target_ids and isinstance(padded.node, cst.Call):
            # Targets padded with the pad id, used as labels as they are.
            target = P.keyword(padded.node, "text_target")
            found = LabelsPaddedWithToken(
                target if target is not None else padded.node,
                "text_target",
                padded=padded,
                labels_at=node,
                labels_code=source_code,
            )
            self.facts.record(self.facts.labels_padded_with_token, found)
        if padded.target_ids or padded.of_labels:
            return
        leaf = source_code.rsplit(".", 1)[-1].rsplit("[", 1)[-1]
        if P.LABEL_NAME.search(leaf) and not padded.from_tokenizer:
            return  # labels padded on their own (with the pad id: a fact of its own)
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
                pad_code=self.pad_code(padded),
                in_test_code=self.in_test_code(),
                held_in=held_in,
            )
        )

    def ids_sink(self, value: Value, sink: cst.CSTNode, carries_mask: bool) -> None:
        """Token ids reach a model input (dict key, keyword, positional model argument)."""
        accepted = self.accepts_mask(sink) if isinstance(sink, cst.Call) else None
        for padded in tags_of(value, Padded):
            if (
                not padded.from_tokenizer
                or padded.target_ids
                or padded.of_labels
                or _prompt_encoder_input(padded.node, self.module_info)
                or self.right_pads_unread(padded, sink)
            ):
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
                lost = MaskLost(padded.lost_at, how, padded=padded, sink=sink, mask_accepted=accepted)
                self.facts.mask_lost.append(lost)
            elif padded.encoding and not carries_mask:
                mask = padded.encoding_mask()
                lost = MaskLost(sink, "sink", padded=padded, sink=sink, mask_code=mask, mask_accepted=accepted)
                self.facts.mask_lost.append(lost)

    def returned(self, value: Value, node: cst.CSTNode) -> None:
        """A function or lambda hands back a padded encoding or ids whose mask was lost."""
        for enc in tags_of(value, Encoding):
            target = P.keyword(enc.node, "text_target")
            if enc.padded and target is not None and enc.target_ids is False and enc not in self.labels_replaced:
                # `labels` inside the encoding keep pad ids
                found = LabelsPaddedWithToken(target, "text_target", encoding=enc)
                self.facts.record(self.facts.labels_padded_with_token, found)
            if enc.padded and enc.lost_at is not None and not enc.target_ids:
                self.facts.mask_lost.append(MaskLost(enc.lost_at, "dropped", encoding=enc, sink=node))
        for padded in tags_of(value, Padded):
            if padded.from_tokenizer and padded.lost_at is not None and not padded.target_ids:
                if _context_width(padded.node, self.module_info) is not None:
                    continue  # a prompt encoder's fixed context (CLIP's 77 tokens): used without a mask
                self.ids_sink(frozenset({padded}), node, False)

    def check_feature_dict(self, node, entries: dict, splat: bool, kind: str) -> None:
        """A dict literal or `dict(...)` of features: the three keys that matter."""
        if (P.LOSS_MASK_KEYS | self.module_info.rebuilt_label_masks) & entries.keys():
            self.facts.loss_masked.add(node)  # the loss weighs the labels by a mask of its own
        labels_masked = any(
            tags_of(value, Masked) for key, (value, _) in entries.items() if key in ("labels", "label_ids")
        )
        refused = self.masks_refused()
        for key, (value, value_node) in entries.items():
            if P.MASK_KEY.match(key) and not refused:
                self.mask_sink(value, value_node, labels_masked)
            elif key in ("labels", "label_ids"):
                self.label_sink(value, value_node, node, kind)
        if "input_ids" in entries and not refused:
            value, ids_node = entries["input_ids"]
            self.ids_sink(value, node, splat or "attention_mask" in entries)
            if not splat and "attention_mask" not in entries:
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

    def check_call_keywords(self, call: cst.Call) -> None:
        keywords = {a.keyword.value: a for a in call.args if a.keyword is not None}
        is_dict = isinstance(call.func, cst.Name) and call.func.value == "dict"
        if is_dict:
            entries = {k: (self.evaluate(a.value), a.value) for k, a in keywords.items()}
            self.check_feature_dict(call, entries, P.has_star_kwargs(call), "dict")
            return
        if self.rejects_mask(call):
            # The model refuses a mask with zeros (library table: rejects_mask): ids go without one, or
            # with all ones, on purpose. Only the labels are judged.
            if "labels" in keywords and call not in self.unused_loss_calls and not self.loss_discarded(call):
                self.label_sink(self.evaluate(keywords["labels"].value), keywords["labels"].value, call, "keyword")
            return
        for name in ("attention_mask", "attn_mask"):
            if name in keywords:
                self.mask_sink(self.evaluate(keywords[name].value), keywords[name].value, handed=True)
        if "labels" in keywords and call not in self.unused_loss_calls and not self.loss_discarded(call):
            self.label_sink(self.evaluate(keywords["labels"].value), keywords["labels"].value, call, "keyword")
        ids = keywords.get("input_ids")
        model_like = ids is None and (P.model_callee(P.last_name(call.func)) or self.model_by_provenance(call))
        if ids is None and not model_like or P.FROZEN_ENCODER.search(self.code(call.func)):
            return
        if self.made_by_factory(call):
            return  # a model of a library the table does not know: whether it needs a mask is not in view
        self.decoder_inputs(call, keywords)
        mask = keywords.get("attention_mask")
        carries = (
            mask is not None
            and not _none_only(self.evaluate(mask.value))
            or P.has_star_kwargs(call)
            or any(tags_of(self.evaluate(a.value), GoodMask) for a in call.args[1:] if a.keyword is None)
            or self.consumer_builds_mask(call, keywords)
        )
        if "input_ids" in keywords:
            self.ids_sink(self.evaluate(keywords["input_ids"].value), call, carries)
        elif model_like:
            first_arg = P.positional(call, 0)
            if first_arg is not None:
                self.ids_sink(self.evaluate(first_arg.value), call, carries)

    def decoder_inputs(self, call: cst.Call, keywords: dict) -> None:
        """Left-padded `decoder_input_ids` reach an encoder-decoder without `decoder_attention_mask`:
        the decoder's real tokens attend to the pads before them (right pads come after them, which a
        causal decoder never reads). Silent where the model masks its pad id itself (a consumer row
        with `decoder_mask_from_pad`)."""
        given = keywords.get("decoder_input_ids")
        if given is None or "decoder_attention_mask" in keywords or P.has_star_kwargs(call):
            return
        if isinstance(call.func, cst.Attribute) and call.func.attr.value != "forward":
            owner = P.dotted(call.func.value) if call.func.attr.value != "generate" else None
            model = self.module_info.model_classes.get(owner) if owner else None
        else:
            model = self.module_info.model_classes.get(P.dotted(call.func))
        row = T.class_row(model) if model else None
        if row is not None and "decoder_mask_from_pad" in row.roles and P.last_name(call.func) != "generate":
            return
        for padded in tags_of(self.evaluate(given.value), Padded):
            if padded.side == "left" and padded.from_tokenizer and not padded.of_labels:
                self.facts.mask_lost.append(MaskLost(given.value, "decoder", padded=padded, sink=call))

    def right_pads_unread(self, padded: Padded, sink: cst.CSTNode) -> bool:
        """Ids padded on the right (a side the module states) for causal decoders only, going anywhere but
        `generate`: no real token attends to a later position, so a missing mask changes nothing a real
        token reads (graded pads are the labels' business). `generate` appends after the pads: it needs it."""
        if padded.side != "right" or not self.module_info.right_side_stated() or not self.causal_consumer():
            return False
        return not (isinstance(sink, cst.Call) and P.last_name(sink.func) == "generate")

    def causal_consumer(self) -> bool:
        """Are the models this module loads all causal decoders (library table: consumer rows)?"""
        rows = [T.class_row(name) for name in self.module_info.model_classes.values()]
        consumers = [row for row in rows if row is not None and row.kind == "consumer"]
        return bool(consumers) and all(row.attends == "causal" for row in consumers)

    def consumer_builds_mask(self, call: cst.Call, keywords: dict) -> bool:
        """Does the callee make the mask itself from the pad id (library table: builds_mask)? `generate`
        does when it is told a pad id that is not the EOS (`pad_token_id=tok.pad_token_id`), or when the
        model's config carries a dedicated one (an encoder-decoder consumer row)."""
        row = T.row_for(call.func.attr.value, "method") if isinstance(call.func, cst.Attribute) else None
        if row is None or row.kind != "builds_mask" or not isinstance(call.func, cst.Attribute):
            return False
        if self.facts.pad_eos_reaches(self.facts.current_owner, call):
            return False  # pad = EOS: generate cannot tell pads from real EOS and builds all ones
        pad = keywords.get(row.roles["pad_id"][0])
        if pad is not None:
            origins = tags_of(self.evaluate(pad.value), PadId)
            told = bool(origins) or P.is_pad_id_expression(pad.value)
            return told and not P.mentions_eos(pad.value) and not any(p.eos_fallback for p in origins)
        model = self.module_info.model_classes.get(P.dotted(call.func.value))
        loaded = T.class_row(model) if model else None
        return loaded is not None and loaded.kind == "consumer" and loaded.attends == "encoder_decoder"

    def rejects_mask(self, call: cst.Call) -> bool:
        """Is the callee (`model(...)`, `model.generate(...)`, `model.forward(...)`) loaded as a class that
        refuses an attention mask holding zeros (library table: rejects_mask)?"""
        receiver = call.func.value if isinstance(call.func, cst.Attribute) else call.func
        classes = self.module_info.model_classes
        return any(T.rejects_mask(classes.get(place)) for place in {P.dotted(call.func), P.dotted(receiver)} if place)

    def masks_refused(self) -> bool:
        """Do all the models this module loads refuse an attention mask with zeros (rejects_mask rows)?
        Then its feature dicts go without a mask, or with all ones, on purpose."""
        loaded = self.module_info.loaded_models().values()
        return bool(loaded) and all(T.rejects_mask(name) for name in loaded)

    def made_by_factory(self, call: cst.Call) -> bool:
        """Is the callee (`model(...)`, `model.generate(...)`) made only by imported factory functions
        (`model = build_transformer_model(...)`), never loaded as a class the table knows?"""
        receiver = call.func.value if isinstance(call.func, cst.Attribute) else call.func
        for place in {P.dotted(call.func), P.dotted(receiver)}:
            if place and place in self.module_info.model_factories and place not in self.module_info.model_classes:
                return True
        return False

    def one_row_text(self, expr: cst.BaseExpression) -> bool:
        """A list of at most one text (`[prompt]`, or rows built from a parameter every caller hands
        one example): padded to its longest row it pads nothing."""
        fn = self.current_fn
        if fn is None:
            return one_row.is_one_element_list(expr)
        return one_row.at_most_one_row(fn, expr, self.module_info.one_row_parameters(self.facts.module, fn))

    def loss_discarded(self, call: cst.Call) -> bool:
        """`out = model(..., labels=y)` read only as `out.logits`: no loss grades the labels."""
        return output_use.loss_never_read(self.current_fn or self.facts.module, call)

    def model_by_provenance(self, call: cst.Call) -> bool:
        """A call of a model whatever its name: a pretrained model, or an instance of a project
        nn.Module (its forward, or the method called, takes a mask)."""
        found = self.callees.get(call)
        if found is None:
            return False
        value, method = found
        return self.model_receiver(value, method)

    def check_columns(self, call: cst.Call, method: str, recv: Value) -> None:
        mapped = tags_of(recv, MappedDataset)
        if not mapped:
            return
        arg = P.keyword(call, "columns") or (
            P.positional(call, 1) if method in FORMAT_METHODS else P.positional(call, 0)
        )
        if method == "remove_columns":
            arg = P.positional(call, 0) or P.keyword(call, "column_names")
        if arg is None or not isinstance(arg.value, (cst.List, cst.Tuple)):
            return
        names = {P.string_value(e.value) for e in arg.value.elements}
        if method == "remove_columns":
            lost = "attention_mask" in names
        else:
            lost = "input_ids" in names and "attention_mask" not in names
        if lost:
            self.facts.mask_lost.append(MaskLost(call, "columns", encoding=mapped[0].encoding, sink=call))


def _repeats_one_text(expr: cst.BaseExpression) -> bool:
    """`[prompt] * n` or `n * [prompt]`: a list of one element repeated."""
    if not (isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Multiply)):
        return False
    return any(isinstance(side, cst.List) and len(side.elements) == 1 for side in (expr.left, expr.right))


def _none_only(value: Value) -> bool:
    """`None` handed down from a caller or a default (`attention_mask=None` not passed on)."""
    return bool(value) and all(isinstance(t, NoneValue) for t in value)


def _is_token_text(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Attribute) and expr.attr.value in ("eos_token", "bos_token", "sep_token")


def code_of(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


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


def _mask_as(tag, kind: str):
    return GoodMask(tag.node, tag.padded, kind) if isinstance(tag, GoodMask) else tag


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
