"""What every part of the scope walker shares: its state, and the methods one part calls on another.

The walker (flow.ScopeWalker) is put together from parts, one module per concern: expressions,
padding steps, calls, local-call summaries, pad ids, label values, losses, label aliases, stores.
Each part is a subclass of WalkerState, so it reads the shared state created here and calls the
other parts through the methods WalkerState inherits from their declarations: ValueParts
(walker_value_parts.py: what values are and how padding, pad ids and labels change them) and
CallParts (walker_call_parts.py: the walk, calls, objects and consumers); the part named in each
group implements them. This is what lets each module be type-checked on its own, and mypy checks
that each implementation matches its declaration.
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from padlint.analysis.env import Env
from padlint.analysis.facts import AliasWrittenInPlace, ModuleFacts, RaisedByStore
from padlint.analysis.module_info import ModuleInfo
from padlint.analysis.values import Encoding, Padded, Value
from padlint.analysis.walker_call_parts import CallParts
from padlint.analysis.walker_value_parts import ValueParts

MAX_SUMMARIES = 300  # helper walks per module, so a pathological module stays linear
# Functions being walked at once: one walked for its own sake and three helpers below it (a script's
# main(), a loader of another module, the function it maps with, a helper that one calls).
MAX_DEPTH = 4
INSTANCE_METHOD_WALKS = 40  # methods walked over constructed instances, per module


class WalkerState(ValueParts, CallParts):
    """The state the walker's parts share, and (inherited) the methods they call on each other."""

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
        # A for loop's target -> the lists whose items its body wrote a field of (`for f in rows: f["k"] = v`)
        self.loop_item_writes: dict[int, set[str]] = {}
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
        # Encodings whose ids were masked in place at their pads (`enc["input_ids"][enc["attention_mask"] == 0]
        # = -100`): a later read of their ids, also where the encoding was handed, holds the mask.
        self.ids_masked_in: set[Encoding] = set()
        self.loop_aliases: dict[str, str] = {}  # loop variable -> the list it walks (in-place edits)
        self.guards: list[cst.BaseExpression] = []  # tests of the `if`s whose body is being walked
        self.returned_early = False  # a branch known to run ended in `return`: the rest of its block never runs
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
        # place -> the label and mask events its last store in this walk raised
        self.store_events: dict[str, RaisedByStore] = {}
        self.return_nodes: list[cst.BaseExpression] = []  # the expressions the function being walked returns
        # Objects and the project's other modules (objects.py, wiring.py, importers.py, project.py).
        self.project = project  # project.Project, or None for a text without a file
        self.module_context = context  # the module whose code is being walked (project.ModuleContext)
        # The call of the linted module's own code being evaluated: where a value it hands to code of
        # another module leaves this module (a harm found there is reported at it).
        self.home_call: cst.Call | None = None
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
        # `t != -100` beside `t != pad_id` in one `and`: the positions it picks hold no pad
        self.pads_excluded_at: set[cst.CSTNode] = set()

    def value_bound(self, name: cst.Name) -> cst.BaseExpression | None:
        """The expression last stored in `name` in the walk, when there is one other than `name` itself."""
        bound = self.value_nodes.get(name.value)
        return bound if isinstance(bound, cst.BaseExpression) and bound is not name else None

    def code(self, node: cst.CSTNode) -> str:
        return self.facts.code(node)
