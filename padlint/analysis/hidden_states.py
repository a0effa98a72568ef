"""A model's per-position outputs for a padded batch, and means taken over their sequence axis.

`out = model(**enc)` with `enc` padded: `out.last_hidden_state` (and `out.hidden_states[k]`,
`out.encoder_last_hidden_state`) holds one vector per position, pads included (transformers'
modeling_outputs.py: BaseModelOutput and its kin, batch first, `(batch, length, hidden)`). Where the
model was handed the batch's mask with the ids (without one, the missing mask is the harm, and passing
it the fix), a mean over the sequence axis that leaves that mask out (`.mean(dim=1)`, `torch.mean(h, 1)`), each row's vector takes
in its pads' states: a shorter row is pulled toward them, and its embedding changes with the batch it
is in. What is averaged with the mask (`(h * m.unsqueeze(-1)).sum(1) / m.sum(1)`), sliced or indexed
first (`h[:, 0]`, `h[mask.bool()]`) or written into (`h[m == 0] = 0`) is no such mean: those keep no
tag here, so nothing is recorded for them.
"""

from __future__ import annotations

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.env import EMPTY, place_key
from padlint.analysis.facts import LastPositionRead, MeanOverPositions
from padlint.analysis.loader_uses import parents_of
from padlint.analysis.values import DictOf, Encoding, GoodMask, HiddenStates, ModelOutput, Padded, Value, tags_of
from padlint.analysis.walker_state import WalkerState

# ModelOutput fields with one vector per input position (transformers 5.x, modeling_outputs.py); the
# decoder's states follow the decoder's ids, not the padded input ids, and are left out.
STATES_FIELDS = frozenset({"last_hidden_state", "encoder_last_hidden_state"})
LAYERS_FIELDS = frozenset({"hidden_states", "encoder_hidden_states"})
SEQUENCE_AXES = (1, -2)  # of `(batch, length, hidden)`
# Methods that hand the same states on (a dtype, a device, a copy, a detached view).
SAME_STATES = frozenset({"detach", "cpu", "cuda", "to", "float", "half", "double", "bfloat16", "clone", "contiguous"})
# The part of a model call that is its model: `model(**enc)`, `self.encoder(ids, mask)`, `model.forward(...)`.
NOT_FORWARD = frozenset({"generate", "encode", "decode", "save_pretrained", "resize_token_embeddings"})


class HiddenStateFlow(WalkerState):
    """Mixed into the scope walker."""

    def model_output(self, call: cst.Call) -> Value:
        """What a model call returns when the ids it was handed are padded: a ModelOutput tag. Asked
        only in a module that reads hidden states at all."""
        if not self.reads_hidden_states():
            return EMPTY
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in NOT_FORWARD:
            return EMPTY
        if not (
            P.model_callee(P.last_name(call.func)) or self.model_by_provenance(call) or self.loaded_model_called(call)
        ):
            return EMPTY
        ids, mask, names = self.model_inputs(call)
        padded = [p for p in tags_of(ids or EMPTY, Padded) if not p.of_labels and not p.target_ids]
        if ids is None or not padded:
            return EMPTY
        stated = {p.side if self.side_stated_in_code(p) else None for p in padded}
        right = padded[0] if stated == {"right"} else None
        if mask is None and right is None:
            return EMPTY  # no mask handed with the padded ids: the missing mask is the harm, and passing it the fix
        return frozenset({ModelOutput(call, mask, names, right_padded=right)})

    def side_stated_in_code(self, padded: Padded) -> bool:
        """Is the side these ids are padded on written in the code: by hand (`pad_sequence`, `x + [pad] *
        n`), or told to the tokenizer (its call's `padding_side=`, else the one side the module states
        for its tokenizers), or the default side of every tokenizer class the module loads (library
        table: `GPT2TokenizerFast` pads on the right)? An `AutoTokenizer`'s side is the checkpoint's, not
        in view."""
        if not padded.from_tokenizer:
            return padded.side_in_code
        if padded.side == "left" or self.stated_right(padded.node):
            return True
        return padded.side == "right" and self.module_info.right_side_known()

    def where_no_mask(self, node: cst.CSTNode) -> bool:
        """Does `node` sit in the branch an `if attention_mask is None:` test (or the `else` of `is not
        None`) takes?"""
        module = self.facts.module
        if module is None:
            return False
        parents = parents_of(module)
        child, parent = node, parents.get(node)
        while parent is not None:
            if isinstance(parent, cst.If):
                none = _mask_is_none(parent.test)
                if none is True and child is parent.body or none is False and child is parent.orelse:
                    return True
            child, parent = parent, parents.get(parent)
        return False

    def reads_hidden_states(self) -> bool:
        """Does the module read a model's per-position outputs at all (hidden states, or logits read
        at one position)?"""
        facts = self.facts
        return facts.text_has("hidden_state") or (facts.text_has("logits") and facts.text_has("-1"))

    def model_inputs(self, call: cst.Call) -> tuple[Value | None, str | None, tuple]:
        """The ids a model call is handed (`input_ids=`, the first positional argument, a `**` spread
        of an encoding), and the code of the tokenizer's mask handed with them, with the bindings that
        code reads (None: no mask of the real tokens in view)."""
        keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
        spreads = [a.value for a in call.args if a.star == "**"]
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        mask = keywords.get("attention_mask")
        if mask is None and len(positional) > 1 and tags_of(self.evaluate(positional[1]), GoodMask):
            mask = positional[1]
        if mask is not None and not tags_of(self.evaluate(mask), GoodMask):
            mask = None
        code, names = (self.code(mask), self.versions_of(mask)) if mask is not None else (None, ())
        if "input_ids" in keywords:
            return self.evaluate(keywords["input_ids"]), code, names
        if positional:
            return self.evaluate(positional[0]), code, names
        if len(spreads) == 1:
            held = self.evaluate(spreads[0])
            ids = self.encoding_field(held, "input_ids", spreads[0], whole=True)
            if code is None and self.spread_has_mask(held) and isinstance(spreads[0], (cst.Name, cst.Attribute)):
                code, names = f'{self.code(spreads[0])}["attention_mask"]', self.versions_of(spreads[0])
            return ids, code, names
        return None, None, ()

    def spread_has_mask(self, held: Value) -> bool:
        """Does an encoding or feature dict handed as `**x` carry the tokenizer's mask?"""
        if any(e.padded and e.mask_kept and e.lost_at is None for e in tags_of(held, Encoding)):
            return True
        return any(tags_of(d.entries.get("attention_mask", EMPTY), GoodMask) for d in tags_of(held, DictOf))

    def states_field(self, base: Value, field: str) -> Value | None:
        """`out.last_hidden_state`, `out.hidden_states` of a ModelOutput; None for any other field."""
        outputs = tags_of(base, ModelOutput)
        if outputs and field == "logits":
            # scores per position: read for their last position only (means are judged over hidden states only)
            right = [o for o in outputs if o.right_padded is not None]
            return frozenset(HiddenStates(o, logits=True) for o in right) if right else None
        if not outputs or field not in STATES_FIELDS | LAYERS_FIELDS:
            return None
        return frozenset(HiddenStates(o, layers=field in LAYERS_FIELDS) for o in outputs)

    def one_layer(self, base: Value) -> Value | None:
        """`out.hidden_states[-1]`: one layer's states."""
        layers = [h for h in tags_of(base, HiddenStates) if h.layers]
        return frozenset(HiddenStates(h.output) for h in layers) if layers else None

    def states_kept(self, method: str, recv: Value) -> Value | None:
        """`h.detach().cpu()`: the same states."""
        if method not in SAME_STATES:
            return None
        kept = [h for h in tags_of(recv, HiddenStates) if not h.layers]
        return frozenset(kept) if kept else None

    def mean_over_positions(
        self, call: cst.Call, states: cst.BaseExpression, value: Value, method: bool, reduction: str = "mean"
    ) -> None:
        """A mean (or max) over the sequence axis of a padded batch's hidden states, not weighted by its mask."""
        hidden = [h for h in tags_of(value, HiddenStates) if not h.layers and not h.logits and h.output.mask]
        if not hidden:
            return
        axis = P.keyword(call, "dim") or P.keyword(call, "axis")
        if axis is None:
            positional = [a for a in call.args if a.keyword is None and not a.star]
            axis = positional[0 if method else 1] if len(positional) > (0 if method else 1) else None
        if axis is None or P.int_value(axis.value) not in SEQUENCE_AXES:
            return
        scope = self.current_fn or self.facts.module
        if isinstance(states, cst.Name) and (written_into(scope, states.value) or weighed_too(scope, states.value)):
            return
        output = hidden[0].output
        in_scope = output.mask is not None and self.still_valid(output.mask_names)
        found = MeanOverPositions(
            call,
            states=states,
            mask=output.mask if in_scope else None,
            model_call=output.call,
            method=method,
            reduction=reduction,
        )
        self.facts.record(self.facts.means_over_positions, found)

    def last_position_read(self, expr: cst.Subscript, base: Value) -> None:
        """`out.logits[:, -1]`, `h[:, -1, :]`: the last position of every row of a batch padded on the right."""
        if len(expr.slice) < 2 or not _every_row(expr.slice[0].slice) or not _last(expr.slice[1].slice):
            return
        for states in tags_of(base, HiddenStates):
            output = states.output
            if states.layers or output.right_padded is None:
                continue
            if output.mask is None and self.where_no_mask(expr):
                continue  # a fallback for input given without a mask: the code assumes no padding there
            in_scope = output.mask is not None and self.still_valid(output.mask_names)
            found = LastPositionRead(
                expr,
                states=expr.value,
                model_call=output.call,
                padded=output.right_padded,
                mask=output.mask if in_scope else None,
            )
            self.facts.record(self.facts.last_position_reads, found)
            return


def _mask_is_none(test: cst.BaseExpression) -> bool | None:
    """`mask is None` -> True, `mask is not None` -> False, for a name that reads as a mask; else None."""
    pair = P.comparison_operand(test, (cst.Is, cst.IsNot))
    if pair is None or not (isinstance(pair[1], cst.Name) and pair[1].value == "None"):
        return None
    if not (isinstance(pair[0], (cst.Name, cst.Attribute)) and P.MASK_NAME.search(P.last_name(pair[0]))):
        return None
    return isinstance(test, cst.Comparison) and isinstance(test.comparisons[0].operator, cst.Is)


def _every_row(index: cst.BaseSlice) -> bool:
    """`:`: every row."""
    return isinstance(index, cst.Slice) and index.lower is None and index.upper is None and index.step is None


def _last(index: cst.BaseSlice) -> bool:
    """`-1`: the last position."""
    return isinstance(index, cst.Index) and P.int_value(index.value) == -1


def written_into(scope: cst.CSTNode | None, name: str) -> bool:
    """Does `scope` write into the states held by `name` (`h[m == 0] = 0`, `h.masked_fill_(...)`)? A
    mean of them then averages what the code chose: not judged."""
    if scope is None:
        return False
    for node in P.walk(scope):
        if isinstance(node, (cst.Assign, cst.AugAssign)):
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            if any(isinstance(t, cst.Subscript) and place_key(t.value) == name for t in targets):
                return True
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            if node.func.attr.value.endswith("_") and place_key(node.func.value) == name:
                return True
    return False


def weighed_too(scope: cst.CSTNode | None, name: str) -> bool:
    """Does `scope` also weigh the same states by a mask (`h * mask`)? Both means side by side are a
    comparison the code makes on purpose (the plain one an ablation, a replication): not judged."""
    if scope is None:
        return False
    for node in P.walk(scope):
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply):
            for side, other in ((node.left, node.right), (node.right, node.left)):
                if place_key(side) == name and any(
                    isinstance(n, cst.Name) and "mask" in n.value.lower() for n in P.walk(other)
                ):
                    return True
    return False


def read_without_effects(node: cst.CSTNode) -> bool:
    """Names, attributes, constant subscripts and methods that hand the same states on (`h.detach()`): code
    a fix may read several times."""
    if isinstance(node, cst.Name):
        return True
    if isinstance(node, cst.Attribute):
        return read_without_effects(node.value)
    if isinstance(node, cst.Subscript):
        return read_without_effects(node.value) and all(
            isinstance(e.slice, cst.Index) and isinstance(e.slice.value, (cst.Integer, cst.UnaryOperation, cst.Name))
            for e in node.slice
        )
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in SAME_STATES:
        return read_without_effects(node.func.value) and all(
            isinstance(a.value, (cst.Name, cst.Attribute)) for a in node.args
        )
    return False
