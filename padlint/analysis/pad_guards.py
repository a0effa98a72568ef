"""Pad = EOS assignments that cannot run: `if tok.pad_token is None: tok.pad_token = tok.eos_token`
after the same tokenizer's pad token was set to a token of its own, in the same block, earlier; those
that run only for a tokenizer without a pad token (the same guard anywhere else, `tok.pad_token or
tok.eos_token`): whether the pad becomes the EOS then depends on the checkpoint, which is not in view;
and script statements that surely give a tokenizer a pad token of its own again (`pad_resets`), ending a
pad = EOS set before them.

Only statements are walked (blocks and their compound statements), never expressions: the pass is
cheap next to the module-info walk.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeGuard

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.class_constants import class_constant

PAD_ATTRS = ("pad_token", "pad_token_id")


def _names_pad(expr: cst.BaseExpression) -> TypeGuard[cst.Attribute]:
    """`tok.pad_token`, `tok.pad_token_id`."""
    return isinstance(expr, cst.Attribute) and expr.attr.value in PAD_ATTRS


@dataclass
class PadSettings:
    dead: set[cst.Assign] = field(default_factory=set)  # pad = EOS assignments that cannot run
    fallbacks: set[cst.Assign] = field(default_factory=set)  # those that run only where no pad token is set
    dedicated: set[str] = field(default_factory=set)  # tokenizers (code) given a pad token of their own


def pad_settings(module: cst.Module) -> PadSettings:
    """The pad = EOS assignments that cannot run, those guarded by `if tok.pad_token is None:`, and the
    tokenizers (by code) given a pad token of their own anywhere in the module
    (`tok.add_special_tokens({"pad_token": "<pad>"})`)."""
    found = PadSettings()
    dead, dedicated = found.dead, found.dedicated
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
                elif guarded is not None:
                    # nested too: `if tok.pad_token_id is None: if tok.eos_token is not None: tok.pad_token = ...`
                    found.fallbacks.update(
                        node
                        for node in P.walk(stmt.body)
                        if isinstance(node, cst.Assign) and P.mentions_eos(node.value)
                    )
            blocks.extend(_inner_blocks(stmt))
    return found


def _note_pad_setting(small: cst.BaseSmallStatement, own_pad: set[str]) -> None:
    if isinstance(small, cst.Assign):
        for target in small.targets:
            t = target.target
            if _names_pad(t):
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
            if _names_pad(t) and _own_token(small.value):
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
    else:
        compared = _compared_with_none(test, (cst.Is, cst.Equal))
        if compared is None:
            return None
        subject = compared
    if _names_pad(subject):
        return P.dotted(subject.value) or None
    return None


def falls_back_to_eos(value: cst.BaseExpression) -> bool:
    """`tok.pad_token or tok.eos_token`, `tok.eos_token if tok.pad_token is None else tok.pad_token`: the
    EOS only where the tokenizer has no pad token. (`tok.pad_token_id or tok.eos_token_id` is not one:
    it also turns a real pad id of 0 into the EOS.)"""
    if isinstance(value, cst.BooleanOperation) and isinstance(value.operator, cst.Or):
        return isinstance(value.left, cst.Attribute) and value.left.attr.value == "pad_token"
    if isinstance(value, cst.IfExp):
        test = value.test
        if _pad_missing_test(test) is not None:
            return P.mentions_eos(value.body) and not P.mentions_eos(value.orelse)
        present = _compared_with_none(test, (cst.IsNot, cst.NotEqual))
        if present is not None and _names_pad(present):
            return P.mentions_eos(value.orelse) and not P.mentions_eos(value.body)
    return False


def _compared_with_none(test: cst.BaseExpression, operators: tuple[type, ...]) -> cst.BaseExpression | None:
    """`x` of `x is None` (or the other `operators` with `None` on the right)."""
    pair = P.comparison_operand(test, operators)
    if pair is None or not (isinstance(pair[1], cst.Name) and pair[1].value == "None"):
        return None
    return pair[0]


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


PadReset = tuple[cst.CSTNode, str, "cst.FunctionDef | None"]


def pad_resets(module: cst.Module) -> list[PadReset]:
    """(statement, tokenizer code, the top-level function it sits in or None for script code) of the
    statements that give a tokenizer a pad token of its own and run whenever their body reaches them:
    at the top of the body, or in an `if` whose test is surely true (`params.pad_token is not None`
    where `params = Params()` and the class body fixes `pad_token = "[PAD]"`). A pad = EOS set earlier
    in the same body no longer holds after them."""
    found: list[PadReset] = []
    # the script's statements, and each top-level function's own (order counts within one body)
    blocks: list = [(module.body, None), *((s.body.body, s) for s in module.body if isinstance(s, cst.FunctionDef))]
    while blocks:
        body, fn = blocks.pop()
        for stmt in body:
            if isinstance(stmt, cst.SimpleStatementLine):
                found += [(small, tok, fn) for small in stmt.body for tok in _given_own_pad(small)]
            elif isinstance(stmt, cst.If) and _sets_a_pad(stmt.body) and _surely_true(stmt.test, module):
                blocks.append((stmt.body.body if isinstance(stmt.body, cst.IndentedBlock) else [stmt.body], fn))
    return found


def _sets_a_pad(body: cst.BaseSuite) -> bool:
    """Does a statement of the block give a tokenizer a pad token of its own? (Asked before the test is
    read: reading it walks the module.)"""
    lines = body.body if isinstance(body, cst.IndentedBlock) else [body]
    return any(
        isinstance(line, (cst.SimpleStatementLine, cst.SimpleStatementSuite))
        and any(_given_own_pad(small) for small in line.body)
        for line in lines
    )


def _surely_true(test: cst.BaseExpression, module: cst.Module) -> bool:
    """`X is not None` or `X` where X surely holds a literal that is not None, False, 0 or empty."""
    compared = _compared_with_none(test, (cst.IsNot,))
    if compared is not None:
        value = _fixed_value(compared, module)
        return value is not None and not (isinstance(value, cst.Name) and value.value == "None")
    value = _fixed_value(test, module)
    return isinstance(value, cst.SimpleString) and len(P.string_value(value) or "") > 0


def _fixed_value(expr: cst.BaseExpression, module: cst.Module) -> cst.BaseExpression | None:
    """The literal `expr` holds wherever the script reads it: itself, a module name bound once to a
    literal, or `obj.attr` where `obj` is bound once to `Cls()` of the module and the class body fixes
    `attr` (class_constants.py)."""
    if isinstance(expr, (cst.SimpleString, cst.Integer)):
        return expr
    if isinstance(expr, cst.Name):
        values = _top_bindings(module, expr.value)
        return values[0] if len(values) == 1 and isinstance(values[0], (cst.SimpleString, cst.Integer)) else None
    if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name):
        made = _top_bindings(module, expr.value.value)
        if len(made) != 1 or not isinstance(made[0], cst.Call) or not isinstance(made[0].func, cst.Name):
            return None
        cls = next((s for s in module.body if isinstance(s, cst.ClassDef) and s.name.value == made[0].func.value), None)
        if cls is None or _attribute_stored(module, expr.value.value, expr.attr.value):
            return None
        value = class_constant(cls, expr.attr.value)
        return value if isinstance(value, (cst.SimpleString, cst.Integer)) else None
    return None


def _top_bindings(module: cst.Module, name: str) -> list[cst.BaseExpression]:
    """The values `name` is assigned anywhere in the module (in its definitions too: a script's `main`
    binds the names its statements read)."""
    found: list[cst.BaseExpression] = []
    for node in P.walk(module):
        if P.assigns_name(node, name):
            found.append(node.value)
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign)) and isinstance(node.target, cst.Name):
            if node.target.value == name:
                found.append(node.target)  # another kind of binding: not one known value
    return found


def _attribute_stored(module: cst.Module, holder: str, attr: str) -> bool:
    """Is `holder.attr` assigned anywhere in the module?"""
    return any(
        isinstance(node, cst.Assign)
        and any(
            isinstance(t.target, cst.Attribute)
            and isinstance(t.target.value, cst.Name)
            and t.target.value.value == holder
            and t.target.attr.value == attr
            for t in node.targets
        )
        for node in P.walk(module)
    )


def pad_is_eos_test(test: cst.BaseExpression) -> bool | None:
    """What a branch test says of the pad and the EOS: False where it holds only if they differ
    (`tok.pad_token_id != tok.eos_token_id`, also one conjunct of an `and`), True where it holds only if
    they are one token (`pad == eos`), None otherwise (an `or` says nothing of either)."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        parts = [pad_is_eos_test(test.left), pad_is_eos_test(test.right)]
        return False if False in parts else True if True in parts else None
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        sides = (test.left, target.comparator)
        pad_and_eos = any(P.is_pad_id_expression(a) or _names_pad(a) for a in sides) and any(
            P.is_eos_expression(a) for a in sides
        )
        if pad_and_eos and isinstance(target.operator, (cst.NotEqual, cst.IsNot)):
            return False
        if pad_and_eos and isinstance(target.operator, (cst.Equal, cst.Is)):
            return True
    return None
