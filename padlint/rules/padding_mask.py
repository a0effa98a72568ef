"""Build a row's attention mask where the row is padded, when the mask is needed further on.

`x + [pad] * gap` (or `[pad] * gap + x`) is the one place where both the real length and the
number of pads are known: later `x` may be rebound to the padded row (`ids = ids + [pad] * gap`).
The fix names the mask right before the padding statement, in the same shape as the padding:

- a statement that pads one row:      `attention_mask = [1] * len(x) + [0] * gap`
- a comprehension that pads rows:     `attention_mask = [[1] * len(r) + [0] * gap for r in rows]`
- a loop that appends padded rows:    `attention_mask = []` before the loop and
                                      `attention_mask.append([1] * len(x) + [0] * gap)` in it

and is offered only where that name is bound wherever the mask is used.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from padlint.analysis.facts import ModuleFacts
from padlint.analysis.fixshapes import list_mask
from padlint.analysis.values import Padded
from padlint.rules import sites
from padlint.rules.keep_mask import bound_at

PREFERRED_NAME = "attention_mask"


@dataclass
class PaddingMask:
    edits: list
    name: str


def mask_at_padding(facts: ModuleFacts, padded: Padded, uses: tuple) -> PaddingMask | None:
    """Name the mask of the rows `padded` pads, built where they are padded, if the name is bound at `uses`."""
    if padded.kind != "list" or not padded.data or not padded.gap:
        return None
    row_mask = list_mask(padded.data, padded.gap, padded.side)
    path = sites.path_to(facts, padded.node)
    if len(path) < 2:
        return None
    parent = path[-2]
    if isinstance(parent, cst.ListComp) and parent.elt is padded.node and padded.rows:
        site = sites.site_of(facts, parent)
        if site is None or not all(bound_at(facts, site.statement, use) for use in uses):
            return None
        name = site.fresh(PREFERRED_NAME)
        rows = facts.code(parent.with_changes(elt=cst.parse_expression(row_mask)))
        return PaddingMask([site.insertion([f"{name} = {rows}"])], name)
    appended = _appended_in_loop(path)
    if appended is not None:
        statement, loop = appended
        loop_site = sites.site_of(facts, loop)
        append_site = sites.site_of(facts, statement.body[0])
        if loop_site is None or append_site is None:
            return None
        if not all(bound_at(facts, loop_site.statement, use) for use in uses):
            return None
        name = loop_site.fresh(PREFERRED_NAME)
        append_site.taken.add(name)
        return PaddingMask(
            [loop_site.insertion([f"{name} = []"]), append_site.insertion([f"{name}.append({row_mask})"])], name
        )
    if padded.rows:
        return None
    site = sites.site_of(facts, padded.node)
    if site is None or not all(bound_at(facts, site.statement, use) for use in uses):
        return None
    name = site.fresh(PREFERRED_NAME)
    return PaddingMask([site.insertion([f"{name} = {row_mask}"])], name)


def _appended_in_loop(path: list) -> tuple | None:
    """(the `rows.append(row)` statement, its `for` loop) when the padded row is appended in a loop body."""
    for i in range(len(path) - 1, 0, -1):
        if isinstance(path[i], cst.Arg):
            call = path[i - 1]
            if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)):
                return None
            if call.func.attr.value != "append" or len(call.args) != 1:
                return None
            for j in range(i - 1, 0, -1):
                if isinstance(path[j], cst.SimpleStatementLine):
                    statement = path[j]
                    block = path[j - 1]
                    loop = path[j - 2] if j >= 2 else None
                    expr = statement.body[0] if len(statement.body) == 1 else None
                    if (
                        isinstance(loop, cst.For)
                        and block is loop.body
                        and isinstance(expr, cst.Expr)
                        and expr.value is call
                    ):
                        return statement, loop
                    return None
            return None
    return None
