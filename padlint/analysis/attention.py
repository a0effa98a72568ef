"""Does project code attend? A model class in view that takes no mask is judged by its body (sinks.py
ids_sink): padded ids harm it only if something in it mixes every position with every other. That is
a layer or function of the library table's "attention" rows (nn.MultiheadAttention, nn.Transformer*,
scaled_dot_product_attention), or attention written by hand: a softmax over scores that are a product
of two tensors (`softmax(q @ k.transpose(-2, -1))`, `matmul`, `bmm`, `einsum`). Classes of the same
module that the class names (its layers) are read too. Read from the code's text: no walk is needed.
"""

from __future__ import annotations

import re

import libcst as cst

from padlint.semantics import table as T

_LIBRARY = T.names("attention") | T.names("attention", on="class")
# `nn.MultiheadAttention(...)`, `F.scaled_dot_product_attention(...)`: the library's, by its module's name
_SHORT = "|".join(sorted(re.escape(n.rsplit(".", 1)[-1]) for n in _LIBRARY))
ATTENTION_NAME = re.compile(rf"\b(?:nn|functional|F)\.(?:{_SHORT})\b")
SOFTMAX = re.compile(r"\bsoftmax\s*\(")
PRODUCT = re.compile(r"\b(?:matmul|bmm|einsum|baddbmm)\s*\(|\S\s*@\s*\S")
WORD = re.compile(r"\b[A-Z]\w*\b")


def attends(cls: cst.ClassDef, module: cst.Module | None, code_of) -> bool:
    """Does `cls` (or a class of `module` it names, through the classes they name) attend?"""
    classes = {s.name.value: s for s in (module.body if module is not None else ()) if isinstance(s, cst.ClassDef)}
    seen: set[str] = set()
    todo = [cls]
    while todo:
        current = todo.pop()
        if current.name.value in seen:
            continue
        seen.add(current.name.value)
        code = code_of(current)
        if ATTENTION_NAME.search(code) or (SOFTMAX.search(code) and PRODUCT.search(code)):
            return True
        todo += [classes[name] for name in set(WORD.findall(code)) if name in classes and name not in seen]
    return False
