"""The scanned project's other modules, read as text: which file an import names, where its
top-level definitions are, what it re-exports. No parser (the first look uses this in workers that
never import libcst); analysis/project.py parses a module only when a definition in it is needed.

Resolution is by path, as the interpreter would find the file from the importing one: relative
imports from the importing file's package, absolute ones from its directory and the directories
above it (analysis/constants.py spells the candidates). An installed package's file is a candidate
only for a file of that same package: a project is never resolved into the libraries it imports.
"""

from __future__ import annotations

import bisect
import os
import re

from padlint.analysis.constants import _candidates

MAX_BYTES = 400_000  # larger modules are generated code or vendored libraries: not read
MAX_HOPS = 3  # re-exports followed (`from .collate import pad_batch` in a package's __init__)
DEF_AT = re.compile(r"^(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)", re.M)
TOP_LEVEL = re.compile(r"^[^\s#@)\]}]", re.M)
FROM_IMPORT = re.compile(r"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)", re.M)
PLAIN_IMPORT = re.compile(r"^[ \t]*import[ \t]+([\w.]+)(?:[ \t]+as[ \t]+(\w+))?[ \t]*$", re.M)

_TEXTS: dict[str, tuple] = {}  # path -> ((mtime, size), text)
_SPANS: dict[str, dict] = {}
_IMPORTS: dict[str, dict] = {}


def module_path(from_file: str | None, module: str, level: int) -> str | None:
    """The file `from <level dots><module> import ...` names, seen from `from_file`."""
    if not from_file or from_file in ("-", "<stdin>"):
        return None
    start = os.path.abspath(from_file)
    for path in _candidates(os.path.dirname(start), module, level):
        path = os.path.abspath(path)
        if path != start and _inside_project(path, start):
            return path
    return None


def _inside_project(path: str, start: str) -> bool:
    marker = os.sep + "site-packages" + os.sep
    if marker not in path:
        return True
    if marker not in start:
        return False
    return path.split(marker, 1)[1].split(os.sep, 1)[0] == start.split(marker, 1)[1].split(os.sep, 1)[0]


def text_of(path: str) -> str | None:
    """The module's text (read again when the file changes); None if unreadable or too large."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    stamp = (stat.st_mtime_ns, stat.st_size)
    held = _TEXTS.get(path)
    if held is not None and held[0] == stamp:
        return held[1]
    for cache in (_SPANS, _IMPORTS):
        cache.pop(path, None)
    text = None
    if stat.st_size <= MAX_BYTES:
        try:
            with open(path, "rb") as handle:
                text = handle.read().decode("utf-8", "replace")
        except OSError:
            text = None
    _TEXTS[path] = (stamp, text)
    return text


def stamp_of(path: str) -> tuple | None:
    """(mtime, size) of the text last read from `path`: what a parse of it is valid for."""
    held = _TEXTS.get(path)
    return held[0] if held is not None else None


def top_level_spans(path: str, text: str) -> dict:
    """name -> (start, end) of each top-level def and class of the module, from its text."""
    found = _SPANS.get(path)
    if found is None:
        found = {}
        tops = [m.start() for m in TOP_LEVEL.finditer(text)]
        for m in DEF_AT.finditer(text):
            after = bisect.bisect_right(tops, m.start())
            found[m.group(1)] = (m.start(), tops[after] if after < len(tops) else len(text))
        _SPANS[path] = found
    return found


def from_imports(path: str | None, text: str) -> dict:
    """local name -> (module, level, original name) of every `from m import a as b` in the text."""
    key = path or text
    found = _IMPORTS.get(key) if path else None
    if found is None:
        found = {}
        for m in FROM_IMPORT.finditer(text):
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
    if hops > MAX_HOPS:
        return None
    path = module_path(from_file, module, level)
    if path is None:
        return None
    text = text_of(path)
    if text is None:
        return None
    span = top_level_spans(path, text).get(name)
    if span is not None:
        return path, text, span
    reexport = from_imports(path, text).get(name)
    if reexport is None:
        return None
    return definition_text(path, reexport[0], reexport[1], reexport[2], hops + 1)


def importers(path: str) -> list[str]:
    """Modules beside `path` (its directory, and the package above when it is in one) whose
    imports name it: who may call what it defines. By text; the caller checks each by path."""
    directory = os.path.dirname(path)
    stem = os.path.splitext(os.path.basename(path))[0]
    if stem == "__init__":
        return []
    places = [directory]
    if os.path.isfile(os.path.join(directory, "__init__.py")):
        places.append(os.path.dirname(directory))
    found = []
    word = re.compile(rf"\b{re.escape(stem)}\b")
    for place in places:
        try:
            names = sorted(os.listdir(place))
        except OSError:
            continue
        for name in names:
            candidate = os.path.join(place, name)
            if not name.endswith(".py") or candidate == path:
                continue
            text = text_of(candidate)
            if text is None or not word.search(text):
                continue
            if any(
                module_path(candidate, module, level) == path
                for module, level, _ in _import_sources(candidate, text)
                if word.search(module) or module == ""
            ):
                found.append(candidate)
    return found


def _import_sources(path: str, text: str) -> list[tuple[str, int, str]]:
    sources = [(f"{m}.{n}" if m else n, level, n) for m, level, n in from_imports(path, text).values()]
    sources += [(m, level, "") for m, level, _ in from_imports(path, text).values()]
    sources += [(m.group(1), 0, "") for m in PLAIN_IMPORT.finditer(text)]
    return sources


_PADDING: dict[tuple, tuple] = {}
# What an imported definition can bring into the file that calls it: padding, or pad set to EOS.
PROJECT_FEATURES = ("pad_step", "tokenizer_padding", "pad_is_eos")


def imported_padding(from_file: str, module: str, level: int, name: str) -> tuple[frozenset, str]:
    """What the first look finds in the project definition an import names: its padding features
    (PROJECT_FEATURES) and its lower-cased text; empty for anything else."""
    where = definition_text(from_file, module, level, name)
    if where is None:
        return frozenset(), ""
    path, text, (start, end) = where
    key = (path, start, end, stamp_of(path))
    found = _PADDING.get(key)
    if found is None:
        from padlint.look.first_look import Look

        look = _looks.get(path)
        if look is None or look.text is not text:
            look = _looks[path] = Look(text)
        features = frozenset(f for f in PROJECT_FEATURES if any(start <= p < end for p in look.positions(f)))
        found = _PADDING[key] = (features, text[start:end].lower() if features else "")
    return found


_looks: dict = {}


def padding_imports(filename: str | None, text: str) -> dict:
    """local name -> (features, lower-cased text) of the imported project definitions that pad."""
    if not filename or filename in ("-", "<stdin>") or "import" not in text:
        return {}
    found = {}
    for local, (module, level, original) in from_imports(None, text).items():
        features, body = imported_padding(filename, module, level, original)
        if features:
            found[local] = (features, body)
    return found
