"""Calls to functions of the scanned module, followed with the caller's argument values: a small,
bounded, context-sensitive summary (a local `pad_rows()` pads, a local `hide_padding()` masks)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.env import EMPTY, Env, place_key
from padlint.analysis.objects import mask_passed
from padlint.analysis.one_row import own_nodes
from padlint.analysis.one_text import one_text_expression
from padlint.analysis.values import (
    ClassRef,
    Const,
    DictOf,
    Fields,
    FunctionRef,
    GoodMask,
    Instance,
    NoneValue,
    OneText,
    Padded,
    PadId,
    ShapeOf,
    TokenIds,
    TupleOf,
    Value,
    each_tag,
    tags_of,
)
from padlint.analysis.walker_state import MAX_DEPTH, WalkerState

MEMO = True  # reuse a helper's summary for the same call (off only in the test that compares)


class LocalCalls(WalkerState):
    """Mixed into the scope walker."""

    def local_call(self, call: cst.Call) -> Value | None:
        resolved = self.resolve_local(call.func)
        if resolved is None:
            return None
        fn, parent, bound = resolved
        return self.call_function(fn, parent, self.argument_values(call), bound, call)

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
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
            return self.class_attribute(func.value.value, func.attr.value)
        return None

    def class_attribute(self, class_name: str, name: str):
        """`Collator.join(...)` of a class of the project: its method, called through the class. Only
        a class method binds a receiver (the class); a plain method is handed its `self` explicitly."""
        for ref in tags_of(self.env.get(class_name) or EMPTY, ClassRef):
            for cls, env in self.lineage(ref.node, ref.env):
                for stmt in cls.body.body:
                    if isinstance(stmt, cst.FunctionDef) and stmt.name.value == name:
                        return stmt, env, P.method_kind(stmt) == "class"
        return None

    def method_of(self, name: str):
        cls, env = self.class_envs[-1] if self.class_envs else (None, None)
        if cls is None:
            return None
        for stmt in cls.body.body:
            if isinstance(stmt, cst.FunctionDef) and stmt.name.value == name:
                return stmt, env, True
        # Inherited: the base class's method, over this object's `self.*` (objects.py).
        for base, defining in self.lineage(cls, env.parent if env is not None else None)[1:]:
            for stmt in base.body.body:
                if isinstance(stmt, cst.FunctionDef) and stmt.name.value == name:
                    return stmt, self.bound_env(Instance(cls, env), defining), True
        return None

    def summarise(self, fn: cst.FunctionDef, parent: Env, values: list, bound: bool, batched=None, call=None) -> Value:
        """What a call of `fn` returns, walked with the values it is handed. A def declared to return
        `str` returns one text, also where its walk is cut (too deep, out of budget): its annotation
        says so without the walk."""
        declared = frozenset({OneText(fn.returns or fn)}) if _returns_str(fn) else EMPTY
        return self._summary(fn, parent, values, bound, batched, call) | declared

    def _summary(self, fn: cst.FunctionDef, parent: Env, values: list, bound: bool, batched=None, call=None) -> Value:
        if len(self.active) >= MAX_DEPTH or self.summaries_left <= 0 or fn in self.module_info.dead_functions:
            return EMPTY  # too deep, out of budget, or a function that never runs (a collate no loop feeds)
        self.summaries_left -= 1
        args = self.bind_arguments(fn, values, bound, call)
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
        returned = handed_back(returned, call, getattr(env, "return_nodes", ()))
        if key is not None:
            self.summary_memo[key] = returned
        return self.spelled_for_caller(returned, fn, bound, call)

    def spelled_for_caller(self, value: Value, fn: cst.FunctionDef, bound: bool, call) -> Value:
        """The pad value of what `fn` pads, also spelled in the caller's terms: `self.pad_id` of
        `__call__` is `self.collator.pad_id` at `self.collator(rows)`, a `fill` parameter is the
        argument handed to it. A fix written at the caller reads the pad value as the caller names it.
        So are the width padded to (`pad_to(ids, width, pad)` pads to the caller's `width`, which a mask
        of `[1] * width` or `ones(B, width)` then spans) and the lengths of the rows handed in."""
        if call is None or not isinstance(call, cst.Call) or not _holds(value, Padded):
            return value
        arguments = _argument_nodes(fn, bound, call)
        if not arguments:
            return value

        def respelled(padded: Padded) -> Padded:
            added = []
            for expr, names in padded.pad_spellings:
                roots = {name for name, *_ in names}
                # spelled with the callee's parameters (names that mean something else here)
                if roots and roots <= arguments.keys() and not self.still_valid(names):
                    spelled = expr.visit(_Substitute(arguments))
                    added.append((spelled, self.versions_of(spelled)))
            if padded.target in arguments:  # the width is a parameter: the caller's argument is it
                padded = padded.but(target=self.code(arguments[padded.target]))
            if padded.lengths is None and padded.data in arguments:
                # one row handed in, in a comprehension here: its lengths are the rows' lengths
                lengths, names = self.comprehension_lengths(arguments[padded.data])
                padded = padded.but(lengths=lengths, lengths_names=names) if lengths else padded
            return padded.but(pad_spellings=(*padded.pad_spellings, *added)) if added else padded

        return each_padded(value, respelled)

    def bind_arguments(self, fn: cst.FunctionDef, values: list, bound: bool, call) -> dict[str, Value]:
        """Parameter -> the value the caller hands it; a parameter left to its default holds
        `None` or the int it defaults to (`attention_mask=None`, `ignore_index=0`)."""
        # Ids known as token ids by their name where they are handed (`fill(e["input_ids"])`) are token
        # ids inside too: the parameter's own name (`values`) no longer tells.
        values = [(a, _named_token_ids(self, a, v)) for a, v in values]
        params = list(P.parameters(fn.params))
        if bound and params and P.method_kind(fn) != "static":  # a static method binds no receiver
            params = params[1:]
        args: dict[str, Value] = {}
        positional = _positional_values(values)
        plain = [p for p in params if p.star not in ("*", "**")]
        for param, value in zip(plain, positional):
            args[param.name.value] = value
        for a, v in values:
            if a.keyword is not None:
                args[a.keyword.value] = v
            elif a.star == "**":
                # `model(**batch)`: a dict whose keys are known hands each entry to the parameter of its name
                for key, entry in _spread_entries(v).items():
                    args.setdefault(key, entry)
        if not any(a.star for a, _ in values):
            for param in plain:
                if param.name.value not in args and param.default is not None:
                    args[param.name.value] = _default_value(param.default)
        # What an earlier walk of this very function padded, handed back to it (a returned shape
        # passed in again), is not padding that happened before this call.
        args = {k: frozenset(t for t in v if not _made_in(t, fn)) for k, v in args.items()}
        if call is not None:
            # Ids go in without their mask: if the callee hands them to a model, the mask was left
            # behind here (ids_sink reports the call). A pad id handed in is the caller's choice.
            passed = mask_passed(values)
            args = {k: frozenset(_crossing(t, None if passed else call) for t in v) for k, v in args.items()}
        return args

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

    def summary_of_callable(self, expr: cst.BaseExpression, map_call: cst.Call, rows: Value = EMPTY) -> Value:
        """What the function `map_call` maps returns, walked with `rows` (what an earlier map of the
        dataset returned) as its first parameter."""
        batched = P.map_batched(map_call)
        if isinstance(expr, cst.Lambda):
            params = list(P.parameters(expr.params))
            first = {params[0].name.value: rows} if params and rows else None
            return self.walk_lambda(expr, batched, first)
        resolved = self.resolve_local(expr) if isinstance(expr, (cst.Name, cst.Attribute)) else None
        if resolved is None and isinstance(expr, cst.Name):
            # `ds.map(tokenize)` with `tokenize` imported from a module of the project
            for ref in tags_of(self.project_value(expr.value) or EMPTY, FunctionRef):
                resolved = (ref.node, ref.env, False)
        if resolved is None:
            return EMPTY
        fn, parent, bound = resolved
        values = [(cst.Arg(cst.Name("_")), rows)] if rows else []
        return self.summarise(fn, parent, values, bound, batched)


def _default_value(default: cst.BaseExpression) -> Value:
    if isinstance(default, cst.Name) and default.value == "None":
        return frozenset({NoneValue(default)})
    number = P.int_value(default) if not isinstance(default, cst.Name) else None
    return frozenset({Const(number)}) if number is not None else EMPTY


def _crossing(tag, call):
    if isinstance(tag, PadId) and not tag.handed:
        return dataclasses.replace(tag, handed=True)
    if call is not None and isinstance(tag, Padded) and tag.encoding and tag.lost_at is None and tag.crossed_at is None:
        return tag.but(crossed_at=call)
    return tag


def handed_back(value: Value, call, return_nodes) -> Value:
    """What a walked function hands back, as its caller sees it: a crossing of this call is over,
    and ids read from an encoding of the callee leave its mask behind unless a mask goes back too
    (the encoding's name means nothing in the caller)."""
    if not value or not _holds(value, Padded):
        return value  # nothing to convert (most returns): rebuilding every tuple and dict costs
    mask_back = _holds(value, GoodMask)
    where = return_nodes[0] if return_nodes else None

    def convert(tag: Padded) -> Padded:
        if tag.crossed_at is call and call is not None:
            tag = tag.but(crossed_at=None)
        if tag.encoding and tag.lost_at is None and tag.crossed_at is None:
            tag = tag.but(encoding=None) if mask_back or where is None else tag.but(encoding=None, lost_at=where)
        return tag

    return each_padded(value, convert)


def each_padded(value: Value, change: Callable[[Padded], Padded]) -> Value:
    """`value` with `change` applied to every padded value in it, in tuples and feature dicts too."""
    return each_tag(value, lambda tag: change(tag) if isinstance(tag, Padded) else tag)


def _spread_entries(value: Value) -> dict[str, Value]:
    """The entries `**value` hands on by name: of each dict it may be, by constant key."""
    entries: dict[str, Value] = {}
    for held in tags_of(value, DictOf):
        for key, entry in held.entries.items():
            if isinstance(key, str) and key.isidentifier():
                entries[key] = entries.get(key, EMPTY) | entry
    return entries


def _named_token_ids(walker: WalkerState, arg: cst.Arg, value: Value) -> Value:
    if arg.star or tags_of(value, TokenIds) or not walker.holds_token_ids(value, arg.value):
        return value
    return value | {TokenIds(arg.value)}


def _positional_values(values: list) -> list[Value]:
    """The values handed by position, in order; `*t` of a tuple whose elements are known hands each
    (`prepare(*read_splits(path))`). After a starred value of unknown length, no position is known."""
    positional: list[Value] = []
    for arg, value in values:
        if arg.keyword is not None or arg.star == "**":
            continue
        if arg.star == "*":
            tuples = tags_of(value, TupleOf)
            if len(tuples) != 1:
                break
            positional.extend(tuples[0].items)
            continue
        positional.append(value)
    return positional


def _argument_nodes(fn: cst.FunctionDef, bound: bool, call: cst.Call) -> dict[str, cst.BaseExpression]:
    """Parameter -> the caller's expression for it, where that expression is a place (a name, an
    attribute, a constant subscript: reading it again reads the same value). A bound method's `self`
    is the call's receiver: `obj` of `obj.method(...)`, or the object called (`self.collator(...)`)."""
    params = [p for p in P.parameters(fn.params) if p.star not in ("*", "**")]
    found: dict[str, cst.BaseExpression] = {}
    if bound and params and P.method_kind(fn) != "static":
        func = call.func
        receiver = func.value if isinstance(func, cst.Attribute) and func.attr.value == fn.name.value else func
        found[params[0].name.value] = receiver
        params = params[1:]
    if any(a.star for a in call.args):
        return {k: v for k, v in found.items() if place_key(v) is not None}
    positional = [a.value for a in call.args if a.keyword is None]
    for param, value in zip(params, positional):
        found[param.name.value] = value
    for arg in call.args:
        if arg.keyword is not None:
            found[arg.keyword.value] = arg.value
    return {k: v for k, v in found.items() if place_key(v) is not None}


class _Substitute(cst.CSTTransformer):
    """Names replaced by the caller's expressions (an attribute's name and a keyword stay)."""

    def __init__(self, arguments: dict[str, cst.BaseExpression]) -> None:
        super().__init__()
        self.arguments = arguments

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.Attribute:
        return updated.with_changes(attr=original.attr)

    def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
        return updated.with_changes(keyword=original.keyword)

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        return self.arguments.get(original.value, updated)


def _returns_str(fn: cst.FunctionDef) -> bool:
    """`def render(...) -> str:` (also `-> "str"`), or a def whose every `return` hands back one string by its
    form (`return unicodedata.normalize("NFKC", text).strip().lower()`)."""
    returns = fn.returns.annotation if fn.returns is not None else None
    if (isinstance(returns, cst.Name) and returns.value == "str") or P.string_value(returns) == "str":
        return True
    found = [n for n in own_nodes(fn.body) if isinstance(n, (cst.Return, cst.Yield))]
    return bool(found) and all(
        isinstance(n, cst.Return) and n.value is not None and one_text_expression(n.value) for n in found
    )


def _holds(value: Value, kind: type) -> bool:
    for tag in value:
        if isinstance(tag, kind):
            return True
        if isinstance(tag, TupleOf) and any(_holds(item, kind) for item in tag.items):
            return True
        if isinstance(tag, Fields) and any(_holds(v, kind) for v in tag.entries.values()):
            return True
    return False


def _made_in(tag, fn: cst.FunctionDef) -> bool:
    padded = tag if isinstance(tag, Padded) else getattr(tag, "padded", None) if isinstance(tag, ShapeOf) else None
    return isinstance(padded, Padded) and padded.made_in is fn
