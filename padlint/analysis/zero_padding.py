"""Padding with zeros: `ids + [0] * gap`, and `torch.zeros(B, L).long()` filled row by row.

Whether 0 is the pad id cannot be read from the code (BERT's, T5's and many character vocabularies'
pad id is 0; others use 0 for a real token). What the code shows instead is what the zeros are
added to. A run of zeros is taken as padding when what it pads is token ids:

- a list: the zeros extend token ids, known by provenance (a tokenizer's `input_ids`, `encode(...)`)
  or by name (`input_ids`, `src_ids`, `tokens`; not `token_type_ids`, `position_ids`, `label_ids`);
- a buffer: a 2-D zero buffer is padding once rows of varying length are written into it
  (`buf[i, :len(s)] = s`) and either the buffer is of an integer dtype (`.long()`, `dtype=torch.long`:
  a buffer of ids, not of features) or the rows are a tokenizer's ids.

The padding then holds 0 where the loss ignores only -100 and where the mask must be 0, whatever
the tokenizer's pad id is. Labels padded this way are recorded as padded with a token only when the rows are a
tokenizer's ids: 0 is a real class in binary and tagging labels.
"""

from __future__ import annotations

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.env import EMPTY, place_key
from padlint.analysis.values import GoodMask, Ones, Padded, TokenIds, Value, ZeroFilled, first, tags_of
from padlint.analysis.walker_state import WalkerState

INTEGER_METHODS = {"long", "int", "short"}  # `.long()`: the buffer holds ids
CASTS = {"to", "astype", "type"}  # `.to(torch.long)`, `.astype(np.int64)`


class ZeroPadding(WalkerState):
    """Mixed into the scope walker next to PaddingSteps."""

    def zero_buffer(self, call: cst.Call, kind: str, shape_args: list[cst.BaseExpression]) -> Value:
        """`torch.zeros(B, L)`, `np.zeros((B, L), dtype=np.int64)`, `x.new_zeros(B, L)`: a 2-D buffer."""
        dims = shape_args
        if len(dims) == 1 and isinstance(dims[0], (cst.Tuple, cst.List)):
            dims = [e.value for e in dims[0].elements]
        if len(dims) != 2:
            return EMPTY  # 1-D rows or 3-D features: not a batch of ids
        dtype = P.keyword(call, "dtype")
        integer = dtype is not None and bool(P.INTEGER_DTYPE.search(self.code(dtype.value)))
        return frozenset({ZeroFilled(call, kind, integer)})

    def cast_buffer(self, method: str, call: cst.Call, recv: Value) -> Value | None:
        """`.long()` / `.to(torch.long)` of a zero buffer: a buffer of ids (None: not such a cast)."""
        zeros = first(recv, ZeroFilled)
        if zeros is None:
            return None
        integer = method in INTEGER_METHODS
        if method in CASTS and call.args:
            integer = bool(P.INTEGER_DTYPE.search(self.code(call.args[0].value)))
        if not integer:
            return recv
        return frozenset(t for t in recv if t is not zeros) | {ZeroFilled(zeros.node, zeros.kind, True)}

    def zero_row_fill(self, target: cst.Subscript, base: Value, value: Value, value_node) -> Value:
        """`labels[i, : len(t)] = torch.tensor(t)` into a zero buffer: the buffer is padded with 0.
        Returns what the buffer holds after the write."""
        zeros = first(base, ZeroFilled)
        key = place_key(target.value)
        if zeros is None or key is None or not part_of_row(target):
            return base
        if P.int_value(value_node) is not None or tags_of(value, Ones) or tags_of(value, GoodMask):
            return base  # `mask[i, :n] = 1`: a mask built from lengths, not ids
        token_rows = bool(tags_of(value, TokenIds))
        if not (zeros.integer or token_rows):
            return base
        if zeros.padded is None:
            of_labels = self.is_label_code(target.value)
            zeros.padded = self.padded(zeros.node, kind=zeros.kind, pad=None, side="right", of_labels=of_labels)
            if of_labels and token_rows and self.is_label_code(target.value, strict=True):
                self.label_padding(zeros.padded, None, "zeros")
        self.env.update(key, frozenset({zeros.padded}))
        return base | {zeros.padded}

    def holds_token_ids(self, value: Value, node: cst.BaseExpression | None) -> bool:
        """Token ids, by provenance (a tokenizer) or by name (`input_ids`, `f["src_ids"]`)."""
        if tags_of(value, TokenIds) or any(p.from_tokenizer for p in tags_of(value, Padded)):
            return True
        while isinstance(node, cst.Subscript) and place_key(node) is None:
            node = node.value  # `ids[:n]`
        key = place_key(node) if node is not None else None
        if key is None:
            return False
        leaf = key.rsplit(".", 1)[-1]
        leaf = leaf.rsplit("[", 1)[-1].strip("'\"]")
        return bool(P.TOKEN_IDS_NAME.match(leaf))


def part_of_row(target: cst.Subscript) -> bool:
    """`x[i, :n]`, `x[i, -n:]`: the first or last part of one row of a 2-D buffer (the rest stays 0)."""
    if len(target.slice) != 2 or not isinstance(target.slice[0].slice, cst.Index):
        return False
    cut = target.slice[1].slice
    return isinstance(cut, cst.Slice) and (cut.lower is None) != (cut.upper is None) and cut.step is None
