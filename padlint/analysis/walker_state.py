"""What every part of the scope walker shares: its state, and the methods one part calls on another.

The walker (flow.ScopeWalker) is put together from parts, one module per concern: expressions,
padding steps, calls, local-call summaries, pad ids, label values, losses, label aliases, stores.
Each part is a subclass of WalkerState, so it reads the shared state and calls the other parts
through the methods declared here; the part named in each group implements them. This is what
lets each module be type-checked on its own, and mypy checks that each implementation matches its
declaration.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any

import libcst as cst

from padlint.analysis.env import Env
from padlint.analysis.facts import AliasWrittenInPlace, LabelsAtSink, ModuleFacts, OnesAtMask
from padlint.analysis.module_info import ModuleInfo
from padlint.analysis.shape_ops import KeepsPadding
from padlint.analysis.values import Copy, Encoding, Fill, Ones, Padded, Value

MAX_SUMMARIES = 300  # helper walks per module, so a pathological module stays linear
INSTANCE_METHOD_WALKS = 40  # methods walked over constructed instances, per module


class WalkerState:
    def __init__(self, facts: ModuleFacts, info: ModuleInfo, project: Any = None, context: Any = None):
        self.facts = facts
        self.imports = facts.imports
        # The names a call to arange can end with here (mentions_call): `arange`, or what it was imported as.
        self.arange_names = {"arange"} | {
            local for local, (_, _, name) in self.imports.from_imports.items() if name == "arange"
        }
        self.module_info = info
        self.constants = info.constants
        self.module_env = Env()
        self.env = self.module_env
        self.comprehension_stack: list[cst.BaseComp] = []  # the comprehensions whose element is being evaluated
        self.padded_targets: list[Padded] = []
        self.loop_targets: list[cst.BaseAssignTargetExpression] = []  # of the for loops whose body is walked
        self.str_names: set[str] = set()
        self.list_names: set[str] = set()
        self.str_seq_names: set[str] = set()  # parameters annotated Sequence[str] / list[str]
        self.unused_loss_calls: set[cst.CSTNode] = set()  # `model(..., labels=x).logits`: the loss is never read
        self.store_nodes: dict[str, cst.CSTNode] = {}  # place -> the target it was last stored through
        self.value_nodes: dict[str, cst.BaseExpression] = {}  # place -> the expression last stored in it
        # `labels = input_ids` aliases, until written in place: (ids expression, version, kind, ids place)
        self.label_aliases: dict[str, tuple[cst.BaseExpression, int, str, str]] = {}
        # ids written through an alias, until read again: place -> (the write, the ids place)
        self.pending_alias_writes: dict[str, tuple[AliasWrittenInPlace, str]] = {}
        self.partial_read = False  # evaluating the base of `x["k"]`
        self.function_name: str | None = None  # the function being walked (None: module code)
        self.current_fn: cst.FunctionDef | None = None
        self.labels_replaced: set[Encoding] = set()  # encodings whose "labels" were overwritten
        self.loop_aliases: dict[str, str] = {}  # loop variable -> the list it walks (in-place edits)
        self.guards: list[cst.BaseExpression] = []  # tests of the `if`s whose body is being walked
        self.map_batched: bool | None = None
        self.in_target_context = False
        self.returns: list[Value] = []
        self.class_envs: list[tuple[cst.ClassDef, Env]] = []
        self.active: set[cst.FunctionDef] = set()  # functions being walked (no recursion)
        self.summaries_left = MAX_SUMMARIES
        # The last dict literal evaluated, with its string keys: key -> (value, value expression)
        self.last_dict: tuple[cst.Dict, dict[str, tuple[Value, cst.BaseExpression]]] | None = None
        self.walked: set[cst.CSTNode] = set()
        self.summary_memo: dict = {}  # (helper, what it is called with, from where) -> what it returned
        # place -> the label and mask events its last store in this walk raised: a later store into
        # the same place replaces the value the consumer receives, so those events are withdrawn.
        self.store_events: dict[str, tuple[list[LabelsAtSink], list[OnesAtMask]]] = {}
        self.return_nodes: list[cst.BaseExpression] = []  # the expressions the function being walked returns
        # Objects and the project's other modules (objects.py, wiring.py, importers.py, project.py).
        self.project = project  # project.Project, or None for a text without a file
        self.module_context = context  # the module whose code is being walked (project.ModuleContext)
        self.linted_context = context  # the module being linted: only its nodes become its facts
        self.contexts: dict[int, Any] = {id(self.module_env): context}  # globals env -> its module
        self.imported: dict[tuple, Value | None] = {}  # (module path, name) -> what an imported name is
        self.instances: dict[tuple, Value] = {}  # (class, constructor values) -> the instance
        self.bases: dict[int, list] = {}  # class -> its project base classes
        self.bound_envs: dict[tuple[int, int], Env] = {}
        self.instance_walks = INSTANCE_METHOD_WALKS
        self.exported: set[str] = set()  # top-level defs and classes that hand back padded values
        # call -> (what its callee or receiver holds, method name or None)
        self.callees: dict[cst.Call, tuple[Value, str | None]] = {}
        # Comparisons with the ignore index that pick the positions a token id is written back into
        # (`x.masked_fill_(x == -100, pad_id)`, `np.where(y != -100, y, pad_id)`): ids, not graded labels.
        self.ids_restored_at: set[cst.CSTNode] = set()

    def code(self, node: cst.CSTNode) -> str:
        return self.facts.code(node)

    # ---- expressions.py
    @abstractmethod
    def evaluate(self, expr: cst.BaseExpression | None) -> Value: ...

    @abstractmethod
    def evaluate_args(self, call: cst.Call) -> list[Value]: ...

    @abstractmethod
    def make_copy(self, node, data: Value, source_code: str) -> Copy: ...

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
    def concatenate(self, expr: cst.BinaryOperation, left: Value, right: Value) -> Value: ...

    @abstractmethod
    def list_padded(self, expr, data: Value, data_node, fill: Fill, side: str) -> Padded: ...

    @abstractmethod
    def ones_or_full(self, call: cst.Call, is_full: bool, kind: str) -> Value: ...

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
    def mark_place_masked(self, receiver) -> None: ...

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

    # ---- summaries.py
    @abstractmethod
    def local_call(self, call: cst.Call) -> Value | None: ...

    @abstractmethod
    def summary_of_callable(self, expr: cst.BaseExpression, map_call: cst.Call) -> Value: ...

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
    def note_label_value(self, node: cst.CSTNode, value: cst.BaseExpression | None) -> None: ...

    @abstractmethod
    def resolve_int(self, expr: cst.BaseExpression) -> int | str | None: ...

    @abstractmethod
    def label_padding(
        self, padded: Padded, pad: cst.BaseExpression | None, how: str, rows_written: bool = False
    ) -> None: ...

    @abstractmethod
    def label_pads_reaching(self, value: Value) -> None: ...

    @abstractmethod
    def masking_by_pad_id(self, node: cst.CSTNode, condition: cst.BaseExpression, labels: Value, how: str) -> None: ...

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
    def where_masks_by_pad_id(self, call: cst.Call, values: list[Value]) -> None: ...

    # ---- losses.py
    @abstractmethod
    def in_test_code(self) -> bool: ...

    @abstractmethod
    def loss_call(self, call: cst.Call) -> Value: ...

    @abstractmethod
    def loss_module_called(self, call: cst.Call, callee: Value) -> None: ...

    @abstractmethod
    def masked_mean(self, call: cst.Call, product: cst.BaseExpression, dims: bool) -> Value: ...

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

    # ---- summaries.py
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
    def mask_event(self, mask: Any, padded: Padded, code: str | None, sink: cst.CSTNode) -> Any: ...

    @abstractmethod
    def mask_sink(self, value: Value, sink: cst.CSTNode, labels_masked: bool = False, handed: bool = False) -> None: ...

    @abstractmethod
    def ids_sink(self, value: Value, sink: cst.CSTNode, carries_mask: bool) -> None: ...

    @abstractmethod
    def returned(self, value: Value, node: cst.CSTNode) -> None: ...

    # ---- consumers.py
    @abstractmethod
    def check_columns(self, call: cst.Call, method: str, recv: Value) -> None: ...

    @abstractmethod
    def one_row_text(self, expr: cst.BaseExpression) -> bool: ...

    @abstractmethod
    def right_pads_unread(self, padded: Padded, sink: cst.CSTNode) -> bool: ...

    @abstractmethod
    def causal_consumer(self) -> bool: ...

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
    def note_ids_restored(self, call: cst.Call, qualified: str | None) -> None: ...
