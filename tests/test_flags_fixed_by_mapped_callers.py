"""A flag every caller leaves at its default selects one branch, also when the callers are a
`ds.map(partial(f, ...))` and scripts in the folders below the module (issue 12: code that never runs).

`generate(max_len, tok, example, fix_length=False)` pads labels with the pad id only under
`if fix_length and ...:`. The dataset calls the mapped partial with the bound arguments and one row,
so a flag no partial binds keeps its default: that branch is never reached, whether the partials sit
in the module or in an entry-point script of a folder below it (`from src.samples import generate`).
A partial that binds the flag, or a map that hands more arguments (`fn_kwargs=`), keeps the finding.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from padlint.engine import lint_source

SAMPLES = """
    def generate(max_len, tokenizer, example, fix_length=False):
        input_ids = tokenizer.encode(example["text"])[:max_len]
        labels = list(input_ids)
        attention_mask = [1] * len(input_ids)
        if fix_length and max_len > len(input_ids):
            gap = max_len - len(input_ids)
            input_ids = input_ids + [tokenizer.pad_token_id] * gap
            labels = labels + [tokenizer.pad_token_id] * gap
            attention_mask = attention_mask + [0] * gap
        return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
"""

ENTRY = """
    from functools import partial

    from datasets import load_dataset
    from transformers import AutoTokenizer

    from src.samples import generate

    tokenizer = AutoTokenizer.from_pretrained("gpt2")
    rows = load_dataset("json", data_files="train.json")["train"]
    rows = rows.map({mapped})
"""


def _lint_samples(tmp_path: Path, mapped: str, in_module: bool) -> list[str]:
    src = tmp_path / "src"
    (src / "entry_point").mkdir(parents=True)
    samples = textwrap.dedent(SAMPLES)
    if in_module:
        samples += textwrap.dedent(ENTRY.format(mapped=mapped)).replace("from src.samples import generate\n", "")
    else:
        (src / "entry_point" / "train.py").write_text(textwrap.dedent(ENTRY.format(mapped=mapped)))
    path = src / "samples.py"
    path.write_text(samples)
    return [f.code for f in lint_source(samples, str(path))]


@pytest.mark.parametrize("in_module", [True, False])
def test_a_flag_no_mapped_partial_binds_keeps_its_branch_dead(tmp_path, in_module):
    assert _lint_samples(tmp_path, "partial(generate, 512, tokenizer)", in_module) == []


@pytest.mark.parametrize("in_module", [True, False])
@pytest.mark.parametrize(
    "mapped",
    [
        "partial(generate, 512, tokenizer, fix_length=True)",  # the flag is set: the branch runs
        "partial(generate, 512, tokenizer), fn_kwargs={'fix_length': True}",  # the map hands it
    ],
)
def test_a_flag_a_caller_may_set_keeps_the_finding(tmp_path, in_module, mapped):
    assert _lint_samples(tmp_path, mapped, in_module) == ["PAD006"]
