"""Other writes of one constant into the same labels.

A padding step that fills labels with a constant (`np.pad(labels, (0, n), constant_values=42)`) is
often not the only place the code writes that constant into them: the same value may label the special
tokens (`labels.append(42)` where `word_ids()` is None), a prefix of virtual tokens, or positions a loop
sets (`labels[i] = 42`). A fix that rewrites the constant at one step leaves it at the others, and the
labels then mark skipped positions two ways. This module finds those other writes: the statements of
the same function that name the labels and hold the constant as a value (not as an index or a slice
bound).
"""

from __future__ import annotations

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.loader_uses import names_in, nearest
from padlint.analysis.one_row import own_nodes


def other_writes(
    fn: cst.CSTNode, labels: str, value: int, skip: cst.CSTNode, parents: dict[cst.CSTNode, cst.CSTNode]
) -> list[cst.CSTNode]:
    """The statements of `fn` (its own body, nested defs left out) other than the one holding `skip`
    that name `labels` and hold the int `value` outside a subscript's index."""
    held_by = nearest(parents, skip, cst.BaseSmallStatement)
    found: list[cst.CSTNode] = []
    for node in own_nodes(fn):
        if not isinstance(node, cst.BaseSmallStatement) or node is held_by:
            continue
        if names_in(node, {labels}) and any(
            isinstance(n, (cst.Integer, cst.UnaryOperation))
            and P.int_value(n) == value
            and not _in_index(n, node, parents)
            for n in P.walk(node)
        ):
            found.append(node)
    return found


def _in_index(node: cst.CSTNode, top: cst.CSTNode, parents: dict[cst.CSTNode, cst.CSTNode]) -> bool:
    """Is `node` part of a subscript's index or slice (`labels[0]`, `labels[:, 1:]`), or a negative
    number's operand (counted as the negative number itself)?"""
    current = parents.get(node)
    while current is not None and current is not top:
        if isinstance(current, cst.SubscriptElement):
            return True
        if isinstance(current, cst.UnaryOperation) and current.expression is node:
            return True
        current = parents.get(current)
    return False
