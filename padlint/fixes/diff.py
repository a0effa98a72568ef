"""Unified diffs of fixed files (notebooks cell by cell), for `--diff`."""

from __future__ import annotations

from padlint.escape import printable


def unified_diff(filename: str, old: str, new: str) -> str:
    import difflib

    if filename.endswith(".ipynb"):  # the virtual module's cells, each diffed on its own
        from padlint.files.notebook_cells import cell_diff

        return cell_diff(filename, old, new)

    shown = printable(filename)  # a name with a newline must not start a line of its own
    lines = difflib.unified_diff(old.splitlines(True), new.splitlines(True), shown, shown)
    return "".join(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n" for line in lines)
