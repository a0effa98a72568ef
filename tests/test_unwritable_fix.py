"""A fix whose edits change the same text cannot be applied (one would garble the other): the finding
is reported without it, and its `help:` says why, rather than dropping the fix without a word."""

from __future__ import annotations

import dataclasses
import textwrap

from padlint.engine import lint_source
from padlint.rules.labels_not_masked import LabelsNotMasked

COLLATOR = textwrap.dedent(
    """
    def collate(batch, tokenizer):
        enc = tokenizer(batch, padding="max_length", max_length=16, return_tensors="pt")
        enc["labels"] = enc["input_ids"].clone()
        return enc
    """
)


def test_the_collator_gets_a_fix_as_written():
    (found,) = [d for d in lint_source(COLLATOR) if d.code == "PAD002"]
    assert found.fix is not None


def test_a_fix_with_overlapping_edits_is_withheld_with_a_reason(monkeypatch):
    check = LabelsNotMasked.check

    def check_with_overlap(self, facts):
        for finding in check(self, facts):
            if finding.fix is not None:
                node, code = finding.fix.replacements[0][:2]
                overlapping = (*finding.fix.replacements, (node, code + " "))
                finding = dataclasses.replace(finding, fix=dataclasses.replace(finding.fix, replacements=overlapping))
            yield finding

    monkeypatch.setattr(LabelsNotMasked, "check", check_with_overlap)
    (found,) = [d for d in lint_source(COLLATOR) if d.code == "PAD002"]
    assert found.fix is None
    assert "could not write it as separate edits" in found.no_fix
    assert LabelsNotMasked.MANUAL_FIX in found.no_fix
