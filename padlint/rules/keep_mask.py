"""Keep the attention mask of a tokenizer call whose ids were split off it.

`ids = tokenizer(texts, padding=True)["input_ids"]` (or `.input_ids`, or `tokenizer.encode(...,
padding=...)`) throws the tokenizer's mask away. The fix names the encoding in a statement of its
own, reads the ids from it, and hands its mask to whoever needs one (the model call, the returned
features, an attention-mask place): an edit at several places of one function. It is offered only
where the encoding's name is bound wherever the mask is read: the same function, the statement
that binds it runs first and sits in a block around the reads. Inside a lambda, where no statement
can go, the encoding is named by `:=` and read later in the same lambda body.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.facts import ModuleFacts
from padlint.analysis.values import Padded
from padlint.rules import sites

PREFERRED_NAME = "encoding"
# `:=` may not bind inside these (a comprehension's iterable) or would bind in their own scope.
_COMPREHENSIONS = frozenset({"ListComp", "SetComp", "DictComp", "GeneratorExp"})


@dataclass
class KeptEncoding:
    """The edits that name the encoding, and how its mask reads where the ids are used."""

    edits: list
    read_mask: str  # the encoding's mask, read the way the ids were read (`enc["attention_mask"]`)
    padded: Padded

    def mask_where_ids_are(self) -> str:
        """The mask, derived the way the ids were on their way to where they are used (`torch.tensor(§)`)."""
        return (self.padded.template or "§").replace("§", self.read_mask)


def keep_encoding(facts: ModuleFacts, padded: Padded, uses: tuple) -> KeptEncoding | None:
    """Name the encoding `padded` was split off, if the name is bound at every node of `uses`."""
    lost = padded.lost_at
    if lost is None or padded.template is None:
        return None  # no split, or the ids were changed on their way in a way the mask cannot follow
    encoding, attribute = _encoding_code(facts, lost)
    if encoding is None:
        return None
    site = sites.site_of(facts, lost)
    if site is not None:
        if not all(bound_at(facts, site.statement, use) for use in uses):
            return None
        name = site.fresh(PREFERRED_NAME)
        ids, mask = _reads(facts, name, attribute)
        return KeptEncoding([site.insertion([f"{name} = {encoding}"]), (lost, ids)], mask, padded)
    return _walrus(facts, padded, lost, encoding, attribute, uses)


def _reads(facts: ModuleFacts, name: str, attribute: bool) -> tuple[str, str]:
    """How the ids and the mask are read from the named encoding: as the code read the ids."""
    if attribute:
        return f"{name}.input_ids", f"{name}.attention_mask"
    return f"{name}[{sites.key(facts, 'input_ids')}]", f"{name}[{sites.key(facts, 'attention_mask')}]"


def _walrus(facts, padded, lost, encoding, attribute, uses) -> KeptEncoding | None:
    """Inside a lambda: `(encoding := tok(...))["input_ids"]`, then `encoding["attention_mask"]`, when
    every use comes after it in the same lambda body and no comprehension stands in between."""
    path = sites.path_to(facts, lost)
    lambdas = [step for step in path if isinstance(step, cst.Lambda)]
    if not lambdas or any(type(s).__name__ in _COMPREHENSIONS for s in path[path.index(lambdas[-1]) :]):
        return None
    body = lambdas[-1]
    for use in uses:
        use_path = sites.path_to(facts, use)
        if body not in use_path or any(type(s).__name__ in _COMPREHENSIONS for s in use_path[use_path.index(body) :]):
            return None
        if use not in path and not _before(facts, lost, use):
            return None  # the mask is read after the ids (in the dict or call that holds them, or later)
    name = sites.Site(body, "", facts).fresh(PREFERRED_NAME)
    ids, mask = _reads(facts, name, attribute)
    return KeptEncoding([(lost, f"({name} := {encoding}){ids[len(name) :]}")], mask, padded)


def _encoding_code(facts: ModuleFacts, lost: cst.CSTNode) -> tuple[str | None, bool]:
    """The code of the whole encoding at the node where the ids were split off it."""
    if isinstance(lost, cst.Subscript):
        return sites.source_of(facts, lost.value), False
    if isinstance(lost, cst.Attribute) and lost.attr.value == "input_ids":
        return sites.source_of(facts, lost.value), True
    if isinstance(lost, cst.Call) and isinstance(lost.func, cst.Attribute) and P.last_name(lost.func) == "encode":
        # `tok.encode(text, ...)` is `tok(text, ...)["input_ids"]`: the same arguments, the ids only
        func = lost.func
        return _without(facts, lost, func.value, func), False
    return None, False


def _without(facts: ModuleFacts, call: cst.Call, kept: cst.CSTNode, func: cst.Attribute) -> str | None:
    """The call's text with `.encode` cut out of its callee: `tok.encode(x)` -> `tok(x)`."""
    whole, kept_span, func_span = facts.span(call), facts.span(kept), facts.span(func)
    if whole is None or kept_span is None or func_span is None:
        return None
    return sites.text_between(facts, whole.start, kept_span.end) + sites.text_between(facts, func_span.end, whole.end)


def bound_at(facts: ModuleFacts, statement: cst.CSTNode, use: cst.CSTNode) -> bool:
    """Is a name bound right before `statement` bound where `use` is evaluated? `use` is the statement
    itself or comes after it, in the block the statement is in (or a block nested in it)."""
    statement_path = sites.path_to(facts, statement)
    use_path = sites.path_to(facts, use)
    if statement in use_path:
        return True
    block = statement_path[:-1]
    same_block = len(use_path) > len(block) and all(a is b for a, b in zip(block, use_path))
    return same_block and _before(facts, statement, use)


def _before(facts: ModuleFacts, a: cst.CSTNode, b: cst.CSTNode) -> bool:
    sa, sb = facts.span(a), facts.span(b)
    return sa is not None and sb is not None and (sa.start.line, sa.start.column) < (sb.start.line, sb.start.column)
