"""PAD000 as a user reads it: at the token that broke the parse, with the grammar that refused the
code named; and never for code the code's own Python accepts (a 3.12 notebook read by padlint on an
older Python, a cell IPython dedents)."""

from __future__ import annotations

import json
import sys
import textwrap

import pytest
from click.testing import CliRunner
from nbwriters import code, jupyter, notebook

from padlint import grammar
from padlint.cli.main import main
from padlint.config import ConfigError
from padlint.config_file import load_settings
from padlint.look import prefilter


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PADLINT_OUTPUT_FORMAT", raising=False)
    return tmp_path


def run(*args: str):
    return CliRunner().invoke(main, ["check", "--no-cache", "--output-format", "concise", *args])


def findings(result) -> list[str]:
    return [line for line in result.stdout.splitlines() if ": PAD" in line]


# --- where the error is --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("def f(:\n    pass\n", "1:7"),  # was 2:1 with "error at 2:4"
        ("def f(:\n", "1:7"),
        (" x = 1\ny = 2\n", "1:1"),  # a first line starting with a space: was 2:2
        ("import os\n\n  x = 1\n", "3:1"),
        ("batch = [1, 2 3]\n", "1:15"),  # the `3` after a missing comma
        ("x = 1 +\ny = 2\n", "1:8"),  # the line break where an operand was due
        ("x = 1\n)\n", "2:1"),  # a tokenizer error: CPython's position for the same reason
        ("x = {'a': [1, 2}\n", "1:16"),
        ("batch = collate(\n    rows,  # the call is never closed\n", "1:16"),  # the open bracket, at the end
        ("a b\n", "1:3"),
    ],
)
def test_pad000_is_reported_at_the_offending_token_and_the_message_agrees(project, text, where):
    (project / "broken.py").write_text(text)
    for flags in ((), ("--no-prefilter",)):
        (line,) = findings(run(*flags, "broken.py"))
        assert line.startswith(f"broken.py:{where}: PAD000 cannot parse: invalid syntax (libcst, Python "), line
        if "error at" in line:
            assert f"error at {where}:" in line


def test_a_broken_cell_is_reported_at_its_own_row_and_column(project):
    nb = notebook(code("import torch", "a1"), code("x = 1\ndef broken(:\n    pass", "a2"))
    (project / "train.ipynb").write_bytes(jupyter(nb))
    (line,) = findings(run("train.ipynb"))
    assert line.startswith("train.ipynb:cell 2:2:12: PAD000") and "error at 2:12:" in line


# --- code written for a newer Python than the one running padlint --------------------------------

# PEP 701 (Python 3.12): the same quotes inside a replacement field. Python 3.11 refuses it.
PEP701_SCRIPT = textwrap.dedent(
    """\
    rows = [{"text": "hi"}, {"text": "there"}]
    for row in rows:
        print(f"{row["text"]!r:>10}")
    """
)
PEP701_COLLATOR = textwrap.dedent(
    """\
    import torch
    from torch.nn.utils.rnn import pad_sequence


    def collate(examples, pad_id):
        print(f"batch of {len(examples)}: {examples[0]["input_ids"][:4]}")
        rows = [torch.tensor(ex["input_ids"]) for ex in examples]
        input_ids = pad_sequence(rows, batch_first=True, padding_value=pad_id)
        attention_mask = torch.ones_like(input_ids)
        return {"input_ids": input_ids, "attention_mask": attention_mask}
    """
)


def _newer_syntax() -> str | None:
    """A statement libcst reads that the running Python's parser refuses, or None if it refuses none."""
    if sys.version_info < (3, 12):
        return 'print(f"{row["text"]}")\n'  # PEP 701
    if sys.version_info < (3, 14):
        return 'greeting = t"hello {name}"\n'  # PEP 750 template strings
    return None


def test_libcst_reads_what_the_running_python_refuses():
    newer = _newer_syntax()
    if newer is None:
        pytest.skip("no syntax newer than this Python that libcst reads")
    assert not prefilter.parses(newer)  # the first look's CPython check refuses it...
    assert grammar.libcst_accepts(newer)  # ...libcst does not
    assert not grammar.cpython_refusal_counts(None)  # by default the newest grammar is the code's
    assert grammar.cpython_refusal_counts(grammar.running_target())


@pytest.mark.parametrize("flags", [(), ("--no-prefilter",), ("--target-version", grammar.running_target())])
def test_newer_syntax_in_a_python_file_is_not_pad000(project, flags):
    (project / "show.py").write_text(PEP701_SCRIPT)  # no padding word: only the syntax check sees it
    (project / "collate.py").write_text(PEP701_COLLATOR)
    result = run(*flags, "show.py", "collate.py")
    assert [line.split(" ")[:2] for line in findings(result)] == [["collate.py:9:22:", "PAD001"]]


def _pep701_notebook(project):
    setup = "import torch\nfrom torch.nn.utils.rnn import pad_sequence\n%matplotlib inline"
    cell = PEP701_COLLATOR.split("\n\n\n", 1)[1]
    used = "batch = collate(rows, pad_id=0)\n"  # a def no cell uses is dead code in a notebook that runs
    nb = notebook(code(setup, "a1"), code(cell, "a2"), code(PEP701_SCRIPT + used + "!ls", "a3"))
    (project / "train.ipynb").write_bytes(jupyter(nb))


def test_a_notebook_for_a_newer_python_is_linted_not_pad000(project):
    _pep701_notebook(project)
    lines = findings(run("train.ipynb"))
    assert [line.split(" ")[:2] for line in lines] == [["train.ipynb:cell", "2:5:22:"]]
    assert "PAD001" in lines[0]
    (project / "pyproject.toml").write_text('[tool.padlint]\ntarget-version = "py312"\n')
    assert findings(run("train.ipynb")) == lines


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="this Python reads PEP 701 f-strings")
def test_a_notebook_for_this_pythons_version_is_held_to_its_grammar(project):
    _pep701_notebook(project)
    lines = findings(run("--target-version", "py311", "train.ipynb"))
    cells = sorted(line.split(":")[1] for line in lines if "PAD000" in line)
    assert cells == ["cell 2", "cell 3"]
    assert all("cannot parse: invalid syntax (CPython 3.11): f-string" in line for line in lines if "PAD000" in line)


def test_target_version_is_checked(project):
    (project / "pyproject.toml").write_text('[tool.padlint]\ntarget-version = "3.12"\n')
    with pytest.raises(ConfigError, match="'target-version' in \\[tool.padlint\\] must be one of py37, "):
        load_settings(start=project)
    (project / "pyproject.toml").write_text('[tool.padlint]\ntarget-version = "py310"\n')
    assert load_settings(start=project).target_version == "py310"
    result = CliRunner().invoke(main, ["check", "--target-version", "py2", "."])
    assert result.exit_code == 2 and "py312" in result.output
    assert grammar.newest_target() in grammar.known_targets()


# --- cells IPython dedents ------------------------------------------------------------------------

INDENTED = textwrap.indent(
    textwrap.dedent(
        """\
        def collate(seqs, pad_id):
            input_ids = pad_sequence(seqs, batch_first=True, padding_value=pad_id)
            return {"input_ids": input_ids, "attention_mask": torch.ones_like(input_ids)}
        """
    ),
    "    ",
)


def _indented_notebook(project):
    setup = "import torch\nfrom torch.nn.utils.rnn import pad_sequence"
    nb = notebook(code(setup, "a1"), code(INDENTED + "    %time None", "a2"))
    path = project / "pasted.ipynb"
    path.write_bytes(jupyter(nb))
    return path


def test_a_cell_whose_code_all_starts_indented_is_linted_where_it_is(project):
    # Pasted from inside a class or a function: IPython removes the common indentation and runs it.
    _indented_notebook(project)
    result = run("pasted.ipynb")
    (line,) = findings(result)
    column = INDENTED.splitlines()[2].index("torch.ones_like") + 1
    assert line.startswith(f"pasted.ipynb:cell 2:3:{column}: PAD001 [*]")
    full = CliRunner().invoke(main, ["check", "--no-cache", "pasted.ipynb"]).stdout
    assert "3 |         return {" in full  # the cell as written, the underline under the call
    assert "^" * len("torch.ones_like(input_ids)") in full
    (finding,) = json.loads(
        CliRunner().invoke(main, ["check", "--no-cache", "--output-format", "json", "pasted.ipynb"]).stdout
    )
    assert finding["location"]["column"] == column
    # The fix's edits, applied to the cell as written, give what --fix writes (an editor applies them).
    cell = "".join(json.loads((project / "pasted.ipynb").read_bytes())["cells"][1]["source"])
    edited = _apply(cell, finding["fix"]["edits"])
    run("--fix", "pasted.ipynb")
    assert edited == "".join(json.loads((project / "pasted.ipynb").read_bytes())["cells"][1]["source"])
    assert edited != cell


def _apply(text: str, edits: list[dict]) -> str:
    starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]

    def offset(at: dict) -> int:
        return starts[at["row"] - 1] + at["column"] - 1

    for edit in sorted(edits, key=lambda e: offset(e["location"]), reverse=True):
        text = text[: offset(edit["location"])] + edit["content"] + text[offset(edit["end_location"]) :]
    return text


def test_fixing_a_dedented_cell_keeps_its_indentation_and_the_fix_works(project):
    torch = pytest.importorskip("torch")
    path = _indented_notebook(project)
    result = run("--fix", "pasted.ipynb")
    assert result.exit_code == 0, result.output
    cell = "".join(json.loads(path.read_bytes())["cells"][1]["source"])
    lines = cell.splitlines()
    assert lines[:2] == INDENTED.splitlines()[:2] and lines[-1] == "    %time None"
    body = lines[2:-1]  # the fixed lines: the def's body, indented as the cell is
    assert body[-1].startswith("        return {") and "ones_like" not in cell
    assert all(line.startswith("        ") for line in body)
    # Run the fixed cell as IPython does (dedented, the magic aside) on a ragged batch.
    from torch.nn.utils.rnn import pad_sequence

    scope = {"torch": torch, "pad_sequence": pad_sequence}
    exec(textwrap.dedent("\n".join(lines[:-1])), scope)
    batch = scope["collate"]([torch.tensor([5, 6, 7]), torch.tensor([8])], pad_id=0)
    assert batch["attention_mask"].tolist() == [[1, 1, 1], [1, 0, 0]]
    assert findings(run("pasted.ipynb")) == []
