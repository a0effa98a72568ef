"""The scanned project's other modules, as the analysis of one file needs them.

`from .data import collate`, `from data import collate` (a script beside it), `import data` and
`from .base import PaddingCollatorBase` name code of the same project: the walker follows calls into
it with the caller's values (flow.py), as it does for helpers of the same module. A module is read
and parsed once per process and only when a call needs one of its definitions; a definition whose
text holds nothing the analysis tracks (no padding, masks, labels, losses) is not worth a parse and
stays unknown, which is silent (an unknown call is never evidence of a bug).

Resolution is by path, as the interpreter would find the file from the importing one: relative
imports from the importing file's package, absolute ones from its directory and the directories
above it (constants.py spells the candidates). Installed packages are never read for the scanned
file's sake: only files under the scanned file's own tree are candidates.

astroid was on the design card for this part; the project's own index does it instead (see
docs/ARCHITECTURE.md, "Modules of the same project", for the measurement).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from padlint.analysis import patterns as P
from padlint.look.project_text import definition_text, stamp_of, text_of

# A definition is worth parsing its module when its text mentions something the analysis tracks.
RELEVANT = re.compile(r"pad|mask|label|ignore|-100|ones|full\s*\(|collat|target|loss|forward|input_ids", re.I)


@dataclass(eq=False)
class ModuleContext:
    """One module as the walker sees it: its parse, import table, module facts and globals."""

    path: str
    module: cst.Module
    imports: P.Imports
    info: Any = None  # module_info.ModuleInfo
    env: Any = None  # env.Env of its globals, filled by the walker on first use
    definitions: dict = field(default_factory=dict)  # top-level name -> FunctionDef | ClassDef
    home: bool = False  # the module being linted
    aside: Any = None  # facts.ModuleFacts gathered for it (where it sets pad to EOS), never reported


class Project:
    """The modules of the scanned project one lint reads, loaded on demand and memoised per process."""

    def __init__(self, filename: str):
        self.filename = os.path.abspath(filename)
        self.home: ModuleContext | None = None  # the module being linted (flow.analyse sets it)

    def definition(self, from_path: str | None, module: str, level: int, name: str):
        """(node, context) of the def or class `name` of `module` (following re-exports), if it is
        the project's and worth reading."""
        found = definition_text(from_path or self.filename, module, level, name)
        if found is None:
            return None
        path, text, (start, end) = found
        if path == self.filename:
            # An importer walked for the module being linted names its definitions (importers.py).
            node = self.home.definitions.get(name) if self.home is not None else None
            return (node, self.home) if node is not None else None
        if not RELEVANT.search(text, start, end):
            return None  # nothing the analysis tracks: as unknown as if never read
        context = load(path)
        node = context.definitions.get(name) if context is not None else None
        return (node, context) if node is not None else None


_LOADED: dict[str, tuple] = {}  # path -> ((mtime, size), context)


def load(path: str) -> ModuleContext | None:
    """The parsed module at `path` with its import table (once per process and version of the
    file); None if unreadable or not Python."""
    text = text_of(path)
    stamp = stamp_of(path)
    held = _LOADED.get(path)
    if held is not None and held[0] == stamp:
        return held[1]
    context = None
    if text is not None:
        from padlint.files.source import quiet_parser

        try:
            with quiet_parser():
                module = cst.parse_module(text)
        except Exception:  # a module that does not parse is unknown code
            module = None
        if module is not None:
            context = ModuleContext(path, module, P.Imports(module))
            for stmt in module.body:
                if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                    context.definitions[stmt.name.value] = stmt
    _LOADED[path] = (stamp, context)
    return context
