"""A parameter's literal where every call in view fixes it (fixtures are our own): the padding a dataset's
constructor defaults to (`padding="max_length"`, stored as `self.padding`, read in `__getitem__`), a
function's default left by each of its calls, a construction in another module of the project. Before,
`padding=self.padding` and `padding=padding` were unknown, so padded ids copied into labels went
unreported. Calls that hand different values, or callers out of view, fix nothing.

Also: in `__getitem__(self, idx)`, a text read by the index it is handed (`self.rows[idx]["text"]`, or
through `row = self.rows[idx]`) is one example's text: padded to its longest, it pads nothing.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from standin_tokenizer import EOS_ID, StandInTokenizer  # noqa: E402
from test_fix_execution import load_module  # noqa: E402

from padlint.engine import fix_source, lint_source  # noqa: E402

DATASET = """
    from torch.utils.data import Dataset


    class PromptSet(Dataset):
        def __init__(self, rows, tokenizer, width=16, padding="max_length"):
            self.rows = rows
            self.tokenizer = tokenizer
            self.width = width
            self.padding = padding

        def __len__(self):
            return len(self.rows)

        def __getitem__(self, idx):
            enc = self.tokenizer(
                self.rows[idx], max_length=self.width, padding=self.padding, truncation=True, return_tensors="pt"
            )
            ids = enc["input_ids"].squeeze(0)
            return {"input_ids": ids, "attention_mask": enc["attention_mask"].squeeze(0), "labels": ids.clone()}
"""

BUILT_WITH_THE_DEFAULT = (
    DATASET
    + """

    def build(rows, tokenizer):
        return PromptSet(rows, tokenizer, width=8)
"""
)


def codes(source: str, path: str = "data.py") -> list[str]:
    return [d.code for d in lint_source(textwrap.dedent(source), path)]


def test_a_constructor_default_every_construction_leaves_pads_the_labels():
    assert codes(BUILT_WITH_THE_DEFAULT) == ["PAD002"]


def test_constructions_handing_different_paddings_fix_nothing():
    two = (
        DATASET
        + """

    def build(rows, tokenizer):
        return PromptSet(rows, tokenizer, padding=False)


    def build_padded(rows, tokenizer):
        return PromptSet(rows, tokenizer)
"""
    )
    assert codes(two) == []


def test_a_class_constructed_nowhere_in_view_has_its_callers_out_of_view():
    assert codes(DATASET) == []


def test_a_class_that_makes_instances_of_itself_without_its_name_fixes_nothing():
    factory = BUILT_WITH_THE_DEFAULT.replace(
        "        def __len__(self):",
        "        @classmethod\n        def unpadded(cls, rows, tokenizer):\n"
        "            return cls(rows, tokenizer, padding=False)\n\n        def __len__(self):",
    )
    assert factory != BUILT_WITH_THE_DEFAULT
    assert codes(factory) == []


def test_an_attribute_stored_again_elsewhere_fixes_nothing():
    changed = BUILT_WITH_THE_DEFAULT.replace(
        "        def __len__(self):",
        "        def unpad(self):\n            self.padding = False\n\n        def __len__(self):",
    )
    assert changed != BUILT_WITH_THE_DEFAULT
    assert codes(changed) == []


def test_a_construction_in_an_importer_of_the_project_is_in_view(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "data.py").write_text(textwrap.dedent(DATASET))
    train = """
        from torch.utils.data import DataLoader

        from data import PromptSet


        def main(model, tokenizer, rows, optimizer):
            for batch in DataLoader(PromptSet(rows, tokenizer, width=32), batch_size=4):
                model(**batch).loss.backward()
                optimizer.step()
    """
    (tmp_path / "train.py").write_text(textwrap.dedent(train))
    path = str(tmp_path / "data.py")
    assert codes((tmp_path / "data.py").read_text(), path) == ["PAD002"]
    # the importer asks to pad each example to its own longest: one text, nothing padded
    (tmp_path / "train.py").write_text(textwrap.dedent(train).replace("width=32)", "width=32, padding=True)"))
    assert codes((tmp_path / "data.py").read_text(), path) == []


FUNCTION = """
    def encode(texts, tokenizer, padding="max_length"):
        enc = tokenizer(texts, max_length=32, padding=padding, truncation=True, return_tensors="pt")
        return {"input_ids": enc["input_ids"], "attention_mask": enc["attention_mask"], "labels": enc["input_ids"].clone()}
"""


def test_a_function_default_every_call_leaves_pads_the_labels():
    called = (
        FUNCTION
        + """

    def train(model, tokenizer, texts):
        model(**encode(texts, tokenizer)).loss.backward()
"""
    )
    assert codes(called) == ["PAD002"]
    assert codes(called.replace("encode(texts, tokenizer)", "encode(texts, tokenizer, padding=False)")) == []


def test_a_function_no_call_in_view_reaches_holds_no_known_padding():
    assert codes(FUNCTION) == []


ONE_EXAMPLE = """
    from torch.utils.data import Dataset


    class Captions(Dataset):
        def __init__(self, rows, tokenizer):
            self.rows = rows
            self.tokenizer = tokenizer

        def __len__(self):
            return len(self.rows)

        def __getitem__(self, idx):
            enc = self.tokenizer(self.rows[idx]["caption"], padding=True, return_tensors="pt")
            ids = enc["input_ids"].squeeze(0)
            return {"input_ids": ids, "attention_mask": enc["attention_mask"].squeeze(0), "labels": ids.clone()}
"""


def test_one_example_read_by_its_index_is_one_text_padded_to_its_own_length():
    assert codes(ONE_EXAMPLE) == []
    through_a_name = ONE_EXAMPLE.replace(
        'enc = self.tokenizer(self.rows[idx]["caption"],',
        'row = self.rows[idx]\n            enc = self.tokenizer(row["caption"],',
    )
    assert through_a_name != ONE_EXAMPLE
    assert codes(through_a_name) == []


def test_texts_gathered_over_several_indices_are_still_a_batch():
    several = ONE_EXAMPLE.replace(
        'self.tokenizer(self.rows[idx]["caption"],',
        'self.tokenizer([r["caption"] for r in self.rows[idx : idx + 4]],',
    )
    assert several != ONE_EXAMPLE
    assert codes(several) == ["PAD002"]


def test_the_fix_masks_exactly_the_pads_when_run(tmp_path):
    torch = pytest.importorskip("torch")
    fixed = fix_source(textwrap.dedent(BUILT_WITH_THE_DEFAULT), "data.py").source
    assert "-100" in fixed and codes(fixed) == []
    path = tmp_path / "prompts.py"
    path.write_text(fixed)
    module = load_module(path, "prompts_fixed")
    tokenizer = StandInTokenizer()
    texts = ["a dog", "two cats on a mat", "rain"]
    dataset = module.build(texts, tokenizer)
    for i, text in enumerate(texts):
        item = dataset[i]
        ids, labels = item["input_ids"], item["labels"]
        real = len(text.split()) + 1  # the words and EOS
        assert ids.shape[0] == 8  # padded to the width the construction hands
        assert labels[:real].tolist() == ids[:real].tolist() and labels[real - 1].item() == EOS_ID
        assert (labels[real:] == -100).all()
        assert torch.equal(labels != -100, item["attention_mask"].bool())
