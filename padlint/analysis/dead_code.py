"""Functions that never run: defined in a script and called from nowhere.

A module with a `if __name__ == "__main__":` block is a program, and so is a `.py` script that parses
its arguments or loops at its top level, or a notebook whose cells do any work (a call at the top
level) (`runs_as_program`); a module-level function of it whose name is never read (in the module, or
in the modules beside it that import it) and that no decorator registers is dead code: a loss helper
left behind after training switched to the model's own loss, a tokenizing function a notebook defines
and never maps. Its body is not walked on its own: what it would do to a batch reaches no model and no
loss. A module that only defines and sets up (loads a tokenizer, builds constants) is a library whose
functions any caller may use, and stays walked; so does a notebook of definitions only.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from typing import cast

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.branches import path_to


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
    if not runs_as_program(module, filename):
        return set()
    reads = name_reads(module)
    # A decorated function may be registered by its decorator (`@registry.register`, `@app.command`) and
    # called by name from anywhere: alive.
    unread = {s for s in module.body if isinstance(s, cst.FunctionDef) and not s.decorators and not reads[s.name.value]}
    if not unread or filename in ("-", "<stdin>", ""):
        return unread
    from padlint.look.project_text import importers, text_of

    if filename.endswith(".ipynb"):
        # IPython lines are blank to the analysis (`%time batch = collate(rows)`, `collate?`): a name the
        # notebook's own text mentions beside its `def` may be read there
        raw = text_of(os.path.abspath(filename))
        if raw is None:
            return set()  # (a notebook given on stdin: its IPython lines are not at hand)
        return {fn for fn in unread if len(re.findall(rf"\b{re.escape(fn.name.value)}\b", raw)) <= 1}

    for path in importers(os.path.abspath(filename)):
        text = text_of(path) or ""
        unread = {fn for fn in unread if not re.search(rf"\b{re.escape(fn.name.value)}\b", text)}
    return unread


def runs_as_program(module: cst.Module, filename: str) -> bool:
    """Does the module run as a program: a main block; for a `.py` script, arguments parsed or a loop at
    its top level; for a notebook, any work at its top level (its cells are run top to bottom, and
    nothing imports a notebook)?"""
    if filename.endswith(".ipynb"):
        return any(is_main_block(stmt) or runs_code(stmt) for stmt in module.body)
    return any(is_main_block(stmt) or _program_statement(stmt) for stmt in module.body)


def program_nobody_imports(module: cst.Module, filename: str) -> bool:
    """A program (runs_as_program) that no module beside it imports: what it leaves unused is gone
    when it ends."""
    return _a_file(filename) and runs_as_program(module, filename) and _nobody_imports(filename)


def works_nobody_imports(module: cst.Module, filename: str) -> bool:
    """A module that does work at its top level (`runs_code`: builds datasets, loaders, a model) and that
    no module beside it imports: what its top-level code leaves unused, nobody in view uses."""
    return (
        _a_file(filename)
        and not filename.endswith(".ipynb")
        and any(runs_code(stmt) for stmt in module.body)
        and _nobody_imports(filename)
    )


def _a_file(filename: str) -> bool:
    return filename not in ("-", "<stdin>", "")


def _nobody_imports(filename: str) -> bool:
    """Does no module beside the file import it (project_text.importers)?"""
    from padlint.look.project_text import importers

    return not importers(os.path.abspath(filename))


def _program_statement(stmt: cst.CSTNode) -> bool:
    if isinstance(stmt, (cst.For, cst.While)):
        return True
    return isinstance(stmt, cst.SimpleStatementLine) and any(
        isinstance(node, cst.Call) and P.last_name(node.func) == "parse_args" for node in P.walk(stmt)
    )


def loads_at_top_level(module: cst.Module) -> bool:
    """Does a top-level statement (not a def or a class) load a pretrained model or tokenizer
    (`*.from_pretrained(...)`): a script that picks its checkpoint, not a library a caller hands one?"""
    return any(
        not isinstance(stmt, (cst.FunctionDef, cst.ClassDef))
        and any(isinstance(node, cst.Call) and P.last_name(node.func) == "from_pretrained" for node in P.walk(stmt))
        for stmt in module.body
    )


def runs_code(stmt: cst.CSTNode) -> bool:
    """A top-level statement that does work when the module runs (not a def, a class, an import or a
    constant): a call, a loop, a branch, a `with` or a `try`."""
    if isinstance(stmt, (cst.If, cst.For, cst.While, cst.With, cst.Try)):
        return True
    if not isinstance(stmt, cst.SimpleStatementLine):
        return False
    return any(
        isinstance(small, (cst.Expr, cst.Assign, cst.AnnAssign, cst.AugAssign))
        and any(isinstance(node, cst.Call) for node in P.walk(small))
        for small in stmt.body
    )


def is_main_block(stmt: cst.CSTNode) -> bool:
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


def rebound_before_read(module: cst.Module) -> list[cst.CSTNode]:
    """Top-level `f = lambda ...` statements and undecorated `def f` whose name is bound again (`def f`,
    `f = ...`: a notebook's later cell that defines it anew) before anything reads it: that lambda or
    def is never called, so its body never runs."""
    found: list[cst.CSTNode] = []
    body = list(module.body)
    for index, stmt in enumerate(body):
        name = _lambda_bound(stmt)
        if name is None and isinstance(stmt, cst.FunctionDef) and not stmt.decorators:
            name = stmt.name.value
        if name is None:
            continue
        for later in body[index + 1 :]:
            rebinds = _binds(later, name)
            if name_reads(later)[name]:
                break  # read (or read while bound again: `f = wrap(f)`)
            if rebinds:
                found.append(stmt)
                break
    return found


def _lambda_bound(stmt: cst.CSTNode) -> str | None:
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.value, cst.Lambda):
        target = small.targets[0].target
        return target.value if isinstance(target, cst.Name) else None
    return None


def _binds(stmt: cst.CSTNode, name: str) -> bool:
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return stmt.name.value == name and not stmt.decorators
    if isinstance(stmt, cst.SimpleStatementLine):
        return any(P.assigns_name(small, name) for small in stmt.body)
    return False


def unread_after(fn: cst.FunctionDef, target: cst.Name) -> bool:
    """Is the local name `target` stores never read after that store in `fn`: not by a later statement
    of any block around it, nor anywhere in a loop around it (the next pass), nor by a def or lambda
    inside `fn` (it may run later)? A value stored there reaches nothing. A name declared `global` or
    `nonlocal`, or a scope that calls `locals()`/`vars()`/`exec`, may be read elsewhere: False."""
    path = path_to(fn, target)
    if path is None:
        return False
    name = target.value
    for node in P.walk(fn.body):
        kind = type(node)
        if kind is cst.Global or kind is cst.Nonlocal:
            if any(item.name.value == name for item in cast(cst.Global | cst.Nonlocal, node).names):
                return False
        elif (kind is cst.FunctionDef or kind is cst.Lambda) and name_reads(node)[name]:
            return False
        elif kind is cst.Call and P.last_name(cast(cst.Call, node).func) in ("locals", "vars", "exec", "eval"):
            return False
    later: list[cst.CSTNode] = []
    for parent, child in zip(path, path[1:]):
        if isinstance(parent, (cst.For, cst.While)) and child is not getattr(parent, "iter", None):
            later.extend(_next_pass(parent, name))  # the loop's next pass may read what this one stored
        if isinstance(parent, (cst.Try, cst.TryStar)):
            later.extend(n for n in (*parent.handlers, parent.orelse, parent.finalbody) if n is not None)
        body = getattr(parent, "body", None)
        if isinstance(body, (list, tuple)) and child in body:
            later.extend(body[body.index(child) + 1 :])
    stored = path[-2] if len(path) > 1 else None  # the AssignTarget (or other binding) of the store
    return not any(_loads(node, name, stored) for node in later)


def _next_pass(loop: cst.For | cst.While, name: str) -> list[cst.CSTNode]:
    """What the next pass of `loop` runs before it stores `name` anew: its test, and its body's statements
    up to the first one that binds the name without reading it (`mask = batch["mask"]` at the top of a
    loop: the next pass reads that value, not this pass's)."""
    ahead: list[cst.CSTNode] = [loop.test] if isinstance(loop, cst.While) else []
    if loop.orelse is not None:
        ahead.append(loop.orelse)  # run after the last pass
    if isinstance(loop, cst.For) and isinstance(loop.target, cst.Name) and loop.target.value == name:
        return ahead
    statements = loop.body.body if isinstance(loop.body, cst.IndentedBlock) else (loop.body,)
    for stmt in statements:
        if _binds_without_reading(stmt, name):
            return ahead
        ahead.append(stmt)
    return ahead


def _binds_without_reading(stmt: cst.CSTNode, name: str) -> bool:
    """`name = value` on a line of its own, the value not reading the name."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return False
    small = stmt.body[0]
    if not isinstance(small, cst.Assign) or len(small.targets) != 1:
        return False
    target = small.targets[0].target
    return isinstance(target, cst.Name) and target.value == name and not name_reads(small.value)[name]


def _loads(node: cst.CSTNode, name: str, store: cst.CSTNode | None) -> int:
    """Reads of `name` under `node`, the target of the store itself (`store`) left out; other stores of the
    name count as reads (conservatively: an augmented or unpacking store may read it)."""
    if store is not None and isinstance(store, cst.AssignTarget):
        return name_reads(node)[name] - sum(1 for n in P.walk(node) if n is store)
    return name_reads(node)[name]
