"""Integer constants imported from another module of the scanned project.

`from .constants import IGNORE_INDEX` is resolved by reading that file (stdlib `ast`, cached per
path): only files next to or above the scanned one are read, never an installed package that the
scanned file merely imports, and nothing is imported or run. A small resolver beats astroid here
(see the closing note of issue 3 for the measurement): it needs one cheap parse of one file.
"""

from __future__ import annotations

import ast
import os
from functools import lru_cache

from padlint.analysis import reads
from padlint.files.source import quiet_parser

MAX_HOPS = 3  # `from .a import X` where a.py itself re-exports X from b.py, and so on
MAX_UP = 6  # directories searched upwards for an absolute import's package


def imported_int(filename: str, module: str, level: int, name: str, hops: int = 0) -> int | None:
    """The int value of `name` in `module` (relative `level`) as seen from `filename`, if plain."""
    if hops >= MAX_HOPS or not filename or filename in ("-", "<stdin>"):
        return None
    for path in _candidates(os.path.dirname(os.path.abspath(filename)), module, level):
        data_digest, found = _module_ints(path)
        if data_digest is not None:
            reads.note(path, data_digest)  # the result now depends on this file (run/cache.py)
        if name in found:
            value = found[name]
            if isinstance(value, tuple):  # re-exported: follow it
                return imported_int(path, value[0], value[1], value[2], hops + 1)
            return value
    return None


def _candidates(directory: str, module: str, level: int) -> list[str]:
    parts = [p for p in module.split(".") if p]
    if level > 0:
        base = directory
        for _ in range(level - 1):
            base = os.path.dirname(base)
        bases = [base]
    else:
        bases, base = [], directory
        for _ in range(MAX_UP):
            bases.append(base)
            base = os.path.dirname(base)
    out: list[str] = []
    for base in bases:
        stem = os.path.join(base, *parts) if parts else base
        out.extend(p for p in (stem + ".py", os.path.join(stem, "__init__.py")) if os.path.isfile(p))
    return out


def _module_ints(path: str) -> tuple[str | None, dict]:
    """The digest of a module's bytes (None: unreadable), and its top-level `NAME = <int>` and the
    names it re-exports with `from x import NAME`. Read again when the file changes (a process that
    lints twice, such as the tests or an editor, sees the new constants)."""
    try:
        st = os.stat(path)
    except OSError:
        return None, {}
    return _read_module_ints(path, st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=256)
def _read_module_ints(path: str, mtime_ns: int, size: int) -> tuple[str | None, dict]:
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None, {}
    try:
        with quiet_parser():
            tree = ast.parse(data[:200_000])
    except (SyntaxError, ValueError):
        return reads.digest(data), {}
    found: dict = {}
    for stmt in tree.body:
        targets, value = [], None
        if isinstance(stmt, ast.Assign):
            targets, value = stmt.targets, stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            targets, value = [stmt.target], stmt.value
        elif isinstance(stmt, ast.ImportFrom):
            for alias in stmt.names:
                found[alias.asname or alias.name] = (stmt.module or "", stmt.level, alias.name)
        number = _int(value)
        for target in targets:
            if isinstance(target, ast.Name) and number is not None:
                found[target.id] = number
    return reads.digest(data), found


def _int(node) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _int(node.operand)
        return -inner if inner is not None else None
    return None
