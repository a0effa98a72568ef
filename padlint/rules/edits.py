"""Text edits that change one argument or element and leave the layout around it alone."""

from __future__ import annotations

import re

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.facts import ModuleFacts
from padlint.rules import sites
from padlint.rules.layout import requote, wrap
from padlint.types import Edit, Location


def delete_item(facts: ModuleFacts, owner: cst.CSTNode, items: list, item) -> tuple | None:
    """Delete one argument / element with its separator."""
    i = items.index(item)
    span = facts.span(item)
    if span is None:
        return None
    if i + 1 < len(items):
        following = facts.span(items[i + 1])
        return (span.start, following.start, "") if following else None
    if i > 0:
        previous = facts.span(items[i - 1])
        return (previous.end, span.end, "") if previous else None
    if isinstance(owner, cst.Call):  # the only argument: rewrite the (one-item) call
        return (owner, facts.code(owner.with_changes(args=[])))
    return None


def insert_after(facts: ModuleFacts, node: cst.CSTNode, text: str) -> tuple | None:
    """Insert `text` (usually ", key=value") right after `node`."""
    span = facts.span(node)
    return (span.end, span.end, text) if span is not None else None


def add_keyword(facts: ModuleFacts, call: cst.Call, keyword: str, value: str) -> tuple | None:
    """`f(a, b)` -> `f(a, b, keyword=value)`; `f()` -> `f(keyword=value)`."""
    if call.args:
        return insert_after(facts, call.args[-1], f", {keyword}={value}")
    return (
        call,
        facts.code(
            call.with_changes(
                args=[
                    cst.Arg(
                        cst.parse_expression(value),
                        keyword=cst.Name(keyword),
                        equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
                    )
                ]
            )
        ),
    )


def ignore_spelling(facts: ModuleFacts) -> str:
    """How this module spells -100: its own constant if it has one (`IGNORE_INDEX`), else `-100`."""
    for stmt in facts.module.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Assign) and len(small.targets) == 1:
                    target = small.targets[0].target
                    if isinstance(target, cst.Name) and facts.code(small.value).replace(" ", "") == "-100":
                        return target.value
    return "-100"


def add_mask_beside_ids(facts: ModuleFacts, sink: cst.CSTNode, mask_code: str) -> tuple | None:
    """Insert `attention_mask` right after the ids (after the last positional argument in a call), on
    a line of its own when the dict or call has one item per line. None where `sink` is not a node of
    this module (a callee of another module followed by the analysis: no edit can reach it)."""
    sink_span = facts.span(sink)
    if sink_span is None:
        return None
    if isinstance(sink, cst.Dict):
        items = [e for e in sink.elements if isinstance(e, cst.DictElement)]
        for element in items:
            if P.string_value(element.key) == "input_ids":
                if one_row_of_many(facts, sink, element.value, mask_code):
                    return None
                quote = element.key.value[0] if isinstance(element.key, cst.SimpleString) else '"'
                item = f"{quote}attention_mask{quote}: {mask_code}"
                return insert_item(facts, list(sink.elements), element, item, sink_span.end.line)
        return None
    if isinstance(sink, cst.Call):
        args = list(sink.args)
        ids = P.keyword(sink, "input_ids")
        positional = [a for a in args if a.keyword is None and not a.star]
        anchor = ids if ids is not None else (positional[-1] if positional else None)
        if anchor is None:
            return None
        if ids is not None and positional and args.index(positional[-1]) > args.index(ids):
            anchor = positional[-1]
        if one_row_of_many(facts, sink, (ids or positional[0]).value, mask_code):
            return None
        return insert_item(facts, args, anchor, f"attention_mask={mask_code}", sink_span.end.line)
    return None


def one_row_of_many(facts: ModuleFacts, sink: cst.CSTNode, ids: cst.BaseExpression, mask_code: str) -> bool:
    """Are the ids at `sink` one row of the batch, read off a comprehension's loop variable
    (`[{"input_ids": row} for row in ids]`), while `mask_code` reads none of its loop variables (the
    whole batch's mask)? Then that mask beside them would pair each row with every row's mask."""
    loop_names: set[str] = set()
    for outer in sites.path_to(facts, sink):
        if isinstance(outer, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
            clause: cst.CompFor | None = outer.for_in
            while clause is not None:
                loop_names.update(_names_in(clause.target))
                clause = clause.inner_for_in
    if not loop_names & _names_in(ids):
        return False
    return not loop_names & set(re.findall(r"[A-Za-z_]\w*", mask_code))


def _names_in(node: cst.CSTNode) -> set[str]:
    return {current.value for current in P.walk(node) if isinstance(current, cst.Name)}


def insert_item(
    facts: ModuleFacts, items: list, after: cst.CSTNode, text: str, closing_line: int | None = None
) -> tuple | None:
    """Insert the item `text` after `after`, following the layout: `, text` on one line, or a line of
    its own when the next item starts a new line."""
    span = facts.range_of(after)
    end = span.end
    following = items[items.index(after) + 1] if items.index(after) + 1 < len(items) else None
    if following is not None:
        start = facts.range_of(following).start
        if start.line > end.line:
            indent = sites.text_between(facts, cst.metadata.CodePosition(start.line, 0), start)
            return (start, start, _own_lines(facts, f"{text},", indent) + "\n" + indent)
    separator = getattr(after, "comma", None)
    comma = facts.range_of(separator) if isinstance(separator, cst.Comma) else None
    if following is None and comma is not None and closing_line is not None and closing_line > end.line:
        indent = sites.text_between(facts, cst.metadata.CodePosition(span.start.line, 0), span.start)
        return (comma.end, comma.end, "\n" + indent + _own_lines(facts, f"{text},", indent))  # the last item
    return (end, end, f", {text}")


def _own_lines(facts: ModuleFacts, item: str, indent: str) -> str:
    """An item on a line of its own, broken at its brackets when it would not fit there."""
    return ("\n" + indent).join(wrap(item, sites.line_length(facts) - len(indent)))


def to_edits(replacements, positions, quote: str = '"', filename: str | None = None) -> list[Edit] | None:
    """A fix's replacements as text edits: (node, code) at the node's position, (start, end, code)
    between two libcst CodePositions; the code in the file's own quote style (a notebook in single
    quotes stays so). None when a node has no position in that module. `filename`: the file they
    change when it is not the finding's own."""
    edits = []
    for replacement in replacements:
        if len(replacement) == 3:
            start, end, code = replacement
        else:
            node, code = replacement
            span = positions.get(node)
            if span is None:
                return None
            start, end = span.start, span.end
        at, until = Location(start.line, start.column + 1), Location(end.line, end.column + 1)
        edits.append(Edit(requote(code, quote), at, until, filename))
    return edits
