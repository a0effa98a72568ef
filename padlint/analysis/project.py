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

import functools
import os
import re
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from padlint.analysis import parsing
from padlint.analysis import patterns as P
from padlint.look.project_text import definition_text, mentions, stamp_of, text_of, top_level_spans

# A definition is worth parsing its module when its text mentions something the analysis tracks.
# A definition larger than this (a trainer class of a thousand lines and more) is not parsed for a
# caller in another module: walking it for every file that names it cost more than the rest of the
# analysis of those files (bench/, trl's experimental trainers subclassing its 3,400-line ones).
MAX_DEFINITION_BYTES = 40_000
RELEVANT = re.compile(r"pad|mask|label|ignore|-100|ones|full\s*\(|collat|target|loss|forward|input_ids", re.I)
# What a definition can make of nothing the caller hands it: padding, a pad that is EOS, a loss
# with its ignore value, a pretrained model. A call that hands it only values the analysis does not
# track gets nothing else worth a parse from it (an unknown result is silent).
MAKES = re.compile(r"pad|eos|ignore_index|cross_?entropy|nll_loss|from_pretrained|-100", re.I)


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
    # A module read for its definitions (load_for_definitions): `module` holds its top level without
    # the defs and classes, and `spans` where each of those is in `text`, parsed when first asked for.
    partial: bool = False
    spans: dict = field(default_factory=dict)  # name -> (first line, last line), 1-based
    text: str = ""
    tried: set = field(default_factory=set)  # names whose definition was parsed (or refused)
    makes: dict = field(default_factory=dict)  # name -> whether its text can make something itself (MAKES)
    parts: dict = field(default_factory=dict)  # name -> the module its definition was parsed as

    def definition_source(self, name: str) -> str | None:
        """The text of the top-level def or class `name` of a module read by its definitions."""
        span = self.spans.get(name)
        if span is None:
            return None
        return "".join(self.lines[span[0] - 1 : span[1]])

    def makes_something(self, name: str) -> bool:
        """Can the top-level def or class `name` make something of nothing its caller hands it (MAKES)?
        Asked at every call that hands it nothing tracked: read once."""
        if name not in self.makes:
            starts = top_level_spans(self.path, self.text)
            self.makes[name] = name in starts and mentions(self.text, starts, starts[name], MAKES)
        return self.makes[name]

    @functools.cached_property
    def lines(self) -> list[str]:
        # Split once: importers and lm_collators ask for the text of every definition in turn.
        return self.text.splitlines(keepends=True)

    def definition(self, name: str) -> cst.FunctionDef | cst.ClassDef | None:
        """The top-level def or class `name`, parsed on first use in a module read by its definitions;
        one larger than MAX_DEFINITION_BYTES stays unknown."""
        node = self.definitions.get(name)
        if node is not None or name in self.tried or name not in self.spans:
            return node
        self.tried.add(name)
        source = self.definition_source(name) or ""
        if len(source) > MAX_DEFINITION_BYTES:
            return None
        try:
            with _quiet_parser():
                part = parsing.parse_module(source)
        except Exception:  # parsed by ast, refused by libcst: unknown code
            return None
        found = next((s for s in part.body if isinstance(s, (cst.FunctionDef, cst.ClassDef))), None)
        if found is None or found.name.value != name:
            return None
        self.definitions[name] = found
        self.parts[name] = part
        if self.info is not None:  # the module's facts were gathered: add this definition's
            from padlint.analysis.module_info import gather_definition

            gather_definition(part, found, self.info, self.aside)
        return found

    def holds(self, node: cst.CSTNode) -> tuple[cst.Module, int] | None:
        """(the parsed piece of this module `node` is in, the file's line of that piece's line 1 less
        one) for a module read by its definitions; the top level's lines need kept_lines()."""
        for name, definition in self.definitions.items():
            if P.contains(definition, node):
                part = self.parts.get(name)
                return (part, self.spans[name][0] - 1) if part is not None else None
        return (self.module, -1) if P.contains(self.module, node) else None

    def kept_lines(self) -> list[int]:
        """The file's line of each line of the top level as parsed (the definitions' lines dropped)."""
        dropped = {line for first, last in self.spans.values() for line in range(first, last + 1)}
        return [line for line in range(1, len(self.lines) + 1) if line not in dropped]


def contexts_read() -> list[ModuleContext]:
    """The modules this process read by their definitions (for a caller or an importer)."""
    return [held[1] for held in _READ_BY_DEFINITIONS.values() if held[1] is not None]


class Project:
    """The modules of the scanned project one lint reads, loaded on demand and memoised per process."""

    def __init__(self, filename: str):
        self.filename = os.path.abspath(filename)
        self.home: ModuleContext | None = None  # the module being linted (flow.analyse sets it)

    def definition(self, from_path: str | None, module: str, level: int, name: str, handed: bool = True):
        """(node, context) of the def or class `name` of `module` (following re-exports), if it is
        the project's and worth reading: for a call that hands it no tracked value (`handed` false),
        only when it can make something itself (MAKES)."""
        found = definition_text(from_path or self.filename, module, level, name)
        if found is None:
            return None
        path, text, (start, end) = found
        if path == self.filename:
            # An importer walked for the module being linted names its definitions (importers.py).
            node = self.home.definitions.get(name) if self.home is not None else None
            return (node, self.home) if node is not None else None
        spans = top_level_spans(path, text)
        if not mentions(text, spans, start, RELEVANT, MAKES):
            return None  # nothing the analysis tracks, nor in what it calls: as unknown as if never read
        if not handed and not mentions(text, spans, start, MAKES):
            return None
        if end - start > MAX_DEFINITION_BYTES:
            return None  # a trainer class of thousands of lines: unknown, as an importer that size is
        context = load_for_definitions(path)
        node = context.definition(name) if context is not None else None
        return (node, context) if node is not None else None

    @staticmethod
    def sibling(context: ModuleContext, name: str):
        """The def or class `name` of a module read by its definitions, called from code of that module."""
        return context.definition(name) if context.partial else None


def _quiet_parser():
    from padlint.files.source import quiet_parser

    return quiet_parser()


_READ_BY_DEFINITIONS: dict[str, tuple] = {}  # path -> ((mtime, size), context)


def load_for_definitions(path: str) -> ModuleContext | None:
    """The module at `path` as a caller in another module needs it: its top level (imports,
    constants, script code) parsed now, each def and class only when it is asked for. A trainer of
    thousands of lines is read for the one helper a collate function calls; parsing all of it for
    every module that imports it cost more than the rest of the analysis (bench/, cold runs).

    Where each definition is comes from its lines (`def`/`class` at column 0, the decorators above
    it, up to the next line of code at column 0): `ast.parse` of the whole module was three quarters
    of the cost of reading one. A text that line reading gets wrong (code at column 0 inside a
    string) does not parse as the top level it leaves, and is read again with `ast`. The
    definitions' lines are dropped from the top level (blank lines would each cost libcst a node);
    nothing of another module is reported, so its line numbers are not needed."""
    text = text_of(path)
    stamp = stamp_of(path)
    held = _READ_BY_DEFINITIONS.get(path)
    if held is not None and held[0] == stamp:
        return held[1]
    context = None
    if text is not None:
        lines = text.splitlines(keepends=True)
        context = _read_by_definitions(path, text, lines, _spans_by_lines(lines))
        if context is None:
            spans = _spans_by_ast(text)
            context = _read_by_definitions(path, text, lines, spans) if spans is not None else None
    _READ_BY_DEFINITIONS[path] = (stamp, context)
    return context


def _read_by_definitions(path: str, text: str, lines: list[str], spans: dict) -> ModuleContext | None:
    """The module with its top level parsed and the definitions at `spans` left out; None if that
    top level does not parse."""
    top = list(lines)
    for first, last in spans.values():
        for index in range(first - 1, min(last, len(top))):
            top[index] = ""
    try:
        with _quiet_parser():
            module = parsing.parse_module("".join(top))
    except Exception:
        return None
    return ModuleContext(path, module, P.Imports(module), partial=True, spans=spans, text=text)


DEFINITION_LINE = re.compile(r"(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)")


def _spans_by_lines(lines: list[str]) -> dict:
    """name -> (first line, last line), 1-based, of each top-level def and class, decorators
    included, read from the lines: a definition ends before the next line of code at column 0 (a
    comment, a blank line or a closing bracket does not end it). A later definition of a name wins,
    as when the module runs."""
    spans: dict = {}
    open_name, open_first, last_code = None, 0, 0
    decorators_from = None  # first line of the decorators above the next definition
    for number, line in enumerate(lines, 1):
        head = line[:1]
        if not head or head in " \t\r\n#)]}":
            if open_name is not None and line.strip() and not line.lstrip().startswith("#"):
                last_code = number
            continue
        if open_name is not None:
            spans[open_name] = (open_first, last_code)
            open_name = None
        if head == "@":
            decorators_from = decorators_from or number
            continue
        found = DEFINITION_LINE.match(line)
        if found is not None:
            open_name, open_first, last_code = found.group(1), decorators_from or number, number
        decorators_from = None
    if open_name is not None:
        spans[open_name] = (open_first, last_code)
    return spans


def _spans_by_ast(text: str) -> dict | None:
    import ast

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):  # does not parse: unknown code
        return None
    spans = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            spans[node.name] = (first, node.end_lineno or node.lineno)
    return spans
