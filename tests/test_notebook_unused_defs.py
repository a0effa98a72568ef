"""A notebook runs its cells top to bottom and nothing imports it: a function it defines that no cell
calls, maps or hands on produces no batch, so what it would do to one is no finding. IPython lines
(`%time batch = collate(rows)`, `collate?`) are blank to the analysis, so a name the notebook's text
mentions anywhere beside its `def` counts as used. A notebook of definitions only stays checked."""

from __future__ import annotations

import json

from click.testing import CliRunner
from nbwriters import code, jupyter, notebook

from padlint.cli.main import main

SETUP = 'from transformers import AutoTokenizer\n\ntokenizer = AutoTokenizer.from_pretrained("t5-small")'
TOKENIZE = """\
def tokenize_pairs(batch):
    model_inputs = tokenizer(batch["context"], max_length=256, padding="max_length", truncation=True)
    targets = tokenizer(text_target=batch["question"], max_length=32, padding="max_length", truncation=True)
    model_inputs["labels"] = targets["input_ids"]
    return model_inputs"""
EVALUATE = """\
for row in rows:
    ids = tokenizer(row["context"], return_tensors="pt").input_ids
    print(model.generate(ids, max_new_tokens=16))"""


def codes(project, *cells: str) -> list[str]:
    nb = notebook(*(code(text, f"c{i}") for i, text in enumerate(cells)))
    (project / "qg.ipynb").write_bytes(jupyter(nb))
    result = CliRunner().invoke(
        main, ["check", "--no-cache", "--output-format", "json", "--exit-zero", "qg.ipynb"], catch_exceptions=False
    )
    return [d["code"] for d in json.loads(result.output)]


def test_a_tokenizing_function_no_cell_uses_is_silent(cli_project):
    assert codes(cli_project, SETUP, TOKENIZE, EVALUATE) == []


def test_mapped_in_a_later_cell_it_is_reported(cli_project):
    assert codes(cli_project, SETUP, TOKENIZE, "rows = raw.map(tokenize_pairs, batched=True)", EVALUATE) == ["PAD006"]


def test_a_magic_line_that_calls_it_keeps_it(cli_project):
    assert codes(cli_project, SETUP, TOKENIZE, "%time rows = tokenize_pairs(raw[:8])", EVALUATE) == ["PAD006"]


def test_a_notebook_of_definitions_only_stays_checked(cli_project):
    assert codes(cli_project, "from transformers import AutoTokenizer", TOKENIZE) == ["PAD006"]
