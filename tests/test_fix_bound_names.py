"""A fix never reads a name that is not bound where its code runs (it would raise NameError)."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path

import libcst as cst
import pytest
import torch
from libcst.metadata import MetadataWrapper, PositionProvider

from padlint.engine import fix_source, lint_source  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from rule_fixture_runner import load_fixture  # noqa: E402
from standin_tokenizer import PAD_ID  # noqa: E402

from padlint.rules import attention_mask_all_ones
from padlint.rules.base import FixProposal
from padlint.rules.bound_names import NameCheck, bound_by, read_by
from padlint.types import Applicability

TRAINER = textwrap.dedent(
    """
    import torch

    LIMIT = 8


    class Tuner:
        width = 4

        def encode(self, texts):
            model_inputs = self.tokenizer(texts, padding=True, return_tensors="pt")
            return model_inputs

        def step(self, ids, lengths):
            before = ids.size(1)
            mask = torch.ones_like(ids)
            after = before + 1
            return self.model(input_ids=ids, attention_mask=mask)
    """
)


def _check(code: str, source: str = TRAINER, replaced: str = "torch.ones_like(ids)") -> list[str]:
    """The names `code`, written over the call `replaced` of `source`, reads that are not bound there."""
    module = cst.parse_module(source)
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    ones = next(n for n in positions if isinstance(n, cst.Call) and module.code_for_node(n) == replaced)
    return NameCheck(module, positions).unbound([(ones, code)])


@pytest.mark.parametrize(
    "code, missing",
    [
        ('model_inputs["attention_mask"]', ["model_inputs"]),  # bound in another method only
        ("(ids != width).long()", ["width"]),  # a class attribute is not visible in a method
        ("(ids != after).long()", ["after"]),  # a local bound only after the edit point
        ("(ids != before).long()", []),  # a local bound before it
        ("(torch.arange(ids.size(1))[None, :] < lengths[:, None]).long()", []),  # parameters, a module import
        ("torch.tensor([[int(t < LIMIT) for t in row] for row in ids.tolist()])", []),  # comprehension variables
    ],
)
def test_names_a_fix_reads_must_be_bound_at_the_edit(code, missing):
    assert _check(code) == missing


def test_names_the_fix_binds_itself_count_as_bound():
    setup = "positions = torch.arange(ids.size(1))\n        "
    code = "(positions[None, :] < lengths[:, None]).long()"
    assert bound_by(setup) == {"positions"}
    assert "positions" in read_by(code) and "None" not in read_by(code)
    assert read_by("f(a, key=b.c)") == {"f", "a", "b"}


def test_engine_drops_a_fix_that_would_raise_name_error(monkeypatch, tmp_path):
    def reads_another_methods_name(self, facts, event):
        return FixProposal(Applicability.SAFE, "mask", ((event.ones.node, 'model_inputs["attention_mask"]'),))

    source = textwrap.dedent(
        """
        import torch
        from torch.nn.utils.rnn import pad_sequence


        class Tuner:
            def encode(self, texts):
                model_inputs = self.tokenizer(texts, padding=True, return_tensors="pt")
                return model_inputs

            def step(self, rows):
                ids = pad_sequence([torch.tensor(r) for r in rows], batch_first=True, padding_value=0)
                mask = torch.ones_like(ids)
                return self.model(input_ids=ids, attention_mask=mask)
        """
    )
    monkeypatch.setattr(attention_mask_all_ones.AttentionMaskAllOnes, "fix", reads_another_methods_name)
    [finding] = [d for d in lint_source(source, "tuner.py") if d.code == "PAD001"]
    assert finding.fix is None
    assert "model_inputs" in finding.no_fix
    assert fix_source(source, "tuner.py", unsafe=True).source == source


SCOPES = textwrap.dedent(
    """
    import torch

    SEEN = 0


    def outer(rows, pad_id):
        width = max(len(r) for r in rows)

        def fill(row):
            global SEEN
            nonlocal width
            SEEN += 1
            return [t
                    for t in row]

        scale = lambda row, k=2: [x * k for x in row]
        if (n := len(rows)) > 1:
            total = n
        return fill, scale
    """
)


@pytest.mark.parametrize(
    "anchor, code, missing",
    [
        ("t", "[t != pad_id]", []),  # a comprehension's variable, bound on a later line than its element
        ("SEEN += 1", "SEEN + width + pad_id", []),  # global, nonlocal, a parameter of the enclosing function
        ("SEEN += 1", "scale", []),  # a local of the enclosing function, bound after the inner def
        ("[x * k for x in row]", "[x * k for x in row if k]", []),  # a lambda's parameters
        ("total = n", "n + total", []),  # `:=` binds in the function, on an earlier line
        ("total = n", "later", ["later"]),  # never bound
        ("return fill, scale", "r", ["r"]),  # a generator's variable is not the function's
    ],
)
def test_scopes_follow_python_lookup(anchor, code, missing):
    module = cst.parse_module(SCOPES)
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    node = next(n for n in positions if module.code_for_node(n).strip() == anchor)
    assert NameCheck(module, positions, SCOPES).unbound([(node, code)]) == missing


def test_a_subscript_target_binds_none_of_the_names_it_reads(tmp_path):
    """`labels[i, : len(p)] = -100` stores into `labels`; it binds neither `len` nor `labels` nor `p`: a fix
    that builds lengths with `len` before that line is not refused as reading an unbound local."""
    torch = pytest.importorskip("torch")
    source = textwrap.dedent(
        """
        import torch
        from torch.nn.utils.rnn import pad_sequence


        def collate(examples, pad_id):
            seqs = [torch.tensor(e["prompt"] + e["answer"]) for e in examples]
            input_ids = pad_sequence(seqs, batch_first=True, padding_value=pad_id)
            labels = input_ids.clone()
            for i, e in enumerate(examples):
                labels[i, : len(e["prompt"])] = -100
            return {"input_ids": input_ids, "labels": labels}
        """
    )
    [finding] = [d for d in lint_source(source, "m.py") if d.code == "PAD002"]
    assert finding.fix is not None, finding.no_fix
    path = tmp_path / "prefix_collate.py"
    path.write_text(fix_source(source, "m.py").source)
    spec = importlib.util.spec_from_file_location("padlint_prefix_collate", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    pad_is_eos = 2  # the pad id is the EOS id, which ends every row: a real EOS must keep its label
    examples = [{"prompt": [5], "answer": [6, 7, 2]}, {"prompt": [8, 9], "answer": [2]}]
    out = module.collate(examples, pad_is_eos)
    assert out["labels"].tolist() == [[-100, 6, 7, 2], [-100, -100, 2, -100]]
    assert torch.equal(out["input_ids"], torch.tensor([[5, 6, 7, 2], [8, 9, 2, 2]]))


# ---- a name bound on some paths only is not bound where every path goes on ------------------------------
PATHS = textwrap.dedent(
    """
    import torch

    try:
        encoded = load()
        rows = encoded["input_ids"]
    except OSError:
        rows = fallback()

    if rows is None:
        first = 1
    else:
        first = 2
        only_else = 3

    for row in rows:
        last_row = row

    try:
        kept = load()
    except OSError:
        raise SystemExit("no data")

    mask = torch.ones_like(rows)
    later = 4
    """
)


@pytest.mark.parametrize(
    "code, missing",
    [
        ('encoded["attention_mask"]', ["encoded"]),  # bound in the `try` body, not by the handler
        ("rows != first", []),  # bound by the `try` body and by its handler; by both branches of the `if`
        ("rows != only_else", ["only_else"]),  # bound by one branch
        ("last_row != 0", ["last_row"]),  # bound in a loop body, which may not run
        ("row != 0", ["row"]),  # the loop variable, likewise
        ("rows != kept", []),  # the handler that does not bind it stops the script
        ("rows != later", ["later"]),  # module code runs in order: bound on a later line
    ],
)
def test_a_fix_reads_only_names_bound_on_every_path_to_it(code, missing):
    assert _check(code, PATHS, "torch.ones_like(rows)") == missing


def test_inside_the_block_that_binds_it_a_name_is_bound():
    source = textwrap.dedent(
        """
        import torch

        try:
            encoded = load()
            rows = encoded["input_ids"]
            mask = torch.ones_like(rows)
        except OSError:
            pass
        """
    )
    assert _check('encoded["attention_mask"]', source, "torch.ones_like(rows)") == []


SCRIPT_WITH_FALLBACK = textwrap.dedent(
    """
    from transformers import AutoModelForCausalLM, AutoTokenizer

    CORPUS = "corpus.txt"
    tokenizer = AutoTokenizer.from_pretrained("my-org/decoder")
    model = AutoModelForCausalLM.from_pretrained("my-org/decoder")

    try:
        texts = open(CORPUS).read().splitlines()
        encoded = tokenizer(texts, truncation=True, max_length=32, padding="max_length", return_tensors="pt")
        dataset = {"input_ids": encoded["input_ids"]}
    except OSError:
        dataset = tokenizer(["a b", "c"], truncation=True, max_length=32, padding="max_length", return_tensors="pt")

    input_ids = dataset["input_ids"]
    for start in range(0, len(input_ids), 4):
        batch_ids = input_ids[start : start + 4]
        labels = batch_ids.clone()
        out = model(input_ids=batch_ids, labels=labels)
    """
)


def test_no_fix_reads_the_encoding_that_one_path_of_a_script_never_makes():
    # The fallback path binds `dataset` only: a fix reading `encoded` there raises NameError.
    [finding] = [d for d in lint_source(SCRIPT_WITH_FALLBACK, "train.py") if d.code == "PAD002"]
    assert finding.fix is None
    assert "encoded" in finding.no_fix


def test_the_fix_is_offered_when_every_path_makes_the_encoding(tmp_path):
    both = SCRIPT_WITH_FALLBACK.replace(
        '    dataset = tokenizer(["a b", "c"],', '    encoded = dataset = tokenizer(["a b", "c"],'
    )
    [finding] = [d for d in lint_source(both, "train.py") if d.code == "PAD002"]
    assert finding.fix is not None
    fixed = fix_source(both, "train.py").source
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("a b c d\ne f\ng\n")
    for path, tag in ((corpus, "read"), (tmp_path / "missing.txt", "fallback")):  # both paths run
        source = fixed.replace('CORPUS = "corpus.txt"', f"CORPUS = {str(path)!r}")
        _, models = load_fixture(source, tmp_path / f"script_{tag}.py", f"padlint_script_{tag}", pad_is_eos=False)
        [call] = models[-1].calls[:1]
        ids, labels = call["input_ids"], call["labels"]
        assert torch.equal(labels == -100, ids == PAD_ID)  # -100 exactly at the pads, the rest kept
        assert torch.equal(labels[ids != PAD_ID], ids[ids != PAD_ID])
