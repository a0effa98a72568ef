"""PAD003 padded-without-mask."""
from __future__ import annotations

from typing import Iterable

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.facts import MaskLost, ModuleFacts
from padlint.rules.base import Finding, FixProposal, Rule
from padlint.types import Applicability

MESSAGES = {
    "dropped": "`return_attention_mask=False` on a padded tokenizer call: the model never gets the mask and attends to padding",
    "subscript": "only `input_ids` is kept from a padded tokenizer call: its attention mask is lost and the model attends to padding",
    "encode": "`encode(..., padding=...)` returns padded ids without an attention mask: the model attends to padding",
    "sink": "padded `input_ids` reach the model without the attention mask of `{encoding}`: the model attends to padding",
    "columns": "the dataset keeps `input_ids` of padded features but drops their `attention_mask` column",
}


class PaddedWithoutMask(Rule):
    """The output of a padding tokenizer call loses its attention mask on the way to the model."""

    code = "PAD003"
    name = "padded-without-mask"
    summary = "Padded tokenizer output loses its attention mask on the way to the model"
    fix_safety = "safe (carry the tokenizer's mask along); none where the ids were split off the call"

    INVALID = [
        """
def predict(model, tokenizer, texts):
    ids = tokenizer(texts, padding=True, return_tensors="pt")["input_ids"]
    return model(ids).logits
""",
        """
def run(model, tokenizer, texts):
    enc = tokenizer(texts, padding="longest", return_tensors="pt")
    return model.generate(input_ids=enc["input_ids"], max_new_tokens=20)
""",
    ]
    VALID = [
        """
def run(model, tokenizer, texts):
    enc = tokenizer(texts, padding="longest", return_tensors="pt")
    return model.generate(**enc, max_new_tokens=20)
""",
        """
def score(model, tokenizer, text: str):
    ids = tokenizer(text, padding=True, return_tensors="pt")["input_ids"]
    return model(ids, labels=ids).loss
""",
    ]

    def check(self, facts: ModuleFacts) -> Iterable[Finding]:
        seen = set()
        for event in facts.mask_lost:
            if event.node in seen:
                continue
            if event.how == "sink" and _is_feature_dict(event.sink) and facts.mask_rebuilt_from_pad_id:
                continue  # the module rebuilds the mask from the pad id when it collates (PAD005's business)
            seen.add(event.node)
            encoding = event.padded.encoding if event.padded is not None else None
            message = MESSAGES[event.how].format(encoding=encoding or "the encoding")
            yield Finding(event.node, message, self.fix(facts, event))

    def fix(self, facts: ModuleFacts, event: MaskLost) -> FixProposal | None:
        safe = Applicability.SAFE
        if event.how == "dropped":
            call = event.padded.node if event.padded is not None else event.encoding.node
            if not isinstance(call, cst.Call):
                return None
            fixed = call.with_changes(args=[a for a in call.args if a is not event.node])
            return FixProposal(safe, "Drop `return_attention_mask=False`", ((call, facts.code(fixed)),))
        if event.how == "sink" and event.mask_code:
            fixed = _with_mask(event.sink, event.mask_code)
            if fixed is None:
                return None
            return FixProposal(safe, "Pass the tokenizer's attention mask along", ((event.sink, facts.code(fixed)),))
        if event.how == "columns" and isinstance(event.sink, cst.Call):
            fixed = _columns_with_mask(event.sink)
            if fixed is None:
                return None
            return FixProposal(safe, "Keep the `attention_mask` column", ((event.sink, facts.code(fixed)),))
        return None


def _is_feature_dict(node) -> bool:
    return isinstance(node, cst.Dict) or (
        isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "dict")


def _with_mask(sink: cst.CSTNode, mask_code: str) -> cst.CSTNode | None:
    """The dict / call with `attention_mask` added right after `input_ids`."""
    mask = cst.parse_expression(mask_code)
    if isinstance(sink, cst.Dict):
        elements = list(sink.elements)
        for i, element in enumerate(elements):
            if isinstance(element, cst.DictElement) and P.string_value(element.key) == "input_ids":
                quote = element.key.value[0] if isinstance(element.key, cst.SimpleString) else '"'
                new = cst.DictElement(cst.SimpleString(f"{quote}attention_mask{quote}"), mask, comma=element.comma)
                elements[i] = element.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                elements.insert(i + 1, new)
                return sink.with_changes(elements=elements)
        return None
    if isinstance(sink, cst.Call):
        args = list(sink.args)
        for i, arg in enumerate(args):
            is_ids = arg.keyword is not None and arg.keyword.value == "input_ids"
            if is_ids or (arg.keyword is None and not arg.star and i == 0 and P.keyword(sink, "input_ids") is None):
                new = cst.Arg(mask, keyword=cst.Name("attention_mask"), comma=arg.comma,
                              equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))
                args[i] = arg.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                args.insert(i + 1, new)
                return sink.with_changes(args=_keywords_after_positionals(args))
    return None


def _keywords_after_positionals(args: list[cst.Arg]) -> list[cst.Arg]:
    # `model(ids, attention_mask=m, other)` would not compile: move later positionals before it.
    positional = [a for a in args if a.keyword is None and not a.star]
    rest = [a for a in args if not (a.keyword is None and not a.star)]
    if all(args.index(p) < min((args.index(r) for r in rest), default=len(args)) for p in positional):
        return args
    ordered = positional + rest
    last = ordered[-1]
    fixed = [a if a.comma is not cst.MaybeSentinel.DEFAULT else a.with_changes(
        comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for a in ordered[:-1]]
    return fixed + [last.with_changes(comma=cst.MaybeSentinel.DEFAULT)]


def _columns_with_mask(call: cst.Call) -> cst.Call | None:
    for arg in call.args:
        value = arg.value
        if not isinstance(value, (cst.List, cst.Tuple)):
            continue
        names = [P.string_value(e.value) for e in value.elements]
        if P.last_name(call.func) == "remove_columns":
            if "attention_mask" not in names:
                continue
            kept = [e for e, n in zip(value.elements, names) if n != "attention_mask"]
            if kept:
                kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            return call.with_changes(args=[a if a is not arg else a.with_changes(value=value.with_changes(elements=kept))
                                           for a in call.args])
        if "input_ids" in names:
            i = names.index("input_ids")
            elements = list(value.elements)
            quote = '"'
            if isinstance(elements[i].value, cst.SimpleString):
                quote = elements[i].value.value[0]
            new = cst.Element(cst.SimpleString(f"{quote}attention_mask{quote}"), comma=elements[i].comma)
            elements[i] = elements[i].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            elements.insert(i + 1, new)
            return call.with_changes(args=[a if a is not arg else a.with_changes(value=value.with_changes(elements=elements))
                                           for a in call.args])
    return None
