"""What a name of the project's own code is, for the scope walker: a function or class imported from
another module of the project (`from .collate import pad_rows`), a member of a project module imported
whole (`data.collate`), or a def of the module being walked when that module is read for its
definitions; and the module contexts such code is walked in (its imports, constants and globals,
gathered once per module). project.py finds and parses the modules; objects.py calls what is found.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.env import EMPTY, Env, place_key
from padlint.analysis.values import ClassRef, FunctionRef, NoneValue, Value
from padlint.analysis.walker_state import WalkerState


class ProjectNames(WalkerState):
    """Mixed into the scope walker: names of the project's code, and the modules they are walked in."""

    # ---- module contexts ----------------------------------------------------------------------
    @contextmanager
    def in_context(self, context):
        """Walk code of `context`'s module: its imports, constants and globals."""
        if context is None or context is self.module_context:
            yield
            return
        self.prepare_context(context)
        saved = (self.module_context, self.imports, self.module_info, self.constants, self.module_env)
        self.module_context, self.imports, self.module_info = context, context.imports, context.info
        self.constants, self.module_env = context.info.constants, context.env
        try:
            yield
        finally:
            self.module_context, self.imports, self.module_info, self.constants, self.module_env = saved

    def prepare_context(self, context) -> None:
        """A module read for its definitions: its module facts and the globals its top level binds
        (nothing is reported from them, and no helper is walked for them)."""
        if context.info is not None:
            self.contexts[id(context.env)] = context  # read by an earlier lint of this process
            return
        from padlint.analysis.facts import ModuleFacts
        from padlint.analysis.module_info import gather_module_info

        aside = ModuleFacts(module=context.module, positions={}, imports=context.imports, filename=context.path)
        context.aside = aside
        context.info = gather_module_info(context.module, aside)
        if context.partial:
            from padlint.analysis.module_info import gather_definition

            for node in context.definitions.values():  # parsed before the module's facts were asked for
                gather_definition(cst.Module(body=[node]), node, context.info, aside)
        context.info.imports, context.info.filename = context.imports, context.path
        context.info.diffusion = context.imports.diffusion()
        context.env = Env()
        self.contexts[id(context.env)] = context
        saved = (self.facts, self.summaries_left, self.env)
        self.facts, self.summaries_left = aside, 0
        try:
            with self.in_context(context):
                self.env = context.env
                self.execute_block(
                    [s for s in context.module.body if not isinstance(s, (cst.If, cst.For, cst.While, cst.With))],
                    module_level=True,
                )
        finally:
            self.facts, self.summaries_left, self.env = saved
            context.env.sealed = True

    def context_of(self, env: Any) -> Any:
        """The module whose globals `env` sits in (None: the module being linted)."""
        while env is not None and env.parent is not None:
            env = env.parent
        return self.contexts.get(id(env))

    # ---- names of project code ------------------------------------------------------------------
    def project_value(self, name: str, handed: bool = True) -> Value | None:
        """What an imported name of the project is: a function or class of another module. Called
        with `handed` false (a call that hands it nothing tracked), one that makes nothing itself
        is left unknown, and not remembered: another call may hand it padded values."""
        if self.project is None:
            return None
        source = self.imports.from_imports.get(name)
        if source is None:
            return self.sibling_value(name, handed)
        key = (self.module_context.path if self.module_context else None, name)
        if key in self.imported:
            return self.imported[key]
        unfed = (*key, "unfed")  # refused to a call that handed nothing tracked: asked again only if fed
        if not handed and unfed in self.imported:
            return None
        module, level, original = source
        found = self.project.definition(
            self.module_context.path if self.module_context else None, module, level, original, handed
        )
        value = self.definition_value(found)
        self.imported[key if value is not None or handed else unfed] = value
        return value

    def hands_tracked(self, call: cst.Call) -> bool:
        """Can the call hand its callee a value the analysis tracks? False only when every argument
        is a name or attribute holding nothing tracked, or a literal that is not an int (an int may
        be a pad id, a fill or the ignore value); anything else is taken to hand one."""
        for arg in call.args:
            value = arg.value
            if isinstance(value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.Float)):
                continue
            key = place_key(value) if isinstance(value, (cst.Name, cst.Attribute)) else None
            if key is None:
                return True
            held = self.env.get(key)
            if held is None and key in self.imports.from_imports:
                return True  # a function or class handed on (a collate function): its callee may call it
            if held and any(not isinstance(t, NoneValue) for t in held):
                return True
        return False

    def module_member(self, expr: cst.Attribute) -> Value | None:
        """What `data.collate` names when `data` is a module of the project imported whole
        (`import data`, `import pkg.data as data`, `from . import data`): its function or class."""
        if self.project is None:
            return None
        parts = P.attribute_chain(expr)
        if len(parts) < 2 or self.env.get(parts[0]) is not None:
            return None
        if parts[0] in self.imports.from_imports and len(parts) == 2:
            module, level, original = self.imports.from_imports[parts[0]]
            module = f"{module}.{original}" if module else original
        elif parts[0] in self.imports.aliases:
            module, level = ".".join([self.imports.aliases[parts[0]], *parts[1:-1]]), 0
        else:
            return None
        from_path = self.module_context.path if self.module_context else None
        key = (from_path, ".".join(parts))
        if key not in self.imported:
            self.imported[key] = self.definition_value(self.project.definition(from_path, module, level, parts[-1]))
        return self.imported[key]

    def definition_value(self, found) -> Value | None:
        """A project definition (node, context) as a value: a function or class of its module."""
        if found is None:
            return None
        node, context = found
        self.prepare_context(context)
        ref = FunctionRef(node, context.env) if isinstance(node, cst.FunctionDef) else ClassRef(node, context.env)
        if not context.home:
            self.facts.dependencies.add(context.path)
        return frozenset({ref})

    def sibling_value(self, name: str, handed: bool = True) -> Value | None:
        """A def or class of the module being walked, when that module is another module of the
        project read by its definitions: it is bound in the module's globals when first named (for
        a call that hands it nothing tracked, only if it can make something itself)."""
        context = self.module_context
        if context is None or not context.partial or name not in context.spans:
            return None
        if not handed and name not in context.definitions and not context.makes_something(name):
            return None
        node = context.definition(name)
        if node is None:
            return None
        ref = FunctionRef(node, context.env) if isinstance(node, cst.FunctionDef) else ClassRef(node, context.env)
        value = frozenset({ref})
        if context.env is not None:
            context.env.vars.setdefault(name, value)
        return value

    def callee_value(self, func: cst.BaseExpression, call: cst.Call | None = None) -> Value:
        """What a callee names: a local or imported function, a class, an instance, a model."""
        if isinstance(func, cst.Name):
            held = self.env.get(func.value)
            if held is None:
                held = self.project_value(func.value, call is None or self.hands_tracked(call))
            return held or EMPTY
        return self.evaluate(func)
