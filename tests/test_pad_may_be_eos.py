"""A pad value that is the EOS id on one path the code takes (a fallback to the separator, `pad or eos`)
gets no fix that compares tokens with it: at run time it hides every real EOS along with the pads.
Where no path makes it the EOS, the comparison is offered (unsafe) and runs right. Fixtures are our own."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))
from standin_tokenizer import EOS_ID, PAD_ID, StandInTokenizer  # noqa: E402

from padlint.engine import fix_source, lint_source  # noqa: E402

PACKED = textwrap.dedent(
    """
    import torch
    from torch.utils.data import IterableDataset


    class PackedRows(IterableDataset):
        def __init__(self, tokenizer, texts, width, sep_id=None, pad_id=None):
            self.tokenizer = tokenizer
            self.texts = texts
            self.width = width
            self.sep_id = sep_id if sep_id is not None else tokenizer.eos_token_id
            if pad_id is not None:
                self.pad_id = pad_id
            elif tokenizer.pad_token_id is None:
                self.pad_id = self.sep_id
            else:
                self.pad_id = tokenizer.pad_token_id

        def __iter__(self):
            for text in self.texts:
                row = self.tokenizer(text, add_special_tokens=False)["input_ids"][: self.width - 1] + [self.sep_id]
                row = row + [self.pad_id] * (self.width - len(row))
                labels = list(row)
                yield {"input_ids": torch.tensor(row), "labels": torch.tensor(labels)}
    """
)

NO_EOS_PATH = PACKED.replace(
    """        elif tokenizer.pad_token_id is None:
            self.pad_id = self.sep_id
""",
    "",
)


def label_finding(source: str):
    [finding] = [d for d in lint_source(source, "packed.py") if d.code == "PAD002"]
    return finding


def test_no_comparison_with_a_pad_value_that_one_path_makes_the_eos():
    finding = label_finding(PACKED)
    assert finding.fix is None
    assert "EOS" in finding.no_fix


def test_a_fallback_to_eos_by_or_is_a_path_too():
    with_or = NO_EOS_PATH.replace(
        "            self.pad_id = tokenizer.pad_token_id\n",
        "            self.pad_id = tokenizer.pad_token_id or tokenizer.eos_token_id\n",
    )
    assert with_or != NO_EOS_PATH
    assert label_finding(with_or).fix is None


def test_a_pad_value_no_path_makes_the_eos_is_compared_and_the_fix_runs(tmp_path):
    assert NO_EOS_PATH != PACKED
    finding = label_finding(NO_EOS_PATH)
    assert finding.fix is not None
    fixed = fix_source(NO_EOS_PATH, "packed.py", unsafe=True).source
    path = tmp_path / "packed_fixed.py"
    path.write_text(fixed)
    spec = importlib.util.spec_from_file_location("padlint_packed_fixed", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rows = list(module.PackedRows(StandInTokenizer(), ["one two three", "four"], width=6))
    for row in rows:
        ids, labels = row["input_ids"], row["labels"]
        assert torch.equal(labels == -100, ids == PAD_ID)  # -100 exactly at the pads
        assert labels[ids == EOS_ID].tolist() == [EOS_ID]  # the separator keeps its label


def test_an_eos_held_by_a_name_of_another_function_does_not_count():
    other_function = NO_EOS_PATH + textwrap.dedent(
        """

        def stop_id(tokenizer):
            pad_id = tokenizer.eos_token_id
            return pad_id
        """
    )
    assert label_finding(other_function).fix is not None


def test_the_mask_fix_does_not_compare_with_it_either():
    masked = PACKED.replace(
        'yield {"input_ids": torch.tensor(row), "labels": torch.tensor(labels)}',
        'yield {"input_ids": torch.tensor(row), "attention_mask": torch.ones(len(row), dtype=torch.long)}',
    )
    found = [d for d in lint_source(masked, "packed.py") if d.code == "PAD001"]
    assert found, "ones over the pads are still reported"
    assert all(d.fix is None or "self.pad_id" not in str(d.fix) for d in found)
