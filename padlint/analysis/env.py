"""Places (names, constant-key subscripts, attributes) and the values they hold in one scope."""

from __future__ import annotations

import libcst as cst

from padlint.analysis.patterns import string_value
from padlint.analysis.values import Value

EMPTY: Value = frozenset()


def place_key(expr: cst.BaseExpression) -> str | None:
    """`labels` -> "labels", `batch["labels"]` -> "batch['labels']", `self.pad_id` -> "self.pad_id"."""
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        base = place_key(expr.value)
        return f"{base}.{expr.attr.value}" if base else None
    if isinstance(expr, cst.Subscript) and len(expr.slice) == 1:
        index = expr.slice[0].slice
        if isinstance(index, cst.Index):
            key = string_value(index.value)
            base = place_key(expr.value)
            if key is not None and base:
                return field_place(base, key)
    return None


def field_place(holder: str, field: str) -> str:
    """The place of a dict's field: `batch["labels"]` (or `batch.pop("labels")`) -> "batch['labels']"."""
    return f"{holder}[{field!r}]"


def single_index(expr: cst.Subscript) -> cst.BaseExpression | None:
    """The index of `x[i]` (one index, no slice), if that is what it is."""
    if len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):
        return expr.slice[0].slice.value
    return None


def key_of_subscript(expr: cst.Subscript) -> str | None:
    """The constant string key of `x["k"]`, if that is what it is."""
    index = single_index(expr)
    return string_value(index) if index is not None else None


class Env:
    """Values of places in one scope; reads fall back to the enclosing scope."""

    returned: Value  # a function's env, once walked: what the function returns
    return_nodes: tuple = ()  # ... and the expressions it returns (summaries.handed_back)

    def __init__(self, parent: Env | None = None):
        self.vars: dict[str, Value] = {}
        self.versions: dict[str, int] = {}
        self.parent = parent
        self.scope = object()  # identity of the scope; branches of it share it
        self.dirty: set[str] | None = None  # in a branch: the places written since it was made
        self.sealed = False  # no more writes: the module after its script code, a class after __init__

    def get(self, key: str) -> Value | None:
        env: Env | None = self
        while env is not None:
            if key in env.vars:
                return env.vars[key]
            env = env.parent
        return None

    def owner(self, key: str) -> object | None:
        """The scope that binds `key` (None: unbound, a builtin or an import)."""
        env: Env | None = self
        while env is not None:
            if key in env.vars:
                return env.scope
            env = env.parent
        return None

    def version(self, key: str) -> int:
        env: Env | None = self
        while env is not None:
            if key in env.versions:
                return env.versions[key]
            env = env.parent
        return 0

    def set(self, key: str, value: Value) -> None:
        # Rebinding `batch` forgets what we knew of `batch['labels']` and `batch.x`.
        for sub in [k for k in self.vars if k.startswith((key + "[", key + "."))]:
            del self.vars[sub]
        self.vars[key] = value
        self.versions[key] = self.version(key) + 1
        if self.dirty is not None:
            self.dirty.add(key)

    def put(self, key: str, value: Value) -> None:
        """Set what a place holds without making it a new binding (a dict literal's entries)."""
        self.vars[key] = value
        if self.dirty is not None:
            self.dirty.add(key)

    def update(self, key: str, value: Value) -> None:
        """Add to what a place holds (in-place growth such as `rows.append(x)`)."""
        self.put(key, (self.get(key) or EMPTY) | value)

    def branch(self) -> Env:
        copy = Env(self.parent)
        copy.scope = self.scope
        copy.vars = dict(self.vars)
        copy.versions = dict(self.versions)
        copy.dirty = set()
        return copy

    def merge(self, *arms: Env) -> None:
        """Join branches into this env: a place may hold what any arm left in it."""
        if all(arm.dirty is not None for arm in arms):
            # A place no arm wrote holds in every arm what it holds here: only written ones change.
            keys = set().union(*(arm.dirty for arm in arms))  # type: ignore[arg-type]
        else:
            keys = set().union(*(arm.vars for arm in arms))
        for key in keys:
            value = EMPTY
            for arm in arms:
                value = value | arm.vars.get(key, self.vars.get(key, EMPTY))
            self.vars[key] = value
            versions = {arm.versions.get(key, self.versions.get(key, 0)) for arm in arms}
            self.versions[key] = max(versions) + (1 if len(versions) > 1 else 0)
            if self.dirty is not None:
                self.dirty.add(key)

    def places_holding(self, tag: object) -> list[str]:
        """Names of places (innermost scope first) whose value holds `tag`."""
        found: list[str] = []
        env: Env | None = self
        while env is not None:
            found.extend(k for k, v in env.vars.items() if tag in v and k not in found)
            env = env.parent
        return found
