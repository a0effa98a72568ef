"""The methods of the walker's walk and call parts, declared for the parts that call them: how the
walk runs scopes and statements (flow.py, statements.py), follows calls into methods, tokenizers,
local functions, objects, the project's other modules and framework wiring, and where values meet
their consumers (sinks.py, consumers.py). Each group is implemented by the module it names;
WalkerState (walker_state.py) inherits these declarations, so every part type-checks on its own and
mypy checks each implementation against its declaration here.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any

import libcst as cst

from padlint.analysis.env import Env
from padlint.analysis.values import Padded, Value


class CallParts:
    """The walk and call parts' methods one part calls on another (implemented by the module each group names)."""

    # ---- hidden_states.py
    @abstractmethod
    def model_output(self, call: cst.Call) -> Value: ...

    @abstractmethod
    def states_field(self, base: Value, field: str) -> Value | None: ...

    @abstractmethod
    def one_layer(self, base: Value) -> Value | None: ...

    @abstractmethod
    def states_kept(self, method: str, recv: Value) -> Value | None: ...

    @abstractmethod
    def mean_over_positions(
        self, call: cst.Call, states: cst.BaseExpression, value: Value, method: bool, reduction: str = "mean"
    ) -> None: ...

    @abstractmethod
    def last_position_read(self, expr: cst.Subscript, base: Value) -> None: ...

    # ---- flow.py
    @abstractmethod
    def walk_function(self, fn: cst.FunctionDef, parent: Env, args: dict | None = None) -> Env | None: ...

    @abstractmethod
    def walk_lambda(self, expr: cst.Lambda, batched: bool | None = None, args: dict | None = None) -> Value: ...

    @abstractmethod
    def walk_class(self, cls: cst.ClassDef, parent: Env, only: Any = None) -> None: ...

    # ---- statements.py
    @abstractmethod
    def assign(self, target: cst.BaseExpression, value: Value, value_node: cst.BaseExpression) -> None: ...

    @abstractmethod
    def execute(self, stmt: cst.CSTNode) -> None: ...

    @abstractmethod
    def execute_block(self, body: Any, module_level: bool = False) -> None: ...

    @abstractmethod
    def returned_fields(self, expr: cst.BaseExpression) -> Value: ...

    # ---- calls.py
    @abstractmethod
    def label_sink(
        self, value: Value, value_node: cst.CSTNode, sink: cst.CSTNode, kind: str, held_in: str | None = None
    ) -> None: ...

    @abstractmethod
    def method_call(
        self, call: cst.Call, method: str, receiver: cst.BaseExpression, recv: Value | None = None
    ) -> Value: ...

    @abstractmethod
    def masked_fill(
        self, call: cst.Call, method: str, receiver, recv: Value, condition: cst.Arg | None = None, fill=None
    ) -> Value: ...

    @abstractmethod
    def mark_place_masked(self, receiver) -> None: ...

    @abstractmethod
    def is_mask(self, expr: cst.BaseExpression, value: Value) -> bool: ...

    @abstractmethod
    def tokenizer_call(self, call: cst.Call, method: str | None) -> Value: ...

    @abstractmethod
    def current_mask_code(self, padded: Padded | None) -> str | None: ...

    @abstractmethod
    def check_feature_dict(self, node, entries: dict, splat: bool, kind: str) -> None: ...

    @abstractmethod
    def check_call_keywords(self, call: cst.Call) -> None: ...

    @abstractmethod
    def is_single_text(self, expr: cst.BaseExpression, value: Value | None = None) -> bool | None: ...

    @abstractmethod
    def holds_texts(self, iterable: cst.BaseExpression) -> bool: ...

    # ---- statements.py
    @abstractmethod
    def texts_one_by_one(self, expr: cst.BaseExpression) -> bool: ...

    @abstractmethod
    def walking_home(self) -> bool: ...

    # ---- summaries.py
    @abstractmethod
    def local_call(self, call: cst.Call) -> Value | None: ...

    @abstractmethod
    def summary_of_callable(self, expr: cst.BaseExpression, map_call: cst.Call, rows: Value = ...) -> Value: ...

    @abstractmethod
    def summarise(
        self,
        fn: cst.FunctionDef,
        parent: Env,
        values: list,
        bound: bool,
        batched: bool | None = None,
        call: cst.Call | None = None,
    ) -> Value: ...

    @abstractmethod
    def bind_arguments(
        self, fn: cst.FunctionDef, values: list, bound: bool, call: cst.Call | None
    ) -> dict[str, Value]: ...

    # ---- objects.py
    @abstractmethod
    def call_function(
        self, fn: cst.FunctionDef, parent: Env, values: list, bound: bool, call: cst.Call | None, cls: Any = None
    ) -> Value: ...

    @abstractmethod
    def call_method(self, inst: Any, found: tuple, values: list, call: cst.Call | None) -> Value: ...

    @abstractmethod
    def argument_values(self, call: cst.Call) -> list: ...

    @abstractmethod
    def argument_value(self, expr: cst.BaseExpression) -> Value: ...

    @abstractmethod
    def object_call(self, call: cst.Call, callee: Value) -> Value | None: ...

    @abstractmethod
    def method_of_instance(self, call: cst.Call, name: str, receiver: Value) -> Value | None: ...

    @abstractmethod
    def super_call(self, call: cst.Call) -> Value | None: ...

    @abstractmethod
    def pretrained_model(self, name: str) -> bool: ...

    @abstractmethod
    def model_receiver(self, value: Value, method: str | None) -> bool: ...

    @abstractmethod
    def accepts_mask(self, call: cst.Call) -> bool | None: ...

    @abstractmethod
    def find_method(self, inst: Any, name: str) -> tuple | None: ...

    @abstractmethod
    def lineage(self, cls: cst.ClassDef, env: Any, depth: int = 0) -> list: ...

    @abstractmethod
    def bound_env(self, inst: Any, defining_env: Any) -> Env: ...

    # ---- project_names.py
    @abstractmethod
    def in_context(self, context: Any) -> Any: ...

    @abstractmethod
    def prepare_context(self, context: Any) -> None: ...

    @abstractmethod
    def project_value(self, name: str, handed: bool = True) -> Value | None: ...

    @abstractmethod
    def module_member(self, expr: cst.Attribute) -> Value | None: ...

    @abstractmethod
    def callee_value(self, func: cst.BaseExpression, call: cst.Call | None = None) -> Value: ...

    @abstractmethod
    def context_of(self, env: Any) -> Any: ...

    # ---- wiring.py
    @abstractmethod
    def wiring_call(self, call: cst.Call, qualified: str) -> Value | None: ...

    @abstractmethod
    def wired_constructor(self, qualified: str, call: cst.Call, values: list | None) -> Value | None: ...

    @abstractmethod
    def iterated(self, value: Value) -> Value: ...

    # ---- sinks.py
    @abstractmethod
    def collated_labels_only_decoded(self, key: str) -> bool: ...

    @abstractmethod
    def mask_event(self, mask: Any, padded: Padded, code: str | None, sink: cst.CSTNode) -> Any: ...

    @abstractmethod
    def mask_sink(
        self, value: Value, sink: cst.CSTNode, labels_masked: bool = False, handed: cst.Call | None = None
    ) -> None: ...

    @abstractmethod
    def ids_sink(self, value: Value, sink: cst.CSTNode, carries_mask: bool) -> None: ...

    @abstractmethod
    def returned(self, value: Value, node: cst.CSTNode) -> None: ...

    # ---- consumers.py
    @abstractmethod
    def stated_right(self, padding: cst.CSTNode) -> bool: ...

    @abstractmethod
    def check_columns(self, call: cst.Call, method: str, recv: Value) -> None: ...

    @abstractmethod
    def one_row_text(self, expr: cst.BaseExpression) -> bool: ...

    @abstractmethod
    def copies_of_one_text(self, expr: cst.BaseExpression) -> bool: ...

    @abstractmethod
    def right_pads_unread(self, side: str, sink: cst.CSTNode | None, stated: bool = False) -> bool: ...

    @abstractmethod
    def causal_consumer(self) -> bool: ...

    @abstractmethod
    def causal_models_only(self) -> bool: ...

    @abstractmethod
    def continued_ids(self, call: cst.Call, receiver: cst.BaseExpression) -> Value: ...

    @abstractmethod
    def model_class(self, receiver: cst.BaseExpression) -> str | None: ...

    @abstractmethod
    def key_padding_masks(self, call: cst.Call, keywords: dict) -> None: ...

    @abstractmethod
    def loaded_model_called(self, call: cst.Call) -> bool: ...

    @abstractmethod
    def pads_read_unmasked(self, call: cst.Call, padded: Padded) -> tuple[str, str] | None: ...

    @abstractmethod
    def takes_row_labels(self, sink: cst.CSTNode) -> bool: ...

    @abstractmethod
    def consumer_builds_mask(self, call: cst.Call, keywords: dict) -> bool: ...

    @abstractmethod
    def rejects_mask(self, call: cst.Call) -> bool: ...

    @abstractmethod
    def masks_refused(self) -> bool: ...

    @abstractmethod
    def made_by_factory(self, call: cst.Call) -> bool: ...

    @abstractmethod
    def known_not_a_model(self, call: cst.Call) -> bool: ...

    @abstractmethod
    def resolve_local(self, func: cst.BaseExpression) -> Any: ...

    @abstractmethod
    def is_model_class(self, cls: cst.ClassDef, env: Any) -> bool: ...

    @abstractmethod
    def runs_checkpoint_code(self, call: cst.Call) -> bool: ...

    @abstractmethod
    def only_checkpoint_code(self) -> bool: ...

    @abstractmethod
    def loss_discarded(self, call: cst.Call) -> bool: ...

    @abstractmethod
    def model_by_provenance(self, call: cst.Call) -> bool: ...

    @abstractmethod
    def consumer_attends(self, call: cst.CSTNode) -> bool: ...

    @abstractmethod
    def note_ids_restored(self, call: cst.Call, qualified: str | None) -> None: ...
