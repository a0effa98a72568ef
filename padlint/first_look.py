"""The sharp first look: can this file have a finding, judged from its text and its scopes?

The word look (prefilter.py) only asks whether a rule's words occur at all; nearly every file of a
model library mentions "pad", "labels" and "attention_mask". This look asks where they occur. A
padding step (`pad_sequence`, `F.pad`, `tokenizer(..., padding=True)`, `[pad] * n`, `torch.full(.., pad)`)
can only reach a labels or mask place through the scope it is in and the scopes that scope is
connected to the way the analysis connects them (flow.py, summaries.py):

- a module-level function with every scope that names it (a call, `ds.map(fn)`, `f = fn`);
- a method with the methods of its class it calls as `self.name(...)` / `self(...)`, and with
  `__init__` and the other set-up methods (their `self.*` reaches every method);
- script code (module level, outside any def) with everything, once it is involved at all.

Each rule declares with `may_fire(look)` what it needs: a padding step in the same connected
scopes as a mask or labels word, or one of a few sharp file-wide patterns (pad set to EOS, a
`pad_id or eos_id` fallback, a mean of a product...). These are necessary conditions of the
analysis, never sufficient ones: skipping a file must never change what is reported, which
tests/test_prefilter.py checks against the full analysis over the fixtures, the corpus and the bench
corpus. Matches inside comments and triple-quoted strings (docstrings) do not count.

Everything here is plain `re` over the text: no parser.
"""
from __future__ import annotations

import bisect
import functools
import re

# ---- what the text can contain --------------------------------------------------------------------
# A padding step (the origins of `Padded`, padding tokenizer outputs and label paddings).
PAD_STEP = re.compile(
    r"pad_sequences?\s*\(|\b(?:pad|pad_sequences?)\s+as\s+\w|\.\s*pad\s*\(|(?<![\w.])(?P<bare>pad)\s*\(|pad_to_max_length"
    r"|padding\s*=\s*(?:True\b|[\"'](?:max_length|longest)|[\w.]*(?:MAX_LENGTH|LONGEST)\b|(?P<const>[A-Za-z_]\w*)\b(?![.(\[]))"
    r"|\[\s*(?P<item>-?[\w.]+)\s*\]\s*\*|\*\s*\(?\s*\[\s*(?P<item2>-?[\w.]+)\s*\]"
    r"|\bfull\s*\("
)
# `[v] * n` with these items pads nothing (`[1]`: ones, `[0]`: zeros, `[None]`).
NOT_A_PAD_ITEM = {"None", "True", "False", "0", "1"}
# `F.pad(...)`, `np.pad(...)` pad arrays; only other receivers can be tokenizers.
ARRAY_MODULES = {"F", "functional", "np", "numpy", "torch", "jnp", "tf", "nn", "self", "cls", "mx", "ops"}
TOKENIZER_PADDING = re.compile(
    r"(?P<recv>\w+)\s*\.\s*pad\s*\(|(?<![\w.])(?P<bare>pad)\s*\(|pad_to_max_length"
    r"|padding\s*=\s*(?:True\b|[\"'](?:max_length|longest)|[\w.]*(?:MAX_LENGTH|LONGEST)\b|(?P<const>[A-Za-z_]\w*)\b(?![.(\[]))"
)
PAD_IMPORTED = re.compile(r"\bimport\b[^\n]*\bpad\b|\bimport\s*\([^)]*\bpad\b")
WORDS = {
    "mask": re.compile(r"mask", re.I),
    "labels": re.compile(r"label|target|tgt|cross_entropy|CrossEntropyLoss|nll_loss|NLLLoss", re.I),
    # what makes an all-ones mask: torch/np.ones(_like), new_ones, `[1] * n`, `[1 for ...]`, full(.., 1)
    "ones": re.compile(r"ones|\[\s*1\s*\]|\b1\s+for\b|full"),
}
EOS = r"\beos(?:_token(?:_id)?|_id)?\b"  # what patterns.is_eos_expression accepts
FILE_PATTERNS = {
    # `tokenizer.pad_token = tokenizer.eos_token`, `pad_token_id=tok.eos_token_id`, `pad_id or eos_id`
    "pad_is_eos": re.compile(
        r"pad_token(?:_id)?\s*=(?!=)\s*(?:\([^)]{0,300}?|[^,;#\n]{0,200}?)" + EOS +
        r"|pad\w*\)?[\s\\]*\bor\b[\s\\(]*[^\n,;]{0,200}?" + EOS, re.I),
    # a pad id with an EOS fallback, held in any name: `p or tok.eos_token_id`
    "eos_fallback": re.compile(r"\bor\b[\s\\(]*[^\n,;]{0,200}?" + EOS, re.I),
    "loss": re.compile(r"cross_entropy|CrossEntropyLoss|nll_loss|NLLLoss"),
    # a loss told to ignore a literal or a constant other than -100 (a variable resolves to nothing)
    "ignore_index_set": re.compile(
        r"ignore_index\s*=(?!=)\s*(?!-\s*100\b)(?:-?\s*\d|(?P<const>[A-Za-z_]\w*)\b(?![.(\[])|[a-z_]\w*\.[A-Z_][A-Z0-9_]*\b)"),
    # an ignore-named constant other than -100 (module-level, or imported from the project)
    "ignore_constant": re.compile(
        r"(?im:^\w*ignore\w*[ \t]*(?::[^=\n]*)?=(?!=)[ \t]*(?!-[ \t]*100\b)|\bimport\b[^\n#]*ignore)|\b(?!re\.)[a-z_]\w*\.[A-Z_]*IGNORE[A-Z_]*\b"),
    "label_pad_id": re.compile(r"label_pad_token_id"),
    # `labels[...] = -1`: labels masked with a literal other than -100
    "label_store": re.compile(r"(?:label|target|tgt)\w*['\"]?\]?\s*\[[^\n]*\]\s*=(?!=)\s*(?!-\s*100\b)-?\s*\d", re.I),
    # `x[...] = -1` / `= 0` into any array (a copy of padded ids, PAD007)
    "int_store": re.compile(r"\]\s*=(?!=)\s*(?!-\s*100\b)(?:-\s*\d+|0)\b"),
    "repadding": re.compile(r"(?P<recv>\w+)\s*\.\s*pad\s*\(|DataCollator(?:WithPadding|ForLanguageModeling|ForSeq2Seq|ForTokenClassification)"),
    "list_padding": re.compile(r"\[\s*(?P<item>-?[\w.]+)\s*\]\s*\*|\*\s*\(?\s*\[\s*(?P<item2>-?[\w.]+)\s*\]"),
    "mean": re.compile(r"\bmean\s*\("),
    # `labels = input_ids`, `batch["labels"] = batch["input_ids"]`: labels aliasing the ids
    "labels_alias": re.compile(
        r"(?:label|target|tgt)\w*['\"]?\]?[ \t]*=(?!=)[ \t]*[\w.\[\]'\"]*(?:ids|tokens)\b['\"\]]*[ \t]*(?:$|[;#)])",
        re.I | re.M),
}
DEF_LINE = re.compile(r"^([ \t]*)(?:async[ \t]+)?(def|class)[ \t]+(\w+)", re.M)
BARE_NAME = re.compile(r"(?<![\w.])([A-Za-z_]\w*)")
SELF_ATTR = re.compile(r"(?<![\w.])(?:self|cls)\s*\.\s*(\w+)")
SELF_STORE = re.compile(r"(?<![\w.])self\s*\.\s*(\w+)\s*(?:\[[^\]\n]*\]\s*)?(?:=(?!=)|[-+*/|&]=)")
SELF_CALL = re.compile(r"(?<![\w.])self\s*\(")


@functools.lru_cache(maxsize=64)
def _dedent(indent: int) -> re.Pattern[str]:
    """The start of the next line indented no deeper than `indent` that can start a statement."""
    return re.compile(r"\n[ \t]{0,%d}(?=[^ \t\r\n#)\]},.+\-*/%%&|=<>:^~])" % indent if indent else
                      r"\n(?=[^ \t\r\n#)\]},.+\-*/%&|=<>:^~])")


class _Unit:
    __slots__ = ("start", "end", "name", "kind", "cls")

    def __init__(self, start: int, end: int, name: str, kind: str, cls: int | None):
        self.start, self.end, self.name, self.kind, self.cls = start, end, name, kind, cls


class Look:
    """The text of one file, with lazily computed matches, scopes and their connections."""

    def __init__(self, text: str):
        self.text = text
        self._positions: dict[str, list[int]] = {}
        self._units: list[_Unit] | None = None
        self._starts: list[int] = []
        self._triple = _triple_quote_checker(text)
        self._components: dict[str, set] = {}
        self._class_starts: list[int] = []
        self._class_ends: list[int] = []

    # ---- matches in code ------------------------------------------------------------------------
    def in_code(self, pos: int) -> bool:
        """Not inside a comment or a triple-quoted string (both judged conservatively)."""
        text = self.text
        line_start = text.rfind("\n", 0, pos) + 1
        hash_at = text.find("#", line_start, pos)
        if hash_at != -1 and "'" not in text[line_start:hash_at] and '"' not in text[line_start:hash_at]:
            return False
        return not self._triple(pos)

    def positions(self, name: str) -> list[int]:
        """Where the named pattern matches in code."""
        found = self._positions.get(name)
        if found is None:
            pattern = PAD_STEP if name == "pad_step" else TOKENIZER_PADDING if name == "tokenizer_padding" else \
                WORDS.get(name) or FILE_PATTERNS[name]
            found = [m.start() for m in pattern.finditer(self.text) if self._counts(name, m) and self.in_code(m.start())]
            self._positions[name] = found
        return found

    def has(self, name: str) -> bool:
        return bool(self.positions(name))

    def _counts(self, name: str, match: re.Match) -> bool:
        groups = match.re.groupindex
        if "item" in groups:
            item = match.group("item") or match.group("item2")
            if item is not None and (item in NOT_A_PAD_ITEM or _is_float(item)):
                return False
        if "const" in groups and match.group("const") is not None:
            # `padding=PADDING` counts only when the name is a module-level constant.
            const = match.group("const")
            return const != "True" and re.search(
                r"^%s\s*(?::[^=\n]*)?=(?!=)|\bimport\b[^\n]*\b%s\b" % (re.escape(const), re.escape(const)), self.text, re.M) is not None
        if "bare" in groups and match.group("bare") is not None:
            # a bare `pad(...)`: numpy's or torch's only when imported under that name (else a local helper)
            return PAD_IMPORTED.search(self.text) is not None
        if "recv" in groups and match.group("recv") is not None:
            return match.group("recv") not in ARRAY_MODULES
        if match.group(0).startswith("full"):
            return self._full_fill_may_be_pad(match.end())
        return True

    def _full_fill_may_be_pad(self, open_paren: int) -> bool:
        """`torch.full(shape, fill)`: False only for fills that cannot hold a pad id."""
        args = _call_arguments(self.text, open_paren)
        if args is None:
            return True
        fill = next((a.split("=", 1)[1].strip() for a in args if re.match(r"\s*fill_value\s*=", a)), None)
        if fill is None:
            positional = [a for a in args if not re.match(r"\s*\w+\s*=(?!=)", a)]
            if len(positional) < 2:
                return False  # no fill: nothing padded
            fill = positional[1].strip()
        if re.fullmatch(r"-?\s*[\d.]+", fill):
            return True if fill.replace(" ", "") not in ("1", "1.0", "0", "0.0") else False
        if re.fullmatch(r"[A-Za-z_][\w.]*", fill) and "." in fill and "pad" not in fill.lower():
            # An attribute such as `self.config.image_token_id` holds a pad id only if assigned one here.
            return re.search(r"%s\s*=(?!=)" % re.escape(fill), self.text) is not None
        return True

    # ---- scopes -----------------------------------------------------------------------------------
    def units(self) -> list[_Unit]:
        """The outermost defs (module functions and methods), in text order; the rest is script code."""
        if self._units is not None:
            return self._units
        text, units, classes = self.text, [], []  # classes: (end, index of its first unit)
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
                self._class_starts.append(start)
                self._class_ends.append(end)
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
            if not self._triple(m.end()):
                return m.start() + 1  # the start of that line
            pos = m.end()

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
        """Do the scopes connected to one with `seed` have every word in `sinks` (in code)?"""
        if not self.positions(seed):
            return False
        component = self._reach(seed)
        units = self.units()
        if None in component:
            spans = [(0, len(self.text))]
        else:
            spans = [(units[i].start, units[i].end) for i in component if i is not None and i >= 0]
        return all(self._in_spans(WORDS[sink], spans) for sink in sinks)

    def _in_spans(self, pattern: re.Pattern[str], spans: list[tuple[int, int]]) -> bool:
        for start, end in spans:
            for m in pattern.finditer(self.text, start, end):
                if self.in_code(m.start()):
                    return True
        return False

    def _reach(self, seed: str) -> set:
        component = self._components.get(seed)
        if component is None:
            start = {self.unit_at(p) for p in self.positions(seed)} - {-1}
            component = self._components[seed] = self._closure(start)
        return component

    def _closure(self, start: set) -> set:
        """The scopes a value made in `start` can reach, the way the analysis passes values on.

        A value goes up to the callers of the scope that holds it (a return) and down into its
        callees (an argument), never down and then up again (a callee's summary is computed for
        each caller separately); `__init__` hands `self.x` to the methods that read it, where it
        starts afresh; script code reaches, and is reached by, everything (the module's globals).
        """
        units = self.units()
        self._index()
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

    def _index(self) -> None:
        if hasattr(self, "_functions"):
            return
        self._functions: dict[str, list[int]] = {}
        self._methods: dict[tuple, list[int]] = {}
        self._members: dict = {}
        self._memo: dict = {}
        for i, u in enumerate(self.units()):
            if u.kind == "func":
                self._functions.setdefault(u.name, []).append(i)
            else:
                self._methods.setdefault((u.cls, u.name), []).append(i)
                self._members.setdefault(u.cls, []).append(i)

    def _callees(self, i: int) -> list:
        """The defs scope i names: `fn(...)`, `ds.map(fn)`, `f = fn`, `self.m(...)`, `self(...)`."""
        u = self.units()[i]
        body = self.text[u.start:u.end]
        found: list = []
        for name in set(BARE_NAME.findall(body)) & self._functions.keys():
            found += self._functions[name]
        if u.kind == "method":
            for name in set(SELF_ATTR.findall(body)):
                found += self._methods.get((u.cls, name), ())
            if SELF_CALL.search(body):
                found += self._methods.get((u.cls, "__call__"), ())
        return found

    def _callers(self, i: int) -> set:
        """The scopes that name def i (None: script code)."""
        text, u = self.text, self.units()[i]
        found: set = set()
        name = "self" if u.name == "__call__" else u.name
        for m in re.finditer(r"\b%s\b" % re.escape(name), text):
            pos = m.start()
            before = text[max(0, pos - 24):pos]
            where = self.unit_at(pos)
            if where == -1 or where == i:
                continue
            if u.kind == "func":
                if before.endswith(".") or before.rstrip().endswith("def"):
                    continue
            else:
                if u.name == "__call__":
                    if not re.match(r"\s*\(", text[m.end():m.end() + 8]) or before.endswith("."):
                        continue
                elif not re.search(r"(?<![\w.])(?:self|cls)\s*\.\s*$", before):
                    continue
                if where is None or self.units()[where].cls != u.cls:
                    continue
            found.add(where)
        return found

    def _attribute_readers(self, i: int) -> list:
        """The methods of `__init__`'s class that read a `self.x` it stores."""
        u = self.units()[i]
        stored = set(SELF_STORE.findall(self.text, u.start, u.end))
        return [j for j in self._members.get(u.cls, ())
                if j != i and stored & set(SELF_ATTR.findall(self.text, self.units()[j].start, self.units()[j].end))]


def _triple_quote_checker(text: str):
    """A test for "is this position inside a triple-quoted string", by counting the quotes before it.

    Counting is only right when triple quotes never appear inside other strings; where the text
    could fool it (both kinds used, or a triple quote inside single quotes or escaped), every
    position counts as code: the look then sees more, never less.
    """
    has_double, has_single = '"""' in text, "'''" in text
    if not has_double and not has_single:
        return lambda pos: False
    if (has_double and has_single) or "'\"\"\"" in text or "\\\"\"\"" in text or "\"'''" in text or "\\'''" in text:
        return lambda pos: False
    quote = '"""' if has_double else "'''"
    openings = [m.start() for m in re.finditer(quote, text)]
    if len(openings) % 2:
        return lambda pos: False  # unbalanced: something else is going on

    def inside(pos: int) -> bool:
        return bisect.bisect_left(openings, pos) % 2 == 1

    return inside


def _call_arguments(text: str, open_paren: int, limit: int = 600) -> list[str] | None:
    """The top-level argument texts of the call whose `(` ends at `open_paren`; None if unclear."""
    depth, args, current = 1, [], []
    i = open_paren
    end = min(len(text), open_paren + limit)
    while i < end:
        ch = text[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                args.append("".join(current))
                return [a for a in args if a.strip()]
        elif ch == "," and depth == 1:
            args.append("".join(current))
            current = []
            i += 1
            continue
        elif ch in "\"'#":
            return None  # strings and comments inside: not worth reading here
        current.append(ch)
        i += 1
    return None


def _is_float(item: str) -> bool:
    return bool(re.fullmatch(r"-?\d*\.\d*(e-?\d+)?", item)) and item not in (".", "-.")


def mean_of_product(look: Look) -> bool:
    """`(x * mask).mean(...)` or `torch.mean(x * mask, ...)` somewhere (PAD011's shape)."""
    text = look.text
    for pos in look.positions("mean"):
        before = text[max(0, pos - 2):pos].rstrip()
        if before.endswith(".") and text[:pos].rstrip(". \t\n\\").endswith(")"):
            if "*" in _parenthesised_before(text, text[:pos].rstrip(". \t\n\\")):
                return True
        open_paren = text.find("(", pos) + 1
        args = _call_arguments(text, open_paren, limit=2000)
        if args is None or (args and "*" in args[0]):
            return True
    return False


def _parenthesised_before(text: str, head: str) -> str:
    """The text of the bracketed expression that ends `head` (which ends with `)`)."""
    depth = 0
    for i in range(len(head) - 1, max(-1, len(head) - 2000), -1):
        ch = head[i]
        if ch == ")":
            depth += 1
        elif ch == "(":
            depth -= 1
            if depth == 0:
                return head[i:]
    return head[-2000:]
