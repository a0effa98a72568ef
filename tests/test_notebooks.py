"""Jupyter notebooks: linted as one module, reported by cell and row, fixed in place byte for byte.

Notebooks are written as Jupyter, VS Code and other tools write them (tests/nbwriters.py); a fix must
change the bytes of the fixed source lines and nothing else.
"""

from __future__ import annotations

import difflib
import json
import textwrap
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from nbwriters import WRITERS, code, jupyter, markdown, notebook

from padlint.cli.main import main
from padlint.files.notebook import Notebook
from padlint.files.reading import read_source

ROOT = Path(__file__).resolve().parents[1]

SETUP = "%matplotlib inline\nimport torch\nfrom torch.nn.utils.rnn import pad_sequence\n!nvidia-smi"
COLLATE = textwrap.dedent(
    """\
    !echo collating
    def collate_fn(batch, pad_id=0):
        seqs = [torch.tensor(x["input_ids"]) for x in batch]
        input_ids = pad_sequence(seqs, batch_first=True, padding_value=pad_id)
        attention_mask = torch.ones_like(input_ids)
        return {"input_ids": input_ids, "attention_mask": attention_mask}

    for step in range(2):
        %time batch = collate_fn(examples)"""
)
FLAGGED_ROW = 5  # in the collate cell (cell 3)
TIMED = '%%time\nbatch = collate_fn(examples)\nbatch["input_ids"].shape\n'
HELP = "collate_fn?"
OUTPUTS = [
    {"name": "stdout", "output_type": "stream", "text": ["collating\n", "done\n"]},
    {
        "data": {
            "image/png": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kg"
            "AAAABJRU5ErkJggg==",
            "text/plain": ["<Figure size 640x480 with 1 Axes>"],
        },
        "execution_count": 3,
        "metadata": {},
        "output_type": "execute_result",
    },
]


def buggy(as_list: bool = True) -> dict:
    return notebook(
        markdown("# Fine-tune a reply model\nPadding déjà vu: notes.", "3f9a0c1e"),
        code(SETUP, "8b1d2e4f", count=1, as_list=as_list),
        code(COLLATE, "c0ffee12", outputs=OUTPUTS, count=3, as_list=as_list),
        code(TIMED, "d4e5f6a7", as_list=as_list),
        code(HELP, "e5f6a7b8", as_list=as_list),
    )


@pytest.fixture
def project(cli_project):
    return cli_project


def run(*args: str, stdin: bytes | None = None):
    return CliRunner().invoke(main, list(args), input=stdin, catch_exceptions=False)


def write(project: Path, data: bytes, name: str = "train.ipynb") -> Path:
    path = project / name
    path.write_bytes(data)
    return path


# --- linting ----------------------------------------------------------------------------------------


def test_finding_carries_the_cell_and_the_row_within_it(project):
    write(project, jupyter(buggy()))
    result = run("check", "--output-format", "concise", "train.ipynb")
    assert result.exit_code == 1, result.output
    first = result.stdout.splitlines()[0]
    assert first.startswith(f"train.ipynb:cell 3:{FLAGGED_ROW}:22: PAD001 [*] ")
    # the line the message names is counted in the cell too
    assert "on line 4:" in first


def test_json_reports_cell_and_cell_rows(project):
    write(project, jupyter(buggy()))
    result = run("check", "--output-format", "json", "train.ipynb")
    [finding] = json.loads(result.stdout)
    assert finding["cell"] == 3
    assert finding["location"] == {"row": FLAGGED_ROW, "column": 22}
    assert finding["noqa_row"] == FLAGGED_ROW
    # the fix names the lengths and positions on the rows before the flagged one, in the same cell
    *named, edit = finding["fix"]["edits"]
    assert edit["location"]["row"] == FLAGGED_ROW
    assert all(e["location"]["row"] == FLAGGED_ROW for e in named)


def test_full_format_shows_the_cell_lines(project):
    write(project, jupyter(buggy()))
    out = run("check", "train.ipynb").stdout
    assert out.startswith(f"train.ipynb:cell 3:{FLAGGED_ROW}:22: PAD001")
    assert f"{FLAGGED_ROW} |     attention_mask = torch.ones_like(input_ids)" in out
    assert "padlint-cell" not in out and "padlint-magic" not in out


def test_magics_shell_escapes_and_help_are_not_syntax_errors(project):
    write(project, jupyter(buggy()))
    result = run("check", "--output-format", "json", "train.ipynb")
    assert [f["code"] for f in json.loads(result.stdout)] == ["PAD001"]


def test_values_flow_across_cells(project):
    nb = notebook(
        code("import torch\nfrom torch.nn.utils.rnn import pad_sequence", "a1"),
        markdown("Pad the whole dataset once.", "a2"),
        code("input_ids = pad_sequence(rows, batch_first=True, padding_value=0)", "a3"),
        code(
            "attention_mask = torch.ones_like(input_ids)\nout = model(input_ids, attention_mask=attention_mask)", "a4"
        ),
    )
    write(project, jupyter(nb))
    [finding] = json.loads(run("check", "--output-format", "json", "train.ipynb").stdout)
    assert (finding["cell"], finding["location"]["row"]) == (4, 1)
    assert "on line 1 of cell 3" in finding["message"]


def test_suppression_comment_in_a_cell(project):
    nb = buggy()
    nb["cells"][2]["source"][4] = nb["cells"][2]["source"][4].replace("\n", "  # noqa: PAD001\n")
    write(project, jupyter(nb))
    assert run("check", "train.ipynb").exit_code == 0


def test_markdown_raw_and_non_python_notebooks_are_not_linted(project):
    nb = notebook(
        markdown("attention_mask = torch.ones_like(input_ids)", "m1"),
        {"cell_type": "raw", "id": "r1", "metadata": {}, "source": ["def (:"]},
    )
    write(project, jupyter(nb))
    assert run("check", "train.ipynb").exit_code == 0
    r_nb = buggy()
    r_nb["metadata"] = {
        "kernelspec": {"language": "R", "name": "ir", "display_name": "R"},
        "language_info": {"name": "R"},
    }
    write(project, jupyter(r_nb), "analysis.ipynb")
    assert run("check", "analysis.ipynb").exit_code == 0


def test_unreadable_notebook_is_pad000(project):
    write(project, b'{"cells": [', "broken.ipynb")
    result = run("check", "--output-format", "concise", "broken.ipynb")
    assert result.exit_code == 1
    assert "broken.ipynb:1:1: PAD000" in result.stdout and "cannot read notebook" in result.stdout


def test_syntax_error_in_a_cell_is_pad000_at_its_cell(project):
    nb = notebook(code("import torch", "a1"), code("x = 1\ndef broken(:\n    pass", "a2"))
    write(project, jupyter(nb))
    result = run("check", "--output-format", "concise", "train.ipynb")
    assert result.stdout.startswith("train.ipynb:cell 2:")
    assert "PAD000" in result.stdout and "error at 2:12" in result.stdout  # rows of the cell, not the module


BROKEN = "from groq import Groq\n\nclient = Groq(api_key='your-key'  # get one at https://console.groq.com/keys')\n"


def test_a_cell_that_does_not_parse_is_reported_alone_and_the_rest_is_linted(project):
    # Jupyter compiles each cell alone: the unclosed call (its ")" is inside the comment) breaks
    # only its own cell. It was reported at the next cell's first row, and nothing else was linted.
    nb = notebook(code(SETUP, "a1"), code(BROKEN, "a2"), code(COLLATE, "a3"))
    write(project, jupyter(nb))
    result = run("check", "--output-format", "concise", "train.ipynb")
    rows = result.stdout.splitlines()
    assert rows[0].startswith("train.ipynb:cell 2:3:14: PAD000 cannot parse: invalid syntax")  # the open "("
    assert rows[1].startswith(f"train.ipynb:cell 3:{FLAGGED_ROW}:22: PAD001")
    assert len([r for r in rows if ": PAD" in r]) == 2
    full = run("check", "train.ipynb").stdout
    assert "3 | client = Groq(api_key='your-key'" in full and "padlint-magic" not in full


def test_findings_are_reported_in_cell_order(project):
    # A broken cell is reported in cell rows, the others in rows of the whole notebook until the
    # report: the report sorts them by cell (cell 4's row 1 came before cell 2's row 3).
    nb = notebook(code(SETUP, "a1"), code(BROKEN, "a2"), code(COLLATE, "a3"), code("x = (\n", "a4"))
    write(project, jupyter(nb))
    result = run("check", "--output-format", "concise", "train.ipynb")
    cells = [line.split(":")[1] for line in result.stdout.splitlines() if ": PAD" in line]
    assert cells == ["cell 2", "cell 3", "cell 4"]
    assert [f["cell"] for f in json.loads(run("check", "--output-format", "json", "train.ipynb").stdout)] == [2, 3, 4]


def test_fix_leaves_a_cell_that_does_not_parse_as_it_was(project):
    nb = notebook(code(SETUP, "a1"), code(BROKEN, "a2"), code(COLLATE, "a3"))
    data = jupyter(nb)
    path = write(project, data)
    result = run("check", "--fix", "--output-format", "concise", "train.ipynb")
    assert result.exit_code == 1 and "PAD000" in result.stdout and "PAD001" not in result.stdout
    after = json.loads(path.read_bytes())
    assert after["cells"][1] == json.loads(data)["cells"][1]
    assert "torch.ones_like" not in "".join(after["cells"][2]["source"])


@pytest.mark.parametrize(
    "setup",
    [
        "%pip install \\\n    transformers==4.46.0 \\\n    datasets\nimport torch\nfrom torch.nn.utils.rnn import pad_sequence",
        "pip install transformers datasets\ncd data\nimport torch\nfrom torch.nn.utils.rnn import pad_sequence",
    ],
    ids=["backslash-continued-magic", "automagic"],
)
def test_ipython_lines_without_percent_or_continued_are_not_syntax_errors(project, setup):
    # `%pip install \` goes on over the next lines; `pip install x` runs as `%pip` (automagic).
    write(project, jupyter(notebook(code(setup, "a1"), code(COLLATE, "a2"))))
    result = run("check", "--output-format", "json", "train.ipynb")
    assert [f["code"] for f in json.loads(result.stdout)] == ["PAD001"]
    nb = Notebook(jupyter(notebook(code(setup, "a1"), code(COLLATE, "a2"))))
    assert nb.encode(nb.virtual_text()) == jupyter(notebook(code(setup, "a1"), code(COLLATE, "a2")))


def test_directories_are_searched_for_notebooks(project):
    (project / "notebooks").mkdir()
    (project / ".ipynb_checkpoints").mkdir()
    write(project, jupyter(buggy()), "notebooks/train.ipynb")
    write(project, b"{}", ".ipynb_checkpoints/train-checkpoint.ipynb")
    result = run("check", "--output-format", "concise", ".")
    assert result.stdout.splitlines()[0].startswith("notebooks/train.ipynb:cell 3:")
    assert "checkpoint" not in result.output


# --- fixing: byte for byte ----------------------------------------------------------------------------


def _changed_block(old: bytes | str, new: bytes | str) -> tuple[list[str], list[str]]:
    """The one run of lines a fix changed: (its old lines, its new lines). A fix replaces the flagged
    line and may put the values it names on lines of their own right before it; nothing else moves."""
    a = (old.decode() if isinstance(old, bytes) else old).splitlines(True)
    b = (new.decode() if isinstance(new, bytes) else new).splitlines(True)
    changes = [op for op in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes() if op[0] != "equal"]
    assert len(changes) == 1, f"a fix must change one run of lines, not {len(changes)}"
    _, i1, i2, j1, j2 = changes[0]
    return a[i1:i2], b[j1:j2]


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_fix_changes_only_the_fixed_source_line(project, writer):
    data = WRITERS[writer](buggy())
    path = write(project, data)
    result = run("check", "--fix", "train.ipynb")
    assert result.exit_code == 0, result.output
    new = path.read_bytes()
    [old_line], new_lines = _changed_block(data, new)
    assert "torch.ones_like(input_ids)" in json.loads(old_line.strip().rstrip(","))
    assert "torch.ones_like" not in "".join(new_lines)
    # the rest of the document is the same object, and the fixed cell keeps its list form
    before, after = json.loads(data), json.loads(new)
    fixed_source = after["cells"][2]["source"]
    assert isinstance(fixed_source, list) and len(fixed_source) >= len(before["cells"][2]["source"])
    after["cells"][2]["source"] = before["cells"][2]["source"]
    assert after == before
    assert run("check", "train.ipynb").exit_code == 0


@pytest.mark.parametrize("writer", ["jupyter", "other"])
def test_fix_keeps_a_string_source_a_string(project, writer):
    data = WRITERS[writer](buggy(as_list=False))
    path = write(project, data)
    assert run("check", "--fix", "train.ipynb").exit_code == 0
    new = path.read_bytes()
    _changed_block(data, new)  # the source string is one line of the JSON
    old_src, new_src = json.loads(data)["cells"][2]["source"], json.loads(new)["cells"][2]["source"]
    assert isinstance(new_src, str)
    [old_line], _ = _changed_block(old_src, new_src)
    assert old_line == old_src.splitlines(True)[FLAGGED_ROW - 1]
    assert new_src.splitlines()[0] == "!echo collating" and new_src.endswith("%time batch = collate_fn(examples)")


def test_fix_that_adds_an_import_puts_it_in_the_first_code_cell(project):
    nb = notebook(
        markdown("Setup", "m0"),
        code("# data\nfrom torch.nn.utils.rnn import pad_sequence", "c1"),
        code(
            textwrap.dedent("""\
            def collate(seqs, pad_id):
                input_ids = pad_sequence(seqs, batch_first=True, padding_value=pad_id)
                attention_mask = input_ids.new_ones(input_ids.shape)
                return {"input_ids": input_ids, "attention_mask": attention_mask}"""),
            "c2",
        ),
    )
    path = write(project, jupyter(nb))
    assert run("check", "--fix", "train.ipynb").exit_code == 0
    after = json.loads(path.read_bytes())
    assert after["cells"][1]["source"] == ["# data\n", "import torch\n", "from torch.nn.utils.rnn import pad_sequence"]
    assert after["metadata"] == nb["metadata"] and after["cells"][0] == nb["cells"][0]
    assert "torch.arange" in after["cells"][2]["source"][2]
    assert run("check", "train.ipynb").exit_code == 0


def test_clean_notebook_is_not_rewritten(project):
    nb = notebook(code("import torch\nmask = torch.ones(4, 8)", "a1"))
    data = jupyter(nb)
    path = write(project, data)
    assert run("check", "--fix", "train.ipynb").exit_code == 0
    assert path.read_bytes() == data


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_reading_and_writing_back_unchanged_is_the_identity(project, writer):
    data = WRITERS[writer](buggy())
    path = write(project, data)
    source = read_source(str(path))
    assert source.notebook.encode(source.text) == data


def test_bom_and_crlf_survive(project):
    data = b"\xef\xbb\xbf" + jupyter(buggy()).replace(b"\n", b"\r\n")
    path = write(project, data)
    assert run("check", "--fix", "train.ipynb").exit_code == 0
    new = path.read_bytes()
    assert new.startswith(b"\xef\xbb\xbf") and b"\r\n" in new and b"\n" not in new.replace(b"\r\n", b"")
    assert len(_changed_block(data[3:], new[3:])[0]) == 1


def test_diff_shows_cells(project):
    data = jupyter(buggy())
    path = write(project, data)
    result = run("check", "--diff", "train.ipynb")
    assert result.exit_code == 1
    assert "--- train.ipynb:cell 3\n+++ train.ipynb:cell 3\n" in result.stdout
    assert "-    attention_mask = torch.ones_like(input_ids)\n" in result.stdout
    assert path.read_bytes() == data


def test_stdin_fix_writes_the_notebook_to_stdout(project):
    data = jupyter(buggy())
    result = CliRunner().invoke(main, ["check", "--fix", "--stdin-filename", "train.ipynb", "-"], input=data)
    assert result.exit_code == 0
    assert len(_changed_block(data, result.stdout_bytes)[0]) == 1


def test_magic_lines_round_trip_through_the_virtual_module():
    nb = Notebook(jupyter(buggy()))
    text = nb.virtual_text()
    assert "%" not in text.replace("padding_value", "") and "!" not in text
    assert nb.encode(text) == jupyter(buggy())


def test_magic_looking_lines_inside_strings_are_kept():
    src = 'print("""\n%d items\n!important\n""")\n!ls'
    nb = Notebook(jupyter(notebook(code(src, "a1"))))
    text = nb.virtual_text()
    assert "%d items\n!important\n" in text and "!ls" not in text


def test_precommit_hook_covers_notebooks():
    [hook] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert "jupyter" in hook["types_or"]


def test_the_help_line_names_rows_of_cells_too(project):
    """A finding without a fix says why in its help line; the rows it names are the notebook's cell rows."""
    nb = notebook(
        code(
            "from transformers import AutoModelForCausalLM, AutoTokenizer\n"
            'tokenizer = AutoTokenizer.from_pretrained("org/chat-model")\n'
            'tokenizer.padding_side = "right"\n'
            'model = AutoModelForCausalLM.from_pretrained("org/chat-model")',
            "b1",
        ),
        code(
            'inputs = tokenizer(["hi", "a longer prompt"], padding=True, return_tensors="pt")\n'
            "continued = model.generate(**inputs, max_new_tokens=8)",
            "b2",
        ),
        code(
            "labels = inputs['input_ids'].masked_fill(inputs['attention_mask'] == 0, -100)\n"
            "loss = model(**inputs, labels=labels).loss",
            "b3",
        ),
    )
    write(project, jupyter(nb))
    out = run("check", "train.ipynb").stdout
    assert "train.ipynb:cell 2:2:" in out and "PAD013" in out
    assert "on line 2 of cell 3" in out
