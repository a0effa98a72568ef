"""Shapes the analysis missed: each buggy fixture is reported, its near-misses stay silent, and the
fix is run on a ragged batch by a stand-in tokenizer (pad != EOS and pad == EOS; mask 1 exactly on
real tokens, a real EOS included; labels -100 exactly on padding).

- PAD005 over plain lists: `[int(t != pad) for t in row]`, `1 if t != pad else 0`, with pad = EOS;
  also a 0/1 choice on an equality (`0 if t == pad else 1`, `np.where(ids == pad, 0, 1)`), the pad id
  written first (`1 - int(pad == t)`), function spellings (`np.not_equal`, `torch.logical_not`), ones
  zeroed at the pad id (`ones.masked_fill(ids == pad, 0)`) and a row of a for loop over padded rows; the fixed mask keeps
  the type of the one it replaces (`ids.ne(pad).long()` casts the whole new comparison).
- PAD001 where a helper pads to a width parameter (`extend_to(ids, widest, fill=pad)`) and the
  caller's mask is `[1] * widest`: the width handed in is the padded width.
- PAD012 where labels alias a padded list row (`label_row = row`) or the rows are written through
  (`labels[i][j] = -100` after `labels = input_ids`): the fix copies what the write reaches.
- PAD002 over rows written into a buffer up to a length named in the loop: a safe fix from the lengths.
- PAD006, not PAD002, where labels are made by a padding step of their own that fills with the pad id
  (left or right, whatever they hold): the fix pads them with -100.
- PAD001 where a batched map function appends rows to a dict of lists (`out["attention_mask"].append(m)`):
  a row joining a mask place is judged as a store of the mask there; a later store replaces the rows.
- PAD006 where labels are written row by row into a buffer made with -1 (`torch.full((B, L), -1)`).
- PAD002 where padded feature dicts or encodings cross methods in a list: a slice of the list
  (`rows[i : i + n]`) holds such dicts, and an item picked by index (`self.encodings[idx]`) is one.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from standin_tokenizer import StandInTokenizer  # noqa: E402
from test_fix_execution import TEXTS, _case, _report, _require_lib, as_rows, load_module, run_entry, run_variant  # noqa: E402

from padlint.engine import fix_source, lint_source  # noqa: E402

GAPS_DIR = Path(__file__).parent / "fixtures" / "gaps"

BUGGY = {
    # rows of lists, then a nested comprehension comparing each token with the pad id (= EOS)
    "g5_list_rows_compared_with_pad.py": _case(
        "PAD005", ["PAD005"], "collate", "features", checks=("mask",), lib="lists", setup="configure_tokenizer"
    ),
    # one row padded per loop turn, its mask `1 if token != pad_id else 0` appended beside it
    "g5_loop_row_compared_with_pad.py": _case(
        "PAD005", ["PAD005"], "collate", "features", checks=("mask",), lib="lists", setup="configure_tokenizer"
    ),
    # `0 if token == pad else 1` for each token of each padded row: the same mask as `ids != pad`
    "g5_rows_mask_chosen_by_equality.py": _case(
        "PAD005", ["PAD005"], "collate", "features", checks=("mask",), lib="lists", setup="configure_tokenizer"
    ),
    # `np.where(ids == pad, 0, 1)` over a pad-filled buffer: the fix keeps a mask of integers
    "g5_numpy_where_equal_pad.py": _case(
        "PAD005", ["PAD005"], "collate", "features", checks=("mask",), lib="numpy", setup="configure_tokenizer"
    ),
    # `torch.where(ids != pad, 1, 0)` over pad_sequence's output
    "g5_torch_where_not_pad.py": _case(
        "PAD005", ["PAD005"], "collate", "features", checks=("mask",), setup="configure_tokenizer"
    ),
    # `ids.ne(pad).long()`: the comparison written in place of the call keeps the cast around it
    "g5_torch_ne_then_long.py": _case(
        "PAD005", ["PAD005"], "collate", "features", checks=("mask",), setup="configure_tokenizer"
    ),
    # `ones_like(ids).masked_fill(ids == pad, 0)`: ones zeroed at the pad id are `ids != pad`
    "g5_torch_ones_zeroed_at_pad.py": _case(
        "PAD005", ["PAD005"], "collate", "features", checks=("mask",), setup="configure_tokenizer"
    ),
    # `np.not_equal(ids, pad)`: the comparison spelled as a function
    "g5_numpy_not_equal_function.py": _case(
        "PAD005", ["PAD005"], "collate", "features", checks=("mask",), lib="numpy", setup="configure_tokenizer"
    ),
    # a helper pads to a width parameter of its own name (`size`); the caller's `[1] * widest` spans it
    "g1_helper_width_param_ones.py": _case(
        "PAD001", ["PAD001"], "collate", "features", checks=("mask",), lib="lists", safe_fix=False
    ),
    # `label_row = row` in the loop that pads each row, then `label_row[real:] = [-100] * gap`
    "g12_loop_label_row_alias.py": _case("PAD012", ["PAD012"], "collate", "features", lib="lists"),
    # `labels = input_ids` (a list of rows), then `labels[i][j] = -100`: the rows are shared
    "g12_rows_alias_written_through_rows.py": _case("PAD012", ["PAD012"], "collate", "features", lib="lists"),
    # labels read off a padding call (`tok.pad(...)["input_ids"]`): the call is kept as the encoding and
    # the labels masked by its mask, in one edit of that expression (two edits of it garbled the file)
    "g2_labels_read_off_pad_call.py": _case("PAD002", ["PAD002"], "collate", "features"),
    # rows written into a pad-filled buffer up to a length named in the loop (`ids[i, :length] = row`):
    # the labels are masked from those lengths
    "g2_buffer_rows_named_length.py": _case("PAD002", ["PAD002"], "collate", "features"),
    # `labels = [[pad] * gap + f["input_ids"] for f in features]`: padded with a token, on the left
    "g6_left_labels_own_pad_step.py": _case("PAD006", ["PAD006"], "collate", "features", lib="lists", side="left"),
    # a batched map function appends each padded row and a row of ones beside it to a dict of lists
    "g7_map_rows_appended_ones.py": _case("PAD001", ["PAD001"], "encode_batch", "batch", checks=("mask",), lib="lists"),
    # ... and a mask grown with ones where the ids are grown with the pad id, then appended
    "g7_map_mask_grown_with_ones.py": _case(
        "PAD001", ["PAD001"], "encode_batch", "batch", checks=("mask",), lib="lists"
    ),
    # a list of padded feature dicts crosses methods and is sliced into batches; the step's labels copy the ids
    "g8_trainer_rows_sliced_labels_copy.py": _case("PAD002", ["PAD002"], "run", "model", checks=("labels",)),
    # padded encodings stored by a Dataset; `__getitem__` picks one by index and copies its ids as labels
    "g8_dataset_items_stored_encodings.py": _case(
        "PAD002", ["PAD002"], "items_of", "texts", checks=("labels",), lib="lists"
    ),
    # a label buffer made with -1 and filled row by row: the fix makes it with -100
    "g7_labels_buffer_filled_with_minus_one.py": _case(
        "PAD006", ["PAD006"], "collate", "features", checks=("labels",), safe_fix=False
    ),
}

# reported, with no fix: each row of a for loop over padded rows holds no length of its own
NO_FIX = {
    # the pad id (= EOS) handed to a helper's `value` parameter, then `ids.ne(pad_id)`: no lengths in view
    "g5_helper_value_param_pad_eos.py": _case(
        "PAD005", ["PAD005"], "collate", "features", checks=("mask",), setup="configure_tokenizer"
    ),
    "g5_loop_rows_pad_compared_first.py": _case(
        "PAD005", ["PAD005"], "collate", "features", checks=("mask",), lib="lists", setup="configure_tokenizer"
    ),
    # ones, then 0 stored where the ids equal the pad id (= EOS): two statements, no one expression to replace
    "g5_torch_ones_zeroed_by_store_pad_eos.py": _case(
        "PAD005", ["PAD005"], "collate", "features", checks=("mask",), setup="configure_tokenizer"
    ),
}

# near-misses: name -> the codes that must not be reported
CLEAN = {
    "g5_clean_list_rows_own_pad_token.py": ("PAD005",),  # a pad token of its own: the comparison is right
    "g5_clean_list_rows_eos_compared.py": ("PAD005", "PAD001"),  # the mask from lengths
    "g5_clean_rows_choice_own_pad.py": ("PAD005", "PAD001", "PAD003"),  # pad != EOS: a right mask
    "g5_clean_numpy_where_own_pad.py": ("PAD005", "PAD001", "PAD003"),  # pad != EOS: a right mask
    "g5_clean_eos_separator_choice.py": ("PAD005", "PAD001"),  # a choice on the separator: segment ids
    "g5_clean_helper_value_param_own_pad.py": ("PAD005", "PAD001", "PAD003"),  # pad != EOS through the helper
    "g5_clean_torch_ones_zeroed_own_pad.py": ("PAD005", "PAD001", "PAD003"),  # pad != EOS: a right mask
    "g5_clean_torch_ones_zeroed_by_store_own_pad.py": ("PAD005", "PAD001", "PAD003"),  # the same, by a store
    "g1_clean_helper_pads_mask_too.py": ("PAD001",),  # the mask padded with 0 by the same helper
    "g12_clean_label_row_copied.py": ("PAD012", "PAD002"),  # copied, then -100 over the padding
    "g12_clean_rows_copied_deep.py": ("PAD012", "PAD002"),  # every row copied before the writes
    "g6_clean_left_labels_ignored.py": ("PAD006", "PAD002"),  # padded with -100 already
    "g7_clean_map_rows_appended_zero_padded_mask.py": ("PAD001",),  # the appended mask grown with zeros
    "g7_clean_map_rows_mask_replaced.py": ("PAD001",),  # the appended ones replaced before the return
    "g7_clean_labels_minus_one_loss_ignores_it.py": ("PAD006", "PAD007"),  # the loss ignores -1 too
    "g7_clean_ids_buffer_minus_one_replaced.py": ("PAD001", "PAD003", "PAD006"),  # ids, not labels
    "g8_clean_trainer_rows_labels_masked.py": ("PAD002",),  # the step sets -100 where the mask is 0
    "g8_clean_dataset_items_unpadded.py": ("PAD002",),  # nothing padded before the collator
}

# the codes a buggy fixture must not be reported with (the finding is the other rule's)
NOT_REPORTED = {"g6_left_labels_own_pad_step.py": ("PAD002",)}


def test_every_gap_fixture_is_described():
    assert {p.name for p in GAPS_DIR.glob("*.py")} == set(BUGGY) | set(NO_FIX) | set(CLEAN)


@pytest.mark.parametrize("name", sorted(NO_FIX))
def test_gap_without_a_fix_is_reported_and_is_a_bug_when_run(name, tmp_path):
    case = NO_FIX[name]
    source = (GAPS_DIR / name).read_text()
    found = [d for d in lint_source(source, name) if d.code in case["codes"]]
    assert set(case["codes"]) <= {d.code for d in found}
    assert all(d.fix is None for d in found), "a fix is offered"
    assert any(run_variant(source, name, case, tmp_path, "orig").values()), "the fixture is not buggy"


@pytest.mark.parametrize("name", sorted(BUGGY))
def test_gap_is_reported_and_its_fix_is_right_when_run(name, tmp_path):
    case = BUGGY[name]
    _require_lib(case)
    source = (GAPS_DIR / name).read_text()
    found = {d.code for d in lint_source(source, name)}
    assert set(case["codes"]) <= found, found
    assert not found & set(NOT_REPORTED.get(name, ())), found
    broken = any(run_variant(source, name, case, tmp_path, "orig").values())
    assert broken or _ignore_in_ids(source, name, case, tmp_path), "the fixture is not buggy"
    outcome = fix_source(source, name, unsafe=not case["safe_fix"])
    assert outcome.error is None and outcome.source != source, f"{name}: no fix"
    results = run_variant(outcome.source, name, case, tmp_path, "fixed")
    assert not any(results.values()), _report(name, outcome.source, results)
    assert not _ignore_in_ids(outcome.source, name, case, tmp_path), outcome.source
    assert not set(case["codes"]) & {d.code for d in outcome.remaining}, outcome.source


@pytest.mark.parametrize("name", sorted(CLEAN))
def test_near_miss_stays_silent(name):
    found = {d.code for d in lint_source((GAPS_DIR / name).read_text(), name)}
    assert not found & set(CLEAN[name]), found


@pytest.mark.parametrize(
    "name",
    [
        "g5_torch_ne_then_long.py",
        "g5_numpy_where_equal_pad.py",
        "g5_torch_where_not_pad.py",
        "g5_torch_ones_zeroed_at_pad.py",
        "g5_numpy_not_equal_function.py",
    ],
)
def test_fixed_mask_keeps_the_type_it_had(name, tmp_path):
    """A mask of integers stays one: the fix's comparison is cast as the code it replaced was."""
    case = BUGGY[name]
    source = (GAPS_DIR / name).read_text()
    outcome = fix_source(source, name)
    masks = []
    for tag, code in (("orig", source), ("fixed", outcome.source)):
        path = tmp_path / f"{Path(name).stem}_{tag}_dtype.py"
        path.write_text(code)
        module = load_module(path, f"padlint_gaps_{Path(name).stem}_{tag}_dtype")
        tokenizer = module.configure_tokenizer(StandInTokenizer())
        out = getattr(module, case["entry"])([{"input_ids": tokenizer.encode(t)} for t in TEXTS], tokenizer)
        masks.append(out["attention_mask"])
    assert str(masks[0].dtype) == str(masks[1].dtype), outcome.source


def _ignore_in_ids(source: str, name: str, case, tmp_path: Path) -> bool:
    """Does the collator put -100 into its input ids (a write through labels that alias them)?"""
    path = tmp_path / f"{Path(name).stem}_ids.py"
    path.write_text(source)
    module = load_module(path, f"padlint_gaps_{Path(name).stem}_ids")
    _real, out, _raw = run_entry(module, case, StandInTokenizer())  # called as the case's kind says
    return any(-100 in row for row in as_rows(out["input_ids"]))
