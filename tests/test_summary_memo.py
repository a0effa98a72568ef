"""A helper's summary is reused for a call that repeats an earlier one exactly (the same values,
from the same place, over scopes that no longer change). Reusing it must never change a finding."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from padlint import engine
from padlint.analysis import summaries

ROOT = Path(__file__).resolve().parents[1]

TRAINER = textwrap.dedent("""
    import torch
    from torch.nn.utils.rnn import pad_sequence


    class PairCollator:
        def __init__(self, pad_id):
            self.pad_id = pad_id

        def _pad(self, rows):
            return pad_sequence([torch.tensor(r) for r in rows], batch_first=True, padding_value=self.pad_id)

        def __call__(self, features):
            chosen = self._pad([f["chosen"] for f in features])
            rejected = self._pad([f["rejected"] for f in features])
            return [
                {"input_ids": chosen, "attention_mask": torch.ones_like(chosen)},
                {"input_ids": rejected, "attention_mask": torch.ones_like(rejected)},
            ]
""")


@pytest.fixture
def memo_calls(monkeypatch):
    """Counts the calls answered from the memo."""
    hits = []
    original = summaries.LocalCalls._memo_key

    def counting(self, fn, parent, args, batched):
        key = original(self, fn, parent, args, batched)
        if key is not None and key in self.summary_memo:
            hits.append(fn.name.value)
        return key

    monkeypatch.setattr(summaries.LocalCalls, "_memo_key", counting)
    return hits


def _found(source: str) -> list[tuple]:
    return [(d.code, d.location.row) for d in engine.lint_source(source, "x.py", None)]


def test_the_second_identical_call_gets_the_padded_summary_too(memo_calls):
    found = _found(TRAINER)
    assert memo_calls and set(memo_calls) == {"_pad"}  # a repeated `self._pad(...)` came from the memo
    assert found == [("PAD001", 17), ("PAD001", 18)]  # both all-ones masks


def _python_files() -> list[Path]:
    files = sorted((ROOT / "tests" / "fixtures").rglob("*.py")) + sorted((ROOT / "examples").glob("*.py"))
    shared = ROOT.parent / "shared" / "corpus"
    return files + (sorted(shared.rglob("*.py")) if shared.is_dir() else [])


def _all_findings(files: list[Path]) -> dict:
    found = {}
    for path in files:
        try:
            diagnostics = engine.lint_source(path.read_text(encoding="utf-8"), str(path), None)
        except (engine.SourceError, UnicodeDecodeError):
            continue
        found[str(path)] = sorted((d.location, d.code, d.message, d.fix) for d in diagnostics)
    return found


@pytest.mark.slow  # a sweep of every fixture and the corpus, twice
def test_the_memo_changes_no_finding(monkeypatch, memo_calls):
    files = _python_files()
    assert len(files) > 20
    with_memo = _all_findings(files)
    assert memo_calls, "the memo should be used somewhere in the fixtures"
    assert any(with_memo.values())
    monkeypatch.setattr(summaries, "MEMO", False)
    assert _all_findings(files) == with_memo
