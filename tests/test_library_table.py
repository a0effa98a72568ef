"""The library table (padlint/semantics/table.py): every row is data that cites where it was checked,
and the analysis reads its names from it (no second spelling of a library fact elsewhere)."""

from __future__ import annotations

import re
from collections import Counter

from padlint.analysis import patterns as P
from padlint.analysis import shape_ops
from padlint.look import padding_features
from padlint.semantics import table as T

# "<library> <version>, <file>.py <function>" (several sources are separated by "; ").
CITATION = re.compile(
    r"^(torch|transformers|trl|numpy|keras|datasets|tqdm|CPython|peft|petals|accelerate|transformer_lens|opacus) \d+\.\d+\.\d+(\.post\d+)?, [\w/.]+\.(py|c)\b"
)


def test_every_row_names_the_version_and_file_it_was_checked_against():
    for row in T.ROWS:
        first_source = row.checked.split(";")[0]
        assert CITATION.match(first_source), row.checked


def test_a_name_belongs_to_one_row_of_its_kind_of_callee():
    seen = Counter((row.on, name) for row in T.ROWS for name in row.match)
    assert [key for key, n in seen.items() if n > 1] == []


def test_a_bare_class_name_means_at_most_one_row():
    bare = Counter(name.rsplit(".", 1)[-1] for row in T.ROWS if row.bare for name in {*map(str, row.match)})
    for short in bare:
        rows = {id(r) for r in T.ROWS if r.bare and any(n.rsplit(".", 1)[-1] == short for n in r.match)}
        assert len(rows) == 1, short


def test_the_two_lm_collators_are_told_apart_by_qualified_name():
    transformers = T.class_row("transformers.DataCollatorForLanguageModeling")
    trl = T.class_row("trl.DataCollatorForLanguageModeling")
    assert transformers is not None and transformers.kind == "masks_labels"
    assert trl is not None and trl.kind == "pads_labels"
    # Named without an import, the transformers collator is meant (notebook fragments).
    assert T.class_row("DataCollatorForLanguageModeling") is transformers
    assert T.class_row("some_lib.DataCollatorForLanguageModeling") is None


def test_the_analysis_reads_its_library_names_from_the_table():
    assert P.PAD_SEQUENCE == T.names("source", style="sequences")
    assert P.SAME_VALUE_METHODS == T.names("keeps", on="method", style="")  # same positions
    # the shape operations that move them (`ids.t()`, `np.insert`) are read by analysis/shape_ops.py
    assert set(shape_ops.METHODS) == set(T.names("keeps", on="method")) - P.SAME_VALUE_METHODS
    assert set(shape_ops.FUNCTIONS) == set(T.names("keeps")) - P.SAME_VALUE_CALLS
    assert P.IGNORE_VALUE == T.default("torch.nn.functional.cross_entropy", "ignore_index") == -100
    assert set(padding_features.REPADDING_COLLATORS) == set(P.REPADDING_COLLATORS) == T.short_names(repads=True)


def _init_parameters(qualified: str) -> list[str] | None:
    """The parameters of the installed class's `__init__` (without `self`), read from its source
    file (importing transformers takes half a minute); None if not installed or not found there."""
    import ast
    import importlib.util

    module_name, _, class_name = qualified.rpartition(".")
    try:
        spec = importlib.util.find_spec(module_name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    tree = ast.parse(open(spec.origin, encoding="utf-8").read())
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                    return [a.arg for a in item.args.posonlyargs + item.args.args][1:]
    return None  # re-exported from another module: its own spelling is checked


def test_wiring_rows_are_table_rows_whose_positions_match_the_installed_source():
    """The framework wiring (analysis/wiring.py) reads the table; where the library is installed,
    each role's keyword sits at the position the row says (the signature without `self`)."""
    import pytest

    from padlint.analysis import wiring

    assert not [n for n in vars(wiring) if n.isupper() and len(n) > 1 and n != "EMPTY"], "no second table"
    checked = 0
    for row in T.ROWS:
        if row.kind != "wiring" or row.on != "class":
            continue
        for qualified in row.match:
            assert T.wiring_row(qualified) is row
            parameters = _init_parameters(qualified)
            if parameters is None:
                continue
            for keyword, position in row.roles.values():
                assert parameters.index(keyword) == position, (qualified, keyword)
            checked += 1
    if not checked:
        pytest.skip("neither torch nor transformers is installed")
    assert T.wiring_row("torch.utils.data.DataLoader").style == "loader"
    assert T.wiring_row("torch.cat") is None  # a row of another kind is not wiring


def test_only_the_sequence_to_sequence_tokenizers_end_every_text_with_eos():
    # the tokenizers that need pad = EOS (no pad token of their own) add no EOS by default
    assert T.appends_eos("transformers.T5TokenizerFast") and T.appends_eos("transformers.MarianTokenizer")
    assert T.appends_eos("transformers.AutoModelForSeq2SeqLM") and T.appends_eos("T5ForConditionalGeneration")
    assert not T.appends_eos("transformers.GPT2TokenizerFast") and not T.appends_eos("transformers.AutoTokenizer")
    assert not T.appends_eos("transformers.AutoModelForCausalLM")
    assert not T.appends_eos("transformers.ProphetNetForConditionalGeneration")  # ends a text with [SEP]
