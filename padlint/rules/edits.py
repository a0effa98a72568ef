"""Text edits that change one argument or element and leave the layout around it alone."""

from __future__ import annotations

import libcst as cst

from padlint.analysis.facts import ModuleFacts


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
