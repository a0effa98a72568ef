"""Fixes that edit another module of the project: where the harm is repaired is not where it is reported.

A collate function of data.py returns `enc["input_ids"], targets` and train.py unpacks that tuple
and calls the model: the finding is data.py's (where the mask is left behind), but the fix must also
unpack the mask and pass it in train.py. The analysis walked train.py's code as it was read for
data.py's sake (project.py: a module read by its definitions, each parsed as a piece of its own,
whose positions are not the file's). Here that module is parsed whole once, the node the analysis
saw is found again in it at the same place, and a ModuleFacts of its own gives the fix builders
(sites.py, edits.py) what they read: positions, the file's lines, quote style and line length.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import libcst as cst

from padlint.analysis import parsing
from padlint.analysis import patterns as P
from padlint.analysis.facts import ModuleFacts
from padlint.analysis.project import contexts_read
from padlint.types import Edit


@dataclass
class Elsewhere:
    """Another module of the project as a fix builder sees it, and a node of it."""

    facts: ModuleFacts
    node: cst.CSTNode

    def edits(self, replacements) -> tuple[Edit, ...] | None:
        """`replacements` of this module as edits naming its file."""
        from padlint.rules.edits import to_edits
        from padlint.rules.sites import quote

        made = to_edits(replacements, self.facts.positions, quote(self.facts), self.facts.filename)
        return tuple(made) if made is not None else None


_WHOLE: dict[str, tuple[str, cst.Module, dict]] = {}  # path -> (text, module, positions)


def elsewhere(facts: ModuleFacts, node: cst.CSTNode) -> Elsewhere | None:
    """`node` (of another module, as the analysis of `facts` read it) in that module parsed whole;
    None for a node of this module, or one that cannot be found again where it was."""
    from libcst.metadata import MetadataWrapper, PositionProvider  # a `from` import loads libcst (lazy_imports.py)

    if facts.is_local(node):
        return None
    for context in contexts_read():
        held = context.holds(node)
        if held is None:
            continue
        piece, offset = held
        at = MetadataWrapper(piece, unsafe_skip_copy=True).resolve(PositionProvider).get(node)
        if at is None:
            return None
        kept = context.kept_lines() if offset < 0 else None
        first = kept[at.start.line - 1] if kept else at.start.line + offset
        last = kept[at.end.line - 1] if kept else at.end.line + offset
        whole = _parsed_whole(context.path, context.text)
        if whole is None:
            return None
        module, positions = whole
        found = _node_at(module, positions, type(node), (first, at.start.column), (last, at.end.column))
        if found is None or module.code_for_node(found) != piece.code_for_node(node):
            return None
        return Elsewhere(_facts_of(context.path, context.text, module, positions), found)
    return None


def _parsed_whole(path: str, text: str) -> tuple[cst.Module, dict] | None:
    from libcst.metadata import MetadataWrapper, PositionProvider

    held = _WHOLE.get(path)
    if held is None or held[0] != text:
        try:
            module = parsing.parse_module(text)
        except Exception:  # read by ast, refused by libcst: no fix there
            return None
        positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        held = _WHOLE[path] = (text, module, dict(positions))
    return held[1], held[2]


def _node_at(module: cst.Module, positions: dict, kind: type, start: tuple, end: tuple) -> cst.CSTNode | None:
    stack: list[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        span = positions.get(node)
        if span is not None:
            if (span.start.line, span.start.column) > start or (span.end.line, span.end.column) < end:
                continue  # neither this node nor anything in it
            if type(node) is kind and (span.start.line, span.start.column) == start:
                if (span.end.line, span.end.column) == end:
                    return node
        stack.extend(P.child_nodes(node))
    return None


def _facts_of(path: str, text: str, module: cst.Module, positions: dict) -> ModuleFacts:
    from padlint.line_length import project_line_length

    facts = ModuleFacts(module, positions, P.Imports(module), filename=path, source_text=text)
    facts.line_length = project_line_length(os.path.dirname(path))
    return facts
