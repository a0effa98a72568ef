"""Load a rule fixture (tests/fixtures/rules/PADnnn/*.py), fixed or not, and run it on the ragged batch.

Rule fixtures are shaped like real code: some load a tokenizer or a model at import time
(`AutoTokenizer.from_pretrained(...)`). While a fixture is imported here, `transformers` is a stand-in
module whose `from_pretrained` hands out the run's stand-in tokenizer (a fresh one per call, as two
checkpoints give two tokenizers) or a recording model; nothing is downloaded. Fixed code that names
another transformers class (a collator the fix swaps in) gets the real one when it is installed.
"""

from __future__ import annotations

import importlib.util
import sys
import types
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from standin_tokenizer import PAD_ID, PAD_TOKEN, StandInTokenizer
from test_fix_execution import invariant_errors, load_module, structure_errors

from padlint.engine import fix_source, lint_source

RULE_FIXTURES = Path(__file__).parent / "fixtures" / "rules"


class StandInCheckpointTokenizer(StandInTokenizer):
    """A stand-in tokenizer that also takes `add_special_tokens({"pad_token": ...})`."""

    def add_special_tokens(self, tokens: dict) -> int:
        if tokens.get("pad_token") == PAD_TOKEN:
            self.pad_token = PAD_TOKEN
            self.pad_token_id = PAD_ID
        return 0


class RecordingEncoder:
    """A stand-in model: records each call's arguments (positional ids as `input_ids`) and answers
    with zero hidden states and logits of the ids' shape, and `generate` with the ids it was given."""

    def __init__(self):
        self.calls: list[dict] = []
        self.encoder = self  # `seq2seq.encoder(...)`: the encoder half is a model too

    def _record(self, args, kwargs) -> dict:
        seen = dict(kwargs)
        if args:
            seen.setdefault("input_ids", args[0])
        self.calls.append(seen)
        return seen

    def __call__(self, *args, **kwargs):
        import torch

        ids = self._record(args, kwargs)["input_ids"]
        hidden = torch.zeros(*ids.shape, 4)
        return types.SimpleNamespace(last_hidden_state=hidden, logits=hidden)

    def generate(self, *args, **kwargs):
        return self._record(args, kwargs)["input_ids"]

    def eval(self):
        return self


def _stand_in_transformers(
    pad_is_eos: bool, models: list[RecordingEncoder], overrides: dict | None = None
) -> types.ModuleType:
    real = None
    if importlib.util.find_spec("transformers") is not None:
        import transformers as real

    class Checkpoint:
        def __init__(self, name: str):
            self.name = name

        def from_pretrained(self, *_, padding_side: str = "right", **__):
            if "Tokenizer" in self.name:
                return StandInCheckpointTokenizer(pad_is_eos=pad_is_eos, padding_side=padding_side)
            model = RecordingEncoder()
            models.append(model)
            return model

    def attribute(name: str):
        if overrides and name in overrides:
            return overrides[name]
        if name.startswith("Auto"):
            return Checkpoint(name)
        if real is not None:
            return getattr(real, name)
        raise AttributeError(name)

    module = types.ModuleType("transformers")
    module.__getattr__ = attribute  # PEP 562: `from transformers import X` asks the module for X
    return module


@contextmanager
def _modules_stood_in(stand_ins: dict[str, types.ModuleType]):
    saved = {name: sys.modules.get(name) for name in stand_ins}
    sys.modules.update(stand_ins)
    try:
        yield
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


def load_fixture(source: str, path: Path, name: str, pad_is_eos: bool, stand_ins: dict[str, dict] | None = None):
    """Write `source` to `path`, import it with the stand-in `transformers`: (module, models it loaded).

    `stand_ins`: attributes of other modules the fixture imports (`{"datasets": {"load_dataset": ...}}`),
    and of `transformers` beyond its Auto classes (`{"transformers": {"Trainer": ...}}`)."""
    path.write_text(source)
    models: list[RecordingEncoder] = []
    stand_ins = dict(stand_ins or {})
    modules = {"transformers": _stand_in_transformers(pad_is_eos, models, stand_ins.pop("transformers", None))}
    for module_name, attributes in stand_ins.items():
        modules[module_name] = types.ModuleType(module_name)
        modules[module_name].__dict__.update(attributes)
    with _modules_stood_in(modules):
        module = load_module(path, name)
    return module, models


# ---- a case, and the three checks every case gets ------------------------------------------------------


@dataclass
class Case:
    """How to run one rule fixture. `run(module, tokenizer, models)` calls it and returns (real token
    rows, one output dict with a row per text); `checks`, `side` and `lib` as in test_fix_execution.py
    ("transformers": the fixture runs a transformers class); `stand_ins()` gives `load_fixture`'s."""

    codes: tuple[str, ...]
    run: Callable
    checks: tuple[str, ...] = ("mask",)
    side: str = "right"
    safe: bool = True  # False: only an unsafe fix exists
    eos: bool = False  # the fixture itself makes pad the EOS: an unsafe fix must hold then too
    lib: str = "torch"
    stand_ins: Callable[[], dict] | None = None


def _require(case: Case) -> None:
    pytest.importorskip("torch")  # the fixtures import it, whatever container their batch is in
    if case.lib in ("numpy", "transformers"):
        pytest.importorskip(case.lib)


def _run(source: str, name: str, case: Case, tmp_path: Path, tag: str) -> dict[str, list[str]]:
    results = {}
    for label, pad_is_eos in (("pad!=eos", False), ("pad==eos", True)):
        stem = f"{Path(name).stem}_{tag}_{int(pad_is_eos)}"
        try:
            stand_ins = case.stand_ins() if case.stand_ins else None
            module, models = load_fixture(
                source, tmp_path / f"{stem}.py", f"padlint_rule_fixture_{stem}", pad_is_eos, stand_ins
            )
            real, out = case.run(module, StandInTokenizer(pad_is_eos=pad_is_eos), models)
            checked = {"checks": case.checks, "side": case.side}
            results[label] = structure_errors([out], checked) + invariant_errors(real, out, checked)
        except Exception as exc:  # a fix that breaks the code fails the check
            results[label] = [f"raised {type(exc).__name__}: {exc}"]
    return results


def _explain(name: str, source: str, results: dict[str, list[str]]) -> str:
    lines = [f"{name}:", *(f"  {k}: {'; '.join(v) or 'ok'}" for k, v in results.items()), "---- source ----", source]
    return "\n".join(lines)


def check_unfixed(name: str, case: Case, tmp_path: Path) -> None:
    """The fixture is reported, and breaks an invariant under the harness without raising."""
    _require(case)
    source = (RULE_FIXTURES / name).read_text()
    codes = {d.code for d in lint_source(source, name)}
    assert set(case.codes) <= codes, f"{name}: expected {case.codes}, found {sorted(codes)}"
    results = _run(source, name, case, tmp_path, "orig")
    assert any(results.values()), f"{name} is not buggy under the harness"
    if any(e.startswith("raised") for errors in results.values() for e in errors):
        pytest.fail(_explain(name, source, results), pytrace=False)


def check_safe_fix(name: str, case: Case, tmp_path: Path) -> None:
    """The safe fix is right for both tokenizers, and leaves no finding of the case's codes."""
    _require(case)
    source = (RULE_FIXTURES / name).read_text()
    outcome = fix_source(source, name, unsafe=False)
    if outcome.source == source and not case.safe:
        pytest.skip("only an unsafe fix exists")
    assert outcome.source != source, f"{name}: no safe fix was applied"
    results = _run(outcome.source, name, case, tmp_path, "safe")
    if any(results.values()):
        pytest.fail(_explain(name, outcome.source, results), pytrace=False)
    left = [(d.code, d.location.row) for d in outcome.remaining if d.code in case.codes]
    assert not case.safe or not left, f"{name}: still flagged after the safe fix: {left}"


def check_unsafe_fix(name: str, case: Case, tmp_path: Path) -> None:
    """The unsafe fixes are right with pad != EOS, and with pad == EOS where the fixture makes it so."""
    _require(case)
    source = (RULE_FIXTURES / name).read_text()
    outcome = fix_source(source, name, unsafe=True)
    assert outcome.source != source, f"{name}: no fix was applied with unsafe=True"
    results = _run(outcome.source, name, case, tmp_path, "unsafe")
    if results["pad!=eos"] or (case.eos and results["pad==eos"]):
        pytest.fail(_explain(name, outcome.source, results), pytrace=False)


def case_tests(cases: dict[str, Case]) -> tuple[Callable, Callable, Callable]:
    """The three tests of a module's cases, parametrized by fixture: bind them to `test_*` names there."""
    names = sorted(cases)

    @pytest.mark.parametrize("name", names)
    def unfixed(name, tmp_path):
        check_unfixed(name, cases[name], tmp_path)

    @pytest.mark.parametrize("name", names)
    def safe_fix(name, tmp_path):
        check_safe_fix(name, cases[name], tmp_path)

    @pytest.mark.parametrize("name", names)
    def unsafe_fix(name, tmp_path):
        check_unsafe_fix(name, cases[name], tmp_path)

    return unfixed, safe_fix, unsafe_fix
