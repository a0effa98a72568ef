"""Every fix shape of issue 14, run: the fixed collator is imported and called on a ragged batch.

The fixtures in tests/fixtures/fix_shapes/ are small collators, map functions and model calls, one
shape each. For each: padlint must flag it; the fix (safe fixes, then safe and unsafe ones) is applied
with `fix_source`; the fixed module is imported and run by a stand-in tokenizer with pad != EOS and
with pad == EOS. The mask must be 1 exactly on real tokens and 0 exactly on padding; labels must equal
the ids on real tokens (a real EOS equal to the pad id keeps its label) and be -100 exactly on
padding; mask and labels must come in the ids' container and shape. A safe fix must hold for both
tokenizers, an unsafe one with pad != EOS (and with pad == EOS too when the module itself makes pad
the EOS).

A case: codes (what padlint must report), entry and kind (how it is called, see `call`), side,
checks, lib, safe (True: a safe fix must make it right; False: only an unsafe fix exists), setup (a
module function given the tokenizer first).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from standin_tokenizer import StandInTokenizer  # noqa: E402
from test_fix_execution import (  # noqa: E402
    TEXTS,
    as_rows,
    invariant_errors,
    load_module,
    structure_errors,
)

from padlint.engine import fix_source, lint_source  # noqa: E402

SHAPES_DIR = Path(__file__).parent / "fixtures" / "fix_shapes"


def _case(codes, entry, kind, checks=("mask",), lib="torch", side="right", safe=True, setup=None):
    return dict(
        codes=tuple(codes), entry=entry, kind=kind, checks=tuple(checks), lib=lib, side=side, safe=safe, setup=setup
    )


CASES = {
    # PAD003: only the ids are kept from a padded tokenizer call; the fix names the encoding and hands
    # its mask to the model call or the returned features
    # (the model is a parameter: whether it takes `attention_mask=` is not in view, so these are unsafe)
    "f3_model_call_subscript_ids.py": _case(["PAD003"], "score_texts", "model", safe=False),
    "f3_generate_attribute_left.py": _case(["PAD003"], "complete", "generate", side="left", safe=False),
    "f3_encode_max_length_item.py": _case(["PAD003"], "encode_item", "example"),
    "f3_numpy_ids_dict.py": _case(["PAD003"], "collate_np", "texts", lib="numpy"),
    "f3_lambda_encoder_walrus.py": _case(["PAD003"], "encode_for_classifier", "texts"),
    # PAD001 over ids whose tokenizer mask was dropped: keep the tokenizer's mask
    "f1_example_mask_dropped_lists.py": _case(["PAD001"], "encode_example", "example", lib="lists"),
    # PAD001 over a row rebound to its padded self: the mask is built where the row is padded
    "f1_rebound_row_list_ones.py": _case(["PAD001"], "encode_example", "example", lib="lists"),
    # PAD009: rows padded in a map function without a mask, padded again by `tokenizer.pad`: the mask is
    # built where the rows are padded (a loop that appends them, a comprehension) and returned with them
    "f9_loop_left_pad_rows.py": _case(["PAD009"], "collate_texts", "texts", side="left"),
    "f9_comprehension_rows_right.py": _case(["PAD009"], "collate_texts", "texts"),
    # PAD006: targets tokenized with padding become labels; masked by the targets' own mask: after a
    # joint `tok(texts, text_target=...)` call, and where the labels are stored (rows unknown: numpy)
    "f6_text_target_joint_batched.py": _case(["PAD006"], "preprocess", "batch", checks=("labels",), lib="lists"),
    "f6_text_target_separate_rows_unknown.py": _case(
        ["PAD006"], "preprocess", ("batch", "example"), checks=("labels",), lib="numpy"
    ),
    # PAD002, the seed bug: `enc["labels"] = enc["input_ids"].copy()` in a map function; its `batched=`
    # decides the shape when the map call is in view, else a form right for one row and for a batch
    "f2_seed_map_batched_in_view.py": _case(["PAD002"], "tokenize", "batch", checks=("labels",), lib="lists"),
    "f2_seed_map_batched_unknown.py": _case(
        ["PAD002"], "tokenize", ("batch", "example"), checks=("labels",), lib="numpy"
    ),
    # PAD004: DataCollatorForLanguageModeling(mlm=False) with pad = EOS; the (unsafe) fix collates with
    # labels from the attention mask, so every real EOS keeps its label
    "f4_lm_collator_pad_is_eos.py": _case(
        ["PAD004"],
        "make_collator",
        "class",
        checks=("mask", "labels"),
        lib="transformers",
        safe=False,
        setup="configure",
    ),
    # PAD002 (and PAD003) on ids split off their encoding: labels masked by the kept encoding's mask
    "f2_labels_from_split_ids.py": _case(["PAD002", "PAD003"], "lm_batch", "texts", checks=("mask", "labels")),
}


class RecordingModel:
    """A stand-in model: what it was called with comes back as the output."""

    def __call__(self, *args, **kwargs):
        seen = dict(kwargs)
        if args:
            seen.setdefault("input_ids", args[0])
        return seen

    def generate(self, *args, **kwargs):
        return self(*args, **kwargs)


def call(module, case, tokenizer):
    """Run the case's entry on the ragged batch: (real token rows, one output with a row per text, raw outputs)."""
    if case["setup"]:
        tokenizer = getattr(module, case["setup"])(tokenizer) or tokenizer
    real = [tokenizer.encode(t) for t in TEXTS]
    entry = getattr(module, case["entry"])
    kind = case["kind"]
    if kind in ("model", "generate"):  # entry(texts, tokenizer, model): what the model received
        out = entry(list(TEXTS), tokenizer, RecordingModel())
    elif kind == "texts":
        out = entry(list(TEXTS), tokenizer)
    elif kind == "class":  # entry(tokenizer)(features)
        out = entry(tokenizer)([{"input_ids": list(r)} for r in real])
    elif kind == "features":
        out = entry([{"input_ids": list(r)} for r in real], tokenizer)
    elif kind == "batch":
        out = entry({"text": list(TEXTS)}, tokenizer)
    elif kind == "example":
        outs = [entry({"text": t}, tokenizer) for t in TEXTS]
        keys = [k for k in ("input_ids", "attention_mask", "labels") if k in outs[0]]
        return real, {k: [as_rows(o[k])[0] for o in outs] for k in keys}, outs
    else:
        raise AssertionError(f"unknown kind {kind}")
    return real, out, [out]


def run_fixed(source: str, name: str, case, tmp_path: Path, tag: str) -> dict[str, list[str]]:
    path = tmp_path / f"{Path(name).stem}_{tag}.py"
    path.write_text(source)
    results = {}
    kinds = case["kind"] if isinstance(case["kind"], tuple) else (case["kind"],)
    for label, pad_is_eos in (("pad!=eos", False), ("pad==eos", True)):
        results[label] = []
        for kind in kinds:  # a map function whose `batched=` is not in view: one row and a batch
            try:
                module = load_module(path, f"padlint_shapes_{Path(name).stem}_{tag}_{int(pad_is_eos)}")
                real, out, raw = call(module, {**case, "kind": kind}, StandInTokenizer(pad_is_eos=pad_is_eos))
                results[label] += structure_errors(raw, case) + invariant_errors(real, out, case)
            except Exception as exc:  # a fix that breaks the code fails the check
                results[label].append(f"{kind}: raised {type(exc).__name__}: {exc}")
    return results


def _require(case):
    if case["lib"] != "lists":
        pytest.importorskip("numpy" if case["lib"] == "numpy" else "torch")
    if case["lib"] == "transformers":  # the original runs a transformers collator (CI may not have it)
        pytest.importorskip("transformers")


def _explain(name, source, results) -> str:
    lines = [f"{name}:", *(f"  {k}: {'; '.join(v) or 'ok'}" for k, v in results.items()), "---- fixed ----", source]
    return "\n".join(lines)


NAMES = sorted(CASES)


# Fixes that depend on something out of view (issue 12): what a loss elsewhere ignores, whether a value
# >= 0 is a real class. No safe fix may change these; an unsafe one may.
OUT_OF_VIEW = {
    # a collator's unit test asserts the label pad value it chose
    "s6_collator_unit_test_minus_one.py": "PAD006",
    # a tagging loss over classes that include 0: `ignore_index=0` would skip every class-0 target
    "s7_tagging_loss_class_zero.py": "PAD007",
}


# A loss that ignores -100 is not moved to ignore a token or class id: labels out of view hold -100 too.
NO_FIX_AT_ALL = {"s7_tagging_loss_class_zero.py"}


def test_every_shape_fixture_is_described():
    assert {p.name for p in SHAPES_DIR.glob("*.py")} == set(CASES) | set(OUT_OF_VIEW)


@pytest.mark.parametrize("name", sorted(OUT_OF_VIEW))
def test_no_safe_fix_depends_on_what_is_out_of_view(name):
    source = (SHAPES_DIR / name).read_text()
    [finding] = [d for d in lint_source(source, name) if d.code == OUT_OF_VIEW[name]]
    assert fix_source(source, name, unsafe=False).source == source
    if name in NO_FIX_AT_ALL:
        assert finding.fix is None and "-100" in finding.no_fix
        return
    assert finding.fix is not None and finding.fix.applicability.value == "unsafe"
    assert fix_source(source, name, unsafe=True).source != source


def test_the_collator_unit_test_still_passes_after_safe_fixes(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    name = "s6_collator_unit_test_minus_one.py"
    path = tmp_path / name
    path.write_text(fix_source((SHAPES_DIR / name).read_text(), name, unsafe=False).source)
    module = load_module(path, "padlint_shapes_unit_collator")
    batch = module.check_collator_pads_labels_with_minus_one(StandInTokenizer())
    assert batch["labels"][1][-1] == -1


@pytest.mark.parametrize("name", NAMES)
def test_shape_is_flagged_and_buggy(name, tmp_path):
    case = CASES[name]
    source = (SHAPES_DIR / name).read_text()
    codes = {d.code for d in lint_source(source, name)}
    assert set(case["codes"]) <= codes, f"{name}: expected {case['codes']}, found {sorted(codes)}"
    _require(case)
    results = run_fixed(source, name, case, tmp_path, "orig")
    assert any(results.values()), f"{name} is not buggy under the harness"


@pytest.mark.parametrize("name", NAMES)
def test_safe_fix_is_right_when_run(name, tmp_path):
    case = CASES[name]
    _require(case)
    source = (SHAPES_DIR / name).read_text()
    outcome = fix_source(source, name, unsafe=False)
    assert outcome.error is None, outcome.error
    if outcome.source == source:
        assert not case["safe"], f"{name}: no safe fix applied; remaining {[d.code for d in outcome.remaining]}"
        pytest.skip("only an unsafe fix exists")
    results = run_fixed(outcome.source, name, case, tmp_path, "safe")
    if any(results.values()):  # a safe fix must be right for pad != EOS and pad == EOS alike
        pytest.fail(_explain(name, outcome.source, results), pytrace=False)
    left = [d.code for d in outcome.remaining if d.code in case["codes"]]
    assert not left or not case["safe"], f"{name}: still flagged {left}\n{outcome.source}"


@pytest.mark.parametrize("name", NAMES)
def test_unsafe_fix_is_right_when_pad_is_not_eos(name, tmp_path):
    case = CASES[name]
    _require(case)
    source = (SHAPES_DIR / name).read_text()
    outcome = fix_source(source, name, unsafe=True)
    assert outcome.error is None and outcome.source != source, f"{name}: no fix applied"
    results = run_fixed(outcome.source, name, case, tmp_path, "unsafe")
    if results["pad!=eos"] or (case["setup"] and results["pad==eos"]):
        pytest.fail(_explain(name, outcome.source, results), pytrace=False)
    assert not [d for d in outcome.remaining if d.code in case["codes"]], outcome.source
