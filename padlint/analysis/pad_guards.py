"""Pad = EOS assignments that cannot run: `if tok.pad_token is None: tok.pad_token = tok.eos_token`
after the same tokenizer's pad token was set to a token of its own, in the same block, earlier.

Only statements are walked (blocks and their compound statements), never expressions: the pass is
cheap next to the module-info walk.
"""

from __future__ import annotations

import libcst as cst

from padlint.analysis import patterns as P

PAD_ATTRS = ("pad_token", "pad_token_id")


def pad_settings(module: cst.Module) -> tuple[set[cst.Assign], set[str]]:
    """The pad = EOS assignments that cannot run, and the tokenizers (by code) given a pad token of
    their own anywhere in the module (`tok.add_special_tokens({"pad_token": "<pad>"})`)."""
    dead: set[cst.Assign] = set()
    dedicated: set[str] = set()
    blocks: list = [module.body]
    while blocks:
        body = blocks.pop()
        own_pad: set[str] = set()  # tokenizers whose pad token this block already set (not to EOS)
        for stmt in body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    _note_pad_setting(small, own_pad)
                    dedicated |= _given_own_pad(small)
                continue
            if isinstance(stmt, cst.If):
                guarded = _pad_missing_test(stmt.test)
                if guarded is not None and guarded in own_pad:
                    dead.update(_pad_eos_assignments(stmt.body))
            blocks.extend(_inner_blocks(stmt))
    return dead, dedicated


def _note_pad_setting(small: cst.BaseSmallStatement, own_pad: set[str]) -> None:
    if isinstance(small, cst.Assign):
        for target in small.targets:
            t = target.target
            if isinstance(t, cst.Attribute) and t.attr.value in PAD_ATTRS:
                receiver = P.dotted(t.value)
                if P.mentions_eos(small.value):
                    own_pad.discard(receiver)
                else:
                    own_pad.add(receiver)
            elif isinstance(t, cst.Name):
                own_pad.discard(t.value)  # the name is bound anew (a tokenizer loaded again)
    elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
        call = small.value
        # `tok.add_special_tokens({"pad_token": "<pad>"})`
        if P.last_name(call.func) == "add_special_tokens" and isinstance(call.func, cst.Attribute) and call.args:
            tokens = call.args[0].value
            if isinstance(tokens, cst.Dict) and any(
                P.string_value(e.key) == "pad_token" and not P.mentions_eos(e.value)
                for e in tokens.elements
                if isinstance(e, cst.DictElement)
            ):
                own_pad.add(P.dotted(call.func.value))


def _given_own_pad(small: cst.BaseSmallStatement) -> set[str]:
    """The tokenizer (its code) this statement gives a pad token of its own: a token or id
    (`tok.pad_token = "<pad>"`, `= tok.unk_token`, `tok.pad_token_id = 0`, `add_special_tokens`), not a
    copy of some pad (`self.pad_token_id = tokenizer.pad_token_id` stores an id, it sets no token)."""
    if isinstance(small, cst.Assign):
        given = set()
        for target in small.targets:
            t = target.target
            if isinstance(t, cst.Attribute) and t.attr.value in PAD_ATTRS and _own_token(small.value):
                given.add(P.dotted(t.value))
        return given
    own: set[str] = set()
    _note_pad_setting(small, own)  # `tok.add_special_tokens({"pad_token": "<pad>"})`
    return own


def _own_token(value: cst.BaseExpression) -> bool:
    """A literal token or id, or another special token of a tokenizer (`tok.unk_token`), not the EOS
    and not a pad read from somewhere."""
    if P.mentions_eos(value):
        return False
    if isinstance(value, (cst.SimpleString, cst.Integer)):
        return True
    return (
        isinstance(value, cst.Attribute)
        and value.attr.value.endswith(("_token", "_token_id"))
        and not (value.attr.value.startswith("pad"))
    )


def _pad_missing_test(test: cst.BaseExpression) -> str | None:
    """`tok.pad_token is None`, `tok.pad_token_id is None`, `not tok.pad_token`: the tokenizer's code."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        subject = test.expression
    elif (
        isinstance(test, cst.Comparison)
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, (cst.Is, cst.Equal))
        and isinstance(test.comparisons[0].comparator, cst.Name)
        and test.comparisons[0].comparator.value == "None"
    ):
        subject = test.left
    else:
        return None
    if isinstance(subject, cst.Attribute) and subject.attr.value in PAD_ATTRS:
        return P.dotted(subject.value) or None
    return None


def _pad_eos_assignments(body: cst.BaseSuite) -> list[cst.Assign]:
    found = []
    lines = body.body if isinstance(body, cst.IndentedBlock) else [body]
    for line in lines:
        if isinstance(line, cst.SimpleStatementLine):
            found += [s for s in line.body if isinstance(s, cst.Assign) and P.mentions_eos(s.value)]
        elif isinstance(line, cst.SimpleStatementSuite):
            found += [s for s in line.body if isinstance(s, cst.Assign) and P.mentions_eos(s.value)]
    return found


def _inner_blocks(stmt: cst.BaseCompoundStatement) -> list:
    blocks = []
    for suite in (getattr(stmt, "body", None), getattr(getattr(stmt, "orelse", None), "body", None)):
        if isinstance(suite, cst.IndentedBlock):
            blocks.append(suite.body)
    if isinstance(stmt, cst.If) and isinstance(stmt.orelse, cst.If):
        blocks.extend(_inner_blocks(stmt.orelse))
    for handler in getattr(stmt, "handlers", ()):
        blocks.append(handler.body.body)
    return blocks
