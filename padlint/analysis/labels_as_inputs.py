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

from padlint.analysis import patterns as P
from padlint.look.project_text import text_of
from padlint.semantics import table as T


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
