"""libcst's parser, without checking again what it built.

Every libcst node checks itself when made (`CSTNode.__post_init__` calls `_validate`: whitespace,
parentheses, operators). A node that libcst's native parser made from source text passes those
checks by construction; on the bench corpus they were about a third of the parse time (libcst notes
the same cost in a PERF comment on `__post_init__`). So while the parser runs, nodes skip them.
Nodes made any other way (fix code from `parse_expression`, `with_changes`) are checked as usual.
"""

from __future__ import annotations

import libcst as cst

_checked_init = None  # CSTNode.__post_init__ as libcst defines it, captured on first use


def _unchecked(self) -> None:
    pass


def parse_module(source: str) -> cst.Module:
    """`cst.parse_module(source)`, same result and errors, without the per-node checks."""
    global _checked_init
    base = cst.CSTNode
    if _checked_init is None:
        _checked_init = base.__dict__["__post_init__"]
    base.__post_init__ = _unchecked  # type: ignore[method-assign]
    try:
        return cst.parse_module(source)
    finally:
        # Always the captured original: a parse running in another thread only checks its nodes again.
        base.__post_init__ = _checked_init  # type: ignore[method-assign]
