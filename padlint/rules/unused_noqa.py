"""PAD100 unused-noqa (opt-in)."""

from __future__ import annotations

from collections.abc import Iterable

from padlint.analysis.facts import ModuleFacts
from padlint.rules.base import Finding, Rule
from padlint.rules.catalogue import requires


class UnusedNoqa(Rule):
    """A padlint suppression comment that suppresses nothing, or names a code padlint does not have.

    Off by default (listed in `padlint.rules.DEFAULT_OFF`): select it with `--select PAD100`,
    `--extend-select PAD100` or `ALL`. Which suppressions were used is only known once every other
    rule has run and the comments have been applied, so the check itself is
    `padlint.suppress.report_unused_suppressions`, which the engine calls after suppression;
    `check` finds nothing on its own.
    """

    code = "PAD100"
    REQUIRES = requires(code)
    name = "unused-noqa"
    summary = "Suppression comment that suppresses nothing, or names an unknown PAD code (opt-in)"
    fix_safety = "safe (removes the code, or the comment when no code is left)"

    INVALID = [
        """
import torch

def collate(rows):
    input_ids = torch.stack(rows)  # noqa: PAD001
    return {"input_ids": input_ids}
""",
        """
mask = build_mask(batch)  # padlint: ignore[PAD999]
""",
    ]
    VALID = [
        """
import torch
from torch.nn.utils.rnn import pad_sequence

def collate(seqs, pad_id):
    input_ids = pad_sequence(seqs, batch_first=True, padding_value=pad_id)
    attention_mask = torch.ones_like(input_ids)  # noqa: PAD001
    return {"input_ids": input_ids, "attention_mask": attention_mask}
""",
        """
import os  # noqa: F401
value = compute()  # noqa
""",
    ]

    def check(self, facts: ModuleFacts) -> Iterable[Finding]:
        return ()
