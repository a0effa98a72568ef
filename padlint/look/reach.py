"""Reach for the first look (first_look.py): where a value made in one def of a text can go, the way
the analysis passes values on (up to callers, down into callees, from `__init__` to the methods
reading what it stored, everywhere from script code), and whether the spans of a reach hold a word.
The defs themselves are scopes.py's.

Mixed into first_look.Look, which holds the text and finds the features; this part needs of it
`positions`, `import_aliases`, `_weak` and `_row_filled`, besides what scopes.py declares.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from padlint.look.scopes import Scopes
from padlint.look.text_scan import is_name_at

LABEL_WORDS = ("label", "target", "tgt")
EVERY_ROW_LAST = re.compile(r"\[\s*:\s*,\s*-\s*1\s*[,\]]")  # `[:, -1]`, `[:, -1, :]`
SINK_WORDS = {
    # the mask places of flow.py and sinks.py (mask_sink); a mask handed back (`return ids, mask`), whose
    # place is the caller's (the analysis follows it there, also into an importer)
    "mask": ("attention_mask", "attn_mask", re.compile(r"\breturn\b[^\n]*\bmasks?\b")),
    "labels": LABEL_WORDS + ("cross_entropy", "crossentropyloss", "nll_loss", "nllloss"),
    # what makes an all-ones mask: torch/np.ones(_like), new_ones, `[1] * n`, `[1 for ...]`, full(.., 1)
    "ones": ("ones", "full", re.compile(r"\[\s*1\s*\]|\b1\s+for\b")),
    "mean": ("mean",),  # `.mean()`, `torch.mean(...)`: a reduction that may count ignored positions
    "pool": (re.compile(r"\.a?max\s*\("),),  # `h.max(dim=1)`, `torch.amax(h, 1)`: a max over positions
    "generate": ("generate",),  # a model's `generate(...)`: continues each row after its last position
    "hidden_states": ("hidden_state",),  # `out.last_hidden_state`, `out.hidden_states[-1]`
    "last_position": (EVERY_ROW_LAST,),  # `logits[:, -1]`: the last position of every row
}

BARE_NAME = re.compile(r"(?<![\w.])([A-Za-z_]\w*)")
SELF_ATTR = re.compile(r"(?<![\w.])(?:self|cls)\s*\.\s*(\w+)")
SELF_STORE = re.compile(r"(?<![\w.])self\s*\.\s*(\w+)\s*(?:\[[^\]\n]*\]\s*)?(?:=(?!=)|[-+*/|&]=)")
# `buf[i, :n] = ...`, `buf[i, -n:] = ...`: part of a row of a 2-D value written (zero_padding.py).
ROW_PART_STORE = re.compile(r"\[[^\n\]]*,[^\n]*:[^\n]*\]\s*=(?!=)")
SELF_CALL = re.compile(r"(?<![\w.])self\s*\(")
MADE = re.compile(r"\s*\(")  # after a class name: an instance made
THROUGH_NAME = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\s*\.\s*(\w+)\s*\(")  # `Builder.join(`
# What an instance runs where it is made and used without a method name: made, called, indexed, iterated.
INSTANCE_ENTRIES = frozenset({"__init__", "__call__", "__getitem__", "__iter__", "__next__"})
# `name = Maker(` (annotated, chained or continued): an instance made in script code, which every def may
# use by its name.
_GAP = r"[ \t]*(?:\\\n[ \t]*)?"
SCRIPT_INSTANCE = re.compile(rf"^[ \t]*((?:[A-Za-z_]\w*{_GAP}(?::[^=\n]*)?={_GAP}(?!=))+)([A-Za-z_]\w*){_GAP}\(", re.M)
TARGET_NAME = re.compile(r"[A-Za-z_]\w*")


class Reach(Scopes):
    """The defs of the text, what reaches what, and the spans a reach covers."""

    # What first_look.Look provides (declared here so this part type-checks on its own).
    _weak: set[int]
    _row_filled: set[int]

    def positions(self, name: str) -> list[int]:
        raise NotImplementedError

    def import_aliases(self) -> dict[str, str]:
        raise NotImplementedError

    def init_reach(self) -> None:
        self.init_scopes()
        self._components: dict[str, list[set]] = {}
        self._memo: dict = {}  # (what, def index) -> callees, callers, attribute readers, reach
        self._script_instances: dict[str, set[str]] | None = None  # instance name -> the classes it was made of

    # ---- reach ------------------------------------------------------------------------------------
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
            # Each kind of start, and what its reach must hold for the start to pad. A fill that holds a
            # pad id came from something named so: in the reach, or in the `__init__` (and what it
            # calls) of a class whose methods are in the reach. A zero buffer pads only once rows of
            # tokens are written into part of it (zero_padding.zero_row_fill): that write is where
            # the buffer's value goes. A start in a strong unit is taken as strong.
            starts_and_needs: list[tuple[set, Callable[[set], bool]]] = [
                (strong, lambda closure: True),
                (weak - strong, lambda closure: self._in_spans(("pad",), self._spans(self.with_setup(closure)))),
                (row_filled - strong, lambda closure: self._in_spans((ROW_PART_STORE,), self._spans(closure))),
            ]
            closures = [
                closure
                for starts, needs in starts_and_needs
                for closure in map(self._reach_of, starts - {-1})
                if needs(closure)
            ]
            self._components[seed] = closures
        return closures

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
        made = {name: self.script_instances()[name] for name in names & self.script_instances().keys()}
        through: dict[str, set[str]] | None = None  # `Name.method(`: name -> the methods so called
        for name in names & self._class_ids.keys() | made.keys():
            # `Builder.join(...)`: a method called through its class (a static or class method).
            if through is None:
                through = {}
                for owner, method in THROUGH_NAME.findall(body):
                    through.setdefault(owner, set()).add(method)
            if name in made:
                # `reward_model = RewardModel(...)` in script code, `reward_model(ids)` in a def: the
                # instance's entries (a torch module's call runs its `forward`) and the methods called on it
                entries = (
                    INSTANCE_ENTRIES | {"forward"} if re.search(rf"(?<![\w.]){name}\s*\(", body) else INSTANCE_ENTRIES
                )
                found += [
                    j
                    for maker in made[name]
                    for cls in self._class_ids[maker]
                    for j in self._members.get(cls, ())
                    if units[j].name in entries or re.search(rf"\.\s*{units[j].name}\s*\(", body)
                ]
                if name not in self._class_ids:
                    continue
            called = through.get(name, set())
            for cls in self._class_ids[name] if called else ():
                found += [j for j in self._members.get(cls, ()) if units[j].name in called]
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

    def script_instances(self) -> dict[str, set[str]]:
        """Names bound in script code to an instance of a class of this text (`rm = RewardModel(...)`)."""
        if self._script_instances is None:
            self._index()
            found: dict[str, set[str]] = {}
            for m in SCRIPT_INSTANCE.finditer(self.text):
                maker = m.group(2)
                if maker in self._class_ids and self.unit_at(m.start(1)) is None and self.in_code(m.start(1)):
                    for target in m.group(1).split("="):
                        name = TARGET_NAME.match(target.strip(" \t\\\n"))
                        if name is not None:
                            found.setdefault(name.group(0), set()).add(maker)
            self._script_instances = found
        return self._script_instances

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
        class_name = self._class_names.get(u.cls, "") if u.kind == "method" and u.cls is not None else ""
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
            elif class_name and _called_through(before, class_name):
                pass  # `Builder.join(...)`: called through its class, from anywhere
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


def _called_through(before: str, owner: str) -> bool:
    """Does `before` (the text right before a method's name) end with `owner.`, owner a whole name?"""
    head = before.rstrip()
    if not head.endswith("."):
        return False
    head = head[:-1].rstrip()
    if not head.endswith(owner):
        return False
    ahead = head[: len(head) - len(owner)][-1:]
    return not (ahead.isalnum() or ahead in ("_", "."))
