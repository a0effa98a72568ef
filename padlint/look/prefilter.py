"""The first look: can this text have any finding for the enabled rules, before libcst parses it?

Each rule declares `REQUIRES` (in padlint/rules/catalogue.py, read without importing the rules), the words (case-insensitive substrings) without which it
cannot fire: it fires only if the source contains at least one of them. A rule that declares none
(the empty tuple) can fire anywhere, so a file is skipped only when *every* enabled rule declares
words and none of them appears. The words are necessary conditions derived from the analysis (for
PAD001-PAD003: a padding step, which is always spelled with "pad" somewhere: `pad_sequence`,
`F.pad`, `tokenizer.pad`, `padding=`, a pad id name or attribute), so skipping never changes what
is reported; tests/test_prefilter.py runs the full analysis with the prefilter off and compares.

A skipped file is still checked for syntax errors (with the stdlib parser, much cheaper than
libcst) when PAD000 is enabled; only a file that fails that check goes on to libcst, so PAD000 is
reported with the same message as without the prefilter.
"""

from __future__ import annotations

import functools
from collections.abc import Collection
from typing import TYPE_CHECKING

from padlint.config import SYNTAX_ERROR_CODE

if TYPE_CHECKING:
    from padlint.rules.base import Rule


def _rule_classes(codes: Collection[str]) -> list[type[Rule]]:
    from padlint.rules import RULES_BY_CODE

    return [RULES_BY_CODE[c] for c in sorted(codes) if c in RULES_BY_CODE]


@functools.lru_cache(maxsize=64)
def _words(codes: frozenset[str]) -> tuple[str, ...] | None:
    """The required words of the enabled rules, lower-cased; None: no rule can be ruled out."""
    from padlint.rules.catalogue import CATALOGUE  # the words without the rules (they import the analysis)

    words: set[str] = set()
    for code in sorted(codes):
        if code not in CATALOGUE:
            continue
        required = CATALOGUE[code][3]
        if not required:
            return None  # this rule may fire on any text
        words.update(w.lower() for w in required)
    return tuple(sorted(words))


def may_fire(text: str, codes: Collection[str], filename: str | None = None) -> bool:
    """False only if no enabled rule (codes, PAD000 aside) can have a finding in `text`: the words
    (in the text, or in a padding helper of the project that it imports: `filename` says where)."""
    words = _words(frozenset(codes) - {SYNTAX_ERROR_CODE})
    if words is None:
        return True
    lower = text.lower()  # one pass in C; far cheaper than a case-insensitive regex
    if any(w in lower for w in words):
        return True
    if filename and "import" in text:
        from padlint.look.project_text import uses_padding_import

        return uses_padding_import(filename, text)
    return False


def look_may_fire(text: str, codes: Collection[str], filename: str | None = None) -> bool:
    """The sharp look (first_look.py) after the words: False only if no enabled rule can fire."""
    return look_plan(text, codes, filename) is not False


def look_plan(text: str, codes: Collection[str], filename: str | None = None) -> bool | str:
    """What the sharp look leaves to the analysis: False (nothing can fire), True (the whole text),
    or a reduced text (the defs and classes no rule needs cut to one-line stubs) that
    has a finding only if the whole text may: analyse that first, and the whole text only if it
    finds something."""
    from padlint.look.first_look import Look
    from padlint.look.scopes import reduced_text

    look = Look(text, filename)
    keep: set = set()
    for rule in _rule_classes(frozenset(codes) - {SYNTAX_ERROR_CODE}):
        words = _words(frozenset({rule.code}))
        if (words is None or any(look.has_word(w) for w in words)) and rule.may_fire(look):
            scopes = rule.scopes(look)
            if scopes is None or None in scopes:
                return True  # this rule needs the whole file (or script code, which reaches all of it)
            keep |= scopes
    if not keep:
        return False
    # `padding_side = "left"` anywhere makes every tokenizer output left-padded (module_info): keep
    # the defs that say so (script code is never cut).
    keep |= look.holding("padding_side") - {None}
    return reduced_text(look, look.with_setup(keep))


def parses(text: str) -> bool:
    """Whether CPython accepts `text` (the syntax check for files libcst does not see whole).

    The symbol table is built by CPython's own parser and compiler front end without making the
    Python AST objects, which is about 40% cheaper than `ast.parse`. It refuses a little more than
    `ast.parse` does (`nonlocal` at module level, a duplicate argument): such a file goes to libcst,
    which then says whether it parses, so the check is never looser than libcst's own. The same
    holds for syntax newer than the running Python (a PEP 701 f-string under 3.11): refused here,
    read by libcst, never PAD000 on this check's word (padlint.grammar)."""
    import symtable

    from padlint.files.source import quiet_parser

    try:
        with quiet_parser():
            symtable.symtable(text, "<padlint>", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return False
    return True
