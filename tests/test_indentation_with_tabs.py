"""A line indented with spaces and then a tab is valid Python (CPython puts a tab to the next multiple of 8
columns) that libcst refuses. padlint reads such a file with its indentation's tabs expanded: findings
are reported where they are in the file as written, without fixes (they would be written for the other
text), and `--fix` leaves the file alone. Seen in bench/fresh26: a repository's only training script was
reported as PAD000 "invalid syntax" and never analysed. Fixtures are our own."""

from __future__ import annotations

import ast

from click.testing import CliRunner

from padlint.cli.main import main
from padlint.engine import fix_source, lint_source

MIXED = (
    "import torch\n"
    "from torch.nn.utils.rnn import pad_sequence\n"
    "\n"
    "\n"
    "def collate(rows, pad_id):\n"
    "    if rows:\n"
    "    \ttry:\n"  # four spaces and a tab: column 8
    "        \t\tids = pad_sequence(rows, batch_first=True, padding_value=pad_id)\n"  # column 24
    "        \t\tmask = torch.ones_like(ids)\n"
    "    \texcept RuntimeError:\n"
    "        \t\traise\n"
    "    return {'input_ids': ids, 'attention_mask': mask}\n"
)


def test_the_fixture_is_python_that_libcst_refuses():
    import libcst
    import pytest

    ast.parse(MIXED)
    with pytest.raises(libcst.ParserSyntaxError):
        libcst.parse_module(MIXED)


def test_findings_are_reported_where_they_are_written_without_a_fix():
    [finding] = [d for d in lint_source(MIXED, "collate.py") if d.code == "PAD001"]
    line = MIXED.splitlines()[finding.location.row - 1]
    assert finding.location.row == 9
    assert line[finding.location.column - 1 :].startswith("torch.ones_like(ids)")
    assert finding.fix is None and "tabs" in finding.no_fix


def test_fix_leaves_the_file_as_it_is(tmp_path):
    assert fix_source(MIXED, "collate.py").source == MIXED
    path = tmp_path / "collate.py"
    path.write_bytes(MIXED.encode())
    result = CliRunner().invoke(main, ["check", "--no-cache", "--fix", str(path)])
    assert "PAD001" in result.output and "PAD000" not in result.output
    assert path.read_bytes() == MIXED.encode()


def test_a_file_indented_with_tabs_alone_is_read_as_written_and_fixed():
    tabs = MIXED.replace("        \t\t", "\t\t\t").replace("    \t", "\t\t").replace("    ", "\t")
    [finding] = [d for d in lint_source(tabs, "collate.py") if d.code == "PAD001"]
    assert finding.fix is not None


def test_code_cpython_refuses_is_still_pad000():
    broken = MIXED.replace("if rows:", "if rows")
    result = CliRunner().invoke(main, ["check", "--no-cache", "-"], input=broken)
    assert "PAD000" in result.output
