"""Rule fixtures about the loss (PAD007, PAD011) and about labels aliasing the ids (PAD012), fixed and run
as they are (see test_fix_execution_rule_fixtures.py for the batch fixtures).

- PAD007: the fixed loss equals the mean cross-entropy over the real targets and does not move when the
  logits at pad positions change; the original fails or grades the padding.
- PAD011: the fixed loss is the mean of the per-token loss over the real tokens (not over every
  position), also for a batch without a real token (0, not NaN).
- PAD012: after the fix, the write into the labels no longer reaches the ids: the ids the model or the
  batch gets are the tokenizer's, the labels are -100 where the fixture writes it, and the fixed code
  runs on what the tokenizer returns (lists, not tensors, when no `return_tensors` is asked for).
"""

from __future__ import annotations

import importlib
import shutil
import sys
import types
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from rule_fixture_runner import RULE_FIXTURES, load_fixture  # noqa: E402
from standin_tokenizer import StandInTokenizer  # noqa: E402
from test_fix_execution import TEXTS  # noqa: E402

from padlint.engine import fix_source, lint_source  # noqa: E402

# ragged target rows of a small vocabulary; token 0 is also a real target
ROWS = [[5, 0, 7, 3], [2, 9], [4]]
VOCAB = 11


def _fixed(name: str, code: str, unsafe: bool = False) -> tuple[str, str]:
    source = (RULE_FIXTURES / name).read_text()
    assert code in {d.code for d in lint_source(source, name)}, f"{name}: {code} is not reported"
    outcome = fix_source(source, name, unsafe=unsafe)
    assert outcome.source != source, f"{name}: no fix was applied (unsafe={unsafe})"
    assert not [d for d in outcome.remaining if d.code == code], f"{name}: still flagged\n{outcome.source}"
    return source, outcome.source


def _load(source: str, tmp_path: Path, tag: str):
    module, _ = load_fixture(source, tmp_path / f"{tag}.py", f"padlint_rule_loss_{tag}", pad_is_eos=False)
    return module


class LogitsModel:
    """A stand-in model whose logits are fixed in advance; records what it was called with."""

    def __init__(self, logits):
        self.logits = logits
        self.calls: list[dict] = []

    def __call__(self, *args, **kwargs):
        self.calls.append(dict(kwargs, args=args))
        return types.SimpleNamespace(logits=self.logits, aux=0.0)


def _mean_ce(torch, logits, targets, real):
    """Mean cross-entropy over the positions where `real` is true."""
    log_probs = torch.log_softmax(logits, dim=-1)
    picked = log_probs.gather(-1, targets.clamp(min=0).unsqueeze(-1)).squeeze(-1)
    return -(picked[real]).mean()


# ---- PAD007 ------------------------------------------------------------------------------------------


def _check_buffer_loss(torch, fixed_loss, original_loss, fixed: str) -> None:
    """`training_loss(model, features, pad_id)` of a label buffer made with -1: the fixed loss is the
    mean over the real targets whatever the logits at the pads are; the original grades -1, no class."""
    features = [{"input_ids": row, "labels": row} for row in ROWS]
    width = max(map(len, ROWS))
    torch.manual_seed(0)
    logits = torch.randn(len(ROWS), width, VOCAB)
    real = torch.tensor([[j < len(row) for j in range(width)] for row in ROWS])
    targets = torch.tensor([row + [0] * (width - len(row)) for row in ROWS])
    expected = _mean_ce(torch, logits, targets, real)

    assert torch.allclose(fixed_loss(LogitsModel(logits), features, 0), expected, atol=1e-6), fixed
    noisy = logits.clone()
    noisy[~real] = torch.randn(int((~real).sum()), VOCAB) * 50
    assert torch.allclose(fixed_loss(LogitsModel(noisy), features, 0), expected, atol=1e-6)
    with pytest.raises((IndexError, RuntimeError)):
        original_loss(LogitsModel(logits), features, 0)


def test_loss_made_to_ignore_the_label_buffer_fill_grades_only_real_targets(tmp_path):
    """Labels written row by row into a buffer of -1: the fixed loss ignores -1."""
    torch = pytest.importorskip("torch")
    source, fixed = _fixed("PAD007/labels_buffer_minus_one_default_loss.py", "PAD007")
    after = _load(fixed, tmp_path, "buffer_fixed").training_loss
    _check_buffer_loss(torch, after, _load(source, tmp_path, "buffer_orig").training_loss, fixed)


def test_loss_made_to_ignore_an_imported_constant_grades_only_real_targets(tmp_path, monkeypatch):
    """The buffer is filled with `IGNORE_INDEX` imported from the project (-1 there). Fixed as a file of
    its project (its path given, so the constant is read), the loss ignores that same name; the fixed
    module runs in a package beside the module of constants."""
    torch = pytest.importorskip("torch")
    path = RULE_FIXTURES / "PAD007" / "imported_sentinel_fills_label_buffer.py"
    source = path.read_text()
    outcome = fix_source(source, str(path))
    assert outcome.source != source and not [d for d in outcome.remaining if d.code == "PAD007"], outcome.source
    package = tmp_path / "project_losses"
    package.mkdir()
    (package / "__init__.py").write_text("")
    shutil.copy(path.parent / "near_shared_constants.py", package)
    (package / "fixed.py").write_text(outcome.source)
    (package / "original.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        fixed_loss = importlib.import_module("project_losses.fixed").training_loss
        original_loss = importlib.import_module("project_losses.original").training_loss
    finally:
        for name in [m for m in sys.modules if m.split(".")[0] == "project_losses"]:
            del sys.modules[name]
    _check_buffer_loss(torch, fixed_loss, original_loss, outcome.source)


def test_loss_built_in_init_ignores_what_forward_masks_labels_with(tmp_path):
    """`nn.CrossEntropyLoss()` made in `__init__` (no arguments to add to): the fix gives it the -1 that
    `forward` writes at the pads of the target encoding."""
    torch = pytest.importorskip("torch")
    source, fixed = _fixed("PAD007/masked_with_minus_one_default_loss.py", "PAD007")
    tokenizer = StandInTokenizer()
    dec = tokenizer(list(TEXTS), padding=True, return_tensors="pt")
    targets, real = dec["input_ids"][:, 1:], dec["attention_mask"][:, 1:].bool()
    torch.manual_seed(0)
    logits = torch.randn(*targets.shape, 1000)  # the stand-in's ids are below 1000
    expected = _mean_ce(torch, logits, targets, real)

    model = LogitsModel(logits)
    fixed_module = _load(fixed, tmp_path, "init_fixed").Seq2SeqModule(model, tokenizer)
    got = fixed_module(list(TEXTS), list(TEXTS))
    assert torch.allclose(got, expected, atol=1e-5), fixed
    original = _load(source, tmp_path, "init_orig").Seq2SeqModule(LogitsModel(logits), tokenizer)
    with pytest.raises((IndexError, RuntimeError)):
        original(list(TEXTS), list(TEXTS))


# ---- PAD011 ------------------------------------------------------------------------------------------


def _lm_batch(torch):
    """The mask of ROWS (1.0 on real tokens), ROWS padded with 0 as labels, random logits, and the mean
    cross-entropy over the real tokens."""
    width = max(map(len, ROWS))
    mask = torch.tensor([[1.0] * len(row) + [0.0] * (width - len(row)) for row in ROWS])
    labels = torch.tensor([row + [0] * (width - len(row)) for row in ROWS])
    torch.manual_seed(0)
    logits = torch.randn(*labels.shape, VOCAB)
    return mask, labels, logits, _mean_ce(torch, logits, labels, mask.bool())


def test_masked_lm_loss_without_torch_imported_divides_by_the_real_tokens(tmp_path):
    """The module imports only `torch.nn.functional`: the count is `max(mask.sum(), 1)`."""
    torch = pytest.importorskip("torch")
    source, fixed = _fixed("PAD011/token_loss_times_mask_mean.py", "PAD011")
    mask, labels, logits, expected = _lm_batch(torch)

    after = _load(fixed, tmp_path, "lm_fixed").masked_lm_loss
    assert torch.allclose(after(logits, labels, mask), expected, atol=1e-6), fixed
    assert after(logits, labels, torch.zeros_like(mask)).item() == 0.0
    before = _load(source, tmp_path, "lm_orig").masked_lm_loss
    assert before(logits, labels, mask).item() < expected.item() - 1e-6


def test_loss_term_of_a_sum_handed_to_accelerator_is_a_mean_over_real_tokens(tmp_path):
    """`(per_token * mask).mean() + aux` inside an expression: the fixed term divides by the real tokens."""
    torch = pytest.importorskip("torch")
    _, fixed = _fixed("PAD011/accelerate_backward_unnamed_total.py", "PAD011")
    mask, labels, logits, expected = _lm_batch(torch)

    handed: list = []
    accelerator = types.SimpleNamespace(backward=handed.append)
    optimizer = types.SimpleNamespace(step=lambda: None, zero_grad=lambda: None)
    model = LogitsModel(logits)
    model.train = lambda: None
    batch = {"input_ids": labels, "attention_mask": mask.long(), "labels": labels}
    _load(fixed, tmp_path, "accelerate_fixed").run_epoch(model, [batch], optimizer, accelerator, aux_weight=0.0)
    assert torch.allclose(handed[0], expected, atol=1e-6), fixed


# ---- PAD012 ------------------------------------------------------------------------------------------


def test_copy_of_list_ids_from_the_tokenizer_keeps_the_prompt_out_of_the_ids(tmp_path):
    """`labels = input_ids` of a tokenizer call without `return_tensors` (lists), then the prompt set to
    -100 in the labels: the fix copies a list (a `.clone()` would raise on it) and the ids stay whole."""
    _, fixed = _fixed("PAD012/list_alias_prompt_loop.py", "PAD012", unsafe=True)
    tokenizer = StandInTokenizer()
    example = {"instruction": "say hello", "output": "hello there"}
    out = _load(fixed, tmp_path, "list_alias_fixed").encode_instruction(example, tokenizer)
    prompt = f"### Instruction:\n{example['instruction']}\n\n### Response:\n"
    ids = tokenizer(prompt + example["output"] + tokenizer.eos_token)["input_ids"]
    n_prompt = len(tokenizer(prompt)["input_ids"])
    assert out["input_ids"] == ids, fixed
    assert out["labels"] == [-100] * n_prompt + ids[n_prompt:]


def test_clone_of_tensor_ids_written_in_one_arm_keeps_the_model_input_whole(tmp_path):
    """The unsafe `.clone()` (the ids' type is not in view): with tensors, the model gets the ids as
    padded and labels with -100 exactly at the pads."""
    torch = pytest.importorskip("torch")
    source, fixed = _fixed("PAD012/alias_written_in_an_arm_read_after.py", "PAD012", unsafe=True)
    enc = StandInTokenizer()(list(TEXTS), padding=True, return_tensors="pt")
    calls: list[dict] = []

    def model(**kwargs):
        calls.append({k: v.clone() for k, v in kwargs.items()})
        return types.SimpleNamespace(loss=torch.zeros(()))

    owner = types.SimpleNamespace(mask_padding=True)
    for tag, code in (("fixed", fixed), ("orig", source)):
        batch = {"completion_input_ids": enc["input_ids"].clone(), "completion_attention_mask": enc["attention_mask"]}
        _load(code, tmp_path, f"arm_{tag}").forward_with_labels(owner, model, batch)
    fixed_call, original_call = calls
    assert torch.equal(fixed_call["input_ids"], enc["input_ids"]), fixed
    expected = enc["input_ids"].masked_fill(enc["attention_mask"] == 0, -100)
    assert torch.equal(fixed_call["labels"], expected)
    assert (original_call["input_ids"] == -100).any()  # the original writes -100 into the ids


def test_copy_of_a_shifted_view_keeps_the_ids_whole(tmp_path):
    """`labels = input_ids[:, 1:]` is a view: the fix copies it, and the ids handed on hold no -100."""
    torch = pytest.importorskip("torch")
    source, fixed = _fixed("PAD012/slice_view_shifted_labels_write.py", "PAD012")
    tokenizer = StandInTokenizer()
    enc = tokenizer(list(TEXTS), padding=True, return_tensors="pt")
    ids, mask = enc["input_ids"], enc["attention_mask"]
    out = _load(fixed, tmp_path, "view_fixed").shifted_lm_batch(tokenizer, list(TEXTS))
    assert torch.equal(out["input_ids"], ids[:, :-1]), fixed
    assert torch.equal(out["labels"], ids[:, 1:].masked_fill(mask[:, 1:] == 0, -100))
    original = _load(source, tmp_path, "view_orig").shifted_lm_batch(tokenizer, list(TEXTS))
    assert (original["input_ids"] == -100).any()
