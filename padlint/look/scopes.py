"""The scopes of a text for the first look (first_look.py): its defs (module functions and methods)
and classes, found by indentation (no parser), with their bases and the classes related by
inheritance; where an import or a decorator is; and the reduced text that cuts the defs no rule needs
to stubs. Where a value made in one def can go is reach.py's.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Callable

# A class body holding one of these is kept whole: module-wide facts (pad set to EOS, a collator,
# left padding) are gathered from every node, class attributes included.
CLASS_BODY_WORDS = ("eos", "datacollator", "padding_side")
DEF_LINE = re.compile(r"^([ \t]*)(?:async[ \t]+)?(def|class)[ \t]+(\w+)", re.M)


@functools.lru_cache(maxsize=64)
def _dedent(indent: int) -> re.Pattern[str]:
    """The start of the next line indented no deeper than `indent` that can start a statement."""
    statement_start = r"(?=[^ \t\r\n#)\]},.+\-*/%&|=<>:^~])"
    return re.compile(rf"\n[ \t]{{0,{indent}}}{statement_start}" if indent else rf"\n{statement_start}")


class _Unit:
    __slots__ = ("start", "end", "name", "kind", "cls")

    def __init__(self, start: int, end: int, name: str, kind: str, cls: int | None):
        self.start, self.end, self.name, self.kind, self.cls = start, end, name, kind, cls


class Scopes:
    """The defs and classes of the text, and what relates them."""

    # What first_look.Look provides (declared here so this part type-checks on its own).
    text: str
    _triple: Callable[[int], bool]

    @property
    def lower(self) -> str:
        raise NotImplementedError

    def in_code(self, pos: int) -> bool:
        raise NotImplementedError

    def _literal(self, word: str, lower: bool = False) -> list[int]:
        raise NotImplementedError

    def init_scopes(self) -> None:
        self._units: list[_Unit] | None = None
        self._starts: list[int] = []
        self._class_starts: list[int] = []
        self._class_ends: list[int] = []
        self._top_classes: list[tuple[int, int, str, int]] = []  # (start, end, name, index of its first def)
        self._class_names: dict[int, str] = {}  # class id -> its name
        self._class_ids: dict[str, list[int]] = {}  # class name -> the ids of classes so named
        self._class_bases: dict[int, list[str]] = {}  # class id -> the names of its bases
        self._families: dict[int | None, set] = {}
        self._functions: dict[str, list[int]] | None = None  # filled by _index()
        self._methods: dict[tuple, list[int]] = {}
        self._members: dict = {}

    # ---- scopes -----------------------------------------------------------------------------------
    def units(self) -> list[_Unit]:
        """The outermost defs (module functions and methods), in text order; the rest is script code."""
        if self._units is not None:
            return self._units
        text = self.text
        units: list[_Unit] = []
        open_def_end = -1
        class_stack: list[tuple[int, int, int]] = []  # (indent, end, class id)
        class_id = 0
        for m in DEF_LINE.finditer(text):
            start = m.start()
            if start < open_def_end or self._triple(start):
                continue  # a nested def belongs to its outer def; a `def` in a docstring is text
            indent = len(m.group(1))
            while class_stack and (start >= class_stack[-1][1] or indent <= class_stack[-1][0]):
                class_stack.pop()
            end = self._end_of_block(m.end(), indent)
            if m.group(2) == "class":
                class_id += 1
                self._class_names[class_id] = m.group(3)
                self._class_ids.setdefault(m.group(3), []).append(class_id)
                self._class_bases[class_id] = _base_names(text, m.end())
                self._class_starts.append(start)
                self._class_ends.append(end)
                if indent == 0:
                    self._top_classes.append((start, end, m.group(3), len(units)))
                class_stack.append((indent, end, class_id))
                continue
            owner = class_stack[-1][2] if class_stack else None
            units.append(_Unit(start, end, m.group(3), "method" if owner else "func", owner))
            open_def_end = end
        self._units = units
        self._starts = [u.start for u in units]
        return units

    def _end_of_block(self, pos: int, indent: int) -> int:
        pattern = _dedent(indent)
        while True:
            m = pattern.search(self.text, pos)
            if m is None:
                return len(self.text)
            if not self._triple(m.end()) and not self.text.endswith("\\", 0, m.start()):
                return m.start() + 1  # the start of that line (not the tail of a `\` continuation)
            pos = m.end()

    def _class_methods_at(self, pos: int) -> list[int]:
        """The starts of the methods of the class whose header or body holds `pos`."""
        units = self.units()
        j = bisect.bisect_right(self._class_starts, pos) - 1
        if j < 0:
            return []
        start, end = self._class_starts[j], self._class_ends[j]
        return [u.start for u in units if start <= u.start < end]

    def unit_at(self, pos: int) -> int | None:
        """The index of the def that holds `pos`; None for script code; -1 for a class body."""
        units = self.units()
        i = bisect.bisect_right(self._starts, pos) - 1
        if i >= 0 and pos < units[i].end:
            return i
        j = bisect.bisect_right(self._class_starts, pos) - 1
        if j >= 0 and pos < self._class_ends[j]:
            return -1  # class attributes: the analysis walks methods only
        return None

    def units_at(self, positions) -> set:
        """The defs holding these positions (None: script code), class bodies left out."""
        return {self.unit_at(p) for p in positions} - {-1}

    def holding(self, word: str) -> set:
        """The defs with `word` in their code (None: script code has it)."""
        return self.units_at(p for p in self._literal(word) if self.in_code(p))

    def _index(self) -> dict[str, list[int]]:
        """Index the defs (functions by name, methods by class and name) once; the functions."""
        if self._functions is not None:
            return self._functions
        functions: dict[str, list[int]] = {}
        self._functions = functions
        for i, u in enumerate(self.units()):
            if u.kind == "func":
                functions.setdefault(u.name, []).append(i)
            else:
                self._methods.setdefault((u.cls, u.name), []).append(i)
                self._members.setdefault(u.cls, []).append(i)
        return functions

    def family(self, cls: int | None) -> set:
        """The class and the classes of this text it inherits from or that inherit from it (by name,
        transitively): `self.m()` in one of them may run a method defined in any other."""
        found = self._families.get(cls)
        if found is None:
            self.units()
            found, todo = set(), [cls]
            while todo:
                c = todo.pop()
                if c in found or c is None:
                    continue
                found.add(c)
                todo += [b for name in self._class_bases.get(c, ()) for b in self._class_ids.get(name, ())]
                name = self._class_names.get(c, "")
                todo += [d for d, bases in self._class_bases.items() if name in bases]
            found = found or {cls}
            self._families[cls] = found
        return found

    def _in_decorator(self, pos: int) -> bool:
        """Is `pos` in a module-level decorator (`@use_kernel(\n    [fn_a, fn_b])`)?"""
        text = self.text
        line_start = text.rfind("\n", 0, pos) + 1
        if text.startswith("@", line_start):
            return True
        at = text.rfind("\n@", max(0, pos - 5000), pos)
        if at == -1:
            return False
        segment = text[at:pos]
        return segment.count("(") > segment.count(")") and "\ndef " not in segment and "\nclass " not in segment

    def _in_import(self, pos: int) -> bool:
        """Is `pos` in an import statement (also one of `from m import (\n a,\n b)`)?"""
        text = self.text
        line_start = text.rfind("\n", 0, pos) + 1
        if text[line_start:pos].lstrip().startswith(("from ", "import ")):
            return True
        opening = text.rfind("import (", max(0, pos - 5000), pos)
        if opening == -1 or ")" in text[opening:pos]:
            return False
        head = text[text.rfind("\n", 0, opening) + 1 : opening].lstrip()
        return head.startswith("from ")


BASES = re.compile(r"\s*\(([^)]*)\)")


def _base_names(text: str, after_name: int) -> list[str]:
    """`class C(pkg.Base, Mixin, metaclass=M):` -> ["Base", "Mixin"] (the last part of each dotted name)."""
    m = BASES.match(text, after_name)
    if m is None:
        return []
    names = []
    for part in m.group(1).split(","):
        if "=" in part:
            continue
        found = re.search(r"([A-Za-z_]\w*)\s*(?:\[.*)?$", part.strip())
        if found:
            names.append(found.group(1))
    return names


def reduced_text(look: Scopes, keep: set) -> str:
    """The text with every def outside `keep` cut down to `def name(*args, **kwargs): ...`, and every
    module-level class none of whose defs is kept to `class Name: ...`, one line each
    (decorators stay: they decorate the stub). Only whether the reduced text has a finding is used,
    never where: its rows need not match the file's.

    libcst's time grows with the code it parses and the analysis walks; a def no padding step can
    reach adds nothing to the findings of the rules that asked for these scopes. A class body the
    module-wide facts may read (pad set to EOS, a collator) is kept.
    """
    text, units = look.text, look.units()
    cuts: list[tuple[int, int, str]] = []  # (start, end, stub) in text order
    classes = iter(look._top_classes)
    current = next(classes, None)
    i = 0
    while i < len(units):
        while current is not None and current[1] <= units[i].start:
            current = next(classes, None)
        if current is not None and current[0] <= units[i].start:
            start, end, name, first = current
            members = [j for j in range(first, len(units)) if units[j].start < end]
            body = look.lower[start:end]
            if not keep.intersection(members) and not any(w in body for w in CLASS_BODY_WORDS):
                cuts.append((start, end, f"class {name}: ..."))
                i = (members[-1] + 1) if members else i + 1
                current = next(classes, None)
                continue
        if i not in keep:
            region = text[units[i].start : units[i].end]
            indent = region[: len(region) - len(region.lstrip(" \t"))]
            cuts.append((units[i].start, units[i].end, f"{indent}def {units[i].name}(*args, **kwargs): ..."))
        i += 1
    parts, pos = [], 0
    for start, end, stub in cuts:
        parts += [text[pos:start], stub, "\n"]
        pos = end
    parts.append(text[pos:])
    return "".join(parts)
