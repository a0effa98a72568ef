"""Padding followed across boundaries: framework wiring, objects, models by provenance, modules.

Every folder under tests/fixtures/cross/ is a small project (one module, or two or three that
import one another, as a package with `__init__.py` or as scripts side by side). Each module is
linted as a file of that project, and its findings must equal its `# expect:` markers; a folder whose
name starts with `near_` is a near-miss whose modules must have no finding at all. The first look
(tests/test_prefilter.py) is checked over the same files. The safe fix of a constructor's label pad
is run on a ragged batch.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

from padlint.engine import fix_source, lint_source

FIXTURES = Path(__file__).parent / "fixtures" / "cross"
MARKER = re.compile(r"#\s*expect:\s*(PAD\d{3}(?:\s*,\s*PAD\d{3})*)\s*$")
CASES = sorted(p for p in FIXTURES.iterdir() if p.is_dir())


def _markers(path: Path, case: Path) -> set[tuple[str, str, int]]:
    found = set()
    for row, line in enumerate(path.read_text().splitlines(), start=1):
        m = MARKER.search(line)
        if m:
            found |= {(str(path.relative_to(case)), code.strip(), row) for code in m.group(1).split(",")}
    return found


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_boundary_case(case: Path):
    modules = sorted(case.rglob("*.py"))  # a package may hold sub-packages (`from ..encoding import`)
    expected = set().union(*(_markers(p, case) for p in modules))
    found = {
        (str(p.relative_to(case)), d.code, d.location.row) for p in modules for d in lint_source(p.read_text(), str(p))
    }
    if case.name.startswith("near_"):
        assert not expected, "a near-miss carries no markers"
        assert found == set()
    else:
        assert expected, "a buggy case carries markers"
        assert found == expected


def test_every_boundary_kind_has_a_case_and_a_near_miss():
    names = {p.name for p in CASES}
    buggy = {n for n in names if not n.startswith("near_")}
    assert len(buggy) >= 12
    # Each buggy case has a near-miss of the same shape, except where the near-miss is of another
    # kind of the same boundary (a GRU taking lengths beside a module method taking a mask).
    assert sum(f"near_{n}" in names for n in buggy) >= len(buggy) - 1


def test_unknown_callee_is_silent(tmp_path: Path):
    """A call with no summary and no table row never makes a finding: the imported helper is not a
    module of the project (nothing to read), so its result is unknown."""
    path = tmp_path / "train.py"
    path.write_text(
        "from somewhere_installed import make_batch\n\n\n"
        "def step(model, tokenizer, texts):\n"
        "    batch = make_batch(tokenizer, texts)\n"
        '    labels = batch["input_ids"].clone()\n'
        "    return model(**batch, labels=labels).loss\n"
    )
    assert lint_source(path.read_text(), str(path)) == []


def test_helper_module_change_changes_the_finding(tmp_path: Path):
    """The analysis reads the imported module as it is now: masking added there silences the caller."""
    (tmp_path / "__init__.py").write_text("")
    helper = tmp_path / "helpers.py"
    helper.write_text(
        "def encode(tokenizer, texts):\n"
        '    return tokenizer(texts, padding="max_length", max_length=64, return_tensors="pt")\n'
    )
    train = tmp_path / "train.py"
    train.write_text(
        "from .helpers import encode\n\n\n"
        "def step(model, tokenizer, texts):\n"
        "    batch = encode(tokenizer, texts)\n"
        '    labels = batch["input_ids"].clone()\n'
        "    return model(**batch, labels=labels).loss\n"
    )
    assert [(d.code, d.location.row) for d in lint_source(train.read_text(), str(train))] == [("PAD002", 6)]
    helper.write_text(  # the helper no longer pads: the copied labels hold no padding
        'def encode(tokenizer, texts):\n    return tokenizer(texts, return_tensors="pt")\n'
    )
    assert lint_source(train.read_text(), str(train)) == []
    # A package beside another with the same module names is its own project.
    other = tmp_path / "other"
    other.mkdir()
    (other / "__init__.py").write_text("")
    (other / "train.py").write_text(train.read_text())
    assert lint_source(train.read_text(), str(other / "train.py")) == []


def test_constructor_label_pad_fix_runs(tmp_path: Path):
    """The safe fix of `TranslationBatcher(..., target_pad=tokenizer.pad_token_id)` pads labels with
    -100 exactly at the padding; real tokens (also one equal to the pad id) keep their label."""
    import torch

    from tests.standin_tokenizer import StandInTokenizer

    source = (FIXTURES / "ctor_arg_label_pad" / "collate.py").read_text()
    outcome = fix_source(source, str(FIXTURES / "ctor_arg_label_pad" / "collate.py"))
    assert [d.code for d in outcome.fixed] == ["PAD006"]
    fixed = tmp_path / "fixed_collate.py"
    fixed.write_text(outcome.source)
    spec = importlib.util.spec_from_file_location("fixed_collate", fixed)
    module = importlib.util.module_from_spec(spec)
    sys.modules["fixed_collate"] = module
    spec.loader.exec_module(module)
    tokenizer = StandInTokenizer()
    pad = tokenizer.pad_token_id
    pairs = [
        {"src_ids": [5, 6, 7], "tgt_ids": [8, pad, 9, 2]},  # a real target token equal to the pad id
        {"src_ids": [5], "tgt_ids": [8, 2]},
    ]
    batch = module.make_batcher(tokenizer)(pairs)
    assert batch["labels"].tolist() == [[8, pad, 9, 2], [8, 2, -100, -100]]
    assert batch["attention_mask"].tolist() == [[1, 1, 1], [1, 0, 0]]
    assert torch.equal(batch["input_ids"][1, 1:], torch.tensor([pad, pad]))


def test_cached_result_follows_the_helper_module(tmp_path: Path, monkeypatch):
    """The result cache keys train.py's result by the helper module its analysis read: a cached
    PAD002 goes when the helper stops padding, and comes back with it (the same as --no-cache)."""
    from click.testing import CliRunner

    from padlint.cli.main import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PADLINT_CACHE_DIR", raising=False)
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    pads = 'def encode(tokenizer, texts):\n    return tokenizer(texts, padding="max_length", max_length=64)\n'
    (package / "helpers.py").write_text(pads)
    (package / "train.py").write_text(
        "from .helpers import encode\n\n\n"
        "def step(model, tokenizer, texts):\n"
        "    batch = encode(tokenizer, texts)\n"
        '    labels = batch["input_ids"].clone()\n'
        "    return model(**batch, labels=labels).loss\n"
    )

    def check(*extra: str) -> str:
        return CliRunner().invoke(main, ["check", "--output-format", "concise", "pkg/train.py", *extra]).output

    assert "PAD002" in check() and "PAD002" in check()  # the second one from the cache
    (package / "helpers.py").write_text("def encode(tokenizer, texts):\n    return tokenizer(texts)\n")
    assert check() == check("--no-cache") == "All checks passed!\n"
    (package / "helpers.py").write_text(pads)
    assert "PAD002" in check()


def test_cached_skip_follows_the_helper_module(tmp_path: Path, monkeypatch):
    """A file with no rule's word of its own is skipped by the word look when the helper it imports
    does not pad; that skip depends on the helper: once the helper pads, the cached "All checks
    passed!" goes and the finding --no-cache reports appears (with PAD000 off and on)."""
    from click.testing import CliRunner

    from padlint.cli.main import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PADLINT_CACHE_DIR", raising=False)
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    helper = package / "helpers.py"
    helper.write_text('def encode(tokenizer, texts):\n    return tokenizer(texts, return_tensors="pt")\n')
    (package / "embed.py").write_text(
        "from .helpers import encode\n\n\n"
        "def embed(model, tokenizer, texts):\n"
        "    enc = encode(tokenizer, texts)\n"
        '    return model(enc["input_ids"]).last_hidden_state\n'
    )

    def check(*extra: str) -> str:
        return CliRunner().invoke(main, ["check", "--output-format", "concise", "pkg/embed.py", *extra]).output

    for selection in (["--ignore", "PAD000"], []):
        helper.write_text('def encode(tokenizer, texts):\n    return tokenizer(texts, return_tensors="pt")\n')
        assert check(*selection) == check(*selection) == "All checks passed!\n"  # the second from the cache
        helper.write_text(
            'def encode(tokenizer, texts):\n    return tokenizer(texts, padding="longest", return_tensors="pt")\n'
        )
        assert "PAD003" in check(*selection, "--no-cache")
        assert "PAD003" in check(*selection)
