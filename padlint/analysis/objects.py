"""Objects of the scanned project for the scope walker: classes, instances, methods, bases, models.

`RightPadder(tokenizer.pad_token_id)` walks `__init__` with that argument and keeps what it stored on
`self` as the instance's places; `self.collator(seqs)` then walks `__call__` (`forward` for an
nn.Module) of that instance with the caller's values, `builder.make_batch(caps)` the method, and
`super().__init__(...)` or an inherited method the base class's code, also when the base class is
in another module of the project (project.py). A constructor handed values the analysis tracks also
walks the class's other methods over the instance (what `__init__` stored can reach a feature dict
in any of them). A class that subclasses nn.Module (or a pretrained model) makes models: calling an
instance, or one of its methods that takes a mask, with padded ids and no mask is a model call
whatever the instance is called; so is what `*.from_pretrained(...)` of a model class returns.

What a name of another module of the project is, and the module context its code is walked in:
project_names.py.
"""

from __future__ import annotations

import re
from contextlib import contextmanager

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.env import EMPTY, Env
from padlint.analysis.values import (
    ClassRef,
    Const,
    Encoding,
    FunctionRef,
    GoodMask,
    Instance,
    Model,
    NoneValue,
    Padded,
    Partial,
    Value,
    tags_of,
)
from padlint.analysis.walker_state import MAX_DEPTH, WalkerState

# Base classes whose subclasses are models: calling an instance runs `forward` on token ids.
MODEL_BASES = re.compile(r"(^|\.)(Module|PreTrainedModel|\w+PreTrainedModel|PreTrainedModelWrapper)$")
# `X.from_pretrained(...)` returns a model when X names one (not a tokenizer, config or processor).
MODEL_FACTORY = re.compile(r"(Model|LM|Encoder|Decoder|For[A-Z]\w*|Transformer|Bert|GPT\w*|T5\w*)$")
NOT_MODEL_FACTORY = re.compile(r"Tokeni[sz]er|Processor|Config|FeatureExtractor|Scheduler|Pipeline", re.I)


def names_a_model(cls: str) -> bool:
    """Is a class of this (last) name a model, not a tokenizer, config or processor?"""
    return bool(MODEL_FACTORY.search(cls)) and not NOT_MODEL_FACTORY.search(cls)


# Methods of a model that hand back the same model.
MODEL_SELF_METHODS = {"to", "eval", "train", "cuda", "cpu", "half", "float", "bfloat16", "requires_grad_", "to_empty"}
# Methods of a pretrained model that run its forward pass (their signature is the model's).
MODEL_ENTRY_METHODS = {"forward", "__call__", "generate"}
MASK_PARAM = re.compile(r"(^|_)(attention_mask|attn_mask|mask|masks|padding_mask|pad_mask)$")


class ObjectCalls(WalkerState):
    """Mixed into the scope walker."""

    # ---- calls -------------------------------------------------------------------------------------
    def object_call(self, call: cst.Call, callee: Value) -> Value | None:
        """A call of project code that is not a same-module helper: None if it is none of these. A value
        that may be one of several (`model = MLP(...)` in one branch, `CNN(...)` in another) is each of
        them on some path: every one is called, in a fixed order, and what they return is joined."""
        results = [
            result
            for tag in tags_of(callee, (FunctionRef, ClassRef, Instance, Partial))
            if (result := self._call_one(call, tag)) is not None
        ]
        return frozenset().union(*results) if results else None

    def _call_one(self, call: cst.Call, tag) -> Value | None:
        if isinstance(tag, FunctionRef):  # imported, or held by an attribute
            return self.call_function(tag.node, tag.env, self.argument_values(call), False, call)
        if isinstance(tag, ClassRef):
            return self.instantiate(tag, self.argument_values(call), call)
        if isinstance(tag, Instance):
            method = self.find_method(tag, "__call__") or (self.find_method(tag, "forward") if tag.model else None)
            if method is not None:
                return self.call_method(tag, method, self.argument_values(call), call)
        if isinstance(tag, Partial):  # `collate = partial(pad_rows, pad_id=0)`, then `collate(rows)`
            values = partial_arguments(tag, self.argument_values(call))
            for fn in tags_of(tag.func, FunctionRef):
                return self.call_function(fn.node, fn.env, values, False, call)
        return None

    def method_of_instance(self, call: cst.Call, name: str, receiver: Value) -> Value | None:
        """`obj.name(...)` of a project class's instance: each instance `obj` may be, joined (object_call)."""
        results = []
        for inst in tags_of(receiver, Instance):
            found = self.find_method(inst, name)
            if found is not None:
                results.append(self.call_method(inst, found, self.argument_values(call), call))
        return frozenset().union(*results) if results else None

    def argument_values(self, call: cst.Call) -> list:
        return [(a, self.argument_value(a.value)) for a in call.args]

    def argument_value(self, expr: cst.BaseExpression) -> Value:
        """The value handed to a parameter: what the expression holds, and the literal it is."""
        value = self.evaluate(expr)
        if isinstance(expr, cst.Name) and expr.value == "None":
            return value | {NoneValue(expr)}
        number = P.int_value(expr) if not isinstance(expr, cst.Name) else None
        if number is None and not value and isinstance(expr, (cst.Name, cst.Attribute)):
            if not (isinstance(expr, cst.Name) and expr.value in ("True", "False")):
                resolved = self.resolve_int(expr)
                number = resolved if isinstance(resolved, int) else None
            if number is None and self.is_ignore(expr):
                # `padding_value=self.ignore_index`: the caller names the ignore value
                number = P.IGNORE_VALUE if isinstance(P.IGNORE_VALUE, int) else None
        return value | {Const(number)} if number is not None else value

    def call_function(self, fn: cst.FunctionDef, parent, values: list, bound: bool, call, cls=None) -> Value:
        context = self.context_of(parent)
        if (
            call is not None
            and self.module_context is self.linted_context  # a call in another module is its own fact
            and context is not None
            and context.aside is not None
        ):
            aside = context.aside
            if any(owner is not None and owner[1] is fn for _, owner, _tokenizer in aside.pad_eos_fallbacks):
                # the helper gives EOS as pad only where there is none: this module decides (note_pad_eos)
                self.facts.note_pad_eos(call, fallback=True)
            elif any(owner is not None and owner[1] is fn for _, owner, _tokenizer in aside.pad_eos):
                # `tok = load_tokenizer(name)` where the project's helper sets the pad token to EOS.
                self.facts.note_pad_eos(call)
        # `self._pad_to_max_len(labels, n)`: what the helper pads out of labels it is handed is labels
        # padded on their own (the -100 already in them stays), not a copy of padded ids.
        first = call.args[0] if call is not None and call.args else None
        handed_labels = first is not None and first.keyword is None and self.is_label_code(first.value, strict=True)
        with self.in_context(context), self.class_scope(cls, parent):
            result = self.summarise(fn, parent, values, bound, call=call)
        if not handed_labels:
            return result
        return frozenset(
            t.but(of_labels=True) if isinstance(t, Padded) and t.made_in is fn and not t.of_labels else t
            for t in result
        )

    def call_method(self, inst: Instance, found, values: list, call) -> Value:
        method, cls, env = found
        return self.call_function(method, self.bound_env(inst, env), values, True, call, cls=cls)

    @contextmanager
    def class_scope(self, cls, env):
        if cls is None:
            yield
            return
        self.class_envs.append((cls, env))
        try:
            yield
        finally:
            self.class_envs.pop()

    def bound_env(self, inst: Instance, defining_env) -> Env:
        """The env a method of `inst` runs over: the instance's `self.*` places, over the globals of
        the module that defines the method (an inherited method reads its own module's names)."""
        if self.context_of(inst.env) is self.context_of(defining_env):
            return inst.env
        key = (id(inst.env), id(defining_env))
        env = self.bound_envs.get(key)
        if env is None:
            env = self.bound_envs[key] = Env(defining_env)
            env.vars = dict(inst.env.vars)
            env.sealed = True
        return env

    # ---- classes -----------------------------------------------------------------------------------
    def instantiate(self, ref: ClassRef, values: list, call) -> Value:
        key = (ref.node, tuple((a.keyword.value if a.keyword else None, v) for a, v in values))
        if key in self.instances:
            return self.instances[key]
        self.instances[key] = EMPTY  # a constructor reached again while it runs: unknown
        env = Env(ref.env)
        env.sealed = True
        inst = Instance(ref.node, env, model=self.is_model_class(ref.node, ref.env))
        init = self.find_method(inst, "__init__")
        if init is not None:
            method, cls, defining = init
            walked = self.walked_env(method, self.bound_env(inst, defining), values, call, cls)
            if walked is not None:
                env.vars.update({k: v for k, v in walked.vars.items() if k.startswith("self.")})
        value = frozenset({inst}) | self.library_base_value(ref, values, call)
        # A map-style dataset's items are what `__getitem__` returns; an iterable one's what `__iter__` yields.
        item = self.find_method(inst, "__getitem__") or self.find_method(inst, "__iter__")
        if item is not None:
            from padlint.analysis.values import DatasetOf

            value |= {DatasetOf(self.call_method(inst, item, [], call))}
        if any(v for _, v in values) and any(env.vars.values()):
            self.walk_instance(inst, call)
        self.instances[key] = value
        return value

    def walked_env(self, fn, parent, values: list, call, cls) -> Env | None:
        """Walk `__init__` with the constructor's values; its final env (what it stored on self)."""
        if len(self.active) >= MAX_DEPTH or self.summaries_left <= 0:
            return None
        self.summaries_left -= 1
        with self.in_context(self.context_of(parent)), self.class_scope(cls, parent):
            args = self.bind_arguments(fn, values, True, call)
            env = self.walk_function(fn, parent, args)
        return env

    def walk_instance(self, inst: Instance, call) -> None:
        """Walk the class's other methods over this instance: a labels copy stored by `__init__`
        reaches the feature dict a method builds (`as_kwargs()`), whoever calls it."""
        for method, cls, defining in self.methods(inst):
            if method.name.value in ("__init__", "__getitem__") or self.instance_walks <= 0:
                continue
            self.instance_walks -= 1
            self.call_function(method, self.bound_env(inst, defining), [], True, call, cls=cls)

    def methods(self, inst: Instance) -> list:
        seen, found = set(), []
        for cls, env in self.lineage(inst.cls, self.class_env_of(inst)):
            for stmt in cls.body.body:
                if isinstance(stmt, cst.FunctionDef) and stmt.name.value not in seen:
                    seen.add(stmt.name.value)
                    found.append((stmt, cls, env))
        return found

    def class_env_of(self, inst: Instance):
        return inst.env.parent

    def find_method(self, inst: Instance, name: str):
        """(method, class, env it was defined in) of `name` on `inst`, looked up through its bases."""
        for cls, env in self.lineage(inst.cls, self.class_env_of(inst)):
            for stmt in cls.body.body:
                if isinstance(stmt, cst.FunctionDef) and stmt.name.value == name:
                    return stmt, cls, env
        return None

    def lineage(self, cls: cst.ClassDef, env, depth: int = 0) -> list:
        """The class and its project bases, depth first (close enough to the MRO for lookups)."""
        found = [(cls, env)]
        if depth > 4:
            return found
        for base in self.project_bases(cls, env):
            found += self.lineage(base.node, base.env, depth + 1)
        return found

    def project_bases(self, cls: cst.ClassDef, env) -> list[ClassRef]:
        key = id(cls)
        if key not in self.bases:
            refs = []
            with self.in_context(self.context_of(env)):
                for arg in cls.bases:
                    if arg.keyword is not None or not isinstance(arg.value, cst.Name):
                        continue
                    held = env.get(arg.value.value) if env is not None else None
                    if held is None:
                        held = self.project_value(arg.value.value)
                    refs += tags_of(held or EMPTY, ClassRef)
            self.bases[key] = refs
        return self.bases[key]

    def library_bases(self, cls: cst.ClassDef, env) -> list[str]:
        """Qualified names of the library classes among the class's bases (and its project bases')."""
        names = []
        for node, defining in self.lineage(cls, env):
            with self.in_context(self.context_of(defining)):
                for arg in node.bases:
                    if arg.keyword is None and isinstance(arg.value, (cst.Name, cst.Attribute)):
                        qualified = self.imports.qualify(arg.value)
                        if qualified:
                            names.append(qualified)
        return names

    def is_model_class(self, cls: cst.ClassDef, env) -> bool:
        return any(MODEL_BASES.search(name) for name in self.library_bases(cls, env))

    def library_base_value(self, ref: ClassRef, values: list, call) -> Value:
        """A project subclass of a library class the wiring table knows (a Trainer subclass)."""
        for name in self.library_bases(ref.node, ref.env):
            wired = self.wired_constructor(name, call, values)
            if wired is not None:
                return wired
        return EMPTY

    # ---- super() -----------------------------------------------------------------------------------
    def super_call(self, call: cst.Call) -> Value | None:
        func = call.func
        if not (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Call)
            and isinstance(func.value.func, cst.Name)
            and func.value.func.value == "super"
            and self.class_envs
        ):
            return None
        cls, env = self.class_envs[-1]
        for base in self.project_bases(cls, self.class_env_parent(env)):
            inst = Instance(base.node, env)
            found = self.find_method(inst, func.attr.value)
            if found is not None:
                method, owner, defining = found
                values = self.argument_values(call)
                walked = None
                if func.attr.value == "__init__":
                    walked = self.walked_env(method, self.bound_env(inst, defining), values, call, owner)
                    if walked is not None:
                        for key, value in walked.vars.items():
                            if key.startswith("self."):
                                self.env.set(key, value)
                    return EMPTY
                return self.call_method(inst, found, values, call)
        return None

    def class_env_parent(self, env):
        """The env the class was defined in, from a class or instance env (whose parent it is)."""
        return env.parent if env is not None else None

    # ---- models by provenance ----------------------------------------------------------------------
    def pretrained_model(self, name: str) -> bool:
        """Does `X.from_pretrained` (qualified) load a model?"""
        return names_a_model(name.rsplit(".", 2)[-2] if name.count(".") >= 1 else "")

    def model_receiver(self, value: Value, method: str | None) -> bool:
        """Is a call on this value (`value(...)`, or `value.method(...)`) a model call? A pretrained
        model's own methods other than its forward pass and `generate` have signatures not in view
        (remote code, `encode_text(ids)` that builds its mask from the ids): not model calls."""
        if tags_of(value, Model) and (method is None or method in MODEL_ENTRY_METHODS):
            return True
        for inst in tags_of(value, Instance):
            if not inst.model:
                continue
            found = self.find_method(inst, method or "forward")
            if found is not None and any(MASK_PARAM.search(p.name.value) for p in P.parameters(found[0].params)):
                return True
        return False

    def accepts_mask(self, call: cst.Call) -> bool | None:
        """Does the callee of `call` take `attention_mask=`? True for a pretrained model of the library
        table and for project code whose signature has the parameter (or `**kwargs`); False for project
        code whose signature has neither; None when the callee's signature is not in view."""
        found = self.callees.get(call)
        if found is None:
            return None
        value, method = found
        if tags_of(value, Model) and (method is None or method in MODEL_ENTRY_METHODS):
            return True
        verdicts = set()
        for inst in tags_of(value, Instance):
            names = [method] if method else ["__call__", "forward"] if inst.model else ["__call__"]
            defined = next((m for m in map(lambda name: self.find_method(inst, name), names) if m is not None), None)
            if defined is None:
                return None
            verdicts.add(takes_keyword(defined[0], "attention_mask"))
        if method is None:
            verdicts |= {takes_keyword(ref.node, "attention_mask") for ref in tags_of(value, FunctionRef)}
        return verdicts.pop() if len(verdicts) == 1 else None


def takes_keyword(fn: cst.FunctionDef, keyword: str) -> bool:
    """Can `fn` be called with `keyword=`: a parameter of that name that is not positional-only, or `**kwargs`?"""
    if fn.params.star_kwarg is not None:
        return True
    named = [*fn.params.params, *fn.params.kwonly_params]
    return any(p.name.value == keyword for p in named)


def mask_passed(values: list) -> bool:
    """Does a call hand over a mask with the ids (`attention_mask=...`, a mask positionally, `**enc`)?"""
    for arg, value in values:
        if arg.star == "**" or tags_of(value, GoodMask) or tags_of(value, Encoding):
            return True
        if arg.keyword is not None and MASK_PARAM.search(arg.keyword.value):
            if not all(isinstance(t, NoneValue) for t in value) or not value:
                return True
    return False


def without_crossing(value: Value, call) -> Value:
    """What a walked call hands back: its own crossing is over (the caller holds the mask again)."""
    return frozenset(t.but(crossed_at=None) if isinstance(t, Padded) and t.crossed_at is call else t for t in value)


def partial_arguments(partial: Partial, given: list) -> list:
    """`partial(f, a, k=v)(b)` calls `f(a, b, k=v)`: the (Arg, value) pairs in that order."""

    def arg(keyword: str | None) -> cst.Arg:
        return cst.Arg(cst.Name("_"), keyword=cst.Name(keyword) if keyword else None)

    first = [(arg(None), v) for k, v in partial.args if k is None]
    return first + given + [(arg(k), v) for k, v in partial.args if k is not None]
