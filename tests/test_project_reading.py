"""Another module of the project read for its definitions: where each top-level def and class is.

The analysis reads an imported module's definitions from its lines (project.load_for_definitions),
not from a parse of the whole module; a text whose lines mislead (code at column 0 inside a string)
must still come out as `ast` reads it, or a helper would be cut short and its padding lost.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from padlint.analysis.project import _spans_by_lines, load_for_definitions


def _ast_spans(text: str) -> dict:
    spans = {}
    for node in ast.parse(text).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            spans[node.name] = (first, node.end_lineno)
    return spans


PLAIN = '''"""Padding helpers."""
import torch

PAD_ID = 0


@torch.no_grad()
@staticmethod
def pad_rows(rows, width):
    # a comment at column 4

    return [r + [PAD_ID] * (width - len(r)) for r in rows]
# a comment at column 0 ends nothing


@dataclass(
    frozen=True,
)
class Collator:
    pad_id: int = 0

    def __call__(self, rows):
        return pad_rows(
            rows, 8
)


async def fetch(x):
    return x
WIDTH = 8
def pad_rows(rows):  # a later definition of the name wins, as when the module runs
    return rows
'''

# Code at column 0 inside a function's string: its lines would end the function early.
MISLEADING = '''import torch


def make_prompt(x):
    template = """
Question: {x}
Answer:"""
    ids = torch.tensor([[1, 2, 0]])
    return template.format(x=x), ids


def after():
    return 1
'''


@pytest.mark.parametrize("text", [PLAIN, MISLEADING], ids=["plain", "misleading"])
def test_definitions_are_where_ast_puts_them(tmp_path: Path, text: str):
    path = tmp_path / "helpers.py"
    path.write_text(text, encoding="utf-8")
    context = load_for_definitions(str(path))
    assert context is not None
    assert context.spans == _ast_spans(text)
    for name in context.spans:
        node = context.definition(name)
        assert node is not None and node.name.value == name


def test_line_reading_agrees_with_ast_on_ordinary_code():
    assert _spans_by_lines(PLAIN.splitlines(keepends=True)) == _ast_spans(PLAIN)
