"""Models that feed their labels to the decoder as input ids, named where the labels may go.

A fix writing -100 into labels is right when their reader skips -100. A model of the library table's
`labels_as_inputs` rows (BlipForQuestionAnswering) also uses the labels as its decoder's input ids when
the caller passes none: -100 then reaches an embedding and the forward raises. The model that reads a
collate function's labels is often loaded in another module that never imports it (a training script
wiring both), so the module's own text and every file of its project (unused_definitions.project_files,
bounded; test modules aside: what a test makes trains nothing) are searched for such a class made or
loaded. Read as text; each read is noted for the result cache.
"""

from __future__ import annotations

import functools
import os
import re
from typing import TYPE_CHECKING

from padlint.analysis import patterns as P
from padlint.look.project_text import text_of
from padlint.semantics import table as T

if TYPE_CHECKING:
    import libcst as cst


@functools.cache
def _class_word() -> re.Pattern[str]:
    """Such a class made or loaded: `Cls(...)`, `Cls.from_pretrained(...)` (a mention in a docstring, a
    table or an import alone makes no model)."""
    names = "|".join(re.escape(n) for n in sorted(T.short_names("labels_as_inputs")))
    return re.compile(rf"\b({names})\s*(?:\.\s*from_pretrained\s*)?\(")


def model_feeding_labels(filename: str, text: str | None) -> str | None:
    """The first such class named in `text` (the module) or in a file of its project, or None."""
    word = _class_word()
    found = word.search(text or "")
    if found is not None:
        return found.group(1)
    if not filename or filename in ("-", "<stdin>"):
        return None
    from padlint.analysis.unused_definitions import project_files, project_root

    path = os.path.abspath(filename)
    if not os.path.isfile(path):
        return None  # text linted under a name of no file: it belongs to no project on disk
    for other in project_files(project_root(path)) or ():
        if other != path and other.endswith((".py", ".ipynb")) and not P.is_test_module(other):
            found = word.search(text_of(other) or "")
            if found is not None:
                return found.group(1)
    return None


INPUT_KEYWORDS = ("decoder_input_ids", "input_ids")


def labels_given_as_inputs(module: cst.Module) -> list[tuple[cst.BaseExpression, str, str]]:
    """The calls of the module that hand one value both as `labels=` and as input ids
    (`model(input_ids=x, decoder_input_ids=y, labels=y)`): (the `labels=` value's node, its code, the
    other keyword). A fix that writes -100 into that value where it is made, not at `labels=`, writes it
    into the input ids too: -100 reaches the embedding."""
    import libcst as cst

    found: list[tuple[cst.BaseExpression, str, str]] = []
    for node in P.walk(module):
        if not isinstance(node, cst.Call):
            continue
        given = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        labels = given.get("labels")
        if labels is None:
            continue
        code = cst.Module([]).code_for_node(labels)
        for keyword in INPUT_KEYWORDS:
            value = given.get(keyword)
            if value is not None and cst.Module([]).code_for_node(value) == code:
                found.append((labels, code, keyword))
                break
    return found
