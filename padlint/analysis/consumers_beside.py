"""The models the project's readers of a module load: who consumes rows a module only hands on.

A dataset module that pads rows and loads no model hands them to whoever imports it. Where every module
of the project that imports it and names the definition holding the rows loads its models as classes the
library table knows to be causal decoders, and none of them reads the outputs at the pads (the last
position, a mean over the sequence), the rows' consumer is a causal decoder. Any load the text does not
resolve (`get_model_class(args).from_pretrained(...)`, a class of the project's own), or an importer
that loads no model, leaves the consumer unknown. Read as text, like ignores_beside.py.
"""

from __future__ import annotations

import re

from padlint.analysis import attention
from padlint.analysis import patterns as P
from padlint.analysis.ignores_beside import readers_beside
from padlint.look.project_text import text_of
from padlint.semantics import table as T

LOAD = re.compile(r"(\S?)(\b\w+)?\.from_pretrained\(")  # the character before a name, the name
FROM_IMPORT = re.compile(r"^[ \t]*from[ \t]+([\w.]+)[ \t]+import[ \t]+(\([^)]*\)|[^\n]+)", re.M)


def causal_readers_only(filename: str, holder: str | None) -> bool:
    """Do the project's modules that import `filename` and name `holder` load causal decoders only
    (at least one), resolve every model they load, and read no output at the pads?"""
    if not holder:
        return False
    named = re.compile(rf"\b{re.escape(holder)}\b")
    readers = [text for path in readers_beside(filename) if (text := text_of(path)) is not None and named.search(text)]
    return bool(readers) and all(_loads_causal_only(text) for text in readers)


def _loads_causal_only(text: str) -> bool:
    if attention.reads_every_position(text):
        return False
    imported = _imported_classes(text)
    models = 0
    for match in LOAD.finditer(text):
        before, name = match.group(1), match.group(2)
        if name is None or before in (")", "]", "."):
            return False  # a load the text does not name (`factory(args).from_pretrained`): unknown
        if P.TOKENIZER_FACTORIES.search(f"{name}.from_pretrained") or name.endswith("Config"):
            continue
        row = T.class_row(f"{imported[name]}.{name}") if name in imported else None
        if row is None or row.kind != "consumer" or row.attends != "causal":
            return False
        models += 1
    return models > 0


def _imported_classes(text: str) -> dict[str, str]:
    """Name -> the module it is imported from (`from transformers import AutoModelForCausalLM`)."""
    found: dict[str, str] = {}
    for match in FROM_IMPORT.finditer(text):
        names = re.sub(r"#[^\n]*", "", match.group(2)).strip("()")
        for part in names.split(","):
            words = part.split()
            if words:
                found[words[-1]] = match.group(1)  # `X as Y`: the name used is the last word
    return found
