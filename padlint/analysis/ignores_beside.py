"""The label values the project's own readers of a module's labels tell their losses to ignore.

Labels a module hands on (in a dict it returns, a store, a dataset row) are graded by whoever reads
them next, and that reader decides which value marks a position as not trained on. transformers'
models and torch's losses skip -100 by default; a project's own model or metric may skip the pad id
instead (`CrossEntropyLoss(ignore_index=tokenizer.pad_token_id)`, `Perplexity(ignore_index=0)`).
Where a module that imports the definition holding the labels gives such a value, labels padded with
it may be graded correctly there, and a reader out of view is no evidence of harm. So may a module that
imports such an importer and names what it hands on (a task module's subclass of the dataset, read by the
training script at the top: READER_HOPS). An importer reads only what it names: a metric beside an evaluation dataset says nothing of the training dataset next
to it in the same module.

The importers looked for are the `.py` files of the module's own directory, of each package directory
above it, and of the rest of its project (unused_definitions.project_files, bounded): a trainer in
`executors/` imports `utils.data_utils` when scripts run from the project's root. Only a file whose
import resolves to the module counts: a folder of unrelated scripts does not make one script a
reader of another. Read as text, only when asked for (project_text.text_of keeps each text while its
file is unchanged, and notes each read for the result cache).

The pad id's value is often out of view (`CrossEntropyLoss(ignore_index=vocab.index("<pad>"))`, labels
padded with 0 by `pad_sequence`): a reader that skips the pad id may skip any padding value that can be
a token id (`same_ignore_value`), and nothing is known to be graded there.
"""

from __future__ import annotations

import os
import re

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.unused_definitions import project_files, project_root
from padlint.analysis.values import Padded
from padlint.look.project_text import importers_in, package_directories, span_of, text_of, top_level_spans

MAX_FILES = 50  # importers read for one module: the rest are read no further
READER_HOPS = 2  # an importer, and the importers of it that name what it hands on
# `ignore_index=<value>` in a call or a parameter default; the value up to the next `,` `)` or line end.
IGNORE_ARG = re.compile(r"\bignore_index\s*(?::\s*[\w.\[\]]+\s*)?=\s*([^,)\n]+)")
INT = re.compile(r"[-+]?\d+")
LABELS_KEYWORD = re.compile(r"[(,]\s*labels\s*=(?!=)")
MODEL_LOSS_READ = re.compile(r"\.loss\b|\[\s*['\"]loss['\"]\s*\]")
CONDITION = re.compile(r"(?:if|elif|while|assert)\b")
# Labels compared against a value to make the mask of positions a reader grades (`non_pad = targets !=
# PAD_IDX`, `labels.ne(pad_id)`): that value is skipped as surely as an `ignore_index`.
LABELS_NOT_EQUAL = re.compile(
    r"\b\w*(?:label|target|tgt)\w*(?:\[[^\]\n]*\])?\s*(?:!=\s*([\w.\-]+(?:\(\))?)|\.ne\(\s*([\w.\-]+)\s*\))", re.I
)
# A pad token's text in the ignore value (`vocab.index("<pad>")`, `sp.piece_to_id("[PAD]")`): its id.
# A lookup of one key: `vocab.to_i(KEY)`, `vocab.stoi[KEY]`, `token2id.get(KEY)` -> KEY (IGNORE_ARG's
# capture stops before the closing parenthesis).
LOOKUP = re.compile(r"[\w.]+\s*[\[(]\s*([\w.'\"<>|]+)\s*[\])]?")
WORD = re.compile(r"[A-Za-z_]\w*")
PAD_TOKEN_TEXT = re.compile(r"""['"](?:<\|?pad\|?>|\[pad\]|<pad_token>)['"]""", re.I)


def readers_beside(filename: str) -> list[str]:
    """The project's modules that import the module at `filename` (its directory and each package
    directory above it), at most MAX_FILES; none for stdin or a file that is not a Python module."""
    if not filename or filename in ("-", "<stdin>") or not filename.endswith(".py"):
        return []
    path = os.path.abspath(filename)
    places = package_directories(filename)
    files = project_files(project_root(path))
    if files is not None:
        places += sorted({os.path.dirname(f) for f in files if f.endswith(".py")} - set(places))
    return importers_in(path, places)[:MAX_FILES]


def same_ignore_value(padded_with: int | str, ignored: int | str | None) -> bool:
    """Does a reader ignoring `ignored` skip labels padded with `padded_with` (ints, "pad" for the pad
    id)? The pad id is some token id: the same as any value that can be one (not negative)."""
    if ignored is None:
        return False
    if "pad" in (padded_with, ignored) and padded_with != ignored:
        other = ignored if padded_with == "pad" else padded_with
        return isinstance(other, int) and other >= 0
    return padded_with == ignored


def ignore_values_beside(filename: str, names: frozenset[str] | None = None) -> frozenset[int | str]:
    """The values the modules importing `filename` give as `ignore_index`, or compare their labels
    against to pick the positions they grade (`targets != PAD_IDX`): ints, and "pad" for a pad id
    (`tokenizer.pad_token_id`, `self.pad_id`). Values it cannot read (a parameter, a constant) are
    left out: they say nothing about which value the reader skips. `names`: only the importers that
    name one of these definitions of the module count (an importer reads the labels of what it
    imports, not of every definition beside it); None: every importer."""
    values: set[int | str] = set()
    for text in _reader_texts(filename, names, hops=READER_HOPS):
        if not ("ignore_index" in text or "!=" in text or ".ne(" in text):
            continue
        if LABELS_KEYWORD.search(text) and MODEL_LOSS_READ.search(text):
            # It hands labels to a model (`labels=targets`) and takes the model's own loss: that loss grades
            # every label but -100, whatever else the reader skips (`non_pad = targets != PAD_IDX` to count
            # tokens, a criterion with `ignore_index=` it never calls).
            continue
        for match in IGNORE_ARG.finditer(text):
            value = ignore_value_of(match.group(1))
            if value is not None:
                values.add(value)
        for match in LABELS_NOT_EQUAL.finditer(text):
            line = text[text.rfind("\n", 0, match.start()) + 1 : match.start()].lstrip()
            if CONDITION.match(line):
                continue  # `if label != 3:` tests one label, it makes no mask
            value = ignore_value_of(match.group(1) or match.group(2))
            if value is not None:
                values.add(value)
    return frozenset(values)


def _reader_texts(filename: str, names: frozenset[str] | None, hops: int) -> list[str]:
    """The texts of the modules that import `filename` and name one of `names` (or any, for None), and,
    `hops` deep, of the modules importing those that name what those hand on: a dataset subclassed in a
    task module that the training script imports is read by that script's loss."""
    if names:
        names = _handing_on(filename, names)
    named = P.any_word(names) if names else None
    if names is not None and named is None:
        return []
    found: list[str] = []
    for reader in readers_beside(filename):
        text = text_of(reader)
        if text is None or (named is not None and not named.search(text)):
            continue
        found.append(text)
        if hops > 1:
            defined = frozenset(top_level_spans(reader, text))
            found += _reader_texts(reader, defined, hops - 1) if defined else []
    return found


def _handing_on(filename: str, names: frozenset[str]) -> frozenset[str]:
    """`names` and the module's top-level defs that name one of them, transitively: an importer that
    calls `load_data(...)`, which builds the loaders with the collate function holding the labels,
    reads those labels as surely as one that names the collate function."""
    path = os.path.abspath(filename) if filename not in ("", "-", "<stdin>") else None
    text = text_of(path) if path else None
    if not path or not text:
        return names
    bodies = {}
    for name, start in top_level_spans(path, text).items():
        first, last = span_of(text, start)
        bodies[name] = text[first:last]
    found = set(names)
    changed = True
    while changed:
        word = P.any_word(found)
        grown = {name for name, body in bodies.items() if name not in found and word.search(body.split("\n", 1)[-1])}
        found |= grown
        changed = bool(grown)
    return frozenset(found)


def pad_value(padded: Padded) -> int | str | None:
    """The value padded ids were filled with: an int, "pad" for the pad id, None when unread."""
    if padded.pad_number is not None:
        return padded.pad_number
    if padded.pad is None:
        return "pad" if padded.from_tokenizer else None
    if isinstance(padded.pad, cst.Attribute) and P.PAD_ID_NAME.match(padded.pad.attr.value):
        return "pad"  # a fill named as the pad (`padding_value=self.pad_token`): the pad id, whatever its name
    return label_value_of(padded.pad)


def label_value_of(node: cst.BaseExpression) -> int | str | None:
    """`-1` -> -1, `tokenizer.pad_token_id` -> "pad", anything else -> None (unread)."""
    if isinstance(node, cst.Integer):
        return int(node.value, 0)
    if (
        isinstance(node, cst.UnaryOperation)
        and isinstance(node.operator, cst.Minus)
        and isinstance(node.expression, cst.Integer)
    ):
        return -int(node.expression.value, 0)
    return "pad" if P.is_pad_id_expression(node) else None


def ignore_value_of(code: str) -> int | str | None:
    """`-100` -> -100, `tokenizer.pad_token_id` -> "pad", anything else -> None (unread)."""
    code = code.strip()
    if INT.fullmatch(code):
        return int(code)
    last = code.rsplit(".", 1)[-1].split("(", 1)[0]  # `sp.pad_id()`: the regex stops at its `)`
    if last in P.PAD_ID_ATTR or P.PAD_ID_NAME.match(last) or PAD_TOKEN_TEXT.search(code):
        return "pad"
    lookup = LOOKUP.fullmatch(code)
    if lookup is not None and any(P.PAD_ID_NAME.match(word) for word in WORD.findall(lookup[1])):
        return "pad"  # the id a vocabulary gives the pad token: `vocab.to_i(PAD_TOKEN)`, `vocab.stoi[PAD]`
    return None
