"""`match` statements (Python 3.10+): each `case` is a path a batch may take, and a finding inside a case
is placed, and suppressed, on its own line (a file holding one raised an internal error before)."""

from __future__ import annotations

import textwrap

from padlint.engine import lint_source

SOURCE = textwrap.dedent(
    """
    import torch
    from torch.nn.utils.rnn import pad_sequence


    def collate(rows, pad_id, objective):
        ids = pad_sequence([torch.tensor(r) for r in rows], batch_first=True, padding_value=pad_id)
        mask = (ids != pad_id).long()
        match objective:
            case "lm":
                return {"input_ids": ids, "attention_mask": mask, "labels": ids.clone()}{noqa}
            case {"kind": "masked"}:
                return {"input_ids": ids, "attention_mask": mask, "labels": ids.masked_fill(mask == 0, -100)}
            case _:
                raise ValueError(objective)
    """
)


def test_a_finding_in_a_case_is_reported_on_its_line():
    found = [(d.code, d.location.row) for d in lint_source(SOURCE.replace("{noqa}", ""), "collate.py")]
    assert found == [("PAD002", 11)]


def test_a_noqa_comment_in_a_case_suppresses_it():
    assert lint_source(SOURCE.replace("{noqa}", "  # noqa: PAD002"), "collate.py") == []
