"""Scopes and reach for the first look (first_look.py): the defs of a text, found by indentation
(no parser), and where a value made in one of them can go, the way the analysis passes values on.

Mixed into first_look.Look, which holds the text and finds the features; this part needs of it
`text`, `lower`, `in_code`, `positions`, `import_aliases`, `_literal`, `_triple`, `_weak` and `_row_filled`.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Callable

from padlint.look.text_scan import is_name_at

LABEL_WORDS = ("label", "target", "tgt")
SINK_WORDS = {
    "mask": ("attention_mask", "attn_mask"),  # the mask places of flow.py and sinks.py (mask_sink)
    "labels": LABEL_WORDS + ("cross_entropy", "crossentropyloss", "nll_loss", "nllloss"),
    # what makes an all-ones mask: torch/np.ones(_like), new_ones, `[1] * n`, `[1 for ...]`, full(.., 1)
    "ones": ("ones", "full", re.compile(r"\[\s*1\s*\]|\b1\s+for\b")),
}

# A class body holding one of these is kept whole: module-wide facts (pad set to EOS, a collator,
# left padding) are gathered from every node, class attributes included.
CLASS_BODY_WORDS = ("eos", "datacollator", "padding_side")
DEF_LINE = re.compile(r"^([ \t]*)(?:async[ \t]+)?(def|class)[ \t]+(\w+)", re.M)
BARE_NAME = re.compile(r"(?<![\w.])([A-Za-z_]\w*)")
SELF_ATTR = re.compile(r"(?<![\w.])(?:self|cls)\s*\.\s*(\w+)")
SELF_STORE = re.compile(r"(?<![\w.])self\s*\.\s*(\w+)\s*(?:\[[^\]\n]*\]\s*)?(?:=(?!=)|[-+*/|&]=)")
# `buf[i, :n] = ...`, `buf[i, -n:] = ...`: part of a row of a 2-D value written (zero_padding.py).
ROW_PART_STORE = re.compile(r"\[[^\n\]]*,[^\n]*:[^\n]*\]\s*=(?!=)")
SELF_CALL = re.compile(r"(?<![\w.])self\s*\(")
MADE = re.compile(r"\s*\(")  # after a class name: an instance made
# What an instance runs where it is made and used without a method name: made, called, indexed, iterated.
INSTANCE_ENTRIES = frozenset({"__init__", "__call__", "__getitem__", "__iter__", "__next__"})


@functools.lru_cache(maxsize=64)
def _dedent(indent: int) -> re.Pattern[str]:
    """The start of the next line indented no deeper than `indent` that can start a statement."""
    statement_start = r"(?=[^ \t\r\n#)\]},.+\-*/%&|=<>:^~])"
    return re.compile(rf"\n[ \t]{{0,{indent}}}{statement_start}" if indent else rf"\n{statement_start}")


class _Unit:
    __slots__ = ("start", "end", "name", "kind", "cls")

    def __init__(self, start: int, end: int, name: str, kind: str, cls: int | None):
        self.start, self.end, self.name, self.kind, self.cls = start, end, name, kind, cls


class Reach:
    """The defs of the text, what reaches what, and the spans a reach covers."""

    # What first_look.Look provides (declared here so this part type-checks on its own).
    text: str
    _weak: set[int]
    _row_filled: set[int]
    _triple: Callable[[int], bool]

    @property
    def lower(self) -> str:
        raise NotImplementedError

    def in_code(self, pos: int) -> bool:
        raise NotImplementedError

    def positions(self, name: str) -> list[int]:
        raise NotImplementedError

    def import_aliases(self) -> dict[str, str]:
        raise NotImplementedError

    def _literal(self, word: str, lower: bool = False) -> list[int]:
        raise NotImplementedError

    def init_reach(self) -> None:
        self._units: list[_Unit] | None = None
        self._starts: list[int] = []
        self._components: dict[str, list[set]] = {}
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
        self._memo: dict = {}  # (what, def index) -> callees, callers, attribute readers, reach

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

    def linked(self, seed: str, *sinks: str) -> bool:
        """Does the reach of some scope with `seed` have every word in `sinks` (in code)?"""
        return bool(self.reach(seed, *sinks))

    def reach(self, seed: str, *sinks: str) -> set:
        """The scopes a value made where `seed` occurs can reach (None among them: script code),
        counting only the scopes with `seed` whose reach has every word in `sinks`."""
        found: set = set()
        for component in self._closures(seed):
            if component <= found:
                continue
            if all(self._in_spans(SINK_WORDS[sink], self._spans(component)) for sink in sinks):
                found |= component
        return found

    def _closures(self, seed: str) -> list[set]:
        """One reach per scope that holds `seed`."""
        closures = self._components.get(seed)
        if closures is None:
            # An import makes no value (`from torch.nn import CrossEntropyLoss`), except an aliased
            # padding function (`import pad as p`), whose calls the text cannot see.
            strong: set = set()
            weak: set = set()
            row_filled: set = set()
            for p in self.positions(seed):
                if self._in_import(p) and not re.match(r"pad\w*\s+as\b", self.text[p : p + 40]):
                    continue
                kind = weak if p in self._weak else row_filled if p in self._row_filled else strong
                kind.add(self.unit_at(p))
            strong.discard(-1)
            closures = [self._reach_of(start) for start in strong]
            # A fill that holds a pad id came from something named so: in the reach, or in the
            # `__init__` (and what it calls) of a class whose methods are in the reach.
            for start in weak - strong - {-1}:
                closure = self._reach_of(start)
                if self._in_spans(("pad",), self._spans(self.with_setup(closure))):
                    closures.append(closure)
            # A zero buffer pads only once rows of tokens are written into part of it
            # (zero_padding.zero_row_fill): that write is where the buffer's value goes.
            for start in row_filled - strong - {-1}:
                closure = self._reach_of(start)
                if self._in_spans((ROW_PART_STORE,), self._spans(closure)):
                    closures.append(closure)
            self._components[seed] = closures
        return closures

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

    def _spans(self, component: set) -> list[tuple[int, int]]:
        if None in component:
            return [(0, len(self.text))]
        units = self.units()
        return [(units[i].start, units[i].end) for i in component if i is not None and i >= 0]

    def _in_spans(self, words: tuple, spans: list[tuple[int, int]]) -> bool:
        """Does a word (a literal, or a regex) occur in code within the spans? An alias of an
        imported name holding a word counts as the word (`import ones_like as make_mask`)."""
        lower = self.lower
        aliases = self.import_aliases()
        if aliases:
            words = words + tuple(
                a.lower() for a, original in aliases.items() if any(isinstance(w, str) and w in original for w in words)
            )
        for start, end in spans:
            for word in words:
                if isinstance(word, re.Pattern):
                    if any(self.in_code(m.start()) for m in word.finditer(lower, start, end)):
                        return True
                    continue
                pos = lower.find(word, start, end)
                while pos != -1:
                    if self.in_code(pos):
                        return True
                    pos = lower.find(word, pos + 1, end)
        return False

    def _memoised(self, what: str, i, compute):
        """compute(i), once per def: reaches share callers and callees."""
        self._index()
        key = (what, i)
        if key not in self._memo:
            self._memo[key] = compute(i)
        return self._memo[key]

    def _reach_of(self, unit: int | None) -> set:
        return self._memoised("reach", unit, lambda u: self._closure({u}))

    def _closure(self, start: set) -> set:
        """The scopes a value made in `start` can reach, the way the analysis passes values on.

        A value goes up to the callers of the scope that holds it (a return) and down into its
        callees (an argument), never down and then up again (a callee's summary is computed for
        each caller separately); `__init__` hands `self.x` to the methods that read it, where it
        starts afresh; script code reaches, and is reached by, everything (the module's globals).
        """
        units = self.units()  # (indexed: only _reach_of calls this)
        everything = set(range(len(units))) | {None}
        if None in start:
            return everything
        seen: set = set()
        todo = [(i, True) for i in start]
        while todo:
            i, up = todo.pop()
            if (i, up) in seen:
                continue
            seen.add((i, up))
            nxt = [(j, False) for j in self._callees(i)]
            if up:
                callers = self._callers(i)
                if None in callers:
                    return everything
                nxt += [(j, True) for j in callers]
            if units[i].name == "__init__" and units[i].kind == "method":
                nxt += [(j, True) for j in self._attribute_readers(i)]
            todo.extend(n for n in nxt if n not in seen and n[0] != i)
        return {i for i, _ in seen}

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

    def _callees(self, i: int) -> list:
        """The defs scope i names: `fn(...)`, `ds.map(fn)`, `f = fn`, `self.m(...)`, `self(...)`."""
        return self._memoised("callees", i, self._find_callees)

    def _find_callees(self, i: int) -> list:
        units = self.units()
        u = units[i]
        body = self.text[u.start : u.end]
        functions = self._index()
        found: list = []
        names = set(BARE_NAME.findall(body))
        for name in names & functions.keys():
            found += functions[name]
        for name in names & self._class_ids.keys():
            # `Builder(...)` then `builder.make_batch(...)`: an instance's methods run for its maker.
            if re.search(rf"(?<![\w.]){re.escape(name)}\s*\(", body):
                for cls in self._class_ids[name]:
                    found += [
                        j
                        for j in self._members.get(cls, ())
                        if units[j].name in INSTANCE_ENTRIES
                        or not units[j].name.startswith("__")
                        and re.search(rf"\.\s*{units[j].name}\s*\(", body)
                    ]
        if u.kind == "method":
            family = self.family(u.cls)
            for name in set(SELF_ATTR.findall(body)):
                for cls in family:
                    found += self._methods.get((cls, name), ())
            if SELF_CALL.search(body):
                for cls in family:
                    found += self._methods.get((cls, "__call__"), ())
        return found

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

    def holding(self, word: str) -> set:
        """The defs with `word` in their code (None: script code has it)."""
        return self.units_at(p for p in self._literal(word) if self.in_code(p))

    def units_at(self, positions) -> set:
        """The defs holding these positions (None: script code), class bodies left out."""
        return {self.unit_at(p) for p in positions} - {-1}

    def with_setup(self, keep: set) -> set:
        """`keep` and, for each kept method, its class's `__init__` with everything that calls down
        into: the analysis walks a class's methods over what its `__init__` stored on `self`."""
        units = self.units()
        self._index()
        todo = [
            j
            for i in keep
            if i is not None and i >= 0 and units[i].kind == "method"
            for cls in self.family(units[i].cls)
            for j in self._methods.get((cls, "__init__"), ())
        ]
        found = set(keep)
        while todo:
            j = todo.pop()
            if j not in found:
                found.add(j)
                todo.extend(self._callees(j))
        return found

    def _callers(self, i: int) -> set:
        """The scopes that name def i (None: script code)."""
        return self._memoised("callers", i, self._find_callers)

    def _find_callers(self, i: int) -> set:
        text, u = self.text, self.units()[i]
        found: set = set()
        if u.kind == "method":
            # Where an instance is made (`Builder(...)`): what it runs when made, called, indexed or
            # iterated, and a method called there by name (`builder.make_batch(`), is called from there.
            name = self._class_names.get(u.cls, "") if u.cls is not None else ""
            called = re.compile(rf"\.\s*{re.escape(u.name)}\s*\(")
            for pos in self._literal(name) if name else ():
                where = self.unit_at(pos)
                if where == -1 or where == i or not is_name_at(text, pos, name):
                    continue
                if not MADE.match(text, pos + len(name)) or text[pos - 1 : pos] == "." or not self.in_code(pos):
                    continue
                if where is None and self._in_decorator(pos) or where is not None and self.units()[where].cls == u.cls:
                    continue
                span = (0, len(text)) if where is None else (self.units()[where].start, self.units()[where].end)
                # `__init__` hands nothing back to its maker (what it stores reaches the methods).
                entry = u.name in INSTANCE_ENTRIES and u.name != "__init__"
                if entry or not u.name.startswith("__") and called.search(text, *span):
                    found.add(where)
        name = "self" if u.name == "__call__" else u.name
        for pos in self._literal(name):
            end = pos + len(name)
            if not is_name_at(text, pos, name):
                continue
            before = text[max(0, pos - 24) : pos]
            where = self.unit_at(pos)
            if where == -1 or where == i:
                continue
            if pos and text[pos - 1] in "\"'" and text[end : end + 1] == text[pos - 1]:
                continue  # `__all__ = ["name"]`: a mention in a string, not a reference
            if where is None and self._in_decorator(pos):
                continue  # `@register(fn)` on a module-level def: the walk passes no value through it
            if u.kind == "func":
                if before.endswith(".") or before.rstrip().endswith("def"):
                    continue
            else:
                if u.name == "__call__":
                    if not re.match(r"\s*\(", text[end : end + 8]) or before.endswith("."):
                        continue
                elif not re.search(r"(?<![\w.])(?:self|cls)\s*\.\s*$", before):
                    continue
                if where is None or self.units()[where].cls not in self.family(u.cls):
                    continue
            found.add(where)
        return found

    def _attribute_readers(self, i: int) -> list:
        """The methods of `__init__`'s class that read a `self.x` it stores."""
        return self._memoised("readers", i, self._find_attribute_readers)

    def _find_attribute_readers(self, i: int) -> list:
        u = self.units()[i]
        stored = set(SELF_STORE.findall(self.text, u.start, u.end))
        return [
            j
            for cls in self.family(u.cls)
            for j in self._members.get(cls, ())
            if j != i and stored & set(SELF_ATTR.findall(self.text, self.units()[j].start, self.units()[j].end))
        ]


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


def reduced_text(look: Reach, keep: set) -> str:
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
