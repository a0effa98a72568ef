"""Code that never runs harms no batch: definitions of a project's library module that nothing names.

A module other modules of the project import is a library of that project. A top-level def of it
that the module never reads and no other file of the project names (code, a notebook, a config, the
docs) never runs, and neither do the helpers only it calls: nothing found inside them is reported.
A module nobody imports (a script, a snippet, a lone collator file) is judged as before, and so is a
definition that anything names.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

from padlint.engine import lint_source

PREPROCESS = """
import torch


def encode_with_image_token(prompt, tokenizer, image_token_index=-200):
    chunks = [tokenizer(chunk).input_ids for chunk in prompt.split("<image>")]
    ids = chunks[0]
    for chunk in chunks[1:]:
        ids = ids + [image_token_index] + chunk
    return torch.tensor(ids)


def preprocess_plain(conversations, tokenizer):
    ids = tokenizer(conversations, return_tensors="pt", padding="longest", max_length=512, truncation=True).input_ids
    return dict(input_ids=ids, labels=ids.clone())


def preprocess(sources, tokenizer):
    conversations = [" ".join(turn["value"] for turn in source) for source in sources]
    return preprocess_plain(conversations, tokenizer)
"""

USES_ONLY_THE_IMAGE_TOKEN = """
from speechlm.data.prep import encode_with_image_token


def prompt_ids(prompt, tokenizer):
    return encode_with_image_token(prompt, tokenizer)
"""


def _project(root: Path, files: dict[str, str]) -> Path:
    for name, text in {"speechlm/__init__.py": "", "speechlm/data/__init__.py": "", **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
    return root / "speechlm" / "data" / "prep.py"


def _codes(path: Path) -> list[str]:
    return [f.code for f in lint_source(path.read_text(), str(path))]


def test_the_module_alone_is_judged():
    """The same text with no project around it: whoever runs it is not in view."""
    assert "PAD003" in [f.code for f in lint_source(textwrap.dedent(PREPROCESS), "prep.py")]


def test_helpers_no_importer_names_are_not_reported(tmp_path: Path):
    prep = _project(tmp_path, {"speechlm/data/prep.py": PREPROCESS, "speechlm/infer.py": USES_ONLY_THE_IMAGE_TOKEN})
    assert _codes(prep) == []


def test_an_importer_that_calls_the_helper_keeps_it_judged(tmp_path: Path):
    train = """
        from speechlm.data.prep import preprocess


        def item(source, tokenizer):
            return preprocess([source], tokenizer)
        """
    prep = _project(
        tmp_path,
        {"speechlm/data/prep.py": PREPROCESS, "speechlm/infer.py": USES_ONLY_THE_IMAGE_TOKEN, "train/run.py": train},
    )
    assert "PAD003" in _codes(prep)


def test_a_module_nobody_imports_is_judged(tmp_path: Path):
    prep = _project(tmp_path, {"speechlm/data/prep.py": PREPROCESS})
    assert "PAD003" in _codes(prep)


def test_a_notebook_or_a_config_naming_it_keeps_it_judged(tmp_path: Path):
    for name, text in {
        "notebooks/try.ipynb": '{"cells": [{"source": ["batch = preprocess([s], tok)"]}]}',
        "configs/data.yaml": "builder: speechlm.data.prep.preprocess_plain\n",
    }.items():
        root = tmp_path / name.split("/")[0]
        prep = _project(root, {"speechlm/data/prep.py": PREPROCESS, "speechlm/infer.py": USES_ONLY_THE_IMAGE_TOKEN})
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
        assert "PAD003" in _codes(prep), name


def test_a_name_exported_or_registered_is_alive(tmp_path: Path):
    exported = PREPROCESS + '\n__all__ = ["preprocess", "encode_with_image_token"]\n'
    registered = PREPROCESS.replace("def preprocess(sources", "@register('plain')\ndef preprocess(sources")
    for folder, text in (("exported", exported), ("registered", registered)):
        files = {"speechlm/data/prep.py": text, "speechlm/infer.py": USES_ONLY_THE_IMAGE_TOKEN}
        assert "PAD003" in _codes(_project(tmp_path / folder, files)), folder


def test_a_helper_live_code_calls_is_judged_though_an_unused_one_calls_it_too(tmp_path: Path):
    """`preprocess` is unused, but the module's own live code calls `preprocess_plain`."""
    text = PREPROCESS + "\n\ndef plain_batch(texts, tokenizer):\n    return preprocess_plain(texts, tokenizer)\n"
    uses = USES_ONLY_THE_IMAGE_TOKEN.replace("encode_with_image_token", "plain_batch")
    prep = _project(tmp_path, {"speechlm/data/prep.py": text, "speechlm/infer.py": uses})
    assert "PAD003" in _codes(prep)


def _cached_project(tmp_path: Path, monkeypatch):
    """The project run through the CLI with its result cache on: `check(*options)` gives prep.py's output."""
    from click.testing import CliRunner

    from padlint.cli.main import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PADLINT_CACHE_DIR", raising=False)
    _project(tmp_path, {"speechlm/data/prep.py": PREPROCESS, "speechlm/infer.py": USES_ONLY_THE_IMAGE_TOKEN})

    def check(*extra: str) -> str:
        args = ["check", "--output-format", "concise", "speechlm/data/prep.py", *extra]
        return CliRunner().invoke(main, args).output

    return check


def test_a_cached_silence_goes_when_an_importer_starts_calling_the_helper(tmp_path: Path, monkeypatch):
    check = _cached_project(tmp_path, monkeypatch)
    assert check() == check() == "All checks passed!\n"  # the second one from the cache
    calls = (
        "from speechlm.data.prep import preprocess\n"
        + textwrap.dedent(USES_ONLY_THE_IMAGE_TOKEN)
        + "\n\ndef batch(sources, tokenizer):\n    return preprocess(sources, tokenizer)\n"
    )
    (tmp_path / "speechlm" / "infer.py").write_text(textwrap.dedent(calls).lstrip())
    assert "PAD003" in check()
    assert check() == check("--no-cache")


def test_a_cached_silence_goes_when_a_new_file_names_the_helper(tmp_path: Path, monkeypatch):
    # The project's files are found by walking its folders: a file added later that names the helper
    # (a notebook, a doc, a script) makes it live, so the cached "clean" must go.
    check = _cached_project(tmp_path, monkeypatch)
    assert check() == check() == "All checks passed!\n"
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "usage.md").write_text("Batches come from `speechlm.data.prep.preprocess`.\n")
    assert "PAD003" in check()
    assert check() == check("--no-cache")


def test_in_a_src_layout_the_examples_beside_src_are_read(tmp_path: Path):
    """`src/speechlm/...` with `pyproject.toml` at the top: an example at the top that calls the helper
    keeps it judged, though `src/` is not a package."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'speechlm'\n")
    example = """
        from speechlm.data.prep import preprocess


        def demo(sources, tokenizer):
            return preprocess(sources, tokenizer)
        """
    prep = _project(
        tmp_path / "src",
        {"speechlm/data/prep.py": PREPROCESS, "speechlm/infer.py": USES_ONLY_THE_IMAGE_TOKEN},
    )
    assert _codes(prep) == []  # nothing names `preprocess` yet
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "demo.py").write_text(textwrap.dedent(example).lstrip())
    assert "PAD003" in _codes(prep)


NOTEBOOK_DATASET = """
from torch.utils.data import Dataset


class PaddedRows(Dataset):
    def __init__(self, tokenizer, texts):
        self.tokenizer, self.texts = tokenizer, texts

    def __getitem__(self, index):
        enc = self.tokenizer(self.texts[index], padding="max_length", max_length=64, truncation=True)
        return {"input_ids": enc["input_ids"], "attention_mask": enc["attention_mask"], "labels": enc["input_ids"]}
"""


def _notebook_codes(tmp_path: Path, second_cell: str) -> list[str]:
    from click.testing import CliRunner
    from nbwriters import code, jupyter, notebook

    from padlint.cli.main import main

    path = tmp_path / "train.ipynb"
    path.write_bytes(jupyter(notebook(code(NOTEBOOK_DATASET, "c1"), code(second_cell, "c2"))))
    result = CliRunner().invoke(main, ["check", "--no-cache", "--output-format", "concise", str(path)])
    return sorted(set(re.findall(r": (PAD\d{3}) ", result.output)))


def test_a_notebook_class_only_a_string_makes_never_runs(tmp_path: Path):
    """A notebook is a program nothing imports: an earlier draft whose only use sits in a string is dead."""
    left_in_a_string = '"""\\nrows = PaddedRows(tokenizer, texts)\\n"""\nprint("draft kept for reference")\n'
    assert _notebook_codes(tmp_path, left_in_a_string) == []


def test_a_notebook_class_a_cell_uses_is_judged(tmp_path: Path):
    assert _notebook_codes(tmp_path, "rows = PaddedRows(tokenizer, texts)\n") == ["PAD002"]


def test_a_notebook_that_runs_another_may_use_anything(tmp_path: Path):
    assert _notebook_codes(tmp_path, "%run ./helpers.ipynb\n") == ["PAD002"]


def test_a_notebook_class_nothing_mentions_yet_is_judged(tmp_path: Path):
    """The cell that uses it may still be to be written (an editor shows the notebook as it grows)."""
    assert _notebook_codes(tmp_path, 'print("rows next")\n') == ["PAD002"]


def test_the_modules_own_name_in_an_import_path_names_none_of_its_definitions(tmp_path: Path):
    """`from speechlm.data.preprocess import encode_with_image_token` names the module `preprocess`,
    not its function `preprocess`."""
    for name, text in {
        "speechlm/__init__.py": "",
        "speechlm/data/__init__.py": "",
        "speechlm/data/preprocess.py": PREPROCESS,
        "speechlm/infer.py": USES_ONLY_THE_IMAGE_TOKEN.replace("speechlm.data.prep ", "speechlm.data.preprocess "),
    }.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
    assert _codes(tmp_path / "speechlm" / "data" / "preprocess.py") == []


# ---- another Python module names a definition only through an import ---------------------------------
def test_a_comment_or_a_def_of_the_same_name_elsewhere_names_nothing(tmp_path: Path):
    """`# preprocess the batch` in one module and a `def preprocess_plain` of another module's own do not
    reach this module's definitions: a Python module reads another's code only through an import."""
    loader = """
        from speechlm.data.prep import encode_with_image_token


        def preprocess_plain(rows):  # its own helper, named like the one in prep.py
            return [encode_with_image_token(r["prompt"], r["tokenizer"]) for r in rows]


        def load(rows):
            # preprocess the batch before the model sees it
            return preprocess_plain(rows)
        """
    prep = _project(tmp_path, {"speechlm/data/prep.py": PREPROCESS, "speechlm/data/loader.py": loader})
    assert _codes(prep) == []


def test_the_module_imported_whole_keeps_its_definitions_judged(tmp_path: Path):
    caller = """
        import speechlm.data.prep as prep


        def item(source, tokenizer):
            return prep.preprocess([source], tokenizer)
        """
    prep = _project(
        tmp_path,
        {
            "speechlm/data/prep.py": PREPROCESS,
            "speechlm/infer.py": USES_ONLY_THE_IMAGE_TOKEN,
            "speechlm/train.py": caller,
        },
    )
    assert "PAD003" in _codes(prep)


def test_a_name_in_a_string_of_another_module_keeps_it_judged(tmp_path: Path):
    registry = """
        from speechlm.data.prep import encode_with_image_token

        PREPROCESSORS = {"plain": "preprocess", "image": encode_with_image_token}
        """
    prep = _project(tmp_path, {"speechlm/data/prep.py": PREPROCESS, "speechlm/registry.py": registry})
    assert "PAD003" in _codes(prep)


IMPORTS_BUT_NEVER_CALLS = """
    import torch
    from speechlm.models import *  # noqa: F403  (a star import of another module of the project)
    from speechlm.data.prep import encode_with_image_token, preprocess


    def prompt_ids(prompt, tokenizer):
        return encode_with_image_token(prompt, tokenizer)
    """


def test_a_name_an_importer_imports_and_never_reads_is_no_use(tmp_path: Path):
    """An import is no read: the helper module imports `preprocess` beside what it uses (and star-imports
    another module, which brings nothing of prep's in by name), and calls only the image-token helper."""
    files = {
        "speechlm/data/prep.py": PREPROCESS,
        "speechlm/models.py": "WIDTH = 512\n",
        "speechlm/helpers.py": IMPORTS_BUT_NEVER_CALLS,
    }
    assert _codes(_project(tmp_path, files)) == []


def test_a_name_read_through_the_module_that_imports_it_is_judged(tmp_path: Path):
    """A third module reads `helpers.preprocess`: the helper module's import passed it on."""
    reads_through = """
        from speechlm import helpers


        def item(source, tokenizer):
            return helpers.preprocess([source], tokenizer)
        """
    files = {
        "speechlm/data/prep.py": PREPROCESS,
        "speechlm/models.py": "WIDTH = 512\n",
        "speechlm/helpers.py": IMPORTS_BUT_NEVER_CALLS,
        "speechlm/train.py": reads_through,
    }
    assert "PAD003" in _codes(_project(tmp_path, files))


def test_a_package_init_importing_it_re_exports_it(tmp_path: Path):
    files = {
        "speechlm/data/prep.py": PREPROCESS,
        "speechlm/infer.py": USES_ONLY_THE_IMAGE_TOKEN,
        "speechlm/data/__init__.py": "from .prep import preprocess\n",
    }
    assert "PAD003" in _codes(_project(tmp_path, files))


def _scripts_folder(root: Path, files: dict[str, str]) -> Path:
    """A project of scripts with no package and no marker (a checkout extracted without `.git`)."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
    return root / "dialogsum" / "prep.py"


SCRIPT_IMPORTS_BUT_NEVER_CALLS = """
from prep import encode_with_image_token, preprocess

print(encode_with_image_token("a <image> b", None))
"""


def test_in_a_folder_of_checkouts_a_script_projects_own_folder_is_its_project(tmp_path: Path):
    """The folder above holds other checkouts, no script: it is not where this project's scripts sit, so
    the project is the script's folder, and `preprocess`, imported by the training script and never
    called, never runs (what the other checkouts call is theirs)."""
    checkouts = {"dialogsum/prep.py": PREPROCESS, "dialogsum/train.py": SCRIPT_IMPORTS_BUT_NEVER_CALLS}
    for other in range(3):  # other checkouts call a `preprocess` of their own
        checkouts[f"other{other}/prep.py"] = "def preprocess(rows):\n    return rows\n"
        checkouts[f"other{other}/train.py"] = "from prep import preprocess\n\nrows = preprocess([])\n"
    assert _codes(_scripts_folder(tmp_path, checkouts)) == []


def test_a_script_beside_the_folder_may_import_it_as_a_namespace_package(tmp_path: Path):
    """A script in the folder above imports `dialogsum.prep` as an implicit namespace package and calls
    `preprocess`: it stays judged."""
    files = {
        "dialogsum/prep.py": PREPROCESS,
        "dialogsum/train.py": SCRIPT_IMPORTS_BUT_NEVER_CALLS,
        "run.py": "from dialogsum.prep import preprocess\n\nbatch = preprocess(rows, tokenizer)\n",
    }
    assert "PAD003" in _codes(_scripts_folder(tmp_path, files))


def test_a_requirements_file_marks_the_projects_root(tmp_path: Path):
    """A download holds no `.git`: `requirements.txt` at the top marks the project, so the script in
    `train/` is a reader of a folder that is no package (`dataset/`, imported as `dataset.prep`), and the
    helpers no file of the project names are left behind."""
    for name, text in {
        "dataset/prep.py": PREPROCESS,
        "train/run.py": USES_ONLY_THE_IMAGE_TOKEN.replace("speechlm.data.prep", "dataset.prep"),
    }.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text).lstrip())
    prep = tmp_path / "dataset" / "prep.py"
    assert "PAD003" in _codes(prep)  # no marker: the project is `dataset/` alone, and its reader is not in it
    (tmp_path / "requirements.txt").write_text("torch\n")
    assert _codes(prep) == []
