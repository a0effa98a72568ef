"""Methods nothing in the project names never run (fixtures are our own).

A dataset class of a project module overrides its base's `get_preprocess_function`, but under a
misspelled name: the training script calls the base's name, so the misspelled method never runs, and
the labels it would pad with the pad id reach no loss (analysis/unused_methods.py). Where the name is
written anywhere else in the project, where a base out of the project may call it (a hook of
`torch.utils.data.Dataset`, a trainer), where a decorator may register it, or where nothing imports
the module (a program whose users are not in view), the method stays judged.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from padlint.engine import lint_source

BASE = textwrap.dedent("""
    class DatasetBase:
        def get_preprocess_function(self, tokenizer):
            raise NotImplementedError
""")

SUBCLASS = textwrap.dedent("""
    from handlers.base import DatasetBase


    class SummaryDataset(DatasetBase):
        def get_dataset(self):
            return None

        {decorator}def get_prepocess_function(self, tokenizer):
            def preprocess(examples):
                inputs = tokenizer(examples["document"], truncation=True)
                targets = tokenizer(examples["summary"], padding="longest")
                inputs["labels"] = targets["input_ids"]
                return inputs

            return preprocess
""")

MAIN = textwrap.dedent("""
    from handlers.summary import SummaryDataset
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained("t5-small")
    dataset = SummaryDataset()
    preprocess = dataset.get_preprocess_function(tokenizer)
    {extra}
""")


def codes(tmp_path: Path, base: str = BASE, decorator: str = "", extra: str = "", main: bool = True) -> list[str]:
    (tmp_path / ".git").mkdir(exist_ok=True)
    handlers = tmp_path / "handlers"
    handlers.mkdir(exist_ok=True)
    (handlers / "__init__.py").write_text("")
    (handlers / "base.py").write_text(base)
    source = SUBCLASS.format(decorator=decorator)
    (handlers / "summary.py").write_text(source)
    if main:
        (tmp_path / "main.py").write_text(MAIN.format(extra=extra))
    return sorted(d.code for d in lint_source(source, str(handlers / "summary.py")))


def test_a_misspelled_override_nothing_calls_never_runs(tmp_path):
    assert codes(tmp_path) == []


@pytest.mark.parametrize(
    "header",
    ["from abc import ABC\n\n\nclass DatasetBase(ABC):", "class Root:\n    pass\n\n\nclass DatasetBase(Root, object):"],
    ids=["abc", "bases-of-the-project"],
)
def test_bases_that_call_nothing_out_of_view_keep_it_unused(tmp_path, header):
    assert codes(tmp_path, base=BASE.replace("class DatasetBase:", header)) == []


@pytest.mark.parametrize(
    "kwargs",
    [
        {"extra": "dataset.get_prepocess_function(tokenizer)"},  # called by that name
        {"extra": 'hook = getattr(dataset, "get_prepocess_function")'},  # named in a string
        {"base": "import torch\n" + BASE.replace("DatasetBase:", "DatasetBase(torch.utils.data.Dataset):")},
        {"base": "from trainers import Hooks\n" + BASE.replace("DatasetBase:", "DatasetBase(Hooks):")},
        {"base": BASE.replace("DatasetBase:", "DatasetBase(metaclass=Registry):")},
        {"decorator": "@staticmethod\n    "},  # a decorator may register it
        {"main": False},  # nothing imports the module: a program whose users are not in view
    ],
    ids=["called", "named-in-a-string", "library-base", "base-out-of-view", "metaclass", "decorated", "not-imported"],
)
def test_a_method_that_may_run_stays_judged(tmp_path, kwargs):
    assert codes(tmp_path, **kwargs) == ["PAD002"]
