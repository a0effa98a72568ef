"""Does the project's own model read the labels? A model class of the module, or of a project module
it imports from, whose `forward` takes `labels`.

A fix that writes -100 into labels is right when their reader skips -100, as transformers' models and
torch's losses do. A model the project writes itself may read labels any other way: feed them back as
the next input ids (teacher forcing: an embedding lookup of -100 raises), or skip another value. Where
such a model is in view, the reader of the labels may be it, and a -100 fix is not sure to be right.
Read as text (project_text.text_of notes each read for the result cache).
"""

from __future__ import annotations

import os
import re

from padlint.look.project_text import FROM_IMPORT, PLAIN_IMPORT, module_path, text_of

FORWARD_WITH_LABELS = re.compile(r"\bdef\s+forward\s*\(\s*self\b[^)]*\blabels\b")


def project_model_reads_labels(filename: str, text: str | None) -> bool:
    """Is there a `forward(self, ..., labels...)` in the module's text, or in a module of the project
    it imports from?"""
    if text is None:
        return False
    if FORWARD_WITH_LABELS.search(text):
        return True
    if not filename or filename in ("-", "<stdin>"):
        return False
    path = os.path.abspath(filename)
    sources = [(m.group(2), len(m.group(1))) for m in FROM_IMPORT.finditer(text)]
    sources += [(m.group(1), 0) for m in PLAIN_IMPORT.finditer(text)]
    for module, level in sources:
        found = module_path(path, module, level) if module or level else None
        other = text_of(found) if found else None
        if other is not None and FORWARD_WITH_LABELS.search(other):
            return True
    return False
