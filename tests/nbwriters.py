"""Notebooks written the way real tools write them, for the notebook tests.

- Jupyter (nbformat 4.5, `nbformat.writes`): keys sorted, indent 1, `ensure_ascii=False`, sources
  split into lists of lines, cell ids, a trailing newline.
- VS Code (its ipynb serializer): keys sorted, `JSON.stringify(..., indent)` with the indent it
  detected in the file (one space for a new notebook), a trailing newline.
- Other writers (older tools, scripts, Colab exports): keys in insertion order, other indents,
  sources as one string, ASCII escapes, no trailing newline.
"""

from __future__ import annotations

import json

KERNEL_METADATA = {
    "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
    "language_info": {
        "codemirror_mode": {"name": "ipython", "version": 3},
        "file_extension": ".py",
        "mimetype": "text/x-python",
        "name": "python",
        "nbconvert_exporter": "python",
        "pygments_lexer": "ipython3",
        "version": "3.11.7",
    },
}


def split_lines(text: str) -> list[str]:
    """nbformat's split: every line keeps its "\\n", the last one has none."""
    return text.splitlines(keepends=True)


def code(text: str, cell_id: str, outputs: list | None = None, count: int | None = None, as_list: bool = True) -> dict:
    return {
        "cell_type": "code",
        "execution_count": count,
        "id": cell_id,
        "metadata": {},
        "outputs": outputs or [],
        "source": split_lines(text) if as_list else text,
    }


def markdown(text: str, cell_id: str) -> dict:
    return {"cell_type": "markdown", "id": cell_id, "metadata": {}, "source": split_lines(text)}


def notebook(*cells: dict, metadata: dict | None = None) -> dict:
    return {"cells": list(cells), "metadata": metadata or KERNEL_METADATA, "nbformat": 4, "nbformat_minor": 5}


def jupyter(nb: dict) -> bytes:
    return (json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False, separators=(",", ": ")) + "\n").encode()


def vscode(nb: dict, indent: str = " ") -> bytes:
    return (json.dumps(nb, sort_keys=True, indent=indent, ensure_ascii=False) + "\n").encode()


def other(nb: dict) -> bytes:
    """Insertion order, indent 2, ASCII escapes, no trailing newline."""
    return json.dumps(nb, indent=2, ensure_ascii=True).encode()


WRITERS = {"jupyter": jupyter, "vscode": vscode, "vscode-indent-4": lambda nb: vscode(nb, "    "), "other": other}
