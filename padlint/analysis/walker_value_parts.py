"""The methods of the walker's value parts, declared for the parts that call them: what an expression's
value is (expressions.py), and how padding steps, pad ids, label values, losses, label aliases, shape
operations, zero buffers and in-place stores make or change it. Each group is implemented by the
module it names; WalkerState (walker_state.py) inherits these declarations, so every part
type-checks on its own and mypy checks each implementation against its declaration here.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any

import libcst as cst

from padlint.analysis.shape_ops import KeepsPadding
from padlint.analysis.values import Copy, Fill, Ones, Padded, Value


class ValueParts:
    """The value parts' methods one part calls on another (implemented by the module each group names)."""

    # ---- expressions.py
    @abstractmethod
    def evaluate(self, expr: cst.BaseExpression | None) -> Value: ...

    @abstractmethod
    def encoding_field(self, base: Value, name: str, expr: cst.BaseExpression, whole: bool = False) -> Value: ...

    @abstractmethod
    def evaluate_base(self, base: cst.BaseExpression, partial: bool) -> Value: ...

    @abstractmethod
    def read_held(self, key: str | None) -> Value | None: ...

    @abstractmethod
    def evaluate_args(self, call: cst.Call) -> list[Value]: ...

    @abstractmethod
    def make_copies(self, node, data: Value, source_code: str) -> frozenset[Copy]: ...

    @abstractmethod
    def is_ignore(self, expr: cst.BaseExpression | None) -> bool: ...

    @abstractmethod
    def graded_labels(self, node: cst.CSTNode, left: cst.BaseExpression, right: cst.BaseExpression) -> bool: ...

    @abstractmethod
    def is_label_code(self, expr: cst.BaseExpression, strict: bool = False, hops: int = 0) -> bool: ...

    @abstractmethod
    def versions_of(self, expr: cst.CSTNode) -> tuple: ...

    @abstractmethod
    def still_valid(self, names: tuple) -> bool: ...

    # ---- padding.py
    @abstractmethod
    def repeat(self, expr: cst.BinaryOperation) -> Fill | None: ...

    @abstractmethod
    def concatenate(
        self,
        expr: cst.CSTNode,
        left: Value,
        right: Value,
        parts: tuple[cst.BaseExpression, cst.BaseExpression] | None = None,
    ) -> Value: ...

    @abstractmethod
    def list_padded(self, expr, data: Value, data_node, fill: Fill, side: str) -> Padded: ...

    @abstractmethod
    def ones_or_full(self, call: cst.Call, is_full: bool, kind: str) -> Value: ...

    @abstractmethod
    def pad_block(self, expr: cst.BinaryOperation, left: Value, right: Value) -> Padded | None: ...

    @abstractmethod
    def comprehension_run(self, expr: cst.ListComp) -> Fill | None: ...

    @abstractmethod
    def padding_loop(self, loop: cst.While) -> None: ...

    @abstractmethod
    def run_of(self, item: cst.BaseExpression, count: cst.BaseExpression, expr: cst.CSTNode) -> Fill | None: ...

    @abstractmethod
    def run_value(self, item: cst.BaseExpression, expr: cst.CSTNode) -> str | None: ...

    @abstractmethod
    def fresh_buffer(self, receiver: cst.BaseExpression, recv: Value) -> bool: ...

    @abstractmethod
    def filled_buffer(self, call: cst.Call, receiver: cst.BaseExpression, fill: cst.BaseExpression) -> Value: ...

    @abstractmethod
    def ones(self, node: cst.CSTNode, over: Padded | None, code: str | None) -> Ones: ...

    @abstractmethod
    def shape_source(self, expr: cst.BaseExpression) -> tuple[Padded | None, str | None]: ...

    @abstractmethod
    def pad_sequence(self, call: cst.Call) -> Value: ...

    @abstractmethod
    def functional_pad(self, call: cst.Call, kind: str) -> Value: ...

    @abstractmethod
    def keras_pad(self, call: cst.Call) -> Value: ...

    @abstractmethod
    def nested_to_padded(self, call: cst.Call, index: int, keyword: str) -> Value: ...

    @abstractmethod
    def padded(self, node: cst.CSTNode, **fields) -> Padded: ...

    @abstractmethod
    def comprehension_lengths(self, data_node: Any) -> tuple[str | None, tuple]: ...

    # ---- pad_ids.py
    @abstractmethod
    def pad_comparison(self, node: cst.CSTNode, ids: cst.BaseExpression, pad: cst.BaseExpression) -> Value: ...

    @abstractmethod
    def negated_pad_equality(self, node: cst.CSTNode, operand: cst.BaseExpression) -> Value | None: ...

    @abstractmethod
    def pad_mask_choice(
        self,
        node: cst.CSTNode,
        condition: cst.BaseExpression,
        tested: Value,
        chosen: cst.BaseExpression,
        other: cst.BaseExpression,
    ) -> Value | None: ...

    @abstractmethod
    def note_pad_fallback(self, pad: cst.BaseExpression | None) -> None: ...

    @abstractmethod
    def selects_own_pads(self, target: cst.Subscript) -> bool: ...

    @abstractmethod
    def is_pad_id(self, expr: cst.BaseExpression) -> bool: ...

    @abstractmethod
    def is_eos_pad(self, expr: cst.BaseExpression) -> bool: ...

    @abstractmethod
    def lift_token_masks(self, comprehension: Any, value: Value) -> Value: ...

    @abstractmethod
    def mapped_token_mask(self, call: cst.Call) -> Value | None: ...

    @abstractmethod
    def zeroed_at_pad_ids(self, target: cst.Subscript, base: Value) -> None: ...

    # ---- label_values.py
    @abstractmethod
    def note_label_value(
        self,
        node: cst.CSTNode,
        value: cst.BaseExpression | None,
        by_collator: bool = False,
        tags: tuple[cst.CSTNode, ...] = (),
        written: bool = False,
        place: tuple[cst.FunctionDef | None, str] | None = None,
    ) -> None: ...

    @abstractmethod
    def carry_label_value(self, written_at: cst.CSTNode, carried_by: cst.CSTNode) -> None: ...

    @abstractmethod
    def note_labels_reaching(
        self, value: Value, ignored: int | str | None, graded_there: bool = True
    ) -> frozenset[int]: ...

    @abstractmethod
    def labels_ignored_by(self, sink: cst.CSTNode) -> int | str | None: ...

    @abstractmethod
    def note_tokenizer_label_padding(self, value: Value) -> None: ...

    @abstractmethod
    def class_attribute_value(self, expr: cst.BaseExpression) -> cst.BaseExpression | None: ...

    @abstractmethod
    def resolve_int(self, expr: cst.BaseExpression) -> int | str | None: ...

    @abstractmethod
    def label_padding(
        self, padded: Padded, pad: cst.BaseExpression | None, how: str, rows_written: bool = False
    ) -> None: ...

    @abstractmethod
    def label_pads_reaching(self, value: Value, sink: cst.CSTNode | None = None) -> None: ...

    @abstractmethod
    def masking_by_pad_id(self, node: cst.CSTNode, condition: cst.BaseExpression, labels: Value, how: str) -> None: ...

    @abstractmethod
    def selects_no_position(self, condition: cst.BaseExpression) -> bool: ...

    @abstractmethod
    def selects_ignored(self, target: cst.Subscript) -> bool: ...

    @abstractmethod
    def guarded_by_pad_id(self, target: cst.Subscript, labels: Value) -> bool: ...

    @abstractmethod
    def comprehension_masks_by_pad_id(self, expr, elt: cst.BaseExpression) -> None: ...

    @abstractmethod
    def collator_call(self, call: cst.Call, name: str) -> None: ...

    @abstractmethod
    def labels_built_here(self, value: Value) -> None: ...

    @abstractmethod
    def rows_of_one_width_only(self, value: Value) -> bool: ...

    @abstractmethod
    def where_masks_by_pad_id(self, call: cst.Call, values: list[Value]) -> None: ...

    # ---- losses.py
    @abstractmethod
    def mask_after_average(
        self, product: cst.BinaryOperation, mask: cst.BaseExpression, mask_value: Value, other: Value
    ) -> None: ...

    @abstractmethod
    def in_test_code(self) -> bool: ...

    @abstractmethod
    def loss_call(self, call: cst.Call) -> Value: ...

    @abstractmethod
    def loss_module_called(self, call: cst.Call, callee: Value) -> Value: ...

    @abstractmethod
    def reduced_whole(self, value: Value, averaged: bool = False) -> None: ...

    @abstractmethod
    def mean_over_ignored(self, call: cst.Call, receiver: cst.BaseExpression, value: Value) -> Value: ...

    @abstractmethod
    def written_into_loss(self, place: cst.BaseExpression) -> None: ...

    @abstractmethod
    def masked_mean(self, call: cst.Call, product: cst.BaseExpression, dims: bool) -> Value: ...

    @abstractmethod
    def padding_mask_of(
        self, product: cst.BinaryOperation, left: Value | None = None, right: Value | None = None
    ) -> cst.BaseExpression | None: ...

    @abstractmethod
    def is_loss(self, value: Value, by_name: bool = True) -> None: ...

    @abstractmethod
    def returns_a_loss(self) -> bool: ...

    # ---- label_aliases.py
    @abstractmethod
    def written_in_place(self, receiver: cst.BaseExpression, value_node: cst.BaseExpression | None) -> None: ...

    @abstractmethod
    def read_place(self, key: str, whole: bool) -> None: ...

    @abstractmethod
    def note_alias(self, key: str, target: cst.BaseExpression, value_node: cst.BaseExpression) -> None: ...

    # ---- shape_flow.py
    @abstractmethod
    def keep_padding(
        self, node: cst.CSTNode, data: Value, row: KeepsPadding, axes: list, kind: str | None = None
    ) -> Value: ...

    @abstractmethod
    def axes_of(self, call: cst.Call, skip: int = 0) -> list: ...

    # ---- zero_padding.py
    @abstractmethod
    def zero_buffer(self, call: cst.Call, kind: str, shape_args: list[cst.BaseExpression]) -> Value: ...

    @abstractmethod
    def cast_buffer(self, method: str, call: cst.Call, recv: Value) -> Value | None: ...

    @abstractmethod
    def zero_row_fill(self, target: cst.Subscript, base: Value, value: Value, value_node) -> Value: ...

    @abstractmethod
    def holds_token_ids(self, value: Value, node: cst.BaseExpression | None) -> bool: ...

    # ---- stores.py
    @abstractmethod
    def bind_loop_target(self, target: cst.BaseExpression, iterable: cst.BaseExpression) -> None: ...

    @abstractmethod
    def store_into(self, target: cst.Subscript, value: Value, value_node: cst.BaseExpression) -> None: ...

    @abstractmethod
    def value_out_of_view(self, value_node: cst.BaseExpression, value: Value) -> bool: ...

    @abstractmethod
    def selects_padding(self, condition: cst.BaseExpression) -> bool: ...

    @abstractmethod
    def selects_graded_positions(self, index: cst.BaseExpression | None) -> bool: ...
