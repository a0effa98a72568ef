"""Functions that never run: defined in a script and called from nowhere.

A module with a `if __name__ == "__main__":` block is a program; a module-level function of it whose
name is never read (in the module, or in the modules beside it that import it) and that no decorator
registers is dead code: a loss
helper left behind after training switched to the model's own loss. Its body is not walked on its
own: what it would do to a batch reaches no model and no loss. A module without a main block is a
library whose functions any caller may use, and stays walked.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from typing import cast

import libcst as cst

from padlint.analysis import patterns as P


def name_reads(module: cst.CSTNode) -> Counter[str]:
    """How often each name is read in the module (or any node) (not a `def`'s name, an attribute, a keyword, a parameter)."""
    reads: Counter[str] = Counter()
    not_reads: set[int] = set()
    # `type() is`, not isinstance: libcst's ABC checks are slow on every node.
    for node in P.walk(module):
        kind = type(node)
        if kind is cst.Name:
            if id(node) not in not_reads:
                reads[cast(cst.Name, node).value] += 1
        elif kind is cst.Attribute:
            not_reads.add(id(cast(cst.Attribute, node).attr))
        elif kind is cst.FunctionDef or kind is cst.ClassDef:
            not_reads.add(id(cast(cst.FunctionDef | cst.ClassDef, node).name))
        elif kind is cst.Arg:
            keyword = cast(cst.Arg, node).keyword
            if keyword is not None:
                not_reads.add(id(keyword))
        elif kind is cst.Param:
            not_reads.add(id(cast(cst.Param, node).name))
    return reads


def dead_functions(module: cst.Module, filename: str) -> set[cst.FunctionDef]:
    """Module-level functions of a script (a main block) that nothing reads, here or in its importers."""
    if not any(isinstance(s, cst.FunctionDef) for s in module.body):
        return set()
    if not any(_is_main_block(stmt) for stmt in module.body):
        return set()
    reads = name_reads(module)
    # A decorated function may be registered by its decorator (`@registry.register`, `@app.command`) and
    # called by name from anywhere: alive.
    unread = {s for s in module.body if isinstance(s, cst.FunctionDef) and not s.decorators and not reads[s.name.value]}
    if not unread or filename in ("-", "<stdin>", ""):
        return unread
    from padlint.look.project_text import importers, text_of

    for path in importers(os.path.abspath(filename)):
        text = text_of(path) or ""
        unread = {fn for fn in unread if not re.search(rf"\b{re.escape(fn.name.value)}\b", text)}
    return unread


def _is_main_block(stmt: cst.CSTNode) -> bool:
    """`if __name__ == "__main__":` at module level."""
    if not isinstance(stmt, cst.If):
        return False
    pair = P.comparison_operand(stmt.test, (cst.Equal,))
    if pair is None:
        return False
    sides = (pair[0], pair[1])
    return any(isinstance(s, cst.Name) and s.value == "__name__" for s in sides) and any(
        P.string_value(s) == "__main__" for s in sides
    )


ENDS_BLOCK = (cst.Return, cst.Raise, cst.Continue, cst.Break)


def unreachable_statements(module: cst.Module, notebook: bool = False) -> list[cst.BaseStatement]:
    """Statements after a `return`, `raise`, `continue` or `break` of the same block: they never run.
    A notebook's cells are run one by one, so a `raise` in script code stops only its own cell: there
    only blocks inside definitions and compound statements count."""
    found: list[cst.BaseStatement] = []
    for node in P.walk(module):
        if type(node) is cst.IndentedBlock:
            body = node.body
        elif type(node) is cst.Module and not notebook:
            body = node.body
        else:
            continue
        for index, stmt in enumerate(body):
            if type(stmt) is cst.SimpleStatementLine and any(isinstance(small, ENDS_BLOCK) for small in stmt.body):
                found.extend(body[index + 1 :])
                break
    return found
