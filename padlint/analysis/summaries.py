"""Calls to functions of the scanned module, followed with the caller's argument values: a small,
bounded, context-sensitive summary (a local `pad_rows()` pads, a local `hide_padding()` masks)."""

from __future__ import annotations

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.env import EMPTY, Env
from padlint.analysis.values import FunctionRef, Padded, ShapeOf, Value, tags_of
from padlint.analysis.walker_state import WalkerState

MAX_DEPTH = 3  # nested helper calls followed
MEMO = True  # reuse a helper's summary for the same call (off only in the test that compares)


class LocalCalls(WalkerState):
    """Mixed into the scope walker."""

    def local_call(self, call: cst.Call) -> Value | None:
        resolved = self.resolve_local(call.func)
        if resolved is None:
            return None
        fn, parent, bound = resolved
        values = [(a, self.evaluate(a.value)) for a in call.args]
        return self.summarise(fn, parent, values, bound)

    def resolve_local(self, func: cst.BaseExpression):
        if isinstance(func, cst.Name):
            held = self.env.get(func.value)
            for ref in tags_of(held or EMPTY, FunctionRef):
                return ref.node, ref.env, False
            fn = self.module_info.functions.get(func.value)
            if fn is not None and held is None:
                return fn, self.module_env, False
            if func.value == "self" and self.class_envs:
                return self.method_of("__call__")
            return None
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            return self.method_of(func.attr.value)
        return None

    def method_of(self, name: str):
        cls, env = self.class_envs[-1] if self.class_envs else (None, None)
        if cls is None:
            return None
        for stmt in cls.body.body:
            if isinstance(stmt, cst.FunctionDef) and stmt.name.value == name:
                return stmt, env, True
        return None

    def summarise(self, fn: cst.FunctionDef, parent: Env, values: list, bound: bool, batched=None) -> Value:
        if len(self.active) >= MAX_DEPTH or self.summaries_left <= 0:
            return EMPTY
        self.summaries_left -= 1
        params = list(P.parameters(fn.params))
        if bound and params:
            params = params[1:]
        args: dict[str, Value] = {}
        positional = [v for a, v in values if a.keyword is None and not a.star]
        for param, value in zip(params, positional):
            args[param.name.value] = value
        for a, v in values:
            if a.keyword is not None:
                args[a.keyword.value] = v
        # What an earlier walk of this very function padded, handed back to it (a returned shape
        # passed in again), is not padding that happened before this call.
        args = {k: frozenset(t for t in v if not _made_in(t, fn)) for k, v in args.items()}
        # A helper walked again with the same values, from the same place, over scopes that no
        # longer change, returns what it returned before: trainers call `self._helper(...)` dozens
        # of times with nothing padded. The budget is spent as if it were walked again.
        key = self._memo_key(fn, parent, args, batched)
        if key is not None and key in self.summary_memo:
            return self.summary_memo[key]
        saved_batched = self.module_info.map_batched.get(fn.name.value)
        if batched is not None:
            self.module_info.map_batched[fn.name.value] = batched
        try:
            env = self.walk_function(fn, parent, args)
        finally:
            if batched is not None:
                self.module_info.map_batched[fn.name.value] = saved_batched
        returned = getattr(env, "returned", EMPTY) if env is not None else EMPTY
        if key is not None:
            self.summary_memo[key] = returned
        return returned

    def _memo_key(self, fn: cst.FunctionDef, parent: Env, args: dict, batched) -> tuple | None:
        if not MEMO:
            return None
        env: Env | None = parent
        while env is not None:
            if not env.sealed:
                return None  # script code or an enclosing function still running: values may change
            env = env.parent
        return (
            fn,
            parent,
            tuple(sorted(args.items())),
            batched,
            self.facts.current_owner,
            frozenset(self.active),
            self.class_envs[-1][0] if self.class_envs else None,
            self.in_target_context,
            self.partial_read,
        )

    def summary_of_callable(self, expr: cst.BaseExpression, map_call: cst.Call) -> Value:
        batched_arg = P.keyword(map_call, "batched")
        batched = bool(batched_arg and P.int_value(batched_arg.value) == 1)
        if isinstance(expr, cst.Lambda):
            return self.walk_lambda(expr, batched)
        resolved = self.resolve_local(expr) if isinstance(expr, (cst.Name, cst.Attribute)) else None
        if resolved is None:
            return EMPTY
        fn, parent, bound = resolved
        return self.summarise(fn, parent, [], bound, batched)


def _made_in(tag, fn: cst.FunctionDef) -> bool:
    padded = tag if isinstance(tag, Padded) else getattr(tag, "padded", None) if isinstance(tag, ShapeOf) else None
    return isinstance(padded, Padded) and padded.made_in is fn
