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
from padlint.analysis.facts import MeanOverPositions
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
        if ids is None or not any(not p.of_labels and not p.target_ids for p in tags_of(ids, Padded)):
            return EMPTY
        if mask is None:
            return EMPTY  # no mask handed with the padded ids: that is the finding (PAD003), and its fix
        return frozenset({ModelOutput(call, mask, names)})

    def reads_hidden_states(self) -> bool:
        text = self.facts.source_text
        return text is None or "hidden_state" in text

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

    def mean_over_positions(self, call: cst.Call, states: cst.BaseExpression, value: Value, method: bool) -> None:
        """A mean over the sequence axis of a padded batch's hidden states, not weighted by its mask."""
        hidden = [h for h in tags_of(value, HiddenStates) if not h.layers]
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
            call, states=states, mask=output.mask if in_scope else None, model_call=output.call, method=method
        )
        self.facts.record(self.facts.means_over_positions, found)


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
