"""Hooks of the flow pass for losses and masked means: the ignore index a loss is given and what it grades
(token labels or class indices), means of a product with a padding mask, and which of them are losses
(reaching a backward pass or named as one; never in test code)."""

from __future__ import annotations

import re
from collections.abc import Callable

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.env import EMPTY, place_key
from padlint.analysis.facts import LossIgnoreIndex, MaskAfterAverage, MaskedMean, MeanOverIgnored
from padlint.analysis.output_use import value_never_read
from padlint.analysis.pad_ids import equality, inequality
from padlint.analysis.values import (
    AveragedLoss,
    Copy,
    GoodMask,
    LossInstance,
    Masked,
    MaskedProduct,
    MeanValue,
    Ones,
    Padded,
    PadIdMask,
    PerPositionLoss,
    Value,
    pad_masking,
    tags_of,
)
from padlint.analysis.walker_state import WalkerState
from padlint.semantics import table as T

PADDING_MASK_NAME = re.compile(
    r"(^|[.'\[])(attention_mask|attn_mask|padding_mask|pad_mask|loss_mask|label_mask|labels_mask|token_mask|"
    r"seq_mask|target_mask|completion_mask|response_mask|action_mask|mask)(['\]]*)$",
    re.I,
)
# What a padding mask is made of: an attention mask, the pad id or the ignore index, lengths, token ids,
# labels, or a mask of something else (words of its origin's code).
# (`!= 0`, `not_equal(y, 0)`, `ne(0)`: positions told apart from a pad id 0)
PADDING_ORIGIN = re.compile(
    r"mask|pad|len|ignore|-\s*100|label|ids|token|eos|seq|target|attention|valid|!=\s*0\b|not_equal\(|\bne\(\s*0\s*\)",
    re.I,
)
# Methods that change a tensor's shape, type or device and nothing of its values.
SHAPE_ONLY_METHODS = {"view", "reshape", "flatten", "float", "double", "to", "contiguous", "squeeze", "unsqueeze"}
# What names a training objective: a value, function or class so named is a loss.
LOSS_NAME = re.compile(r"loss|criterion|objective|penalty|nll|training_step", re.I)


class LossesAndMeans(WalkerState):
    """Mixed into the scope walker: losses and masked means."""

    def loss_call(self, call: cst.Call) -> Value:
        """A loss function called (`F.cross_entropy(logits, labels)`) or a loss module made; the module
        is returned as a value, so that its calls tell what it grades."""
        target = P.keyword(call, "target") or P.positional(call, 1)
        arg = P.keyword(call, "ignore_index")
        qualified = self.imports.qualify(call.func) if isinstance(call.func, (cst.Name, cst.Attribute)) else None
        value = self.resolve_int(arg.value) if arg is not None else T.default(qualified or "", "ignore_index")
        fact = LossIgnoreIndex(call, arg, value)
        self.facts.loss_ignores.append(fact)
        reduction = self.reduction(call, qualified or "")
        per_position, averages = reduction == "none", reduction == "mean"
        if target is not None:  # `F.cross_entropy(logits, labels)`: the labels reach the loss
            fact.labels_target = self.is_token_labels(target.value)
            ignore: tuple[str | None, tuple]
            if arg is not None:
                ignore = (self.code(arg.value), self.versions_of(arg.value))
            else:
                ignore = (str(value), ()) if isinstance(value, int) else (None, ())
            return self.labels_graded(call, target.value, value, per_position, arg is not None, ignore, fact, averages)
        # `criterion = nn.CrossEntropyLoss()` left behind while the model's own loss trains (issue 12:
        # a loss never called grades nothing).
        fact.unused = self.facts.is_local(call) and value_never_read(self.facts.module, call)
        kept = T.kept_attribute(qualified or "", "ignore_index")
        return frozenset({LossInstance(fact, per_position, kept, averages)})

    def loss_module_called(self, call: cst.Call, callee: Value) -> Value:
        """`self.criterion(logits, y_true)`: what the loss module grades, judged as the function form."""
        target = P.keyword(call, "target") or P.positional(call, 1)
        if target is None:
            return EMPTY
        labels = self.is_token_labels(target.value)
        graded: Value = EMPTY
        for instance in tags_of(callee, LossInstance):
            instance.fact.labels_target = bool(instance.fact.labels_target) or labels
            # What the instance ignores, read where it is called: the attribute it keeps it in.
            kept = instance.kept_ignore
            ignore = (f"{self.code(call.func)}.{kept}", self.versions_of(call.func)) if kept else (None, ())
            told = instance.fact.arg is not None
            graded |= self.labels_graded(
                call,
                target.value,
                instance.fact.value,
                instance.per_position,
                told,
                ignore,
                instance.fact,
                instance.averages,
            )
        return graded

    def labels_graded(
        self,
        call: cst.Call,
        target: cst.BaseExpression,
        ignored,
        per_position: bool,
        told: bool,
        ignore: tuple[str | None, tuple],
        fact: LossIgnoreIndex | None = None,
        averages: bool = False,
    ) -> Value:
        """The labels reach a loss that ignores `ignored`. A loss that ignores the pad id itself needs no
        -100 (094); one per position (`reduction="none"`) grades the pads only where it is reduced whole."""
        labels = self.evaluate(target)
        seen = self.note_labels_reaching(labels, ignored)
        if fact is not None:
            fact.graded |= seen
            root = P.root_name(target)
            if root is not None:
                fact.target_places.append((self.current_fn, root, target))
        for padded in tags_of(labels, Padded):
            # Labels by role: rows padded on their own that a loss grades are its labels, whatever they
            # are named (`label_rows`, not only `labels`); their pad value is judged as a label's.
            how = {"pt": "padding_value", "list": "list"}.get(padded.kind)
            if padded.of_labels and how and padded.node not in self.facts.pending_label_pads and padded.side_in_code:
                if padded.pad is not None or padded.kind == "pt":
                    self.label_padding(padded, padded.pad, how)
        if not (ignored == P.IGNORE_VALUE and pad_masking(labels)):
            # (the pads were written over with -100, which this loss ignores: their fill is no label)
            self.label_pads_reaching(labels)
        if per_position:
            loss = PerPositionLoss(labels, target, call, ignored, told, self.versions_of(target), *ignore)
            return frozenset({loss})
        averaged = frozenset({AveragedLoss(call, target, ignored)}) if averages else EMPTY
        if ignored != P.IGNORE_VALUE:
            return averaged
        self.label_sink(labels, target, call, "loss")
        return averaged

    def reduction(self, call: cst.Call, qualified: str) -> str | None:
        """What the loss reduces its per-position losses to: its `reduction=`, "none" for the older
        `reduce=False`, None where the older switches say anything else (not read here), else the table's
        default ("mean" for torch's losses; a Keras function loss has no such row: one loss per example)."""
        reduction = P.keyword(call, "reduction")
        if reduction is not None:
            return P.string_value(reduction.value)
        reduce = P.keyword(call, "reduce")
        if reduce is not None and isinstance(reduce.value, cst.Name) and reduce.value.value == "False":
            return "none"
        if reduce is not None or P.keyword(call, "size_average") is not None:
            return None
        default = T.default(qualified, "reduction")
        return default if isinstance(default, str) else None

    def written_into_loss(self, place: cst.BaseExpression) -> None:
        """`losses[pads] = 0`, `losses.mul_(mask)`, `losses *= mask`: the per-position losses are written
        over in place, so a later reduction of them is no longer known to count the pads."""
        key = place_key(place)
        held = self.env.get(key) if key is not None else None
        if key is not None and held and tags_of(held, PerPositionLoss):
            self.env.set(key, frozenset(t for t in held if not isinstance(t, PerPositionLoss)))

    def reduced_whole(self, value: Value, averaged: bool = False) -> None:
        """`losses.mean()`, `losses.sum()`, `torch.mean(losses)`: every position counts, the pads too. A mean
        (`averaged`) also divides by every position: -100 at the pads makes their terms 0, not absent."""
        for loss in tags_of(value, PerPositionLoss):
            if loss.ignored == P.IGNORE_VALUE and not loss.scaled:
                if averaged:
                    self.facts.losses_averaged_whole.add(loss.call)
                self.label_sink(loss.labels, loss.target, loss.call, "loss")

    def mean_over_ignored(self, call: cst.Call, receiver: cst.BaseExpression, value: Value) -> Value:
        """`losses.mean()` of one loss per position where some positions are ignored: they hold 0 and
        count in the mean. Ignored positions are in evidence where the loss was told what to ignore or
        the labels it grades hold the ignored value at their pads (masked with -100, or padded with the
        pad id the loss ignores); labels from out of view with the default ignore value are not."""
        losses = tags_of(value, PerPositionLoss)
        if len(losses) != 1:
            return EMPTY
        (loss,) = losses
        if loss.ignored is None or not (loss.told or self.ignored_at_pads(loss)):
            return EMPTY
        target_code = self.code(loss.target) if self.still_valid(loss.versions) else None
        ignored_code = loss.ignore_code if self.still_valid(loss.ignore_versions) else None
        only = self.is_the_loss(receiver, loss.call)
        fact = MeanOverIgnored(call, receiver, loss.call, target_code, ignored_code, only)
        self.facts.record(self.facts.means_over_ignored, fact)
        recorded = next(f for f in self.facts.means_over_ignored if f.node is call)
        return frozenset({MeanValue(recorded)})

    def is_the_loss(self, expr: cst.BaseExpression, loss_call: cst.Call) -> bool:
        """Is `expr` the loss call's result itself, through names bound to it and reshapes of it
        (`losses.view(B, -1)`), with nothing added or multiplied in?"""
        for _ in range(8):
            if expr is loss_call:
                return True
            if isinstance(expr, cst.Name):
                bound = self.value_bound(expr)
                if bound is None:
                    return False
                expr = bound
            elif (
                isinstance(expr, cst.Call)
                and isinstance(expr.func, cst.Attribute)
                and expr.func.attr.value in SHAPE_ONLY_METHODS
            ):
                expr = expr.func.value
            else:
                return False
        return False

    def ignored_at_pads(self, loss: PerPositionLoss) -> bool:
        """Do the labels this loss grades hold the value it ignores at their pads?"""
        if loss.ignored == P.IGNORE_VALUE:
            return bool(tags_of(loss.labels, Masked))
        if loss.ignored == "pad":
            return any(
                p.from_tokenizer or p.pad is not None and self.is_pad_id(p.pad) for p in tags_of(loss.labels, Padded)
            )
        return False

    def is_token_labels(self, target: cst.BaseExpression) -> bool:
        """Is a loss target known as token labels: labels padded or masked here, a copy of ids, or a
        place named as labels or targets (`labels.flatten()`, `tgt[:, 1:]`)? Class indices named
        otherwise (`y_true`) give no evidence that the value is a language model's token ids."""
        value = self.evaluate(target)
        if any(isinstance(t, (Padded, Masked, Copy)) for t in value):
            return True
        if self.made_as_positions(target) or self.made_as_positions(_strip_calls(target)):
            return False  # `labels = torch.arange(B)`: in-batch class indices, named labels or not
        return self.is_label_code(_strip_calls(target)) or _per_position(target)

    def made_as_positions(self, expr: cst.BaseExpression) -> bool:
        """Is `expr` (or what a name holds, made in view) indices built from a size alone?"""
        if isinstance(expr, cst.Name):
            bound = self.value_nodes.get(expr.value)
            expr = bound if isinstance(bound, cst.BaseExpression) else expr
        if not isinstance(expr, cst.Call) or not isinstance(expr.func, (cst.Name, cst.Attribute)):
            return False
        return self.imports.qualify(expr.func) in T.names("positions")

    def masked_mean(self, call: cst.Call, product: cst.BaseExpression, dims: bool) -> Value:
        """`(x * mask).mean()`, or `.mean()` of a value that holds such a product (`scores = x * mask`
        first, or a parameter a caller handed it): the mean of a product with a padding mask."""
        if isinstance(product, cst.BinaryOperation) and isinstance(product.operator, cst.Multiply):
            in_place, mask = True, self.padding_mask_of(product)
            made = [(product, mask)] if mask is not None else []
        else:
            in_place = False
            made = [(t.product, t.mask) for t in tags_of(self.evaluate(product), MaskedProduct)]
        if len(made) != 1:
            return EMPTY  # no product with a padding mask, or several: which one is averaged is unknown
        ((multiplied, mask),) = made
        self.facts.record(self.facts.masked_means, MaskedMean(call, multiplied, mask, dims, in_place=in_place))
        recorded = next(f for f in self.facts.masked_means if f.node is call)
        return frozenset({MeanValue(recorded)})

    def mask_after_average(
        self, product: cst.BinaryOperation, mask: cst.BaseExpression, mask_value: Value, other: Value
    ) -> None:
        """`loss_fn(logits, y) * mask` with `mask` made as `y != pad_id` (`mask_value`: what it holds): the
        loss averaged every position already (facts.MaskAfterAverage), the pads too where it does not skip
        the pad id."""
        target_codes = {
            self.code(_strip_calls(loss.target)): loss
            for loss in tags_of(other, AveragedLoss)
            if loss.ignored == P.IGNORE_VALUE  # (one told to skip the pad, or a value out of view, may skip them)
        }
        if not target_codes:
            return
        for made in tags_of(mask_value, PadIdMask):
            loss = target_codes.get(made.ids_code or "")
            if loss is not None:
                self.facts.record(self.facts.masks_after_average, MaskAfterAverage(product, loss.call, mask))
                return

    def padding_mask_of(
        self, product: cst.BinaryOperation, left: Value | None = None, right: Value | None = None
    ) -> cst.BaseExpression | None:
        """The factor of `x * mask` that is a padding mask (named so, shaped like padded ids, or a mask
        made of the padding); `left` and `right`: the factors' values where already known."""
        for mask, known in ((product.right, right), (product.left, left)):
            if _counts_of(mask):
                continue  # `mask.sum(1, keepdim=True)`: how many real tokens a row holds, not a mask
            value = self.evaluate(mask) if known is None else known
            key = place_key(_strip_calls(mask))
            named = PADDING_MASK_NAME.search(key or "") and not self.made_of_no_padding(key)
            # Ones are a padding mask when shaped like padded ids or zeroed at the pads since
            # (`mask[i, n:] = 0`); `np.ones(len(batch))` alone is one weight per example, with no
            # position axis for pads to sit on.
            shaped = any(t.over is not None or t in self.facts.corrected_ones for t in tags_of(value, Ones))
            if named or shaped or tags_of(value, GoodMask) or tags_of(value, PadIdMask):
                return mask
            if _apart_from_padding(_strip_calls(mask), self.value_nodes, self.code):
                return mask
        return None

    def made_of_no_padding(self, key: str | None) -> bool:
        """Was the place named like a mask made here, in view, of nothing that speaks of padding or
        positions (`keep = torch.full((B,), level) < n_active`: rows a quantizer dropout picks)? A name
        is evidence of a padding mask only where its origin is out of view or says so."""
        made = self.value_nodes.get(key) if key is not None else None
        if not isinstance(made, (cst.Call, cst.Comparison, cst.BinaryOperation, cst.UnaryOperation)):
            return False  # read from a batch, a parameter, an attribute: its origin is out of view
        return PADDING_ORIGIN.search(self.code(made)) is None

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


def _strip_calls(node: cst.BaseExpression) -> cst.BaseExpression:
    """`mask[:, 1:].float()` -> `mask`: the place a mask expression reads."""
    while True:
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            node = node.func.value
        elif isinstance(node, cst.Subscript) and place_key(node) is None:
            node = node.value
        else:
            return node


# What labels or ids hold at their pads: the pad id (named so), 0, or the ignore value.
def _pad_value(expr: cst.BaseExpression) -> bool:
    return P.is_pad_id_expression(expr) or P.int_value(expr) in (0, P.IGNORE_VALUE)


# Ids, labels or targets (by the words of their code): what is compared with a pad value.
_OF_TOKENS = re.compile(r"ids|label|target|token|tgt|seq", re.I)


def _pad_comparison(expr: cst.BaseExpression, pair_of: Callable, code: Callable[[cst.CSTNode], str]) -> bool:
    """Tokens compared with a pad value, read by `pair_of` (pad_ids.inequality: `labels != 0`,
    `labels.ne(pad_id)`; pad_ids.equality: `target == 0`)."""
    pair = pair_of(expr)
    return pair is not None and _pad_value(pair[1]) and _OF_TOKENS.search(code(pair[0])) is not None


def _bound_to(expr: cst.BaseExpression, bound: dict, kinds: tuple[type, ...]) -> cst.BaseExpression:
    """What a name is bound to in this function, where that is one of `kinds`; else the expression itself."""
    if isinstance(expr, cst.Name) and isinstance(bound.get(expr.value), kinds):
        return bound[expr.value]
    return expr


def _marks_padding(expr: cst.BaseExpression, bound: dict, code: Callable[[cst.CSTNode], str]) -> bool:
    """1 at the pads: `target == 0`, also one side of an `|` / `logical_or` (`(t == 0) | (t == cls_id)`), or a
    name bound to such a value."""
    expr = _bound_to(expr, bound, (cst.BaseExpression,))
    if _pad_comparison(expr, equality, code):
        return True
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.BitOr):
        return _marks_padding(expr.left, bound, code) or _marks_padding(expr.right, bound, code)
    if isinstance(expr, cst.Call) and P.last_name(expr.func) == "logical_or" and len(expr.args) == 2:
        return any(_marks_padding(a.value, bound, code) for a in expr.args)
    return False


def _apart_from_padding(expr: cst.BaseExpression, bound: dict, code: Callable[[cst.CSTNode], str]) -> bool:
    """A padding mask written in place by what it holds: tokens compared unequal to a pad value
    (`target != 0`, `labels.ne(pad_id)`), or the negation (`~`, `logical_not`) of a value that is 1 at the
    pads (`~mask` with `mask = target == 0`)."""
    expr = _bound_to(expr, bound, (cst.Comparison, cst.UnaryOperation))
    if _pad_comparison(expr, inequality, code):
        return True
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.BitInvert):
        return _marks_padding(expr.expression, bound, code)
    if isinstance(expr, cst.Call) and P.last_name(expr.func) == "logical_not" and len(expr.args) == 1:
        return _marks_padding(expr.args[0].value, bound, code)
    return False


def _counts_of(expr: cst.BaseExpression) -> bool:
    """A reduction or running count over a value (`m.sum(-1)`, `m.cumsum(1)`, `m.count_nonzero()`):
    numbers of positions, never a 0/1 mask over them."""
    return (
        isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Attribute)
        and expr.func.attr.value in ("sum", "mean", "cumsum", "count_nonzero", "prod", "nansum")
    )


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
