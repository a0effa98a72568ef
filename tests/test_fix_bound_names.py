"""A fix never reads a name that is not bound where its code runs (it would raise NameError)."""

from __future__ import annotations

import importlib.util
import textwrap

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from padlint.engine import fix_source, lint_source
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


def _check(code: str) -> list[str]:
    module = cst.parse_module(TRAINER)
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    ones = next(n for n in positions if isinstance(n, cst.Call) and module.code_for_node(n) == "torch.ones_like(ids)")
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
