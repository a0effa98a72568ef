"""Does project code attend? A model class in view that takes no mask is judged by its body (sinks.py
ids_sink): padded ids harm it only if something in it mixes every position with every other. That is
a layer or function of the library table's "attention" rows (nn.MultiheadAttention, nn.Transformer*,
scaled_dot_product_attention), or attention written by hand: a softmax over scores that are a product
of two tensors (`softmax(q @ k.transpose(-2, -1))`, `matmul`, `bmm`, `einsum`). Classes of the same
module that the class names (its layers) are read too. Read from the code's text: no walk is needed.

A model that attends only causally (a decoder written by hand) reads no pad that follows the real tokens:
every class of it that attends builds a causal mask (`torch.tril`/`torch.triu`, `is_causal=True`,
`generate_square_subsequent_mask`), none is told not to be causal (`is_causal=False`, `causal: bool =
False`: an encoder or cross-attention beside the decoder), and none reads the outputs at the pads: the
last position (`h[:, -1]`, a right pad when the rows are right-padded) or every position (a pooling over
the sequence axis, `hidden.mean(dim=1)`).
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
CAUSAL_MASK = re.compile(r"\b(?:tril|triu)\s*\(|\bis_causal\s*=\s*True\b|\bgenerate_square_subsequent_mask\b")
NOT_CAUSAL = re.compile(r"\b\w*causal\w*\s*(?::\s*bool\s*)?=\s*False\b")
LAST_POSITION = re.compile(r"\[\s*:\s*,\s*\[?\s*-1\s*\]?\s*[,\]]")
# A reduction over the sequence axis of a (batch, sequence, ...) tensor (`hidden.mean(dim=1)`,
# `torch.max(h, dim=1)`): it reads every position's output, the pads' too.
SEQUENCE_POOL = re.compile(
    r"(?:\.|\btorch\.)(?:mean|sum|max|amax|min|logsumexp)\([^()]*?(?:dim\s*=\s*)?(?:1|-2)\s*[,)]"
)


def attends(cls: cst.ClassDef, module: cst.Module | None, code_of) -> bool:
    """Does `cls` (or a class of `module` it names, through the classes they name) attend?"""
    return any(_attends_itself(code) for code in _codes_reached(cls, module, code_of))


def attends_causally(cls: cst.ClassDef, module: cst.Module | None, code_of) -> bool | None:
    """Does `cls` attend only causally, reading no position after a real token (module docstring)?
    None when nothing in it attends."""
    codes = _codes_reached(cls, module, code_of)
    attending = [code for code in codes if _attends_itself(code)]
    if not attending:
        return None
    if not all(CAUSAL_MASK.search(code) for code in attending):
        return False
    return not any(NOT_CAUSAL.search(code) or reads_every_position(code) for code in codes)


def reads_every_position(code: str) -> bool:
    """Does `code` read a sequence's output where a right pad sits: its last position (`h[:, -1]`) or
    a reduction over the sequence axis (`hidden.mean(dim=1)`)?"""
    return bool(LAST_POSITION.search(code) or SEQUENCE_POOL.search(code))


def _attends_itself(code: str) -> bool:
    return bool(ATTENTION_NAME.search(code) or (SOFTMAX.search(code) and PRODUCT.search(code)))


def _codes_reached(cls: cst.ClassDef, module: cst.Module | None, code_of) -> list[str]:
    """The code of `cls` and of every class of `module` it names, through the classes they name."""
    classes = {s.name.value: s for s in (module.body if module is not None else ()) if isinstance(s, cst.ClassDef)}
    seen: set[str] = set()
    codes: list[str] = []
    todo = [cls]
    while todo:
        current = todo.pop()
        if current.name.value in seen:
            continue
        seen.add(current.name.value)
        code = code_of(current)
        codes.append(code)
        todo += [classes[name] for name in set(WORD.findall(code)) if name in classes and name not in seen]
    return codes
