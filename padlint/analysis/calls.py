"""Method calls and tokenizer calls: what a call makes of the values handed to it (sinks.py judges
where masks, labels and ids start to matter)."""

from __future__ import annotations

import dataclasses
import re

import libcst as cst

from padlint.analysis import dataset_uses, dead_code, docstring_types, map_chain, one_row, script_names, shape_ops
from padlint.analysis import patterns as P
from padlint.analysis.class_constants import class_constant
from padlint.analysis.env import EMPTY, field_place, key_of_subscript, place_key
from padlint.analysis.facts import RaisedByStore
from padlint.analysis.objects import MODEL_SELF_METHODS
from padlint.analysis.parameter_literals import init_parameter_stored_as
from padlint.analysis.values import (
    Copy,
    DatasetOf,
    DictOf,
    Encoding,
    Fill,
    FunctionRef,
    GoodMask,
    HiddenStates,
    Instance,
    MappedDataset,
    Masked,
    MeanValue,
    Model,
    Ones,
    OneText,
    Padded,
    PadIdMask,
    PerPositionLoss,
    RealCount,
    ShapeOf,
    TokenIds,
    Tokenizer,
    TupleOf,
    Value,
    first,
    tags_of,
)
from padlint.analysis.walker_state import WalkerState
from padlint.semantics import table as T

TOKENIZER_METHODS = T.names("tokenizer", on="method")
TEXT_MAKERS = frozenset({"re.sub", "str", "builtins.str"})  # calls of the standard library that return one str
FORMAT_METHODS = {"set_format", "with_format"}
STRING_METHODS = {"format", "strip", "lstrip", "rstrip", "lower", "upper", "replace"}


# `h.max(dim=1)`, `h.amax(1)`: the method forms of the library table's pooling reductions.
POOL_METHODS = frozenset(name.rsplit(".", 1)[-1] for name in T.names("pools", style="max"))
# A fill named as the labels' padding or ignore value (its value out of view): `label_pad_token_id`, `ignore_id`.
LABEL_FILL_NAME = re.compile(r"label|ignore", re.I)


class CallEvaluator(WalkerState):
    """Mixed into the scope walker next to ExpressionEvaluator."""

    def method_call(
        self, call: cst.Call, method: str, receiver: cst.BaseExpression, recv: Value | None = None
    ) -> Value:
        if method == "pop" and (field := P.popped_key(call)) is not None:
            return self.popped(call, receiver, field, recv)
        recv = self.evaluate(receiver) if recv is None else recv
        if method == "mean":
            self.mean_over_positions(call, receiver, recv, method=True)
        elif method in POOL_METHODS:
            self.mean_over_positions(call, receiver, recv, method=True, reduction="max")  # `h.max(dim=1)`
        kept = self.states_kept(method, recv)
        if kept is not None:
            self.evaluate_args(call)
            return kept  # `h.detach().cpu()`: the same hidden states
        if method in MODEL_SELF_METHODS and any(isinstance(t, (Model, Instance)) for t in recv):
            self.evaluate_args(call)
            return frozenset(t for t in recv if isinstance(t, (Model, Instance)))
        if method in TOKENIZER_METHODS and (tags_of(recv, Tokenizer) or P.is_tokenizer_expression(receiver)):
            return self.tokenizer_call(call, method)
        args = self.evaluate_args(call)
        if method == "generate":
            return self.continued_ids(call, receiver)
        if method in P.COPY_METHODS:
            return recv | self.make_copies(call, recv, self.code(receiver))
        if method in shape_ops.METHODS:
            return self.keep_padding(call, recv, shape_ops.METHODS[method], self.axes_of(call))
        if method in ("view", "reshape") and self.one_value_per_row(call):
            # `labels.view(batch_size)`: one value per row, no sequence axis left: nothing in it is a pad
            return frozenset(t for t in recv if not isinstance(t, (Padded, GoodMask)))
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
        if method == "new_full":
            fill = P.positional(call, 1) or P.keyword(call, "fill_value")
            if fill is None or P.int_value(fill.value) != 1:
                return self.ones_or_full(call, True, "pt")  # `ids.new_full(size, pad_id)`: as `torch.full`
        if method == "fill_" and call.args and self.fresh_buffer(receiver, recv):
            return self.filled_buffer(call, receiver, call.args[0].value)
        if method in ("new_ones", "new_full"):
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
        if method.endswith("_") and tags_of(recv, PerPositionLoss):
            self.written_into_loss(receiver)
        if method in ("mean", "sum", "nanmean", "nansum"):
            self.reduced_whole(recv, averaged=method in ("mean", "nanmean"))
        if method == "mean":
            if not call.args:
                averaged = self.mean_over_ignored(call, receiver, recv)
                if averaged:
                    return averaged
            return self.masked_mean(call, receiver, dims=bool(call.args)) or _means_in(recv)
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
        reformats = T.reformats_rows(method) if tags_of(recv, DatasetOf) else ""
        if reformats == "in place" and (key := place_key(receiver)) is not None:
            self.env.put(key, map_chain.reformatted(recv))  # a later map of it reads the rows in the new form
        elif reformats == "returns":
            recv = map_chain.reformatted(recv)
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
        # `F.logsigmoid(beta * margin)`, `logps.exp()`: what is computed from a masked mean still depends
        # on it, and is a loss where the result is one.
        return _means_in(recv, *args)

    def popped(self, call: cst.Call, receiver: cst.BaseExpression, field: str, recv: Value | None) -> Value:
        """`batch.pop("input_ids")` reads the field as `batch["input_ids"]` does. (That the dict no longer
        holds it is not followed: no rule here reads a field's absence from a dict.)"""
        for arg in call.args[1:]:
            self.evaluate(arg.value)  # the default
        key = place_key(receiver)
        held = self.read_held(field_place(key, field) if key else None)
        if held is not None:
            return held
        base = self.evaluate_base(receiver, key is not None) if recv is None else recv
        return self.encoding_field(base, field, call)

    def is_mask(self, expr: cst.BaseExpression, value: Value) -> bool:
        """A mask by what it holds (a good mask, `ids != pad_id`) or by its place's name."""
        named = "mask" in (place_key(expr) or "").lower()
        return named or bool(tags_of(value, GoodMask)) or bool(tags_of(value, PadIdMask))

    def one_value_per_row(self, call: cst.Call) -> bool:
        """`x.view(batch_size)`, `x.reshape(len(rows))`: one dimension, the count of rows (or a name the
        function set to one before, on every path: `batch_size = words.size(0)`)."""
        dims: list[cst.BaseExpression | None] = [a.value for a in call.args]
        if len(call.args) == 1 and isinstance(dims[0], (cst.Tuple, cst.List)) and len(dims[0].elements) == 1:
            dims = [dims[0].elements[0].value]
        if len(dims) != 1 or any(a.keyword is not None or a.star for a in call.args):
            return False
        dim = dims[0]
        if isinstance(dim, cst.Name):
            dim = one_row.value_bound_before(self.current_fn, dim)
        return dim is not None and shape_ops.row_count(dim)

    def masked_fill(
        self, call: cst.Call, method: str, receiver, recv: Value, condition: cst.Arg | None = None, fill=None
    ) -> Value:
        """`receiver.masked_fill(condition, fill)` (or `masked_fill_`, in place); a function that writes the
        same way (`np.place(receiver, condition, fill)`) hands its arguments."""
        if fill is None:
            fill = P.positional(call, 1) or P.keyword(call, "value")
            condition = P.positional(call, 0) or P.keyword(call, "mask")
        if fill is None:
            return EMPTY
        if condition is not None and tags_of(recv, HiddenStates) and self.selects_padding(condition.value):
            # `h.masked_fill(mask.unsqueeze(-1) == 0, low)`: the pads' states written over before pooling
            return frozenset(t for t in recv if not isinstance(t, HiddenStates))
        if condition is not None and self.selects_no_position(condition.value):
            # `labels.masked_fill_(torch.tensor(ids_list == pad_id), -100)`: fills nothing
            self.facts.masking_selects_nothing.update((c, call) for c in tags_of(recv, Copy))
            return recv
        if self.is_ignore(fill.value):
            self.note_label_value(call, fill.value, tags=(receiver,), written=True)
            if condition is not None:
                self.masking_by_pad_id(call, condition.value, recv, method)
            if method == "masked_fill_":
                self.facts.masked_copies.update(tags_of(recv, Copy))
                self.mark_place_masked(receiver)
                self.written_in_place(receiver, None)
            return frozenset({Masked(call)})
        if (
            condition is not None
            and (
                self.is_label_code(receiver, strict=True)
                or any(p.target_ids or p.of_labels for p in tags_of(recv, Padded))  # targets by how they were made
                or LABEL_FILL_NAME.search(self.code(fill.value)) is not None  # `self.label_pad_token_id`
            )
            and self.value_out_of_view(fill.value, self.evaluate(fill.value))
            and self.selects_padding(condition.value)
            and not self.selects_graded_positions(condition.value)
        ):
            # `labels.masked_fill(~label_mask, self.label_pad_token_id)`, a field whose constructions are out of
            # view: the author's value for the pads of labels counts as masking (unknown code is never evidence)
            return frozenset({Masked(call)})
        if P.int_value(fill.value) == 0 and tags_of(recv, Ones):
            self.facts.corrected_ones.update(tags_of(recv, Ones))
            by_pad_id = self.negated_pad_equality(call, condition.value) if condition is not None else None
            return by_pad_id or frozenset({GoodMask(call, kind="pt")})  # `ones.masked_fill(ids == pad_id, 0)`
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
                self.carry_label_value(call.args[0].value, call)
                self.env.set(key, frozenset({Masked(call)}))
            container = self.loop_aliases.get(key)
            if container is not None:  # `for r in rows: r.extend(...)` pads the rows of `rows`
                tag = padded.but(rows=True, gap=None) if fill.what == "pad" else Masked(call)
                self.env.update(container, frozenset({tag}))
            return
        if method == "append" and call.args:
            added = self.padded_into_labels(receiver, call.args[0].value, added)
            self.row_into_mask(receiver, key, added, call.args[0].value)
        rows = frozenset(t.but(rows=True) if isinstance(t, Padded) and t.kind == "list" else t for t in added)
        self.env.update(key, frozenset(t for t in rows if not isinstance(t, Fill)))

    def row_into_mask(self, receiver, key: str, row: Value, row_node: cst.BaseExpression) -> None:
        """`out["attention_mask"].append(mask)`: a row joins a mask place (a batched map function's
        dict of lists) as a store puts a whole mask there, and is judged the same way; a later store
        of the place replaces the rows and withdraws what they raised."""
        field_name = key_of_subscript(receiver) if isinstance(receiver, cst.Subscript) else None
        leaf = key.rsplit(".", 1)[-1]
        if not (
            (field_name is not None and P.MASK_KEY.match(field_name))
            or (field_name is None and P.MASK_NAME.search(leaf))
        ):
            return
        before = len(self.facts.ones_at_mask)
        self.mask_sink(row, row_node)
        raised = self.facts.ones_at_mask[before:]
        if raised:
            self.store_events.setdefault(key, RaisedByStore()).masks.extend(raised)

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

    def rows_of_one_width(self, call: cst.Call, handed: Value) -> Value | None:
        """`tokenizer.pad({"input_ids": rows})` over label rows the code already filled with -100 to one
        width: padding to the longest (the default) adds nothing to them, so they come back as they went
        in. A width asked for (`padding="max_length"`) may add pads."""
        rows = frozenset().union(*(d.entries.get("input_ids", EMPTY) for d in tags_of(handed, DictOf)))
        masked = tags_of(rows, Masked)
        if not masked or not all(m.to_width for m in masked) or tags_of(rows, Padded):
            return None
        if P.padding_requested(call, self.constants, self.class_attribute_value) == "max_length":
            return None
        return rows

    # ---- tokenizers --------------------------------------------------------------------------
    def tokenizer_call(self, call: cst.Call, method: str | None) -> Value:
        if method == "apply_chat_template":
            return self.chat_template_call(call)
        handed = dict(zip((id(a.value) for a in call.args), self.evaluate_args(call)))
        tensors = P.keyword(call, "return_tensors")
        kind = _returned_kind(tensors)
        if tensors is not None and kind == "list":
            kind = "?"
        mask_arg = P.keyword(call, "return_attention_mask")
        dropped = mask_arg is not None and P.int_value(mask_arg.value) == 0
        text = P.positional(call, 0) or P.keyword(call, "text")
        if method != "pad" and (text is not None or P.keyword(call, "text_target") is not None):
            self.facts.text_tokenized = True
            special = P.keyword(call, "add_special_tokens")
            if special is None or P.int_value(special.value) != 0:
                self.facts.special_tokens_added = True  # the tokenizer's own tokens, EOS for some
        # what is padded: the texts, or the targets alone (`tok(text_target=answer, padding=True)`)
        padded_text = text if text is not None else P.keyword(call, "text_target")
        single = self.is_single_text(padded_text.value) if padded_text is not None else None
        rows = None if single is None else not single
        # Tokenizing or padding `labels` / `targets`: label ids by design (their padding value is a fact of its own).
        of_labels = text is not None and self.is_label_code(text.value)
        if method == "pad":
            self.facts.repadding_collator = True
            unchanged = self.rows_of_one_width(call, handed.get(id(text.value), EMPTY) if text is not None else EMPTY)
            if unchanged is not None:
                return frozenset({DictOf({"input_ids": unchanged})})
            # `tokenizer.pad(label_rows)` pads label ids with the pad id, as `text_target=` does: the
            # caller masks them by the encoding's own mask (a speech collator's `masked_fill`), and
            # labels that reach a labels place unmasked keep the pad id as their label.
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
                        target_ids=of_labels,
                    )
                }
            )
        padding = P.padding_requested(call, self.constants, self.class_attribute_value)
        if (
            single is None
            and padding == "longest"
            and padded_text is not None
            and isinstance(padded_text.value, cst.Name)
        ):
            # a parameter every caller hands one text (asked only where it decides the padding: it
            # reads the calls in view)
            if self.one_text_parameter(padded_text.value.value):
                single, rows = True, False
        # `[prompt] * n` (no second text): n copies of one text, all of one length: "longest" pads nothing.
        pair = P.positional(call, 1) or P.keyword(call, "text_pair")
        identical = text is not None and pair is None and self.copies_of_one_text(text.value)
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

    def chat_template_call(self, call: cst.Call) -> Value:
        """`tok.apply_chat_template(conversation, padding=..., return_tensors=...)` (library table): the
        conversation rendered and tokenized with padding like `tok(...)`, without the tokenizer's special
        tokens. One conversation pads only to `max_length`; a batch of them (a list of lists) to the
        longest too. The ids alone (4.x, `return_dict=False`) or the encoding (`return_dict=True`, 5.x's
        default): the mask is known lost only where `return_dict=False` says so."""
        self.evaluate_args(call)
        tokenize = P.keyword(call, "tokenize")
        said = P.int_value(tokenize.value) if tokenize is not None else None
        processor = (
            "processor" in P.last_name(call.func.value).lower() if isinstance(call.func, cst.Attribute) else False
        )
        if said == 0 or (said is None and processor):
            return frozenset({OneText(call)})  # rendered text (a processor's default), tokenized later
        self.facts.text_tokenized = True
        conversation = P.positional(call, 0) or P.keyword(call, "conversation")
        padding = P.padding_requested(call, self.constants, self.class_attribute_value)
        batch = conversation is not None and (
            _conversations(conversation.value)
            or _conversations(one_row.value_bound_before(self.current_fn or self.facts.module, conversation.value))
        )
        if not (padding == "max_length" or (padding == "longest" and batch)):
            return EMPTY
        kind = _returned_kind(P.keyword(call, "return_tensors"))
        side = self.padding_side(call)
        as_dict = P.keyword(call, "return_dict")
        if as_dict is not None and P.int_value(as_dict.value) == 1:
            return frozenset({Encoding(call, True, True, kind, batch or None, side=side)})
        dropped = as_dict is not None and P.int_value(as_dict.value) == 0
        ids = Padded(call, made_in=self.current_fn, kind=kind, from_tokenizer=True, lost_at=call if dropped else None)
        return frozenset({ids.but(rows=batch or None, side=side)})

    def class_attribute_value(self, expr: cst.BaseExpression) -> cst.BaseExpression | None:
        """The literal `expr` holds wherever it is read: `self.padding` in a method of a class whose body
        fixes `padding` for every instance, or whose `__init__` stores it from a parameter that every
        construction in view fixes; a parameter of the function walked that every call in view fixes
        (parameter_literals.py)."""
        module = self.facts.module
        if isinstance(expr, cst.Name):
            fn = self.current_fn
            if fn is None or module is None or not self.walking_home() or expr.value not in P.parameter_names(fn):
                return None
            return self.module_info.parameter_literal(module, fn, expr.value)
        if not (isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value == "self"):
            return None
        if not self.class_envs:
            return None
        cls = self.class_envs[-1][0]
        fixed = class_constant(cls, expr.attr.value)
        if fixed is not None or module is None or not self.walking_home() or cls not in module.body:
            return fixed
        stored = init_parameter_stored_as(cls, expr.attr.value)
        if stored is None:
            return self.module_info.field_literal(module, cls, expr.attr.value)  # a dataclass field
        return self.module_info.parameter_literal(module, *stored)

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
        if isinstance(expr, cst.Call) and self.imports.qualify(expr.func) in TEXT_MAKERS:
            return True  # `re.sub(pattern, "X", seq)`, `str(x)`: one string
        if isinstance(expr, cst.Name):
            if expr.value in self.str_names:
                return True
            if expr.value in self.list_names:
                return False
            if self.parameter_documented_as_text(expr.value):
                return True
        if isinstance(expr, cst.Subscript) and self.map_batched is not None:
            return not self.map_batched
        if isinstance(expr, cst.Subscript) and self.one_example_read(expr):
            return True
        if isinstance(expr, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) and tags_of(
            self.evaluate(expr) if value is None else value, OneText
        ):
            # a helper that returns one string (`prompt = render(conversation)`), a field a map function
            # wrote one string into, read from one row (`train[i]["query"]`, `for row in ds`)
            return True
        return None

    def one_example_read(self, expr: cst.Subscript) -> bool:
        """`self.rows[idx]["text"]` in `__getitem__(self, idx)`: one example's value (one_row.py)."""
        fn = self.current_fn
        return fn is not None and one_row.read_by_item_index(fn, expr, self.module_info.stored_names)

    def parameter_documented_as_text(self, name: str) -> bool:
        """Is `name` a parameter of the function walked, with no annotation, that its docstring declares
        one `str` (docstring_types.py), never stored again?"""
        fn = self.current_fn
        if fn is None:
            return False
        param = next((p for p in P.parameters(fn.params) if p.name.value == name), None)
        if param is None or param.annotation is not None or name not in docstring_types.str_parameters(fn):
            return False
        return one_row.never_stored(fn, name, self.module_info.stored_names)

    def one_text_parameter(self, name: str) -> bool:
        """Is `name` a parameter of the function walked (module-level, or nested in one) that every call
        in view hands one text (one_text.py), never stored again?"""
        fn = self.current_fn
        if fn is None or self.facts.module is None or not self.walking_home():
            return False
        if name not in self.module_info.one_text_parameters(self.facts.module, fn):
            return False
        return one_row.never_stored(fn, name, self.module_info.stored_names)

    def holds_texts(self, iterable: cst.BaseExpression) -> bool:
        """Is each item of `iterable` one text, as a comprehension hands them one by one to a tokenizer?
        A sequence annotated `Sequence[str]`; or a parameter of the function, never stored again, whose
        value the analysis knows nothing of (batches a loader yields are known as such) and that no
        call in view hands a list of lists (`[texts[i : i + 8] for i in ...]`). Or the sequence itself
        holds texts one by one (`for text in ["a b", "c"]`, `f.readlines()`)."""
        iterable = self.same_items(iterable)
        if place_key(iterable) in self.str_seq_names or self.texts_one_by_one(iterable):
            return True
        fn = self.current_fn
        if fn is None or not isinstance(iterable, cst.Name):
            return False
        if iterable.value not in P.parameter_names(fn):
            return False
        if not _nothing_known(self.evaluate(iterable)):
            return False
        if not one_row.never_stored(fn, iterable.value, self.module_info.stored_names):
            return False
        handed = (
            self.module_info.arguments_in_view(self.facts.module, fn, iterable.value) if self.walking_home() else []
        )
        return not any(one_row.list_of_lists(arg) for arg in handed)

    def same_items(self, iterable: cst.BaseExpression) -> cst.BaseExpression:
        """`tqdm(texts, desc=...)`, `iter(texts)` -> `texts`: wrappers that yield the items they are
        given (library table: wiring rows of style "same")."""
        while isinstance(iterable, cst.Call) and iterable.args and iterable.args[0].keyword is None:
            qualified = self.imports.qualify(iterable.func) or P.dotted(iterable.func)
            row = T.wiring_row(qualified) if qualified else None
            if row is None or row.style != "same":
                break
            iterable = iterable.args[0].value
        return iterable

    def dataset_map(self, call: cst.Call, recv: Value) -> Value:
        fn = P.positional(call, 0) or P.keyword(call, "function")
        self.evaluate_args(call)
        if fn is None:
            return EMPTY
        # The rows mapped over are what an earlier map of this dataset returned (a padded column
        # stays padded in the next map's `examples["input_ids"]`).
        datasets = recv | self.split_mapped(call)
        batched = P.map_batched(call)
        rows = map_chain.rows_handed(datasets, batched)
        returned = self.summary_of_callable(fn.value, call, rows)
        self.note_rows_unconsumed(call, fn.value)
        encodings = [e for e in tags_of(returned, Encoding) if e.padded and e.mask_kept]
        # The rows a collate function or a loop reads from the mapped dataset (wiring.py): the columns
        # returned over the ones kept from before.
        stored = returned | map_chain.kept_columns(datasets, returned, batched, map_chain.removed_columns(call))
        mapped = frozenset({DatasetOf(stored, batched)}) if returned else EMPTY
        return frozenset(MappedDataset(e) for e in encodings) | mapped

    def split_mapped(self, call: cst.Call) -> Value:
        """`dsets["train"].map(f)`: only a dataset has `map`, so a constant key of a mapped dataset
        picks a split of a DatasetDict, whose rows are the dataset's."""
        receiver = call.func.value if isinstance(call.func, cst.Attribute) else None
        if not isinstance(receiver, cst.Subscript) or key_of_subscript(receiver) is None:
            return EMPTY
        return frozenset(tags_of(self.evaluate(receiver.value), DatasetOf))

    def is_program(self) -> bool:
        """Is the linted module a program nothing imports (dead_code.program_nobody_imports)?"""
        if self.module_info.program is None:
            self.module_info.program = dead_code.program_nobody_imports(self.facts.module, self.facts.filename)
        return self.module_info.program

    def note_rows_unconsumed(self, call: cst.Call, fn: cst.BaseExpression) -> None:
        """A script's `ds = ds.map(f)` whose rows no model ever reads: the feature dicts `f` returns
        reach no consumer (dataset_uses.py)."""
        if self.current_fn is not None or self.facts.module is None:
            return
        refs = (
            [t.node for t in tags_of(self.env.get(fn.value) or EMPTY, FunctionRef)] if isinstance(fn, cst.Name) else []
        )
        if isinstance(fn, cst.Lambda):
            body: cst.CSTNode = fn.body
        elif len(refs) == 1:
            body = refs[0]  # the def the name holds here (a notebook may define it again in a later cell)
        elif isinstance(fn, cst.Name) and fn.value in self.module_info.functions:
            body = self.module_info.functions[fn.value]
        else:
            return
        models = set(self.module_info.loaded_models())
        module, imports = self.facts.module, self.facts.imports
        if dataset_uses.rows_reach_no_model(module, call, imports, models, program=self.is_program()):
            self.facts.rows_unconsumed.update(script_names.feature_dicts(body))
        elif dataset_uses.rows_reach_no_model(module, call, imports, models, "labels", program=self.is_program()):
            self.facts.labels_unread.update(script_names.feature_dicts(body))


def _nothing_known(value: Value) -> bool:
    """No tag but texts or tuples of unknown items: not ids, batches, a dataset or a loader."""
    return all(
        isinstance(tag, OneText) or (isinstance(tag, TupleOf) and all(_nothing_known(v) for v in tag.items))
        for tag in value
    )


def _returned_kind(tensors: cst.Arg | None) -> str:
    """What a tokenizer call's `return_tensors=` makes of the ids: "pt", "np", "tf", else lists."""
    return {"pt": "pt", "np": "np", "tf": "tf"}.get((P.string_value(tensors.value) if tensors else None) or "", "list")


def _conversations(expr: cst.BaseExpression | None) -> bool:
    """A list of conversations (`[[{"role": ...}] for q in qs]`, `[chat_a, chat_b]` of lists): a batch."""
    if isinstance(expr, (cst.ListComp, cst.GeneratorExp)):
        return isinstance(expr.elt, (cst.List, cst.ListComp))
    if isinstance(expr, cst.List) and expr.elements:
        return all(isinstance(e.value, (cst.List, cst.ListComp)) for e in expr.elements)
    return False


def _is_token_text(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Attribute) and expr.attr.value in ("eos_token", "bos_token", "sep_token")


def _mask_as(tag, kind: str):
    return dataclasses.replace(tag, kind=kind) if isinstance(tag, GoodMask) else tag


def _means_in(*values: Value) -> Value:
    """The masked means (MeanValue) the values hold: what a reduction or a function of them depends on."""
    return frozenset(t for value in values for t in value if isinstance(t, MeanValue))
