"""Statements after a `return`, `raise`, `continue` or `break` of their block never run (issue 12: report
only manifest harm): nothing found there is reported. A `raise` under a condition ends nothing after
the condition; a notebook's script code is run cell by cell, so a `raise` in one cell stops only it.
"""

from __future__ import annotations

import textwrap

import pytest
from nbwriters import code, jupyter, notebook

from padlint.engine import lint_source
from padlint.files.notebook import Notebook

BUGGY_LINES = """
        ids = pad_sequence(rows, batch_first=True, padding_value=pad_id)
        return {"input_ids": ids, "attention_mask": ids.ne(pad_id), "labels": ids.clone()}
"""

COLLATE = """
import torch
from torch.nn.utils.rnn import pad_sequence


def collate(rows, pad_id, legacy=False):
    if True:
{end}
{buggy}
"""

ENDS = {
    "raise": "        raise NotImplementedError('use collate_v2')",
    "return": "        return None",
}


def _codes(source: str, filename: str = "collate.py") -> list[str]:
    return [f.code for f in lint_source(textwrap.dedent(source), filename)]


@pytest.mark.parametrize("end", sorted(ENDS))
def test_code_after_the_end_of_its_block_is_silent(end):
    assert _codes(COLLATE.format(end=ENDS[end], buggy=BUGGY_LINES)) == []


def test_code_after_a_continue_in_a_loop_is_silent():
    source = """
    import torch
    from torch.nn.utils.rnn import pad_sequence


    def batches(groups, pad_id):
        out = []
        for rows in groups:
            continue
            ids = pad_sequence(rows, batch_first=True, padding_value=pad_id)
            out.append({"input_ids": ids, "attention_mask": ids.ne(pad_id), "labels": ids.clone()})
        return out
    """
    assert _codes(source) == []


def test_a_conditional_raise_ends_nothing_after_the_condition():
    end = "        if legacy:\n            raise NotImplementedError('use collate_v2')"
    assert _codes(COLLATE.format(end=end, buggy=BUGGY_LINES)) == ["PAD002"]


def test_the_same_code_reached_is_reported():
    assert _codes(COLLATE.format(end="        pass", buggy=BUGGY_LINES)) == ["PAD002"]


def test_a_raise_in_a_notebook_cell_stops_only_that_cell():
    nb = notebook(
        code("import torch\nfrom torch.nn.utils.rnn import pad_sequence\nraise SystemExit('stop here')", "c1"),
        code(
            "def collate(rows, pad_id):\n"
            "    ids = pad_sequence(rows, batch_first=True, padding_value=pad_id)\n"
            '    return {"input_ids": ids, "attention_mask": ids.ne(pad_id), "labels": ids.clone()}',
            "c2",
        ),
    )
    virtual = Notebook(jupyter(nb)).virtual_text()
    assert [f.code for f in lint_source(virtual, "explore.ipynb")] == ["PAD002"]
