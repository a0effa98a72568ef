"""Statements that one run of a function never reaches both of: the arms of one `if` / `elif` / `else`.

A write in the `hinge` arm of `if mode == "ce": ... elif mode == "hinge": ...` never reaches a loss in
the `ce` arm on the same pass: the value a consumer receives is the one on its own path.
"""

from __future__ import annotations

import libcst as cst

from padlint.analysis.patterns import child_nodes


def in_exclusive_arms(root: cst.CSTNode, first: cst.CSTNode, second: cst.CSTNode) -> bool:
    """Do `first` and `second` (both under `root`) sit in different arms of one `if` statement?"""
    first_path, second_path = path_to(root, first), path_to(root, second)
    if first_path is None or second_path is None:
        return False
    shared = 0
    while shared < min(len(first_path), len(second_path)) and first_path[shared] is second_path[shared]:
        shared += 1
    if shared == 0 or shared >= min(len(first_path), len(second_path)):
        return False  # one holds the other
    joint = first_path[shared - 1]
    arms = (joint.body, joint.orelse) if isinstance(joint, cst.If) else ()
    return any(first_path[shared] is arm for arm in arms) and any(second_path[shared] is arm for arm in arms)


def path_to(root: cst.CSTNode, target: cst.CSTNode) -> list[cst.CSTNode] | None:
    """The nodes from `root` down to `target`, both included; None when `target` is not under `root`."""
    stack: list[tuple[cst.CSTNode, int]] = [(root, 0)]
    path: list[cst.CSTNode] = []
    while stack:
        node, depth = stack.pop()
        del path[depth:]
        path.append(node)
        if node is target:
            return path
        stack.extend((child, depth + 1) for child in reversed(child_nodes(node)))
    return None
