"""Fixes that edit another module than the one the finding is in, as a user runs them.

A function of one module returns the padded ids in a tuple without their mask (PAD003, reported
there) and another module unpacks that tuple and calls the model. The fix returns the mask in the
tuple, unpacks it in the other module and passes it to the model: `--diff` shows both files,
`--fix --unsafe-fixes` writes both (never one without the other), and the fixed modules, imported
and run on a ragged batch, hand the model a mask that is 1 exactly on real tokens.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parent))
from standin_tokenizer import StandInTokenizer  # noqa: E402
from test_fix_execution import TEXTS, invariant_errors  # noqa: E402
from test_fix_shapes import RecordingModel  # noqa: E402

from padlint.cli.main import main  # noqa: E402
from padlint.engine import fix_source  # noqa: E402

MODULES_DIR = Path(__file__).parent / "fixtures" / "fix_cross_modules"


def _review_step(module, tokenizer) -> list[dict]:
    return [module.training_step(list(TEXTS), tokenizer, RecordingModel())]


def _defect_epoch(module, tokenizer) -> list[dict]:
    rows = [{"code": text, "defect": i % 2} for i, text in enumerate(TEXTS)]
    return module.run_epoch(rows, tokenizer, RecordingModel())


# folder: (the module the finding is in, the module that calls the model, how its entry is run)
CASES = {
    # `ids, stars = reviews_to_batch(...)` then `model(input_ids=ids, labels=stars)`
    "tuple_batches_elsewhere": ("review_batches.py", "review_step.py", _review_step),
    # a DataLoader's collate function (bound with functools.partial) and `for ids, defect in loader:`
    "loader_tuples_elsewhere": ("defect_collation.py", "defect_epoch.py", _defect_epoch),
}


def _check(project: Path, *args: str):
    return CliRunner().invoke(main, ["check", "--no-cache", "-j", "1", *args, str(project)], catch_exceptions=False)


def _outputs(project: Path, caller: str, entry, monkeypatch, pad_is_eos: bool) -> list[dict]:
    """Import the caller (and, through it, the other module) from `project` and run it."""
    monkeypatch.syspath_prepend(str(project))
    for path in project.glob("*.py"):
        monkeypatch.delitem(sys.modules, path.stem, raising=False)
    module = __import__(Path(caller).stem)
    try:
        return entry(module, StandInTokenizer(pad_is_eos=pad_is_eos))
    finally:
        for path in project.glob("*.py"):
            sys.modules.pop(path.stem, None)


def _mask_errors(outputs: list[dict]) -> list[str]:
    real = [StandInTokenizer().encode(t) for t in TEXTS]
    case = {"checks": ("mask",), "side": "right"}
    return [error for out in outputs for error in invariant_errors(real, out, case)]


@pytest.mark.parametrize("folder", sorted(CASES))
def test_fix_in_both_modules_is_shown_written_and_right_when_run(folder, tmp_path, monkeypatch):
    pytest.importorskip("torch")
    home, caller, entry = CASES[folder]
    project = tmp_path / folder
    shutil.copytree(MODULES_DIR / folder, project)
    before = {p.name: p.read_text() for p in project.glob("*.py")}
    assert _mask_errors(_outputs(project, caller, entry, monkeypatch, False)), "the fixture is not buggy"

    found = json.loads(_check(project, "--output-format", "json", "--exit-zero").output)
    assert [(Path(d["filename"]).name, d["code"]) for d in found] == [(home, "PAD003")]
    other = {Path(e["filename"]).name for e in found[0]["fix"]["edits"] if "filename" in e}
    assert other == {caller}, found[0]["fix"]

    shown = _check(project, "--diff", "--unsafe-fixes")
    assert f"+++ {project / home}" in shown.output and f"+++ {project / caller}" in shown.output, shown.output
    assert _check(project, "--fix").exit_code == 1  # the fix is unsafe: --fix alone leaves both files
    assert {p.name: p.read_text() for p in project.glob("*.py")} == before

    fixed = _check(project, "--fix", "--unsafe-fixes")
    assert fixed.exit_code == 0, fixed.output
    after = {p.name: p.read_text() for p in project.glob("*.py")}
    assert after[home] != before[home] and after[caller] != before[caller]
    assert "attention_mask" in after[caller]
    assert _check(project, "--unsafe-fixes").exit_code == 0  # nothing left to report
    for pad_is_eos in (False, True):  # the tokenizer's own mask: right whatever the pad token is
        errors = _mask_errors(_outputs(project, caller, entry, monkeypatch, pad_is_eos))
        assert not errors, f"{errors}\n---- {home} ----\n{after[home]}\n---- {caller} ----\n{after[caller]}"


def test_no_fix_writes_one_module_while_the_other_changed_in_the_same_run(tmp_path):
    """The caller's own fix rewrites it in the same run: the positions of the other fix in it are stale,
    so that fix waits (the finding stays, a warning says why) and the next run applies it."""
    project = tmp_path / "tuple_batches_elsewhere"
    shutil.copytree(MODULES_DIR / "tuple_batches_elsewhere", project)
    caller = project / "review_step.py"
    # a masked mean that divides by the padding too: PAD011, with a safe fix of its own
    caller.write_text(caller.read_text() + "\n\ndef mean_token_loss(loss, mask):\n    return (loss * mask).mean()\n")
    home_before = (project / "review_batches.py").read_text()

    first = _check(project, "--fix", "--unsafe-fixes")
    assert "not fixed" in first.output and "run --fix again" in first.output, first.output
    assert (project / "review_batches.py").read_text() == home_before
    assert "(loss * mask).mean()" not in caller.read_text()  # its own fix went in
    assert "PAD003" in first.output

    second = _check(project, "--fix", "--unsafe-fixes")
    assert second.exit_code == 0, second.output
    assert (project / "review_batches.py").read_text() != home_before
    assert "attention_mask=attention_mask" in caller.read_text()


def test_a_fix_of_one_text_never_applies_half_of_a_fix_of_two_files():
    """fix_source without `elsewhere` (stdin, the editor's fix-all) leaves such a finding as it is."""
    home = MODULES_DIR / "tuple_batches_elsewhere" / "review_batches.py"
    source = home.read_text()
    outcome = fix_source(source, str(home), unsafe=True)
    assert outcome.source == source
    assert [d.code for d in outcome.remaining] == ["PAD003"] and outcome.remaining[0].fix.elsewhere
