"""Definitions of a project's library module that nothing in the project names: they never run.

A module that other modules of the project import is a library of that project. A top-level def or
class of it that the module never reads, that no decorator registers, whose name is in no string of
the module (`__all__`, a registry) and that no other file of the project names (code, notebooks,
configs, docs; a module that imports it and never reads it names it only if a third module reads it
through that one, as ruff's F401 calls such an import unused) is left behind: a LLaVA-style `preprocess` copied along with the helpers that are
used. What it would do to a batch reaches no model and no loss, so nothing found inside it is a
manifest harm. A module nobody imports (a script, a snippet, a single collator file) stays judged:
whoever runs it is not in view (a program's own uncalled functions: dead_code.py). A notebook is a
program nothing imports: a definition whose uses its cells left in a string or a comment, and no cell
reads in code, never runs (one nothing mentions yet may be used by a cell still to be written, and
stays judged).

The project is the tree under the nearest directory with a project marker (`.git`, `pyproject.toml`,
`setup.py`, `setup.cfg`, `requirements.txt`: a download has no `.git`) at or above the module's top package, or that package's directory, read as text
and bounded: a tree too large to read, or a module of an installed package, leaves every definition
alive. Each file read is noted for the result cache.

A function defined inside another that the enclosing function never reads never runs either
(`uncalled_nested_functions`): no text beyond the enclosing function is needed to know it.
"""

from __future__ import annotations

import os
import re

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis import reads
from padlint.analysis.dead_code import name_reads
from padlint.look.project_text import (
    ROOT_MARKERS,
    SKIPPED_DIRECTORIES,
    from_imports,
    importers_in,
    package_directories,
    text_of,
)

MAX_FILES = 2000  # files of a project read to know that nothing names a definition
MAX_DIRECTORIES = 400
NAMING_FILES = (".py", ".ipynb", ".md", ".rst", ".txt", ".yaml", ".yml", ".json", ".toml", ".cfg", ".sh")
NOTEBOOK_RUNS_OTHERS = re.compile(r"%run\b|run_line_magic\(\s*['\"]run|import_ipynb|\bexec\(")
IMPORT_PATH = re.compile(
    r"\bfrom[ \t]+\.*[\w.]*[ \t]+(?=import\b)|^[ \t]*import[ \t]+[\w.]+(?=[ \t]*(?:as\b|$|,))", re.M
)
COMMENT = re.compile(r"(?m)^[ \t]*#.*$|[ \t]#[^'\"\n]*$")  # whole-line and trailing comments
IMPORT_STATEMENT = re.compile(r"(?m)^[ \t]*(?:from[ \t]+\.*[\w.]*[ \t]+)?import[ \t]+(?:\([^)]*\)|[^\n]*)")
STAR_IMPORT = re.compile(r"(?m)^[ \t]*from[ \t]+\S+[ \t]+import[ \t]+\*")
STRING = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"")  # one-line string literals
MAGIC_LINE = re.compile(r"(?:^|[\"\s])%%?\w+([^\"\n]*)", re.M)  # a magic line in a notebook's JSON
MARKER_LEVELS = 6  # directories looked at for a marker, from the top of the module's packages up


def unused_definitions(module: cst.Module, filename: str) -> list[cst.FunctionDef | cst.ClassDef]:
    """The top-level defs and classes of the module at `filename` that nothing in its project names,
    and those only they use (a `preprocess_v1` that only the unused `preprocess` calls)."""
    notebook = filename.endswith(".ipynb")
    if not (filename.endswith(".py") or notebook) or os.sep + "site-packages" + os.sep in os.path.abspath(filename):
        return []
    code = module.code
    candidates = {
        stmt.name.value: stmt
        for stmt in module.body
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef))
        and not stmt.decorators
        and not re.search(rf"""['"]{re.escape(stmt.name.value)}['"]""", code)
    }
    reads = {id(stmt): name_reads(stmt) for stmt in module.body}
    unused = _unread_by_live_code(module, candidates, reads)
    if not unused:
        return []
    if notebook:
        # A notebook is a program that nothing imports: what its cells never read never runs (a cell
        # that runs another notebook may read it: then nothing is known).
        raw = text_of(os.path.abspath(filename))  # the cells as written: magics are comments in `code`
        if raw is None or NOTEBOOK_RUNS_OTHERS.search(raw) or NOTEBOOK_RUNS_OTHERS.search(code):
            return []
        # A line magic runs code too (`%time batch = collate(rows)`): the names in one are read. A
        # definition nothing mentions may be one whose use is still to be written (an editor shows the
        # notebook as it grows): only one whose uses were turned off, left in a string or a comment,
        # is known never to run.
        in_magics = set(re.findall(r"\w+", " ".join(MAGIC_LINE.findall(raw))))
        turned_off = {n for n in unused if len(re.findall(rf"\b{re.escape(n)}\b", code)) > 1}
        unused = _unread_by_live_code(module, {n: candidates[n] for n in turned_off - in_magics}, reads)
        return [candidates[name] for name in sorted(unused)]
    path = os.path.abspath(filename)
    files = project_files(project_root(path))
    if files is None:
        return []
    directories = sorted({os.path.dirname(f) for f in files if f.endswith(".py")})
    if not importers_in(path, directories):
        return []  # nobody imports it: a script or a snippet, run by whoever is not in view
    word = P.any_word(unused)
    stem = os.path.splitext(os.path.basename(path))[0]
    if stem == "__init__":
        stem = os.path.basename(os.path.dirname(path))  # a package's definitions: `import pkg` reads them
    forwarded: dict[str, set[str]] = {}  # a module's stem -> the candidates it imports and never reads
    for other in files:
        if other == path:
            continue
        named, passed_on = _names_in(other, text_of(other) or "", word, stem)
        if passed_on:
            forwarded.setdefault(os.path.splitext(os.path.basename(other))[0], set()).update(passed_on)
        if named:
            unused = _unread_by_live_code(module, {n: candidates[n] for n in unused - named}, reads)
            if not unused:
                return []
            word = P.any_word(unused)
    unused -= _read_through(forwarded, unused, files, path)
    if not unused:
        return []
    unused = _unread_by_live_code(module, {n: candidates[n] for n in unused}, reads)
    return [candidates[name] for name in sorted(unused)]


def _read_through(forwarded: dict[str, set[str]], unused: set[str], files: tuple[str, ...], path: str) -> set[str]:
    """The candidates a module imports without reading them (`from .prep import preprocess` in a
    helper module that never calls it) that a third module may read through it: one that names that
    module and reads the candidate's name outside its imports (`helpers.preprocess(...)`). A name only
    imported and never read anywhere is no use."""
    alive: set[str] = set()
    for forwarder, names in forwarded.items():
        names = names & unused - alive
        if not names:
            continue
        module_word = re.compile(rf"\b{re.escape(forwarder)}\b")
        word = P.any_word(names)
        for other in files:
            if other == path or not other.endswith(".py"):
                continue
            code = COMMENT.sub("", text_of(other) or "")
            if os.path.splitext(os.path.basename(other))[0] != forwarder and module_word.search(code):
                alive |= set(word.findall(IMPORT_STATEMENT.sub(" ", code)))
    return alive


def _names_in(other: str, text: str, word: re.Pattern, stem: str) -> tuple[set[str], set[str]]:
    """The candidate names (matched by `word`) that the file `other` may mean as this module's
    definitions. A module's own name in an import path (`from pkg.preprocess import helper`) names none
    of them. Another Python module reaches a definition only through an import: a name it imports, an
    attribute of this module imported whole (its name is in the file), a star import, or a string (a
    registry, `getattr`); a comment, or a bare name the file defines or binds itself (its own `def
    tokenize`), is not this module's definition, and an import is no read. Other files (notebooks,
    configs, docs) name by any word. Returns the names read, and those imported but never read (a
    module that passes them on: `_read_through`)."""
    if not other.endswith(".py"):
        return set(word.findall(IMPORT_PATH.sub(" ", text))), set()
    code = COMMENT.sub("", text)
    imported = {original for _, _, original in from_imports(None, code).values()}
    strings = STRING.findall(code)
    # A name is used where it is read, not where it is imported; a package's `__init__` re-exports what it
    # imports (its import is the use).
    read = code if os.path.basename(other) == "__init__.py" else IMPORT_STATEMENT.sub(" ", code)
    read_words = set(word.findall(read))
    passed_on = (imported & set(word.findall(code))) - read_words  # imported, never read: maybe read through it
    whole = (
        stem in imported
        or re.search(rf"(?m)^[ \t]*import[ \t]+[\w.]*\b{re.escape(stem)}\b", code)
        or any(re.search(rf"\b{re.escape(stem)}\b", string) for string in strings)  # `import_module("pkg.prep")`
    )
    if whole or STAR_IMPORT.search(code):
        return read_words, passed_on  # this module whole, or anything, may be read
    quoted = {name for string in strings for name in word.findall(string)}
    return (imported & read_words) | quoted, passed_on


def _unread_by_live_code(module: cst.Module, candidates: dict, reads: dict) -> set[str]:
    """The candidates no live statement of the module reads: at first every candidate counts as
    unused; one read by a statement that is not an unused candidate is alive, until nothing changes
    (two unused helpers that call each other stay unused)."""
    unused = set(candidates)
    changed = True
    while changed:
        changed = False
        live = [stmt for stmt in module.body if getattr(getattr(stmt, "name", None), "value", None) not in unused]
        for name in list(unused):
            if any(reads[id(stmt)][name] for stmt in live):
                unused.discard(name)
                changed = True
    return unused


def project_root(path: str) -> str:
    """The top of the project `path` belongs to: the nearest directory at or above the top of its
    packages that holds a project's marker (a src layout's `src/` is not the top: examples and tests
    beside it name its definitions), or the top of its packages when none is near."""
    top = package_directories(path)[-1]
    here = top
    for _ in range(MARKER_LEVELS):
        if any(os.path.exists(os.path.join(here, marker)) for marker in ROOT_MARKERS):
            return here
        above = os.path.dirname(here)
        if above == here:
            break
        here = above
    return top


def project_files(root: str) -> tuple[str, ...] | None:
    """The files under `root` that may name a definition; None when the tree is too large to read."""
    found: list[str] = []
    directories = 0
    for here, subdirectories, names in os.walk(root):
        directories += 1
        if directories > MAX_DIRECTORIES:
            return None
        reads.note_listing(here)  # a file added here later may name a definition: the result depends on it
        subdirectories[:] = sorted(d for d in subdirectories if not d.startswith(".") and d not in SKIPPED_DIRECTORIES)
        found.extend(os.path.join(here, n) for n in sorted(names) if n.endswith(NAMING_FILES))
        if len(found) > MAX_FILES:
            return None
    return tuple(found)


def names_written_in(files: tuple[str, ...], path: str, names: set[str]) -> set[str]:
    """The names of `names` that a file of `files` other than `path` writes as a word (code, a string, a
    comment, a doc): where a method or a call of it may be written out of the module."""
    found: set[str] = set()
    for other in files:
        left = names - found
        if not left:
            break
        if other != path:
            found |= set(P.any_word(left).findall(text_of(other) or ""))
    return found


def uncalled_nested_functions(module: cst.Module) -> list[cst.FunctionDef]:
    """Functions defined inside a function that the enclosing function never reads (not called, returned,
    passed to `map` or stored): they never run, so nothing they would do to a batch is a harm. A
    decorated one may be registered by its decorator, and stays."""
    found: list[cst.FunctionDef] = []
    for node in P.walk(module):
        if type(node) is not cst.FunctionDef:
            continue
        inner = [n for n in _defs_in(node) if not n.decorators]
        if not inner:
            continue
        reads = name_reads(node)
        for fn in inner:
            own = name_reads(fn)  # a recursive call is no call from outside
            if reads[fn.name.value] - own[fn.name.value] <= 0:
                found.append(fn)
    return found


def _defs_in(fn: cst.FunctionDef) -> list[cst.FunctionDef]:
    """The functions defined in `fn`'s own body (inside its statements, not inside another def or class)."""
    found: list[cst.FunctionDef] = []
    stack: list[cst.CSTNode] = list(P.child_nodes(fn.body))
    while stack:
        node = stack.pop()
        if type(node) is cst.FunctionDef:
            found.append(node)
            continue
        if type(node) is cst.ClassDef or type(node) is cst.Lambda:
            continue
        stack.extend(P.child_nodes(node))
    return found
