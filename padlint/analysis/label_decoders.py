"""Readers that decode labels back to text (`tokenizer.batch_decode(labels)`, `tok.decode(t) for t in
y_ids` where `y_ids = batch["labels"]`) without mapping -100 to a token first. Decoding -100 raises
(fast tokenizers: OverflowError), so a fix that writes -100 into labels such a reader takes is not
right for every value the code can see.

Read as text, per def (and the script code around them, a notebook's cells included), where a fix
writing -100 is about to be offered: the module itself, the project's modules that import it (its
directory and the packages above) and the project's modules it imports (an evaluation helper that
receives its batches). In one def, the names that hold the labels are followed through assignments
and `for` targets (`y = batch["labels"].to(dev)`, `for t in y`); a def with a statement that compares
them with -100 or an ignore constant (`np.where(labels != -100, labels, pad)`) maps them back and does
not count (one that maps only the predictions does). Being
text, it errs towards finding a reader: then only the fix is withheld, never the finding.
"""

from __future__ import annotations

import functools
import os
import re

from padlint.analysis.ignores_beside import readers_beside
from padlint.look.project_text import import_sources, module_path, text_of

MAX_IMPORTED = 20  # the project's modules a module imports, read for it
# `labels` / `label_ids` / `["labels"]` / `.labels`: the labels, as a name or read from a batch or row.
LABELS_READ = re.compile(r"""\blabels?(?:_ids?)?\b|\[\s*["']labels?["']\s*\]""")
DECODE_ARGUMENT = re.compile(r"\b(?:batch_)?decode\(\s*([^,()\n]*)")
ASSIGNMENT = re.compile(r"^\s*(\w+)\s*=(?!=)\s*(.+)$", re.M)
FOR_TARGET = re.compile(r"\bfor\s+(\w+)\s+in\s+([^:\n\]]+)")
KEYWORD_ARGUMENT = re.compile(r"\(\s*\*\*|[(,]\s*\w+\s*=(?!=)")  # `model(**batch)`, `f(labels=y)`: a call's result
# A comparison with the ignore value (`labels != -100`, `t == IGNORE_INDEX`): the reader maps it back.
IGNORE_COMPARED = re.compile(r"[!=]=\s*-\s*100\b|-100\s*[!=]=|[!=]=\s*\w*IGNORE\w*|\w*IGNORE\w*\s*[!=]=", re.I)
DEF_LINE = re.compile(r"^([ \t]*)(?:async[ \t]+)?def[ \t]", re.M)


def labels_decoded_beside(filename: str, own_text: str | None) -> str | None:
    """The first module among this one (`own_text`, a notebook's too), its importers and the project's
    modules it imports that decodes labels as token ids without mapping -100 back: its file name."""
    if own_text is None and filename.endswith(".py"):
        own_text = text_of(os.path.abspath(filename))
    if own_text is not None and decodes_labels(own_text):
        return os.path.basename(filename) if filename else "this module"
    for reader in [*readers_beside(filename), *_imported_modules(filename, own_text)]:
        text = text_of(reader)
        if text is not None and decodes_labels(text):
            return os.path.basename(reader)
    return None


@functools.lru_cache(maxsize=32)  # the texts of one module's readers: small, asked once per fix
def decodes_labels(text: str) -> bool:
    """Does a def (or the script code) of `text` decode the labels without mapping -100 back? (Asked for
    every -100 fix of a module, of the same texts: kept per text.)"""
    if "decode(" not in text:
        return False
    return any(_decodes_labels_unmapped(part) for part in _parts(text))


def _parts(text: str) -> list[str]:
    """Each def's text (nested ones inside their def's too), and the rest: the script code."""
    lines = text.splitlines()
    parts: list[str] = []
    in_def = [False] * len(lines)
    for match in DEF_LINE.finditer(text):
        start = text.count("\n", 0, match.start())
        indent = len(match.group(1).expandtabs())
        end = start + 1
        while end < len(lines):
            line = lines[end]
            if line.strip() and not line.lstrip().startswith("#") and len(line) - len(line.lstrip()) <= indent:
                if not line.lstrip().startswith((")", "]", "}")):  # a signature's closing bracket
                    break
            end += 1
        parts.append("\n".join(lines[start:end]))
        if indent == 0:
            in_def[start:end] = [True] * (end - start)
    parts.append("\n".join(line for line, inside in zip(lines, in_def) if not inside))
    return parts


def _decodes_labels_unmapped(part: str) -> bool:
    if "decode(" not in part:
        return False
    names = _label_names(part)
    if any(IGNORE_COMPARED.search(line) and _mentions(line, names) for line in _logical_lines(part)):
        return False  # `labels = np.where(labels != -100, labels, pad)`: mapped back (the predictions alone are not)
    for match in DECODE_ARGUMENT.finditer(part):
        argument = match.group(1)
        if LABELS_READ.search(argument) or any(re.search(rf"\b{re.escape(n)}\b", argument) for n in names):
            return True
    return False


def _logical_lines(part: str) -> list[str]:
    """The part's lines, a statement continued inside brackets joined into one."""
    joined: list[str] = []
    depth = 0
    for line in part.splitlines():
        if depth > 0 and joined:
            joined[-1] += " " + line.strip()
        else:
            joined.append(line)
        depth = max(depth + sum(line.count(c) for c in "([{") - sum(line.count(c) for c in ")]}"), 0)
    return joined


def _label_names(part: str) -> set[str]:
    """Names the part binds to the labels: assigned from a labels read or such a name (not from a call
    handed keywords, `out = model(**batch)`), or a `for` target over one."""
    names: set[str] = set()
    for _ in range(3):  # a chain of a few assignments
        before = len(names)
        for target, value in ASSIGNMENT.findall(part):
            if not KEYWORD_ARGUMENT.search(value) and _mentions(value, names):
                names.add(target)
        for target, iterated in FOR_TARGET.findall(part):
            if _mentions(iterated, names):
                names.add(target)
        if len(names) == before:
            break
    return names


def _mentions(code: str, names: set[str]) -> bool:
    return bool(LABELS_READ.search(code)) or any(re.search(rf"\b{re.escape(n)}\b", code) for n in names)


def _imported_modules(filename: str, text: str | None) -> list[str]:
    """The project's modules `filename` imports (`from .evaluation import predict`, `import utils`)."""
    if not filename or not filename.endswith((".py", ".ipynb")) or text is None:
        return []
    found: list[str] = []
    for module, level, _name in import_sources(filename, text):
        path = module_path(filename, module, level) if module or level else None
        if path is not None and path not in found:
            found.append(path)
        if len(found) >= MAX_IMPORTED:
            break
    return found
