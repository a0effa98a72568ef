"""Where a text pads, for the first look (first_look.py): padding calls (`pad_sequence(`, `F.pad(`,
`np.pad(`), a tokenizer asked to pad (`padding=True`, a constant), collators that pad features again,
runs of a value (`[pad] * n`), `full(shape, pad)` and zero buffers a row is written into, and padding
helpers imported from the project (project_text.py). Found from literals, like every feature of the
look (no parser); what a padding step's reach holds is reach.py's.

Mixed into first_look.Look, which holds the text; this part needs of it `filename`, `project` and
`_with_aliases` besides what reach.py and scopes.py declare.
"""

from __future__ import annotations

import re

from padlint.look.reach import ROW_PART_STORE, Reach
from padlint.look.text_scan import (
    call_arguments,
    closing_paren,
    has_top_level_comma,
    is_float,
    is_name_at,
    is_word_char,
    matching_bracket,
)
from padlint.semantics import table as T

# `[v] * n` with these items pads nothing (`[1]`: ones, `[0]`: zeros, `[None]`).
NOT_A_PAD_ITEM = {"None", "True", "False", "0", "1"}
# `F.pad(...)`, `np.pad(...)` pad arrays; only other receivers can be tokenizers.
ARRAY_MODULES = {"F", "functional", "np", "numpy", "torch", "jnp", "tf", "nn", "self", "cls", "mx", "ops"}
PAD_IMPORTED = re.compile(r"\bimport\b[^\n]*\bpad\b|\bimport\s*\([^)]*\bpad\b")
# What follows "pad" in a padding step: `pad_sequence(`, `pad_sequences as ps`, `pad(`, `pad_to_max_length`, `padding=...`.
PAD_WORD = re.compile(
    r"pad(?:_sequences?\s*(?P<seq>\(|\s+as\s+\w)|\s+as\s+\w|(?P<call>\s*\()|_to_max_length"
    r"|ding\s*=\s*(?:\(\s*)*(?:True\b|[\"'](?:max_length|longest)|[\w.]*(?:MAX_LENGTH|LONGEST)\b"
    r"|self\.(?P<attr>[A-Za-z_]\w*)\b(?![.(\[])|(?P<const>[A-Za-z_]\w*)\b(?![.(\[])))"
)
# `while len(ids) < n:` whose body appends to `ids`: a list padded one item at a time. A skipped body line
# is one blank or tab and the rest (`[ \t]+[^\n]*` would try every split of each indent: seconds of backtracking a file).
PADDING_LOOP = re.compile(
    r"while[ \t]+len\s*\(\s*(\w+)\s*\)\s*<=?[^\n]*:\s*\n(?:[ \t][^\n]*\n){0,6}?[ \t]+\1\.append\(([^)\n]*)\)"
)
# `[item for _ in range(n)]`: a run of one value written as a comprehension.
RUN_COMPREHENSION = re.compile(r"\[\s*(-?[\w.]+)\s+for\s+(\w+)\s+in\s+range\s*\(")
LIST_REPEAT = re.compile(r"\]\s*\*(?!\*)|\*\s*\(?\s*\[")  # `[item] * n`, `n * [item]`
# The collators that pad features again, by bare name (the library table imports no libcst).
REPADDING_COLLATORS = tuple(sorted(T.short_names(repads=True)))
LIST_OF_ONE_STRING = re.compile(r"""\[\s*[rRbBuUfF]{0,2}(?:"[^"\n\\]*"|'[^'\n\\]*')\s*\]$""")
STRING_LITERAL = re.compile(r"[rRbBuUfF]{0,2}[\"']")
FULL_CALL = re.compile(r"full\s*\(")
ONES_CALL = re.compile(r"ones\s*\(")
CONSTANT_ASSIGNED = re.compile(r"\s*(?::[^=\n]*)?=(?!=)")
IMPORT_WORD = re.compile(r"\bimport\b")
KEYWORD_ARGUMENT = re.compile(r"\s*\w+\s*=(?!=)")  # `name=value` in a call's arguments, not `a == b`
FILL_VALUE_KEYWORD = re.compile(r"\s*fill_value\s*=")


class PaddingFeatures(Reach):
    """The padding steps of a text: the `_find_*` features of padding, read by `Look.positions`."""

    # What first_look.Look provides (declared here so this part type-checks on its own).
    filename: str | None
    _pad_imported: bool | None
    _pad_named: set[int]

    def project(self) -> dict:
        raise NotImplementedError

    def _with_aliases(self, found: list[int], names: tuple[str, ...]) -> list[int]:
        raise NotImplementedError

    def _project_padding(self, feature: str) -> list[int]:
        """Where an imported project definition brings `feature` in: a call of a padding helper, a
        class whose instances pad named (made, handed on), a padding method of one called
        (`.pad_rows(`, also `self.pad_rows(` in a subclass)."""
        text, found = self.text, []
        for local, (entries, _) in self.project().items():
            if feature in entries.get("", ()):
                found += [
                    pos
                    for pos in self._literal(local)
                    if is_name_at(text, pos, local) and self.in_code(pos) and not self._in_import(pos)
                ]
            for method, features in entries.items():
                if method and feature in features:
                    call = re.compile(rf"\.\s*{re.escape(method)}\s*\(")
                    found += [m.start() for m in call.finditer(text) if self.in_code(m.start())]
        return found

    def _find_pad_step(self) -> list[int]:
        found = [p for p in self._literal("pad") if self._pad_word(p, tokenizer=False)]
        text = self.text
        found += self._zero_padding()
        found += self._literal("to_padded_tensor")  # torch.nested.to_padded_tensor(nt, pad): shape_ops.py
        for p, item in self._list_repeats():
            if not re.fullmatch(r"-?\d+", item):
                self._weak_step(p, item)  # `[fill] * n` pads only if `fill` holds a pad id
                found.append(p)
            elif item != "-100":
                found.append(p)  # `[-1] * n`: labels padded with a sentinel
        calls = [(p, FULL_CALL.match(text, p)) for p in self._literal("full")]
        for alias, original in self.import_aliases().items():  # `from torch import full as filled`
            if original.rsplit(".", 1)[-1] == "full":
                calls += [(p, re.compile(rf"{re.escape(alias)}\s*\(").match(text, p)) for p in self._literal(alias)]
        for p, call in calls:
            if call and (p == 0 or not is_word_char(text[p - 1])) and self._full_fill_may_be_pad(call.end()):
                self._weak_step(p, self._fill_of(call.end(), 1))  # pads only if `fill` holds a pad id
                found.append(p)
        found += self._scaled_ones()
        for m in PADDING_LOOP.finditer(text):  # `while len(ids) < n: ids.append(pad_id)`
            if self.in_code(m.start()):
                if m.group(2).strip() != "0":
                    self._weak_step(m.start(), m.group(2))  # pads only if what it appends can be a pad id
                found.append(m.start())  # appending 0 pads with zeros, as `[0] * n` does
        for word, position in (("fill_", 0), ("new_full", 1)):  # `buffer.fill_(pad_id)`, `ids.new_full(size, pad_id)`
            for p in self._literal(word):
                if p > 0 and text[p - 1] == "." and self.in_code(p):
                    paren = p + len(word)
                    fill = self._fill_of(paren + 1, position) if text[paren : paren + 1] == "(" else None
                    self._weak_step(p, fill)  # pads only if the fill holds a pad id
                    found.append(p)
        if self.filename:
            found += self._project_padding("pad_step") + self._project_padding("tokenizer_padding")
        return sorted(found)

    def _weak_step(self, pos: int, fill: str | None) -> None:
        """A padding step that pads only if its fill holds a pad id; one whose fill is named so (`pad_id`,
        `self.pad_token_id`) is known to, also where the look reads a project definition on its own."""
        self._weak.add(pos)
        if fill is not None and "pad" in fill.lower():
            self._pad_named.add(pos)

    def _fill_of(self, open_paren: int, position: int) -> str | None:
        """The fill argument's text of a call (`fill_value=`, else the positional one at `position`)."""
        args = call_arguments(self.text, open_paren)
        return _fill_argument(args, position) if args is not None else None

    def _scaled_ones(self) -> list[int]:
        """`pad_value * torch.ones(shape)` or `torch.ones(shape) * pad_value`: a block of pad ids, as
        `full(shape, pad_value)` makes it (weak: only if the factor holds a pad id)."""
        text, found = self.text, []
        for p in self._literal("ones"):
            call = ONES_CALL.match(text, p)
            if call is None or (p > 0 and is_word_char(text[p - 1])) or not self.in_code(p):
                continue
            start = p
            while start > 0 and (is_word_char(text[start - 1]) or text[start - 1] == "."):
                start -= 1  # back over `torch.` / `np.`
            close = closing_paren(text, call.end())
            before = text[max(0, start - 40) : start].rstrip()
            after = text[close + 1 : close + 40].lstrip() if close is not None else ""
            if (before.endswith("*") and not before.endswith("**")) or (after[:1] == "*" and after[:2] != "**"):
                self._weak.add(p)
                found.append(p)
        return found

    def _zero_padding(self) -> list[int]:
        """Padding with zeros (analysis/zero_padding.py): `[0] * n` (ids + zeros), and a zero buffer
        (`torch.zeros(B, L)`, `x.new_zeros(...)`, `full(shape, 0)`) in a file that writes part of a
        row of a 2-D value (`buf[i, :n] = ...`)."""
        found = [p for p, item in self._list_repeats(zeros=True) if item == "0"]
        if ROW_PART_STORE.search(self.text) is None:
            return found
        text = self.text
        for p in self._literal("zeros"):
            if (
                (p == 0 or not is_word_char(text[p - 1]) or text.endswith("new_", 0, p))
                and text.startswith("(", p + 5)
                and self._two_dimensions(p + 6, first_only=False)
            ):
                found.append(p)
                self._row_filled.add(p)
        for p in self._literal("full"):
            call = FULL_CALL.match(text, p)
            if (
                call
                and (p == 0 or not is_word_char(text[p - 1]))
                and self._full_fill_is_zero(call.end())
                and self._two_dimensions(call.end(), first_only=True)
            ):
                found.append(p)
                self._row_filled.add(p)
        return found

    def _two_dimensions(self, open_paren: int, first_only: bool) -> bool:
        """Can this `zeros(...)` / `full(shape, 0)` make a 2-D buffer? The analysis takes a zero buffer
        only from two positional sizes or one tuple (list) of two (zero_padding.zero_buffer); False
        only where the text shows another shape (`zeros(input_shape)`, `zeros(n)`, `zeros(B, L, D)`)."""
        args = call_arguments(self.text, open_paren)
        if args is None:
            return True
        dims = [a.strip() for a in _positional(args) if not a.strip().startswith("*")]
        if first_only:
            dims = dims[:1]
        if len(dims) == 1 and dims[0][:1] in "([" and dims[0][-1:] in ")]":
            inner = call_arguments(dims[0], 1)
            return inner is None or len(inner) == 2
        return len(dims) == 2

    def _find_tokenizer_padding(self) -> list[int]:
        found = [p for p in self._literal("pad") if self._pad_word(p, tokenizer=True)]
        return sorted(found + self._project_padding("tokenizer_padding")) if self.filename else found

    def _find_repadding(self) -> list[int]:
        found = [p for p in self._literal("pad") if self._pad_word(p, tokenizer=True, call_only=True)]
        collators = [
            p for p in self._literal("DataCollator") if any(self.text.startswith(c, p) for c in REPADDING_COLLATORS)
        ]
        return found + self._with_aliases(collators, REPADDING_COLLATORS)

    def _pad_word(self, pos: int, tokenizer: bool, call_only: bool = False) -> bool:
        """Is the "pad" at `pos` a padding step (tokenizer=True: one a tokenizer makes)?"""
        text = self.text
        before = text[pos - 1] if pos else "\n"
        if is_word_char(before):
            return False  # `_pad(`, `maybe_pad`, `use_padding=`: another name
        m = PAD_WORD.match(text, pos)
        if m is None:
            return False
        if m.group("seq") is not None or (m.group("call") is None and " as " in m.group(0)):
            return not tokenizer and not call_only  # pad_sequence, or an aliased import of a padding function
        if m.group("call") is not None:
            head = text[max(0, pos - 80) : pos].rstrip()
            if head.endswith("."):
                receiver_match = re.search(r"(\w*)\s*$", head[:-1])
                assert receiver_match is not None  # both parts may be empty: it always matches
                receiver = receiver_match.group(1)
                if receiver in ("self", "cls"):
                    return False  # a local method: its own body holds the padding steps
                return not tokenizer or receiver not in ARRAY_MODULES
            if head.endswith("def"):
                return False
            if self._pad_imported is None:
                self._pad_imported = PAD_IMPORTED.search(text) is not None
            return self._pad_imported  # numpy's or torch's pad, imported bare
        if call_only:
            return False
        attr = m.group("attr")
        if attr is not None:  # `padding=self.padding`: a class body may fix it (class_constants.py)
            return re.search(rf"(?m)^[ \t]+{attr}[ \t]*(?::[^=\n]*)?=(?!=)", text) is not None
        const = m.group("const")
        if const is not None:
            return const != "True" and self._is_constant(const)  # `padding=PADDING`
        return True

    def _is_constant(self, name: str) -> bool:
        """Assigned at module level or imported: a name the analysis resolves to a value.

        Found from the name's occurrences: a regex alternation scanned every position of the text
        and was a fifth of this look's time."""
        text = self.text
        for pos in self._literal(name):
            line_start = text.rfind("\n", 0, pos) + 1
            if pos == line_start and CONSTANT_ASSIGNED.match(text, pos + len(name)):
                return True  # `NAME = ...` at column 0
            if is_name_at(text, pos, name) and (IMPORT_WORD.search(text, line_start, pos) or self._in_import(pos)):
                return True  # `from m import NAME`, also in `from m import (\n    NAME,\n)`
        return False

    def _find_list_padding(self) -> list[int]:
        return [p for p, _ in self._list_repeats()]

    def _list_repeats(self, zeros: bool = False) -> list[tuple[int, str]]:
        """(position, item) of each `[item] * n` / `n * [item]` whose item can pad; the item is "?"
        where it cannot be read here (it is then a fill that may hold a pad id). `zeros`: `[0] * n` too."""
        text, found = self.text, []
        for m in LIST_REPEAT.finditer(text):
            if text[m.start()] == "]":  # `[item] * n`, or a subscript `x[i] * n`
                opening = matching_bracket(text, m.start(), -1)
                if (
                    opening is not None
                    and opening
                    and (is_word_char(text[opening - 1]) or text[opening - 1] in ")]\"'")
                ):
                    continue  # `x[i] * n`: a subscript, not a list
                item = text[opening + 1 : m.start()] if opening is not None else "?"
                if opening is None and LIST_OF_ONE_STRING.search(text, max(0, m.start() - 200), m.start() + 1):
                    continue  # `["hybrid"] * n`: a run of a string (matching_bracket reads no strings)
            else:  # `n * [item]`
                closing = matching_bracket(text, m.end() - 1, 1)
                item = text[m.end() : closing] if closing is not None else "?"
            item = item.strip() or "?"
            if has_top_level_comma(item):
                continue  # `[a, b] * n`: not a run of one value
            if _never_a_pad_id(item):
                continue  # `["hybrid"] * n`, `[(0, 0)] * ndim`: a run of something else (padding.repeat)
            if item not in NOT_A_PAD_ITEM and not is_float(item) or zeros and item == "0":
                found.append((m.start(), item))
        for m in RUN_COMPREHENSION.finditer(text):  # `[pad_id for _ in range(n)]`: the same run
            item = m.group(1)
            varies = re.search(rf"\b{re.escape(m.group(2))}\b", item) is not None
            if not varies and (item not in NOT_A_PAD_ITEM and not is_float(item) or zeros and item == "0"):
                found.append((m.start(), item))
        return found

    def _full_fill_is_zero(self, open_paren: int) -> bool:
        args = call_arguments(self.text, open_paren)
        if args is None:
            return True
        fill = _fill_argument(args, 1)
        return fill is not None and fill.strip() in ("0", "?")

    def _full_fill_may_be_pad(self, open_paren: int) -> bool:
        """`torch.full(shape, fill)`: False only for fills that cannot hold a pad id."""
        args = call_arguments(self.text, open_paren)
        if args is None:
            return True
        fill = _fill_argument(args, 1)
        if fill is None:
            return False  # no fill: nothing padded
        fill = fill.strip()
        if re.fullmatch(r"-?\s*[\d.]+", fill):
            return False  # a number: ones, zeros, -100 (labels masked, found as such) or a constant
        if re.fullmatch(r"[A-Za-z_][\w.]*", fill) and "." in fill and "pad" not in fill.lower():
            # An attribute such as `self.config.image_token_id` holds a pad id only if assigned one here.
            return re.search(rf"{re.escape(fill)}\s*=(?!=)", self.text) is not None
        return True


def _fill_argument(args: list[str], position: int) -> str | None:
    """The fill among a call's argument texts: `fill_value=`, else the positional one at `position`."""
    fill = next((a.split("=", 1)[1] for a in args if FILL_VALUE_KEYWORD.match(a)), None)
    positional = _positional(args)
    if fill is None and len(positional) > position:
        fill = positional[position]
    return fill


def _positional(args: list[str]) -> list[str]:
    """The positional arguments of a call, as call_arguments splits them (keywords dropped)."""
    return [a for a in args if not KEYWORD_ARGUMENT.match(a)]


def _never_a_pad_id(item: str) -> bool:
    """A string literal or a tuple display: the analysis never reads a pad id from one."""
    if STRING_LITERAL.match(item):
        return True
    if not (item.startswith("(") and item.endswith(")")):
        return False
    depth = 0
    for i, ch in enumerate(item):
        depth += ch in "([{"
        depth -= ch in ")]}"
        if depth == 0 and i < len(item) - 1:
            return False  # `(a)(b)`, `(x) + (y)`: not one bracketed display
    return has_top_level_comma(item[1:-1])
