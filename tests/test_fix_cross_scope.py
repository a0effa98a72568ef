"""Fixes for findings whose padding is in another function: made where the user must edit, and run.

Each fixture in tests/fixtures/fix_cross/ pads in one function and misuses the result in another (a
map function and the collate function that stacks its rows, a wrapper whose `forward` hands its mask
parameter to the model). The fix is applied with `fix_source`, the fixed module is imported and run on
a ragged batch by a stand-in tokenizer with pad != EOS and with pad == EOS: the mask must be 1 exactly
on real tokens and 0 on padding, labels equal to the ids on real tokens (a real EOS included) and -100
exactly on padding. All these fixes are safe, so both tokenizers must pass.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from standin_tokenizer import StandInTokenizer  # noqa: E402
from test_fix_execution import TEXTS, invariant_errors, load_module, structure_errors  # noqa: E402
from test_fix_shapes import RecordingModel  # noqa: E402

from padlint.engine import fix_source, lint_source  # noqa: E402

CROSS_DIR = Path(__file__).parent / "fixtures" / "fix_cross"

# name: (code, entry, how the entry is called, checks, how many rows per text: 2 for paired batches)
CASES = {
    # labels stacked from rows a map function padded; the collate function has the rows' mask
    "x2_rows_tensor_labels_in_collate.py": ("PAD002", "lm_batch", "texts", ("mask", "labels"), 1),
    # two padded encodings joined: their masks joined the same way are the mask of the joined ids
    "x2_paired_masks_cat_labels.py": ("PAD002", "paired_batch", "texts", ("mask", "labels"), 2),
    # ids handed to a project function whose mask parameter reaches the model
    "x3_wrapper_forward_mask_param.py": ("PAD003", "score_texts", "model", ("mask",), 1),
    "x3_method_mask_keyword_only.py": ("PAD003", "score_texts", "model", ("mask",), 1),
    # ones built in a numpy helper whose mask its caller hands to the model: lengths valid in the helper
    "x4_numpy_helper_ones_for_caller.py": ("PAD001", "embed", "model", ("mask",), 1),
    # labels copied in a batch object's __init__, which is handed the encoding's mask beside the ids
    "x4_batch_object_labels_clone.py": ("PAD002", "lm_batch", "texts", ("mask", "labels"), 1),
}

# Fixes that can only be unsafe: right with pad != EOS (checked by running them), offered only with
# --unsafe-fixes. name: (code, entry, how the entry is called, checks)
UNSAFE_CASES = {
    # ids padded by an object the caller owns: its pad value, read through the receiver (`self.padder.fill`)
    "x4_padder_object_ones.py": ("PAD001", "score_texts", "model", ("mask",)),
    # ids padded by a method of the base class: its pad value, read through `self`
    "x4_inherited_pad_method_ones.py": ("PAD001", "PairCollator", "collator", ("mask",)),
    # (ids, label) items of a Dataset unpacked by a loop: the mask goes into the tuple, the loop, the call
    "x4_dataset_tuple_loop.py": ("PAD003", "classify", "model", ("mask",)),
    # (ids, targets) returned by a helper and unpacked by one assignment before the model call
    "x4_collate_tuple_assign.py": ("PAD003", "forward_step", "model", ("mask",)),
}


def _run(path: Path, name: str, entry: str, how: str, checks, copies: int) -> dict[str, list[str]]:
    case = {"checks": checks, "side": "right"}
    results = {}
    for label, pad_is_eos in (("pad!=eos", False), ("pad==eos", True)):
        tokenizer = StandInTokenizer(pad_is_eos=pad_is_eos)
        try:
            module = load_module(path, f"padlint_cross_{name}_{int(pad_is_eos)}")
            call = getattr(module, entry)
            if how == "model":
                out = call(list(TEXTS), tokenizer, RecordingModel())
            elif how == "collator":  # Collator(pad id)(features), each row split in two parts it joins again
                rows = [tokenizer.encode(t) for t in TEXTS]
                out = call(tokenizer.pad_token_id)([{"query": r[:1], "passage": r[1:]} for r in rows])
            else:
                out = call(list(TEXTS), tokenizer)
            real = [tokenizer.encode(t) for t in TEXTS] * copies if copies == 1 else _paired(tokenizer)
            results[label] = structure_errors([out], case) + invariant_errors(real, out, case)
        except Exception as exc:  # a fix that breaks the code fails the check
            results[label] = [f"raised {type(exc).__name__}: {exc}"]
    return results


def _paired(tokenizer) -> list[list[int]]:
    return [tokenizer.encode(t) for t in TEXTS] + [tokenizer.encode(t + " no") for t in TEXTS]


@pytest.mark.parametrize("name", sorted(CASES))
def test_cross_scope_fix_is_safe_and_right_when_run(name, tmp_path):
    pytest.importorskip("torch")
    code, entry, how, checks, copies = CASES[name]
    source = (CROSS_DIR / name).read_text()
    assert code in {d.code for d in lint_source(source, name)}
    stem = Path(name).stem
    original = tmp_path / f"{stem}_orig.py"
    original.write_text(source)
    assert any(_run(original, f"{stem}_orig", entry, how, checks, copies).values()), "the fixture is not buggy"
    outcome = fix_source(source, name, unsafe=False)
    assert outcome.error is None and outcome.source != source, f"{name}: no safe fix"
    fixed = tmp_path / f"{stem}_fixed.py"
    fixed.write_text(outcome.source)
    results = _run(fixed, f"{stem}_fixed", entry, how, checks, copies)
    assert not any(results.values()), f"{results}\n---- fixed ----\n{outcome.source}"
    assert code not in {d.code for d in outcome.remaining}, outcome.source


@pytest.mark.parametrize("name", sorted(UNSAFE_CASES))
def test_cross_scope_unsafe_fix_is_right_when_pad_is_not_eos(name, tmp_path):
    pytest.importorskip("torch")
    code, entry, how, checks = UNSAFE_CASES[name]
    source = (CROSS_DIR / name).read_text()
    assert code in {d.code for d in lint_source(source, name)}
    stem = Path(name).stem
    original = tmp_path / f"{stem}_orig.py"
    original.write_text(source)
    assert _run(original, f"{stem}_orig", entry, how, checks, 1)["pad!=eos"], "the fixture is not buggy"
    assert fix_source(source, name, unsafe=False).source == source, "a fix that depends on the pad id is safe"
    outcome = fix_source(source, name, unsafe=True)
    assert outcome.error is None and outcome.source != source, f"{name}: no unsafe fix"
    fixed = tmp_path / f"{stem}_fixed.py"
    fixed.write_text(outcome.source)
    results = _run(fixed, f"{stem}_fixed", entry, how, checks, 1)
    assert not results["pad!=eos"], f"{results}\n---- fixed ----\n{outcome.source}"
    assert code not in {d.code for d in outcome.remaining}, outcome.source


def test_every_cross_fixture_is_described():
    assert {p.name for p in CROSS_DIR.glob("*.py")} == set(CASES) | set(UNSAFE_CASES)


MODULES_DIR = Path(__file__).parent / "fixtures" / "fix_cross_modules"


def test_loss_ignores_the_value_another_module_pads_labels_with(tmp_path, monkeypatch):
    """PAD007 where the labels are padded with a constant of another module: the loss is given its value."""
    torch = pytest.importorskip("torch")
    project = tmp_path / "ignore_const_elsewhere"
    shutil.copytree(MODULES_DIR / "ignore_const_elsewhere", project)
    import padlint

    here = str(Path(padlint.__file__).resolve().parent.parent)  # this padlint, not an installed one
    run = subprocess.run(
        [sys.executable, "-m", "padlint", "check", "--fix", "--no-cache", "--exit-zero", "-q", "."],
        cwd=project,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": here},
    )
    assert run.returncode == 0, run.stderr
    fixed = (project / "objective.py").read_text()
    assert fixed != (MODULES_DIR / "ignore_const_elsewhere" / "objective.py").read_text()
    monkeypatch.syspath_prepend(str(project))
    objective = load_module(project / "objective.py", "padlint_cross_objective").TokenObjective(pad_token_id=0)
    rows = [[5, 0, 7], [8]]  # a real target equal to the pad id (0) must still be graded
    torch.manual_seed(0)
    logits = torch.randn(2, 3, 10)
    expected = torch.stack(
        [-torch.log_softmax(logits[i, j], -1)[t] for i, row in enumerate(rows) for j, t in enumerate(row)]
    ).mean()
    assert torch.allclose(objective(logits, rows), expected, atol=1e-6), fixed
