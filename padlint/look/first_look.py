"""The sharp first look: can this file have a finding, judged from its text and its scopes?

The word look (prefilter.py) only asks whether a rule's words occur at all; nearly every file of a
model library mentions "pad", "labels" and "attention_mask". This look asks where they occur. A
padding step (`pad_sequence(`, `F.pad(`, `tokenizer(..., padding=True)`, `[pad] * n`,
`torch.full(.., pad)`) can only reach a labels or mask place through the defs its value can reach
the way the analysis passes values on (reach.py): up to the callers of its def, down into its
callees, from `__init__` to the methods reading what it stored, and everywhere from script code.

Each rule declares with `may_fire(look)` what it needs (a padding step whose reach has a mask or
labels word, pad set to EOS, a `pad_id or eos_id` fallback, a mean of a product...) and with
`scopes(look)` which defs its findings need, so that the others can be cut to stubs
(`scopes.reduced_text`). These are necessary conditions of the analysis, never sufficient ones: skipping a
file, or a def, must never change what is reported, which tests/test_prefilter.py checks against
the full analysis over the fixtures, the labelled corpus and the bench corpus. Matches inside
comments and triple-quoted strings (docstrings) do not count.

This module and padding_features.py (where the text pads) find the features: from literals
(`str.find`, regexes that start with a literal; a regex that can match at any position scans all of
them and cost more than parsing). No parser.
"""

from __future__ import annotations

import re

from padlint.look.padding_features import PaddingFeatures
from padlint.look.reach import LABEL_WORDS
from padlint.look.text_scan import (
    call_arguments,
    is_name_at,
    is_word_char,
    parenthesised_before,
    triple_quote_checker,
)
from padlint.semantics import table as T

# ---- what the text can contain --------------------------------------------------------------------
# Each feature is found by probes: a literal (fast to find; `lower`: in the lower-cased text) or a
# regex that starts with a literal, each with an optional check of the spot it found. Regexes
# without a literal start scan every position and made this look slower than parsing.
# (The features of padding steps are padding_features.py's.)
EOS = r"\beos(?:_token(?:_id)?|_id)?\b"  # what patterns.is_eos_expression accepts
PAD_IS_EOS_BEFORE = re.compile(  # what precedes an eos name when pad is set to it, or pads with it
    r"(?:pad_token(?:_id)?\s*=(?!=)\s*(?:\([^)]{0,300}?|(?:[^,;#\n]|\\\n){0,200}?)|pad\w*\)?[\s\\]*\bor\b[\s\\(]*[^\n,;]{0,200}?"
    r"|(?:padding_value|value|constant_values|fill_value|padding)\s*=(?!=)\s*[\w.]{0,80}?|\[\s*[\w.]{0,80}?)$",
    re.I,
)
OR_BEFORE = re.compile(r"\bor\b[\s\\(]*[^\n,;]{0,200}?$", re.I)
EOS_WORD = re.compile(EOS, re.I)
# `ignore_index=` something other than -100 the analysis can resolve: a number or a constant, or
# (IGNORE_INDEX_ANY) any value a pad id can flow into (`self.pad_id`, a parameter).
IGNORE_INDEX_SET = re.compile(
    r"ignore_index\s*=(?!=)[\s(]*(?!-\s*100\b)(?:-?\s*\d|(?P<const>[A-Za-z_]\w*)\b(?![.(\[])|[a-z_]\w*\.[A-Z_][A-Z0-9_]*\b)"
)
IGNORE_INDEX_ANY = re.compile(r"ignore_index\s*=(?!=)[\s(]*(?!-\s*100\b)[\w\-.\[]")
# The names patterns.is_pad_id_expression reads as a pad id (PAD_ID_NAME, PAD_ID_ATTR), lower-cased.
PAD_ID_IDENTIFIER = re.compile(
    r"_*(?:pad|padding)(?:_token)?(?:_id|_idx|_index|_value)?|pad_?(?:token_?)?id|"
    r"pad_token_idx|padding_idx"
)
IDENTIFIER_BEFORE = re.compile(r"\w*$")
IDENTIFIER_AFTER = re.compile(r"\w*")
LABEL_STORE_AFTER = re.compile(r"\w*['\"]?\]?\s*\[[^\n]*\]\s*=(?!=)\s*(?!-\s*100\b)-?\s*\d")
INT_STORE = re.compile(r"\]\s*=(?!=)\s*(?!-\s*100\b)(?:-\s*\d+|0)\b")
# A product with a loss called in place (`criterion(logits, y) * real`, `real * loss_fn(...)`).
LOSS_PRODUCT = re.compile(r"(?:loss|criterion)\w*\([^\n]*\)\s*\*(?!\*)|\*(?!\*)\s*[\w.]*(?:loss|criterion)\w*\(", re.I)
PER_POSITION_AFTER = re.compile(r"""\s*=(?!=)\s*(['"])none\1""")
REDUCE_FALSE_AFTER = re.compile(r"\s*=(?!=)\s*False\b")
# Models the library table says read the pads of ids given no mask: always (they attend both ways), or when
# the pads come first (any consumer; only where the text says "left").
READING_MODELS = tuple(sorted(T.short_names("consumer", attends=("bidirectional", "encoder_decoder"))))
CONSUMER_MODELS = tuple(sorted(T.short_names("consumer")))
# The names end in few ways: finding those endings and reading the name back is 15x faster than one
# alternation of every name (2.4 CPU-s over transformers' files).
MODEL_NAME_END = re.compile(
    r"(?:" + "|".join(sorted({re.findall(r"(?:Model|LM|[A-Z][a-z]+)$", n)[0] for n in CONSUMER_MODELS})) + r")\b"
)
# `x.mean(`, and the library table's averaging reductions by their last name (`tf.reduce_mean(`)
MEAN_WORDS = tuple(sorted({"mean"} | {name.rsplit(".", 1)[-1] for name in T.names("reduces", style="mean")}))
ALIAS_AFTER = re.compile(r"\s+(\w+)")  # `name as alias`: what follows " as"
ORIGINAL_BEFORE = re.compile(r"([\w.]+)\s*$")  # ... and what precedes it
ASSIGNMENT_EQUALS = re.compile(r"(?<![=!<>+\-*/%&|^@:])=(?!=)")
IDS_WORD = re.compile(r"(?:ids|tokens)\b", re.I)
# `labels = input_ids`, `labels: T = batch["input_ids"]`, `labels = ids = (\n    batch["input_ids"]\n)`:
# the value is a place (it starts with a name, never a string), in any layout.
LABELS_ALIAS_AFTER = re.compile(
    r"\w*['\"]?\]?[ \t]*(?::[^=\n]*)?=(?!=)[\s\\(]*(?=[A-Za-z_])[\w.\[\]'\"\s\\=(]*?(?:ids|tokens)\b"
    r"['\"\]\s\\)]*?(?:\[[^\]\n]*\])?['\"\]\s\\)]*?(?:$|[;#)])",  # `input_ids[:, 1:]`: a view
    re.I | re.M,
)


class Look(PaddingFeatures):
    """The text of one file, with lazily computed matches, scopes and their connections."""

    def __init__(self, text: str, filename: str | None = None):
        if "\r" in text:  # lines end in "\n" here, whatever the file uses (one for one, so rows stay)
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        self.text = text
        self.filename = filename
        self._project: dict | None = None  # imported project definitions that pad (project_text.py)
        self._positions: dict[str, list[int]] = {}
        self._literals: dict[tuple[str, bool], list[int]] = {}  # (word, lower) -> where it occurs
        self._words: dict[str, bool] = {}  # lower-cased word -> in the lower-cased text
        self._lower: str | None = None
        self._pad_imported: bool | None = None
        self._weak: set[int] = set()  # padding steps that pad only with a fill holding a pad id
        self._pad_named: set[int] = set()  # ... of those, the ones whose fill is named as a pad id
        self._row_filled: set[int] = set()  # zero buffers: padding only where rows are written into them
        self._triple = triple_quote_checker(text)
        self._aliases: dict[str, str] | None = None
        self.init_reach()

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
        """Where the named feature occurs in code."""
        found = self._positions.get(name)
        if found is None:
            found = self._positions[name] = [p for p in getattr(self, "_find_" + name)() if self.in_code(p)]
        return found

    def import_aliases(self) -> dict[str, str]:
        """`from torch import ones_like as make_mask`: alias -> the lower-cased name it stands for.
        The analysis reads an alias as what it imports; the look must too."""
        if self._aliases is None:
            self._aliases = {}
            text = self.text
            for pos in self._literal(" as"):
                after = ALIAS_AFTER.match(text, pos + 3)
                if after is None or not self._in_import(pos):
                    continue
                original = ORIGINAL_BEFORE.search(text, max(0, pos - 200), pos + 1)
                if original is not None:
                    self._aliases[after.group(1)] = original.group(1).lower()
        return self._aliases

    def _with_aliases(self, found: list[int], names: tuple[str, ...]) -> list[int]:
        """`found`, and where an alias of an imported name containing one of `names` is used."""
        aliases = [a for a, original in self.import_aliases().items() if any(n.lower() in original for n in names)]
        for alias in aliases:
            found = found + [p for p in self._literal(alias) if is_name_at(self.text, p, alias)]
        return sorted(found) if aliases else found

    def pads_for_sure(self, pos: int) -> bool:
        """Does the padding step at `pos` pad whatever its context: not weak, or weak with a fill named as a
        pad id (a project definition read on its own has no context to decide a weak step by)."""
        return pos not in self._weak or pos in self._pad_named

    def has(self, name: str) -> bool:
        return bool(self.positions(name))

    @property
    def lower(self) -> str:
        if self._lower is None:
            self._lower = self.text.lower()
        return self._lower

    def _literal(self, word: str, lower: bool = False) -> list[int]:
        """Where `word` occurs (in the lower-cased text if `lower`). Shared: never change the list."""
        key = (word, lower)
        found = self._literals.get(key)
        if found is None:
            text = self.lower if lower else self.text
            found, pos = [], text.find(word)
            while pos != -1:
                found.append(pos)
                pos = text.find(word, pos + 1)
            self._literals[key] = found
        return found

    def has_word(self, word: str) -> bool:
        """Does the lower-cased text hold `word` (lower-case) anywhere, comments included?"""
        held = self._words.get(word)
        if held is None:
            # An imported helper's words are this text's where it is called (`build_batch(...)` pads).
            held = self._words[word] = word in self.lower or any(word in body for _, body in self.project().values())
        return held

    def project(self) -> dict:
        """The project definitions this text imports that pad: name -> (features, their text)."""
        if self._project is None:
            from padlint.look.project_text import padding_imports

            self._project = padding_imports(self.filename, self.text)
        return self._project

    # -- the features

    def _eos_names(self) -> list[int]:
        lower = self.lower
        return [
            p
            for p in self._literal("eos", lower=True)
            if (p == 0 or not is_word_char(lower[p - 1])) and EOS_WORD.match(lower, p)
        ]

    def _find_pad_is_eos(self) -> list[int]:
        found = [p for p in self._eos_names() if PAD_IS_EOS_BEFORE.search(self.lower, max(0, p - 320), p)]
        return sorted(found + self._project_padding("pad_is_eos")) if self.filename else found

    def _find_eos_fallback(self) -> list[int]:
        return [p for p in self._eos_names() if OR_BEFORE.search(self.lower, max(0, p - 220), p)]

    def _find_reading_model(self) -> list[int]:
        names = CONSUMER_MODELS if "left" in self.lower else READING_MODELS
        wanted, text, found = frozenset(names), self.text, []
        for m in MODEL_NAME_END.finditer(text):
            start = m.start()
            while start > 0 and is_word_char(text[start - 1]):
                start -= 1
            if text[start : m.end()] in wanted:
                found.append(start)
        return self._with_aliases(found, names)

    def _find_loss(self) -> list[int]:
        names = ("cross_entropy", "CrossEntropyLoss", "nll_loss", "NLLLoss")
        return self._with_aliases([p for w in names for p in self._literal(w)], names)

    def _find_ignore_index_set(self) -> list[int]:
        found = []
        for p in self._literal("ignore_index"):
            m = IGNORE_INDEX_SET.match(self.text, p)
            if m is not None and (m.group("const") is None or self._is_constant(m.group("const"))):
                found.append(p)
            elif IGNORE_INDEX_ANY.match(self.text, p) and self._pad_id_reaches(p):
                found.append(p)  # `ignore_index=self.pad_id`: a pad id can flow there
        return found

    def _find_pad_id(self) -> list[int]:
        """Where a pad id is named (`tokenizer.pad_token_id`, `pad_id`, `PAD`): where the analysis's
        pad id values come from."""
        lower, found = self.lower, []
        for p in self._literal("pad", lower=True):
            before = IDENTIFIER_BEFORE.search(lower, max(0, p - 40), p)
            after = IDENTIFIER_AFTER.match(lower, p)
            assert before is not None and after is not None  # `\w*` always matches
            start, end = before.start(), after.end()
            if PAD_ID_IDENTIFIER.fullmatch(lower, start, end):
                found.append(start)
        return found

    def _pad_id_reaches(self, pos: int) -> bool:
        """Can a pad id flow to `pos` (the way the analysis passes values on, reach.py)?"""
        where = self.unit_at(pos)
        return any(where in self._reach_of(source) for source in self.units_at(self.positions("pad_id")))

    def _find_ignore_constant(self) -> list[int]:
        """An ignore-named constant other than -100: module-level, imported, or `module.IGNORE_X`."""
        text, found = self.text, []
        for p in self._literal("ignore", lower=True):
            line_start = text.rfind("\n", 0, p) + 1
            head = text[line_start:p]
            if re.fullmatch(r"\w*", head) and re.match(
                r"\w*[ \t]*(?::[^=\n]*)?=(?!=)[ \t]*(?!-[ \t]*100\b)", text[p : p + 200]
            ):
                found.append(line_start)
            elif re.match(r"\s*(?:from|import)\b", head) and "import" in head and "#" not in head:
                found.append(p)
            elif text.startswith("IGNORE", p) and re.search(r"(?<![\w.])(?!re\.)[a-z_]\w*\.[A-Z_]*$", head):
                found.append(p)
        return found

    def _find_label_pad_id(self) -> list[int]:
        return self._literal("label_pad_token_id")

    def _label_words(self) -> list[tuple[int, int]]:
        return [(p, len(w)) for w in LABEL_WORDS for p in self._literal(w, lower=True)]

    def _find_label_store(self) -> list[int]:
        return [p for p, n in self._label_words() if LABEL_STORE_AFTER.match(self.text, p + n)]

    def _find_int_store(self) -> list[int]:
        return [m.start() for m in INT_STORE.finditer(self.text)]

    def _find_mean(self) -> list[int]:
        text = self.text
        found = [
            p
            for word in MEAN_WORDS
            for p in self._literal(word)
            if (p == 0 or not is_word_char(text[p - 1])) and re.match(rf"{word}\s*\(", text[p : p + len(word) + 8])
        ]
        return self._with_aliases(sorted(found), MEAN_WORDS)  # `from torch import mean as average`

    def _find_mean_product(self) -> list[int]:
        """`(x * mask).mean(...)`, `torch.mean(x * mask, ...)`: a mean whose receiver or first argument
        is a product (or cannot be read here)."""
        text, found = self.text, []
        for pos in self.positions("mean"):
            head = text[max(0, pos - 2000) : pos]
            if head.rstrip().endswith(".") and head.rstrip(". \t\n\\").endswith(")"):
                if "*" in parenthesised_before(text, head.rstrip(". \t\n\\")):
                    found.append(pos)
                    continue
            args = call_arguments(text, text.find("(", pos) + 1, limit=2000)
            if args is None or (args and "*" in args[0]):
                found.append(pos)
        return found

    def _find_loss_product(self) -> list[int]:
        """A product with a loss called in place (`loss_fn(logits, y) * mask`)."""
        if "loss" not in self.lower and "criterion" not in self.lower:
            return []
        return [m.start() for m in LOSS_PRODUCT.finditer(self.text)]

    def _find_per_position_loss(self) -> list[int]:
        """`reduction="none"` (or the older `reduce=False`): a loss that returns one loss per position."""
        text = self.text
        found = [p for p in self._literal("reduction") if PER_POSITION_AFTER.match(text, p + len("reduction"))]
        found += [p for p in self._literal("reduce") if REDUCE_FALSE_AFTER.match(text, p + len("reduce"))]
        return sorted(found)

    def _find_label_value_site(self) -> list[int]:
        """Where labels may be given a value (PAD007) or masked by the pad id (PAD004): -100, an
        ignore-named value, masked_fill, a label pad id, a seq2seq collator, a store of a literal."""
        found = self._literal("-100") + self._literal("ignore", lower=True) + self._literal("masked_fill")
        found += self._literal("label_pad_token_id") + self._with_aliases(
            self._literal("DataCollatorFor"), ("DataCollatorFor",)
        )
        return sorted(found + self._find_label_store() + self._find_int_store())

    def _find_labels_alias(self) -> list[int]:
        return [
            p for p, n in self._label_words() if LABELS_ALIAS_AFTER.match(self.text, p + n) or self._in_tuple_alias(p)
        ]

    def _in_tuple_alias(self, pos: int) -> bool:
        """`labels, mask = batch["input_ids"], batch["attention_mask"]`: a comma among the targets
        (on the line of the labels word), an ids or tokens place among the values (which may go on
        over the lines of their brackets)."""
        text = self.text
        line_start = text.rfind("\n", 0, pos) + 1
        line_end = text.find("\n", pos)
        line = text[line_start : line_end if line_end != -1 else len(text)]
        equals = ASSIGNMENT_EQUALS.search(line)
        if equals is None or equals.start() < pos - line_start or "," not in line[: equals.start()]:
            return False
        value = line[equals.end() :]
        if value.count("(") + value.count("[") > value.count(")") + value.count("]") or value.rstrip().endswith("\\"):
            value = text[line_start + equals.end() : line_start + equals.end() + 2000]  # brackets go on
        return IDS_WORD.search(value) is not None
