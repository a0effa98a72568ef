"""The ordered, branch-aware walk of every scope of a module (ANALYSIS.md).

One walker per module. Scopes: the module body (scripts, notebooks), every function and method
(class methods see what `__init__` stored on `self`), nested functions (closures see the enclosing
scope), lambdas. Calls to functions of the same module are followed with the caller's argument
values (a small, bounded, context-sensitive summary), so a local `pad_rows()` pads and a local
`hide_padding()` masks. This module walks the scopes; statements.py runs their statements.
"""

from __future__ import annotations

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.call_dispatch import CallDispatch
from padlint.analysis.calls import CallEvaluator
from padlint.analysis.consumers import ConsumerQuestions
from padlint.analysis.env import EMPTY, Env
from padlint.analysis.expressions import ExpressionEvaluator
from padlint.analysis.facts import ModuleFacts, Positions
from padlint.analysis.hidden_states import HiddenStateFlow
from padlint.analysis.importers import Importers
from padlint.analysis.label_aliases import LabelAliases
from padlint.analysis.label_values import LabelValues
from padlint.analysis.losses import LossesAndMeans
from padlint.analysis.module_info import gather_module_info, owner_of
from padlint.analysis.objects import ObjectCalls
from padlint.analysis.pad_fills import PadFills
from padlint.analysis.pad_ids import PadIdMasks
from padlint.analysis.padding import PaddingSteps
from padlint.analysis.project_names import ProjectNames
from padlint.analysis.shape_flow import ShapeFlow
from padlint.analysis.sinks import SinkChecks
from padlint.analysis.statements import StatementWalker
from padlint.analysis.stores import StoresMixin
from padlint.analysis.summaries import LocalCalls
from padlint.analysis.values import DatasetOf, Encoding, Fields, Padded, TupleOf, Value, nodes_in_order
from padlint.analysis.wiring import Wiring
from padlint.analysis.zero_padding import ZeroPadding


class ScopeWalker(
    StatementWalker,
    ExpressionEvaluator,
    CallDispatch,
    PaddingSteps,
    PadFills,
    CallEvaluator,
    SinkChecks,
    ConsumerQuestions,
    LocalCalls,
    ObjectCalls,
    ProjectNames,
    Wiring,
    Importers,
    PadIdMasks,
    LabelValues,
    LossesAndMeans,
    LabelAliases,
    StoresMixin,
    ShapeFlow,
    ZeroPadding,
    HiddenStateFlow,
):
    """The walk itself: the module, functions, classes and lambdas as scopes; their statements are run by
    statements.py (the parts: walker_state.py)."""

    # ---- driving ------------------------------------------------------------------------------
    def run(self, module: cst.Module) -> None:
        self.execute_block(module.body, module_level=True)
        self.module_env.sealed = True
        for stmt in module.body:
            self.facts.current_owner = owner_of(stmt, stmt if isinstance(stmt, cst.ClassDef) else None)
            if isinstance(stmt, cst.FunctionDef) and stmt in self.module_info.dead_functions:
                continue  # a script's function nothing calls: it never runs
            if isinstance(stmt, cst.FunctionDef):
                env = self.walk_function(stmt, self.module_env)
                if env is not None and exports_padding(env.returned):
                    self.exported.add(stmt.name.value)  # an importer may take it to a model (importers.py)
            elif isinstance(stmt, cst.ClassDef):
                self.walk_class(stmt, self.module_env)
        self.facts.current_owner = None

    def walk_class(self, cls: cst.ClassDef, parent: Env, only=None) -> None:
        """Walk a class's methods over what `__init__` stores on self (`only`: the methods to walk
        besides `__init__`, for an importer walked for the module being linted)."""
        class_env = Env(parent)
        methods = [
            s
            for s in cls.body.body
            if isinstance(s, cst.FunctionDef) and (only is None or s.name.value == "__init__" or only(s))
        ]
        methods.sort(key=lambda f: f.name.value != "__init__")  # __init__ first: it sets self.*
        self.class_envs.append((cls, class_env))
        outer = self.facts.current_owner
        top_level = outer is not None and outer.kind == "class" and outer.node is cls
        try:
            for method in methods:
                if top_level:
                    self.facts.current_owner = owner_of(method, cls)
                env = self.walk_function(method, class_env)
                if env is not None and top_level and exports_padding(env.returned):
                    self.exported.add(cls.name.value)
                if method.name.value == "__init__" and env is not None:
                    for key, value in env.vars.items():
                        if key.startswith("self."):
                            class_env.vars[key] = value
                class_env.sealed = True  # __init__ (walked first) was the last to write it
        finally:
            self.class_envs.pop()
            self.facts.current_owner = outer

    def walk_function(self, fn: cst.FunctionDef, parent: Env, args: dict | None = None) -> Env | None:
        """Walk one function body; returns its final env (None if the walk was refused)."""
        if fn in self.active:
            return None
        saved = self._save()
        self.env = Env(parent)
        self.comprehension_stack, self.padded_targets, self.returns = [], [], []
        self.loop_targets = []
        self.str_names, self.list_names, self.str_seq_names = set(), set(), set()
        self.pending_alias_writes, self.guards, self.store_events = {}, [], {}
        self.function_name, self.current_fn = fn.name.value, fn
        self.return_nodes = []
        self.map_batched = self.module_info.map_batched.get(fn.name.value)
        for param in P.parameters(fn.params):
            annotation = param.annotation.annotation if param.annotation else None
            if isinstance(annotation, cst.Name) and annotation.value == "str":
                self.str_names.add(param.name.value)
            elif _is_str_sequence(annotation):
                self.str_seq_names.add(param.name.value)
            self.env.vars[param.name.value] = (args or {}).get(param.name.value, EMPTY)
        self.active.add(fn)
        try:
            self.execute_block(fn.body.body if isinstance(fn.body, cst.IndentedBlock) else fn.body.body)
            env = self.env
            env.returned = frozenset().union(*self.returns) if self.returns else EMPTY
            env.return_nodes = tuple(self.return_nodes)
            return env
        finally:
            self.active.discard(fn)
            self._restore(saved)

    def walk_lambda(self, expr: cst.Lambda, batched: bool | None = None, args: dict | None = None) -> Value:
        saved = self._save()
        self.env = Env(self.env)
        self.map_batched = batched
        self.function_name = "<lambda>"
        for param in P.parameters(expr.params):
            self.env.vars[param.name.value] = (args or {}).get(param.name.value, EMPTY)
        try:
            value = self.evaluate(expr.body)
            self.returned(value, expr)
            return value
        finally:
            self._restore(saved)

    def _save(self) -> tuple:
        return (
            self.env,
            self.comprehension_stack,
            self.loop_targets,
            self.padded_targets,
            self.returns,
            self.str_names,
            self.list_names,
            self.str_seq_names,
            self.map_batched,
            self.in_target_context,
            self.pending_alias_writes,
            self.function_name,
            self.current_fn,
            self.guards,
            self.store_events,
            self.return_nodes,
        )

    def _restore(self, saved: tuple) -> None:
        (
            self.env,
            self.comprehension_stack,
            self.loop_targets,
            self.padded_targets,
            self.returns,
            self.str_names,
            self.list_names,
            self.str_seq_names,
            self.map_batched,
            self.in_target_context,
            self.pending_alias_writes,
            self.function_name,
            self.current_fn,
            self.guards,
            self.store_events,
            self.return_nodes,
        ) = saved


def exports_padding(value: Value) -> bool:
    """Does a def hand back padded ids or an encoding (in a tuple or dict too)?"""
    for tag in value:
        if isinstance(tag, (Padded, Encoding)):
            return True
        if isinstance(tag, TupleOf) and any(exports_padding(item) for item in tag.items):
            return True
        if isinstance(tag, Fields) and any(exports_padding(v) for v in tag.entries.values()):
            return True
        if isinstance(tag, DatasetOf) and exports_padding(tag.item):
            return True  # a mapped dataset whose rows hold padded ids
    return False


def _is_str_sequence(annotation) -> bool:
    """`Sequence[str]`, `List[str]`, `list[str]`, `Iterable[str]`, `tuple[str, ...]`."""
    if not isinstance(annotation, cst.Subscript) or not annotation.slice:
        return False
    index = annotation.slice[0].slice
    return isinstance(index, cst.Index) and isinstance(index.value, cst.Name) and index.value.value == "str"


def analyse(
    module: cst.Module, positions: Positions, imports: P.Imports, filename: str = "-", source: str | None = None
) -> ModuleFacts:
    """The facts of one module; `source`: its text, where the caller has it (rendering it again is costly)."""
    from padlint.analysis.project import ModuleContext, Project

    facts = ModuleFacts(module=module, positions=positions, imports=imports, filename=filename, source_text=source)
    info = gather_module_info(module, facts)
    info.imports, info.filename, info.diffusion = imports, filename, imports.diffusion()
    project = Project(filename) if filename not in ("-", "<stdin>", "") else None
    context = ModuleContext(project.filename if project else "-", module, imports, info, home=True)
    walker = ScopeWalker(facts, info, project, context)
    context.env = walker.module_env
    context.definitions = {s.name.value: s for s in module.body if isinstance(s, (cst.FunctionDef, cst.ClassDef))}
    if project is not None:
        project.home = context
    with nodes_in_order(facts.order):
        walker.run(module)
        if project is not None and walker.exported:
            walker.walk_importers()
    return facts
