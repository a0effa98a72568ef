"""The scanned project's other modules, read as text: which file an import names, where its
top-level definitions are, what it re-exports. No parser (the first look uses this in workers that
never import libcst); analysis/project.py parses a module only when a definition in it is needed.

Resolution is by path, as the interpreter would find the file from the importing one: relative
imports from the importing file's package, absolute ones from its directory and the directories
above it (analysis/constants.py spells the candidates). An installed package's file is a candidate
only for a file of that same package: a project is never resolved into the libraries it imports.
"""

from __future__ import annotations

import os
import re

from padlint.analysis import reads
from padlint.analysis.constants import _candidates

MAX_BYTES = 400_000  # larger modules are generated code or vendored libraries: not read
MAX_LEVEL = 4  # `from .x import` (the same package), `from ..x import` (packages above), `from x import`
MAX_HOPS = 3  # re-exports followed (`from .collate import pad_batch` in a package's __init__)
DEF_AT = re.compile(r"^(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)", re.M)
NEXT_TOP_LEVEL = re.compile(r"\n[^\s#@)\]}]")
# Starts with a literal, so the engine finds it fast; that it starts a line is checked after.
FROM_IMPORT = re.compile(r"from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)")
# `import a, b.c as d` (also indented): the modules a text imports whole, for their definitions it names.
MODULE_IMPORT = re.compile(r"^[ \t]*import[ \t]+([\w. \t,]+?)[ \t]*(?:#[^\n]*)?$", re.M)
PLAIN_IMPORT = re.compile(r"^[ \t]*import[ \t]+([\w.]+)(?:[ \t]+as[ \t]+(\w+))?[ \t]*$", re.M)

_RESOLVED: dict[tuple, str | None] = {}  # (directory, module, level) -> the module's file
_TEXTS: dict[str, tuple] = {}  # path -> ((mtime, size), text, sha256 of the bytes)
_SPANS: dict[str, dict] = {}
_IMPORTS: dict[str, dict] = {}


def module_path(from_file: str | None, module: str, level: int) -> str | None:
    """The file `from <level dots><module> import ...` names, seen from `from_file`. Memoised per
    directory for the process: a module created while a process runs (an editor's) is found after
    it restarts; a module's content is always read as it is now (text_of)."""
    if not from_file or from_file in ("-", "<stdin>"):
        return None
    start = os.path.abspath(from_file)
    key = (os.path.dirname(start), module, level)
    if key not in _RESOLVED:
        _RESOLVED[key] = next(
            (
                os.path.abspath(path)
                for path in _candidates(key[0], module, level)
                if _inside_project(os.path.abspath(path), start)
            ),
            None,
        )
    found = _RESOLVED[key]
    return found if found != start else None


def _inside_project(path: str, start: str) -> bool:
    marker = os.sep + "site-packages" + os.sep
    if marker not in path:
        return True
    if marker not in start:
        return False
    return path.split(marker, 1)[1].split(os.sep, 1)[0] == start.split(marker, 1)[1].split(os.sep, 1)[0]


def text_of(path: str) -> str | None:
    """The module's text (read again when the file changes); None if unreadable or too large. The
    read is noted for the result cache: a finding that used this module depends on it (reads.py)."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    stamp = (stat.st_mtime_ns, stat.st_size)
    held = _TEXTS.get(path)
    if held is None or held[0] != stamp:
        for cache in (_SPANS, _IMPORTS):
            cache.pop(path, None)
        text, digest = None, None
        if stat.st_size <= MAX_BYTES:
            try:
                with open(path, "rb") as handle:
                    data = handle.read()
                text, digest = data.decode("utf-8", "replace"), reads.digest(data)
            except OSError:
                text = None
        held = _TEXTS[path] = (stamp, text, digest)
    if held[2] is not None:
        reads.note(path, held[2])
    return held[1]


def stamp_of(path: str) -> tuple | None:
    """(mtime, size) of the text last read from `path`: what a parse of it is valid for."""
    held = _TEXTS.get(path)
    return held[0] if held is not None else None


def top_level_spans(path: str, text: str) -> dict:
    """name -> start of each top-level def and class of the module, from its text (where each
    ends is found when it is asked for: span_of)."""
    found = _SPANS.get(path)
    if found is None:
        found = _SPANS[path] = {m.group(1): m.start() for m in DEF_AT.finditer(text)}
    return found


def span_of(text: str, start: int) -> tuple[int, int]:
    """(start, end) of the top-level statement starting at `start`: up to the next line that starts
    at column 0 with code (a decorator, a closing bracket or a comment does not end it)."""
    after = NEXT_TOP_LEVEL.search(text, start + 1)
    return start, after.start() + 1 if after else len(text)


_WORD = re.compile(r"[A-Za-z_]\w*")
MAX_DEFINITIONS_READ = 16  # definitions of one module read through for one question


def mentions(text: str, spans: dict, start: int, pattern: re.Pattern, through: re.Pattern | None = None) -> bool:
    """Does the top-level definition starting at `start` (spans: name -> start, as top_level_spans
    gives) match `pattern`, or one of its module it names, at any depth, match `through` (default: the
    same pattern)? A loader that maps a dataset with a tokenizing function of its module pads through
    it (`through`: what makes padding); a definition that only names one that mentions a mask is not
    read for that."""
    if pattern.search(text, *span_of(text, start)):
        return True
    followed = through or pattern
    return any(followed.search(text, *span_of(text, spans[n])) for n in named_definitions(text, spans, start))


def from_imports(path: str | None, text: str) -> dict:
    """local name -> (module, level, original name) of every `from m import a as b` in the text."""
    key = path or text
    found = _IMPORTS.get(key) if path else None
    if found is None:
        found = {}
        for m in FROM_IMPORT.finditer(text):
            line_start = text.rfind("\n", 0, m.start()) + 1
            if text[line_start : m.start()].strip():
                continue  # not a statement of its own (`x = y from ...` cannot be; a string can)
            names = m.group(3).strip("()").replace("\\\n", " ")
            for part in names.split(","):
                words = part.split("#")[0].split()
                if not words or words[0] == "*":
                    continue
                local = words[2] if len(words) == 3 and words[1] == "as" else words[0]
                found[local] = (m.group(2), len(m.group(1)), words[0])
        if path:
            _IMPORTS[key] = found
    return found


def definition_text(from_file: str, module: str, level: int, name: str, hops: int = 0):
    """(path, text, (start, end)) of the top-level def or class `name` of `module` as seen from
    `from_file`, following re-exports; None when it is not a definition of the project."""
    if hops > MAX_HOPS or level > MAX_LEVEL:
        return None
    path = module_path(from_file, module, level)
    if path is None:
        return None
    text = text_of(path)
    if text is None:
        return None
    start = top_level_spans(path, text).get(name)
    if start is not None:
        return path, text, span_of(text, start)
    reexport = from_imports(path, text).get(name)
    if reexport is None:
        return None
    return definition_text(path, reexport[0], reexport[1], reexport[2], hops + 1)


def importers(path: str) -> list[str]:
    """Modules beside `path` (its directory, and the package above when it is in one) whose
    imports name it: who may call what it defines. By text; the caller checks each by path."""
    directory = os.path.dirname(path)
    places = [directory]
    if os.path.isfile(os.path.join(directory, "__init__.py")):
        places.append(os.path.dirname(directory))
    return importers_in(path, places)


SKIPPED_DIRECTORIES = {"__pycache__", "node_modules", "site-packages", "build", "dist", "venv", "env"}
SUBDIRECTORY_DEPTH = 2  # levels of folders below a module searched for scripts that call it
MAX_SUBDIRECTORIES = 60


def importers_below(path: str) -> list[str]:
    """Modules in the folders below `path`'s directory (entry points, scripts) whose imports name it
    (`from src.data import encode` in `src/entry_point/train.py`, run from the project root): callers a
    search of its own directory and package misses. Bounded: a tree larger than that is left out."""
    directory = os.path.dirname(os.path.abspath(path))
    places: list[str] = []
    level = [directory]
    for _ in range(SUBDIRECTORY_DEPTH):
        below = []
        for place in level:
            reads.note_listing(place)
            try:
                entries = sorted(os.scandir(place), key=lambda e: e.name)
            except OSError:
                continue
            below += [
                e.path
                for e in entries
                if e.is_dir() and not e.name.startswith((".", "_")) and e.name not in SKIPPED_DIRECTORIES
            ]
        places += below
        level = below
        if len(places) > MAX_SUBDIRECTORIES:
            return []  # a large tree: its callers stay out of view
    return importers_in(os.path.abspath(path), places)


ROOT_MARKERS = (
    ".git",
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "requirements.txt",
)  # a project's root (a download has no .git)


NAMESPACE_LEVELS = 3  # folders without `__init__.py` climbed as namespace packages of the folder above


def package_directories(path: str) -> list[str]:
    """The directory of `path` and each package directory above it, up to the first directory that is
    not a package (where a project's scripts sit next to its packages). A directory without
    `__init__.py` that is no project's root (ROOT_MARKERS: `.git`, `pyproject.toml`, ...) is an
    implicit namespace package when the directory above holds scripts: they import it as `folder.module`
    (and, nested, `tools.dataset.module`, up to NAMESPACE_LEVELS folders)."""
    directories = [os.path.dirname(os.path.abspath(path))]
    while os.path.isfile(os.path.join(directories[-1], "__init__.py")):
        above = os.path.dirname(directories[-1])
        if above == directories[-1]:
            break
        directories.append(above)
    if len(directories) > 1:
        return directories
    # `tools/dataset/x.py` imported as `tools.dataset.x` by a script at the top: namespace packages nest
    for _ in range(NAMESPACE_LEVELS):
        own = directories[-1]
        above = os.path.dirname(own)
        if (
            above == own
            or os.path.isfile(os.path.join(own, "__init__.py"))
            or any(os.path.exists(os.path.join(own, m)) for m in ROOT_MARKERS)
            or not _holds_python(above)
        ):
            break
        directories.append(above)
    return directories


def _holds_python(directory: str) -> bool:
    """Does `directory` itself hold a Python module or notebook (scripts beside a namespace package)? A
    folder of checkouts or of projects holds none: what sits beside the module's folder there is not its
    project."""
    reads.note_listing(directory)  # a script added there later may import the module
    try:
        return any(name.endswith((".py", ".ipynb")) for name in os.listdir(directory))
    except OSError:
        return False


def importers_in(path: str, places: list[str]) -> list[str]:
    """The `.py` files directly in `places` whose imports name the module at `path`."""
    stem = os.path.splitext(os.path.basename(path))[0]
    if stem == "__init__":
        return []
    found = []
    word = re.compile(rf"\b{re.escape(stem)}\b")
    for place in places:
        reads.note_listing(place)  # a module added there later may import it: the result depends on it
        try:
            names = sorted(os.listdir(place))
        except OSError:
            continue
        for name in names:
            candidate = os.path.join(place, name)
            if not name.endswith(".py") or candidate == path:
                continue
            text = text_of(candidate)
            if text is None or stem not in text or not word.search(text):  # `in` first: many texts, most without it
                continue
            if any(
                module_path(candidate, module, level) == path
                for module, level, _ in import_sources(candidate, text)
                if word.search(module) or module == ""
            ):
                found.append(candidate)
    return found


def import_sources(path: str, text: str) -> list[tuple[str, int, str]]:
    sources = [(f"{m}.{n}" if m else n, level, n) for m, level, n in from_imports(path, text).values()]
    sources += [(m, level, "") for m, level, _ in from_imports(path, text).values()]
    sources += [(m.group(1), 0, "") for m in PLAIN_IMPORT.finditer(text)]
    return sources


_PADDING: dict[tuple, tuple] = {}
# What an imported definition can bring into the file that calls it: padding, or pad set to EOS.
PROJECT_FEATURES = ("pad_step", "tokenizer_padding", "pad_is_eos")


# What a class's instance runs where the class is named: made, called, iterated, indexed.
INSTANCE_METHODS = ("__init__", "__call__", "__getitem__", "__iter__", "__next__")


def imported_padding(from_file: str, module: str, level: int, name: str) -> tuple[dict, str]:
    """What the first look finds in the project definition an import names: the features
    (PROJECT_FEATURES) reached where its name is used ("": a function's own body, or what an
    instance runs) and, for a class, by each method (called as `.method(`), with the lower-cased
    text of those parts; ({}, "") for anything else."""
    where = definition_text(from_file, module, level, name)
    if where is None:
        return {}, ""
    path, text, (start, end) = where
    key = (path, start, end, stamp_of(path))
    found = _PADDING.get(key)
    if found is None:
        spans = top_level_spans(path, text)
        helpers = {}
        for helper in named_definitions(text, spans, start):
            first, last = span_of(text, spans[helper])
            helpers[helper] = (text[first:last], _whole_features(path, text, first, last))
        found = _PADDING[key] = _definition_features(text[start:end], helpers)
    return found


def named_definitions(text: str, spans: dict, start: int) -> list[str]:
    """The other top-level definitions of the module that the one starting at `start` names, and those
    they name, in turn (at most MAX_DEFINITIONS_READ): what a call of it may run besides its own body.
    By position, not name: a definition reached through a re-export (`from .base import Embedder as
    Model`) is known in its module by another name."""
    own = {n for n, at in spans.items() if at == start}
    seen, todo = set(own), [start]
    while todo and len(seen) <= MAX_DEFINITIONS_READ + len(own):
        first, last = span_of(text, todo.pop())
        for word in dict.fromkeys(_WORD.findall(text, first, last)):
            if word in spans and word not in seen:
                seen.add(word)
                todo.append(spans[word])
    return [n for n in seen if n not in own]


def _definition_features(body: str, helpers: dict[str, tuple[str, frozenset]]) -> tuple[dict, str]:
    """The features of a definition's parts (a function whole, a class by method), each with those of
    the module's definitions it names (`ds.map(tokenize)`: the padding is `tokenize`'s)."""
    if "pad" not in body and "eos" not in body and not any(features for _, features in helpers.values()):
        return {}, ""  # every padding step and pad = EOS the first look finds is spelled so
    from padlint.look.first_look import Look

    look = Look(body)
    if body.startswith("class"):
        parts = [(u.name, u.start, u.end) for u in look.units() if u.kind == "method"]
    else:
        parts = [("", 0, len(body))]
    entries: dict = {}
    texts = []
    for part, first, last in parts:
        # A weak step (`[fill] * n`, a fill that may hold a pad id) is judged where it is, not here.
        features = frozenset(
            f for f in PROJECT_FEATURES if any(first <= p < last and look.pads_for_sure(p) for p in look.positions(f))
        )
        called = _reached_helpers(body[first:last], helpers)
        for helper in called:
            features |= helpers[helper][1]
        if features:
            entry = "" if part in INSTANCE_METHODS else part
            entries[entry] = entries.get(entry, frozenset()) | features
            texts.append(body[first:last].lower())
            texts.extend(helpers[h][0].lower() for h in called if helpers[h][1])
    return entries, "\n".join(texts)


# What a definition named (not called with values in view) brings to the one naming it: a tokenizing function
# a loader maps with. Padding helpers of library-sized modules (`pad_across_processes`) named by every
# other function would send each file importing any of them to the analysis (about a third more time over
# the bench corpus); imported directly, they still count (PROJECT_FEATURES).
HELPER_FEATURES = ("tokenizer_padding",)
_WHOLE: dict[tuple, frozenset] = {}  # (path, start, end, stamp) -> the features of one definition's text


def _whole_features(path: str, text: str, start: int, end: int) -> frozenset:
    """The helper features anywhere in one definition's text (read once per process and file version:
    many imported definitions of a module name the same helpers)."""
    key = (path, start, end, stamp_of(path))
    found = _WHOLE.get(key)
    if found is None:
        body = text[start:end]
        found = frozenset()
        if "pad" in body or "eos" in body:
            from padlint.look.first_look import Look

            look = Look(body)
            found = frozenset(f for f in HELPER_FEATURES if any(look.pads_for_sure(p) for p in look.positions(f)))
        _WHOLE[key] = found
    return found


def _reached_helpers(part: str, helpers: dict[str, tuple[str, frozenset]]) -> list[str]:
    """The helpers a part names, and those they name, in turn."""
    reached: list[str] = []
    todo = [part]
    while todo:
        for word in dict.fromkeys(_WORD.findall(todo.pop())):
            if word in helpers and word not in reached:
                reached.append(word)
                todo.append(helpers[word][0])
    return reached


def padding_imports(filename: str | None, text: str) -> dict:
    """local name -> ({"" or method: features}, lower-cased text) of the imported project
    definitions that pad (or set pad to EOS)."""
    if not filename or filename in ("-", "<stdin>") or "import" not in text:
        return {}
    found = {}
    for local, (module, level, original) in from_imports(None, text).items():
        entries, body = imported_padding(filename, module, level, original)
        if entries:
            found[local] = (entries, body)
        elif f"{local}." in text:  # `from . import data`: a module, its definitions read as `data.collate`
            found.update(_member_padding(filename, text, local, f"{module}.{original}" if module else original, level))
    for m in MODULE_IMPORT.finditer(text):
        for part in m.group(1).split(","):
            words = part.split()
            if words and (len(words) == 1 or (len(words) == 3 and words[1] == "as")):
                found.update(_member_padding(filename, text, words[-1], words[0], 0))
    return found


def _member_padding(filename: str, text: str, local: str, module: str, level: int) -> dict:
    """`local.name` -> what padding_imports says of `name`, for a module imported whole as `local`
    (`import data`, `import pkg.data as data`) whose definitions the text names (`data.collate`)."""
    found: dict = {}
    if f"{local}." not in text:
        return found
    # A pattern that starts with the literal name is searched for in C; one that starts with a
    # look-behind is tried at every position of the text (a tenth of the first look on a large file).
    attrs = set()
    for m in re.finditer(rf"{re.escape(local)}\.(\w+)", text):
        before = text[m.start() - 1] if m.start() else ""
        if not (before.isalnum() or before in "_."):
            attrs.add(m.group(1))
    for attr in attrs:
        entries, body = imported_padding(filename, module, level, attr)
        if entries:
            found[f"{local}.{attr}"] = (entries, body)
    return found


def uses_padding_import(filename: str | None, text: str) -> bool:
    """Does the text use an imported project definition where it pads: calls the function, names
    the class whose instances pad, or calls one of its padding methods? (The word look's question.)"""
    for local, (entries, _) in padding_imports(filename, text).items():
        named = len(re.findall(rf"\b{re.escape(local)}\b", text))
        if "" in entries and named > (0 if "." in local else 1):
            return True  # named besides its import (`data.collate` of `import data`: wherever it is named)
        if any(method and re.search(rf"\.\s*{re.escape(method)}\s*\(", text) for method in entries):
            return True
    return False
