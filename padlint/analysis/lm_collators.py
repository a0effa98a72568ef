"""LM collators by inheritance: classes of the scanned project that build labels as a library LM
collator does (`class AnswerOnlyCollator(DataCollatorForLanguageModeling)`), so that what the library
table says of the base (labels masked by the pad id) applies to them, also where the pad is the EOS.

A subclass keeps the base's label building unless it overrides a method the row builds labels in
(`builds_in`: `__call__`, `torch_call`, `numpy_call`) without calling super() there, or stores labels
of its own. A subclass in another module of the project (`from .collators import ...`) is read only
when that module's text names a library collator, and parsed once per process (project.load).
"""

from __future__ import annotations

import re

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.facts import ModuleFacts
from padlint.semantics import table as T
from padlint.semantics.row import Row

# A store of labels of the subclass's own (`batch["labels"] = ...`, `labels = ...`): it builds them itself.
_OWN_LABELS = re.compile(r"""\[\s*["']labels["']\s*\]\s*=[^=]|\blabels\s*=[^=]""")
_MLM_OFF = re.compile(r"\bmlm\s*(?::\s*bool\s*)?=\s*False\b")


def lm_collator_classes(module: cst.Module, imports: P.Imports) -> dict:
    """The module's classes that are LM collators by inheritance: a library `masks_labels` row (or
    such a class of this module) among their bases, and the methods the row builds labels in
    (`builds_in`) either not overridden or overridden with a call of super() and no labels of their own."""
    classes = [s for s in module.body if isinstance(s, cst.ClassDef)]
    found: dict = {}
    for _ in range(2):  # a subclass of a subclass defined before or after it
        for cls in classes:
            if cls.name.value in found:
                continue
            for arg in cls.bases:
                if arg.keyword is not None or not isinstance(arg.value, (cst.Name, cst.Attribute)):
                    continue
                local = found.get(arg.value.value) if isinstance(arg.value, cst.Name) else None
                qualified = imports.qualify(arg.value)
                row = local[0] if local else T.class_row(qualified) if qualified else None
                if row is None or row.kind != "masks_labels" or not _keeps_label_building(module, cls, row):
                    continue
                init = _method(cls, "__init__")
                mlm_off = bool(local and local[1]) or (
                    init is not None and _MLM_OFF.search(module.code_for_node(init)) is not None
                )
                found[cls.name.value] = (row, mlm_off)
                break
    return found


_IMPORTED_LM_CLASSES: dict[int, dict] = {}  # id of a loaded project module -> its lm_collator_classes


def imported_lm_class(name: str, facts: ModuleFacts) -> tuple | None:
    """`from .collators import AnswerOnlyCollator`: an LM collator by inheritance in another module of
    the project (read only when its text names a library collator; parsed once per process)."""
    source = facts.imports.from_imports.get(name)
    if source is None or facts.filename in ("-", "<stdin>"):
        return None
    from padlint.analysis.project import load_for_definitions
    from padlint.look.project_text import definition_text

    found = definition_text(facts.filename, *source)
    if found is None:
        return None
    path, text, (start, end) = found
    header = re.match(r"class\s+(\w+)", text[start:end])
    if header is None or "DataCollator" not in text:
        return None
    context = load_for_definitions(path)
    if context is None:
        return None
    classes = _IMPORTED_LM_CLASSES.get(id(context))
    if classes is None:
        # The module's collator classes (a subclass of a subclass of it counts), parsed on their own.
        nodes = [context.definition(n) for n in context.spans if "Collator" in (context.definition_source(n) or "")]
        module = cst.Module(body=[n for n in nodes if isinstance(n, cst.ClassDef)])
        classes = _IMPORTED_LM_CLASSES[id(context)] = lm_collator_classes(module, context.imports)
    held = classes.get(header.group(1))
    if held is not None:
        facts.dependencies.add(path)
    return held


def _method(cls: cst.ClassDef, name: str) -> cst.FunctionDef | None:
    for stmt in cls.body.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == name:
            return stmt
    return None


def _keeps_label_building(module: cst.Module, cls: cst.ClassDef, row: Row) -> bool:
    for name in row.builds_in:
        method = _method(cls, name)
        if method is None:
            continue
        code = module.code_for_node(method)
        if "super()" not in code or _OWN_LABELS.search(code):
            return False
    return True
