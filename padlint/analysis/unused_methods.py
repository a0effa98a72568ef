"""Methods of a project's library classes that nothing in the project names: they never run.

unused_definitions.py finds the top-level defs and classes of a library module (one other modules of
the project import) that nothing in the project names. A method is reached through an instance
(`obj.name(...)`, `self.name(...)`, `getattr(obj, "name")`), so it is called only where its name is
written; where nothing in the project writes it beyond its own def, it never runs: a preprocessing
method whose name was misspelled (`get_prepcoress_function` beside the base's
`get_preprocess_function`) is left behind, and what it would do to a batch reaches no model.

A library can call a method the project never names: a hook of a base class it defines (`forward`,
`compute_loss`, `__getitem__`). So only a class whose every base is a class of the project (followed
through the project's imports, transitively) or a base known to call nothing (`object`, `ABC`) has its
methods judged; a dunder method, a decorated method (a registration, a property read by its name
anyway) and a class with a metaclass or a decorator stay alive. As for top-level defs, a module nobody
imports is a program whose users are not in view, and the project is read as text, bounded
(unused_definitions.project_files).
"""

from __future__ import annotations

import os
import re

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.unused_definitions import names_written_in, project_files, project_root
from padlint.look.project_text import from_imports, importers_in, module_path, text_of

# Bases that call no method of their subclasses (abc's ABC only checks abstract methods at construction).
SILENT_BASES = frozenset({"object", "ABC", "abc.ABC"})
MAX_BASE_DEPTH = 8  # classes followed up one chain of bases
CLASS_HEADER = r"^[ \t]*class[ \t]+{name}\b[ \t]*(?:\(([^)]*)\))?[ \t]*:"


def unused_methods(module: cst.Module, filename: str) -> list[cst.FunctionDef]:
    """The methods of the module's top-level classes that nothing in its project names."""
    if not filename.endswith(".py") or os.sep + "site-packages" + os.sep in os.path.abspath(filename):
        return []
    path = os.path.abspath(filename)
    candidates: dict[str, list[cst.FunctionDef]] = {}
    for cls in module.body:
        if not isinstance(cls, cst.ClassDef) or cls.decorators or not _silent_bases(cls, module, path):
            continue
        for stmt in cls.body.body:
            if isinstance(stmt, cst.FunctionDef) and not stmt.decorators and not _dunder(stmt.name.value):
                candidates.setdefault(stmt.name.value, []).append(stmt)
    if not candidates:
        return []
    code = module.code
    # Each def writes its name once; any other word is a use (a call, a reference, a string, a comment).
    unused = {
        name for name, defs in candidates.items() if len(re.findall(rf"\b{re.escape(name)}\b", code)) == len(defs)
    }
    if not unused:
        return []
    files = project_files(project_root(path))
    if files is None:
        return []
    directories = sorted({os.path.dirname(f) for f in files if f.endswith(".py")})
    if not importers_in(path, directories):
        return []  # nobody imports it: a program, run by whoever is not in view
    unused -= names_written_in(files, path, unused)
    return [fn for name in sorted(unused) for fn in candidates[name]]


def _dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def _silent_bases(cls: cst.ClassDef, module: cst.Module, path: str) -> bool:
    """Is every base of `cls` a silent base or a class of the project whose own bases are (its methods
    have no caller out of view)?"""
    if any(arg.keyword is not None or arg.star for arg in cls.bases):
        return False  # a metaclass (or bases spread from a value) may call anything
    bases = [P.dotted(arg.value) for arg in cls.bases]
    if any(base is None for base in bases):
        return False
    return all(_silent_base(base, code=module.code, path=path, depth=0) for base in bases if base is not None)


def _silent_base(base: str, code: str, path: str, depth: int) -> bool:
    """Is the class named `base` in the module `path` (text `code`) silent: a silent base, or a class of
    this module or of a module of the project it imports, whose own bases are all silent?"""
    if base in SILENT_BASES:
        return base != "ABC" or "ABC" in from_imports(path, code)
    if depth > MAX_BASE_DEPTH or "." in base:
        return False
    header = re.search(CLASS_HEADER.format(name=re.escape(base)), code, re.M)
    if header is not None:
        return _silent_header(header.group(1), code, path, depth)
    source = from_imports(path, code).get(base)
    if source is None:
        return False
    other = module_path(path, source[0], source[1])
    if other is None or os.sep + "site-packages" + os.sep in other:
        return False
    other_code = text_of(other)
    if other_code is None:
        return False
    header = re.search(CLASS_HEADER.format(name=re.escape(source[2])), other_code, re.M)
    return header is not None and _silent_header(header.group(1), other_code, other, depth)


def _silent_header(bases_text: str | None, code: str, path: str, depth: int) -> bool:
    bases = [b.strip() for b in (bases_text or "").split(",") if b.strip()]
    if any("=" in b or b.startswith("*") or not re.fullmatch(r"[\w.]+", b) for b in bases):
        return False
    return all(_silent_base(b, code, path, depth + 1) for b in bases)
