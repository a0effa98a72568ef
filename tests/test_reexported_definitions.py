"""A definition reached through a re-export (`from .base import BaseBatcher as Batcher` in a package's
`__init__`) is known in its own module by another name. Reading it with the definitions it names must
start from where it is, not from the importer's name: the first look raised KeyError there and stopped a
whole run (bench/earlier, trl and FlagEmbedding, at 61d48b9). A bug in the first look costs no file: the
file is analysed in full and a warning names it. Fixtures are our own."""

from __future__ import annotations

import textwrap
from pathlib import Path

from click.testing import CliRunner

from padlint.cli.main import main
from padlint.look import project_text

BASE = """
from transformers import AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("org/model")


def encode(texts):
    return tokenizer(texts, padding=True, return_tensors="pt")


class BaseBatcher:
    def __call__(self, rows):
        ids = encode([r["text"] for r in rows])["input_ids"]
        return {"input_ids": ids, "labels": ids.clone()}
"""

TRAIN = """
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM

from pkg import Batcher

model = AutoModelForCausalLM.from_pretrained("org/model")
for batch in DataLoader([], batch_size=4, collate_fn=Batcher()):
    model(**batch).loss.backward()
"""


def project(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "base.py").write_text(textwrap.dedent(BASE))
    (tmp_path / "pkg" / "__init__.py").write_text("from .base import BaseBatcher as Batcher\n")
    (tmp_path / "train.py").write_text(textwrap.dedent(TRAIN))
    return tmp_path


def test_a_reexported_class_is_read_with_the_helpers_it_names(tmp_path):
    root = project(tmp_path)
    entries, text = project_text.imported_padding(str(root / "train.py"), "pkg", 0, "Batcher")
    assert "padding=true" in text and entries  # the helper's padding is the class's


def test_the_run_reports_the_collator_and_does_not_stop(tmp_path, monkeypatch):
    root = project(tmp_path)
    monkeypatch.chdir(root)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--output-format", "concise", "."])
    assert result.exit_code == 1, result.output
    assert "pkg/base.py" in result.output and "PAD002" in result.output


def test_an_error_in_the_first_look_costs_no_file(tmp_path, monkeypatch):
    root = project(tmp_path)
    monkeypatch.chdir(root)
    from padlint.look import prefilter

    def broken(*_args, **_kwargs):
        raise KeyError("a bug")

    monkeypatch.setattr(prefilter, "may_fire", broken)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--output-format", "concise", "."])
    assert result.exit_code == 1, result.output
    assert "PAD002" in result.output  # the file was analysed in full
    assert "internal error in the first look" in result.stderr
