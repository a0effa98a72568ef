"""Two statements in different arms of one `if` / `elif` / `else` never both run on one pass
(analysis/branches.py): what one arm writes never reaches a consumer in another."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from padlint.analysis.branches import in_exclusive_arms

SOURCE = textwrap.dedent(
    """
    def step(objective, labels, criterion, logits):
        labels = labels.clone()
        if objective == "ce":
            loss = criterion(logits, labels)
        elif objective == "hinge":
            labels[labels == 0] = -1
            if labels.numel():
                loss = (1 - logits * labels).clamp(min=0).mean()
        else:
            loss = criterion(logits, labels) * 2
        total = criterion(logits, labels)
        return loss, total
    """
)


def _nodes() -> tuple[cst.FunctionDef, dict[str, cst.CSTNode]]:
    fn = cst.parse_module(SOURCE).body[0]
    assert isinstance(fn, cst.FunctionDef)
    found: dict[str, cst.CSTNode] = {}
    for line in fn.body.body:
        if isinstance(line, cst.If):
            ce_arm, hinge = line.body.body[0], line.orelse
            assert isinstance(hinge, cst.If) and isinstance(hinge.orelse, cst.Else)
            found["ce"] = ce_arm
            found["write"] = hinge.body.body[0]
            found["nested"] = hinge.body.body[1]
            found["else"] = hinge.orelse.body.body[0]
            found["test"] = line.test
    found["total"] = fn.body.body[2]
    found["copy"] = fn.body.body[0]
    return fn, found


@pytest.mark.parametrize(
    "first, second, apart",
    [
        ("write", "ce", True),  # `if` arm and `elif` arm
        ("write", "else", True),  # `elif` arm and the `else` of the chain
        ("ce", "else", True),
        ("write", "nested", False),  # one arm, one after the other
        ("write", "total", False),  # after the chain: reached from every arm
        ("copy", "ce", False),  # before the chain
        ("test", "ce", False),  # the condition runs on every pass
    ],
)
def test_statements_in_exclusive_arms(first: str, second: str, apart: bool):
    fn, nodes = _nodes()
    assert in_exclusive_arms(fn, nodes[first], nodes[second]) is apart
    assert in_exclusive_arms(fn, nodes[second], nodes[first]) is apart


def test_a_node_outside_the_function_is_never_apart():
    fn, nodes = _nodes()
    elsewhere = cst.parse_statement("x = 1")
    assert in_exclusive_arms(fn, nodes["write"], elsewhere) is False
