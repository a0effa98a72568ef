"""A parameter fixed by every caller in view (issue 12): a batch of one, a branch chosen by a constant,
a list of texts tokenized one text per call. Callers in view are the module's own code and the modules
beside it that import the function; a function with no caller in view, or handed on as a value, keeps
its findings. Fixtures are our own."""

from __future__ import annotations

import textwrap
from pathlib import Path

from padlint.engine import lint_source

ENCODE = """
    def render(turns):
        return "".join(f"{t['role']}: {t['text']}\\n" for t in turns)


    def encode(conversations, tokenizer):
        texts = [render(c) for c in conversations]
        input_ids = tokenizer(texts, return_tensors="pt", padding="longest").input_ids
        return dict(input_ids=input_ids, labels=input_ids.clone())
"""

ONE_PER_ITEM = """
    from .encoding import encode


    class Conversations:
        def __init__(self, rows, tokenizer):
            self.rows, self.tokenizer = rows, tokenizer

        def __getitem__(self, i):
            rows = [self.rows[i]]
            assert len(rows) == 1
            out = encode([r["turns"] for r in rows], self.tokenizer)
            return {key: value[0] for key, value in out.items()}
"""


def project(tmp_path: Path, **modules: str) -> Path:
    (tmp_path / "__init__.py").write_text("")
    for name, text in modules.items():
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(text))
    return tmp_path / "encoding.py"


def codes_in(path: Path) -> set[str]:
    return {d.code for d in lint_source(path.read_text(), str(path))}


def test_a_caller_in_a_sibling_module_handing_one_conversation_pads_nothing(tmp_path: Path):
    assert codes_in(project(tmp_path, encoding=ENCODE, dataset=ONE_PER_ITEM)) == set()


def test_with_no_caller_in_view_the_padded_batch_is_reported(tmp_path: Path):
    # library code, or one file linted alone: callers out of view may hand a real batch
    assert {"PAD002", "PAD003"} <= codes_in(project(tmp_path, encoding=ENCODE))
    assert {"PAD002", "PAD003"} <= {d.code for d in lint_source(textwrap.dedent(ENCODE), "-")}


def test_a_sibling_handing_the_function_on_as_a_value_keeps_the_finding(tmp_path: Path):
    table = """
        from .encoding import encode

        ENCODERS = {"chat": encode}
    """
    path = project(tmp_path, encoding=ENCODE, dataset=ONE_PER_ITEM, registry=table)
    assert {"PAD002", "PAD003"} <= codes_in(path)


def test_a_stored_name_after_the_check_is_no_longer_one_conversation(tmp_path: Path):
    regrown = ONE_PER_ITEM.replace(
        "assert len(rows) == 1", "assert len(rows) == 1\n        rows = rows + self.rows[:3]"
    )
    assert regrown != ONE_PER_ITEM
    assert "PAD003" in codes_in(project(tmp_path, encoding=ENCODE, dataset=regrown))


def test_a_one_element_list_made_in_one_branch_only_is_not_known_one(tmp_path: Path):
    branchy = ONE_PER_ITEM.replace(
        "            rows = [self.rows[i]]\n            assert len(rows) == 1\n",
        "            rows = self.rows[i]\n            if isinstance(i, int):\n                rows = [rows]\n",
    )
    assert branchy != ONE_PER_ITEM
    assert "PAD003" in codes_in(project(tmp_path, encoding=ENCODE, dataset=branchy))


PER_TEXT = """
    def encode_each(strings, tokenizer):
        encodings = [tokenizer(s, return_tensors="pt", padding="longest") for s in strings]
        return [e.input_ids for e in encodings]
"""


def test_one_text_per_call_pads_nothing_without_a_type_hint_or_a_caller():
    assert lint_source(textwrap.dedent(PER_TEXT), "case.py") == []


def test_a_caller_handing_lists_of_texts_makes_each_call_a_batch():
    caller = (
        PER_TEXT
        + """
    def embed(model, tokenizer, pages):
        return [model(ids) for ids in encode_each([[p["title"], p["body"]] for p in pages], tokenizer)]
    """
    )
    assert "PAD003" in {d.code for d in lint_source(textwrap.dedent(caller), "case.py")}


def test_a_branch_flag_with_no_caller_in_view_walks_both_arms():
    source = """
    def prepare(texts, tokenizer, model, cached=False):
        if cached:
            ids = texts
        else:
            ids = tokenizer(texts, return_tensors="pt", padding="longest").input_ids
        return model(ids)
    """
    assert "PAD003" in {d.code for d in lint_source(textwrap.dedent(source), "case.py")}
