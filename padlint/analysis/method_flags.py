"""Parameters of a method that every call in view hands the same literal: `mode="train"` at each call.

`def prepare_batch(self, problems, mode="train")` with `if mode == "train": ... else: <labels built>`:
where every call of the method hands `mode` the same literal (or leaves it to its default), the other
branch never runs, and nothing found in it is a harm (call_sites.py does the same for the truth of a
module-level function's flag). A method is called through an attribute (`self.prepare_batch(...)`,
`trainer.prepare_batch(...)`), so its calls are in view only where its name is written nowhere else: each
`.name` of the module is a call, no other class of the module defines the name, and no other file of the
project writes it (unused_definitions.project_files; a module nobody imports is a program whose methods
only its own code calls). A literal is compared by its kind and value (`1` is not `True`).
"""

from __future__ import annotations

import os
from collections import Counter

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.call_sites import Literal, literal_of
from padlint.analysis.parameter_literals import parameter_literal
from padlint.analysis.unused_definitions import names_written_in, project_files, project_root


def method_literals(module: cst.Module, fn: cst.FunctionDef, filename: str, names: MethodNames) -> dict[str, Literal]:
    """The parameters of method `fn` of a top-level class of the module that every call in view hands
    the same literal (its default where a call leaves it), never stored again -> that literal."""
    name = fn.name.value
    if name.startswith("__") or P.method_kind(fn) == "static" or fn.decorators:
        return {}
    defined = [
        stmt
        for c in module.body
        if isinstance(c, cst.ClassDef)
        for stmt in c.body.body
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == name
    ]
    if defined != [fn]:
        return {}
    calls = names.calls.get(name, [])
    # Each `.name` is a call, and no name is read bare or bound again (the def's own name aside).
    if not calls or names.attributes[name] != len(calls) or names.names[name] != len(calls) + 1:
        return {}
    fixed: dict[str, Literal] = {}
    for param in [*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params]:
        handed = parameter_literal(fn, param.name.value, calls, bound=True)  # (never the bound receiver)
        literal = literal_of(handed) if handed is not None else None
        if literal is not None:
            fixed[param.name.value] = literal
    # The project's other files are read last, and only for a method with a fixed parameter.
    return fixed if fixed and not _named_elsewhere(filename, name) else {}


class MethodNames:
    """How often each name is read as `.name` and as a bare name in a module, and the calls `x.name(...)`:
    one walk of the module for all its methods."""

    def __init__(self, module: cst.Module) -> None:
        self.attributes: Counter[str] = Counter()
        self.names: Counter[str] = Counter()  # an attribute's own name, a def's, or a bare read
        self.calls: dict[str, list[cst.Call]] = {}
        for node in P.walk(module):
            if isinstance(node, cst.Attribute):
                self.attributes[node.attr.value] += 1
            elif isinstance(node, cst.Name):
                self.names[node.value] += 1
            elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
                self.calls.setdefault(node.func.attr.value, []).append(node)


def _named_elsewhere(filename: str, name: str) -> bool:
    """Does another file of the project write `name` (a call out of this module may hand anything)?"""
    if not filename or filename in ("-", "<stdin>"):
        return True
    path = os.path.abspath(filename)
    files = project_files(project_root(path))
    return files is None or bool(names_written_in(files, path, {name}))
