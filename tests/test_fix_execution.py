"""Run padlint's fixes on small executable collators and check what the fixed code computes.

For every module in tests/fixtures/exec/:
  (a) padlint must flag it with the codes listed in CASES;
  (b) `fix_source(..., unsafe=False)` and `fix_source(..., unsafe=True)` are applied separately;
  (c) each fixed module is written to tmp_path, imported from there (the fixture itself is never
      imported), and its entry point is called on a ragged batch of three texts, once with a stand-in
      tokenizer whose pad id differs from EOS and once with pad == EOS;
  (d) invariants: the attention mask is 1 exactly on real tokens and 0 exactly on padding; labels equal
      the ids on real tokens (a real EOS equal to the pad id included) and are -100 exactly on padding
      (and on the prompt, for the "prompt" check); the ids at the pads are still token ids (>= 0).
      The mask and the labels must also come in the same container (tensor, array, list) and shape
      as the ids they go with. A safe fix must hold for both tokenizers; an unsafe fix need only hold
      with pad != EOS.

Each case is described by a small dict (see CASES):
  rule      the rule the case is about;  codes: the codes padlint must report on the original
  entry     the function or class to call;  kind: how it is called (see `run_entry`)
  side      "right" or "left": where the padding goes
  checks    which invariants apply ("mask", "labels", "prompt": the prompt's labels are -100 too)
  lib       "torch", "numpy", "lists" or "transformers": torch cases are skipped when torch is missing,
            transformers cases (which run a transformers collator) when torch or transformers is missing
  safe_fix  True when RULES.md promises a safe fix for the case (then the safe run must fix it);
            False when only an unsafe fix exists (then a safe run may leave it, but must not break it)
  setup     optional: a module function called with the tokenizer first (e.g. it sets pad = EOS)
"""

from __future__ import annotations

import functools
import importlib.util
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from standin_tokenizer import StandInTokenizer  # noqa: E402

from padlint.engine import fix_source, lint_source  # noqa: E402

EXEC_DIR = Path(__file__).parent / "fixtures" / "exec"
IGNORE = -100
# three texts of different lengths (3, 8 and 1 words, plus EOS)
TEXTS = ["the cat sat", "a much longer sentence about padding tokens and masks", "hello"]
# kind "sft": each text is a prompt (its first word) and an answer (the rest, then EOS)
PROMPT_WORDS = 1
MODEL_INPUTS = ("input_ids", "attention_mask", "labels")


class ListDataset(list):
    """Rows of features with `datasets.Dataset.map`'s calling convention: what the function returns is
    written over the columns it was handed, less those `remove_columns` names (datasets 5.2.0,
    Dataset._map_single: `{**inputs_to_merge, **processed_inputs}`)."""

    def map(self, function, batched=False, fn_kwargs=None, remove_columns=(), **_):
        kwargs = fn_kwargs or {}
        removed = [remove_columns] if isinstance(remove_columns, str) else list(remove_columns)

        def kept(row):
            return {k: v for k, v in row.items() if k not in removed}

        if not batched:
            return ListDataset({**kept(dict(row)), **dict(function(dict(row), **kwargs))} for row in self)
        columns = function({key: [row[key] for row in self] for key in self[0]}, **kwargs)
        made = [dict(zip(columns, values)) for values in zip(*columns.values())]
        return ListDataset({**kept(row), **new} for row, new in zip(self, made))


def _case(rule, codes, entry, kind, checks=("mask", "labels"), lib="torch", side="right", safe_fix=True, setup=None):
    return dict(
        rule=rule,
        codes=tuple(codes),
        entry=entry,
        kind=kind,
        checks=tuple(checks),
        lib=lib,
        side=side,
        safe_fix=safe_fix,
        setup=setup,
    )


CASES = {
    # PAD001: all-ones mask over a padded batch
    "p1_pad_sequence_ones_like.py": _case("PAD001", ["PAD001"], "collate", "features"),
    "p1_map_list_max_length.py": _case("PAD001", ["PAD001"], "encode_example", "example", lib="lists"),
    "p1_tokenizer_ones_like_labels.py": _case("PAD001", ["PAD001"], "batch_texts", "texts"),
    "p1_numpy_tokenizer_ones.py": _case("PAD001", ["PAD001"], "encode_batch", "batch", lib="numpy"),
    # numpy rows padded on the left: the mask from the lengths counts from the right end
    "p1_numpy_left_pad_ones.py": _case(
        "PAD001", ["PAD001"], "collate_left", "features", checks=("mask",), lib="numpy", side="left"
    ),
    "p1_left_pad_rows_class.py": _case("PAD001", ["PAD001"], "LeftPadCollator", "class", side="left"),
    "p1_pad_is_eos_fpad_stack.py": _case("PAD001", ["PAD001"], "collate", "features", setup="setup"),
    "p1_left_pad_map_example.py": _case("PAD001", ["PAD001"], "left_pad_example", "example", lib="lists", side="left"),
    "p1_tokenizer_rows_ones_tensor.py": _case("PAD001", ["PAD001"], "batch_from_lists", "texts", checks=("mask",)),
    "p1_getitem_single_max_length.py": _case("PAD001", ["PAD001"], "encode_one", "example", checks=("mask",)),
    "p1_batched_map_overwritten_mask.py": _case(
        "PAD001", ["PAD001"], "encode_batch", "batch", checks=("mask",), lib="lists"
    ),
    "p1_rowfill_full_ones_like.py": _case("PAD001", ["PAD001"], "collate", "features"),
    # no lengths and no tokenizer mask in scope: only the unsafe `ids != pad` fix exists
    "p1_list_comp_rows_width_ones.py": _case(
        "PAD001", ["PAD001"], "collate", "features", checks=("mask",), lib="lists", safe_fix=False
    ),
    "p1_extend_rows_in_place.py": _case(
        "PAD001", ["PAD001"], "collate_lists", "features", checks=("mask",), lib="lists", safe_fix=False
    ),
    "p1_helper_tuple_unpack.py": _case("PAD001", ["PAD001"], "RowCollator", "class", checks=("mask",), safe_fix=False),
    # padded time-major, then transposed: the lengths still describe the rows
    # a per-example mask padded with ones while its ids are padded with the pad id
    "p1_mask_extended_with_ones.py": _case(
        "PAD001", ["PAD001"], "encode_example", "example", checks=("mask",), lib="lists"
    ),
    "p1_time_major_transpose_ones.py": _case("PAD001", ["PAD001"], "collate", "features", checks=("mask",)),
    # a per-example mask padded with the pad id (pad = EOS): the fix pads it with 0
    "p1_mask_padded_with_pad_id.py": _case(
        "PAD001", ["PAD001"], "collate", "features", checks=("mask",), setup="setup"
    ),
    # PAD002: labels copied from padded ids, pads left in the loss
    "p2_tokenizer_clone.py": _case("PAD002", ["PAD002"], "make_lm_batch", "texts"),
    # the copy reaches a loss module (`nn.CrossEntropyLoss()` called) before it is returned
    "p2_loss_module_clone.py": _case("PAD002", ["PAD002"], "batch_with_loss", "texts"),
    # labels stacked from left-padded rows: masked by the mask built beside them, the stack evaluated once
    # labels padded by a step of their own with the pad id: PAD006 (RULES.md), whatever they hold
    "p2_left_fpad_stack_labels.py": _case("PAD002", ["PAD006"], "collate_left", "features", side="left"),
    # labels padded by a step of their own with the pad id: that step pads with -100
    "p2_left_list_labels_own_padding.py": _case(
        "PAD002", ["PAD006"], "collate_left_lists", "features", lib="lists", side="left"
    ),
    "p2_left_tokenizer_clone.py": _case("PAD002", ["PAD002"], "encode_dialogues", "texts", side="left"),
    "p2_batched_map_list_copy.py": _case("PAD002", ["PAD002"], "tokenize_batch", "batch", lib="lists"),
    "p2_example_list_labels.py": _case("PAD002", ["PAD002"], "encode_example", "example", lib="lists"),
    "p2_left_list_example_copy.py": _case(
        "PAD002", ["PAD002"], "left_padded_example", "example", lib="lists", side="left"
    ),
    "p2_dataclass_pad_sequence.py": _case("PAD002", ["PAD002"], "SupervisedCollator", "class"),
    "p2_tokenizer_pad_torch_call.py": _case("PAD002", ["PAD002"], "PadThenLabelCollator", "class"),
    "p2_dict_call_list_encoding.py": _case("PAD002", ["PAD002"], "build_inputs", "texts"),
    # a second map copies the ids the first map padded (kind "mapped": the rows of the last map are checked)
    "p2_chained_map_labels_copy.py": _case("PAD002", ["PAD002"], "prepare", "mapped", lib="lists"),
    # a generator's padded batches reach the model's labels (kind "model": what the model received)
    "p2_generator_batches_labels.py": _case("PAD002", ["PAD002"], "train_step", "model"),
    # a later map adds a column: the columns the first map padded reach the collator as stored
    "p2_map_adds_column_collate.py": _case("PAD002", ["PAD002"], "prepare", "loader"),
    "p2_rows_masks_lists_clone.py": _case("PAD002", ["PAD002"], "collate", "features"),
    # a zero buffer filled row by row (the padding holds 0 whatever the tokenizer's pad id)
    "p2_zero_buffer_rows_clone.py": _case("PAD002", ["PAD002"], "collate", "features"),
    "p2_rowfill_without_mask.py": _case(
        "PAD002", ["PAD002"], "collate_ids", "features", checks=("labels",), safe_fix=False
    ),
    # PAD003: the padded encoding loses its mask
    "p3_return_mask_false.py": _case("PAD003", ["PAD003"], "encode_texts", "texts", checks=("mask",)),
    "p3_left_numpy_ids_only.py": _case(
        "PAD003", ["PAD003"], "prompts_np", "texts", checks=("mask",), lib="numpy", side="left"
    ),
    "p3_left_lists_ids_only.py": _case(
        "PAD003", ["PAD003"], "prompts_lists", "texts", checks=("mask",), lib="lists", side="left"
    ),
    "p3_left_tokenizer_dict_ids.py": _case(
        "PAD003", ["PAD003"], "prompt_batch", "texts", checks=("mask",), side="left"
    ),
    "p3_numpy_dict_ids_only.py": _case("PAD003", ["PAD003"], "collate_np", "texts", checks=("mask",), lib="numpy"),
    "p3_batched_map_lists_dict.py": _case("PAD003", ["PAD003"], "encode_batch", "batch", checks=("mask",), lib="lists"),
    # `model` is a parameter: whether it takes `attention_mask=` is not in view, so the fix is unsafe
    "p3_model_call_ids_only.py": _case(
        "PAD003", ["PAD003"], "forward_texts", "model", checks=("mask",), safe_fix=False
    ),
    # an encoder named `embedder` is a model like any other (not a frozen CLIP/T5 prompt encoder)
    "p3_embedder_param_ids.py": _case("PAD003", ["PAD003"], "embed_queries", "model", checks=("mask",), safe_fix=False),
    "p3_tokenizer_pad_class.py": _case("PAD003", ["PAD003"], "FeaturePadder", "class", checks=("mask",)),
    "p3_dict_call_tensor_ids.py": _case("PAD003", ["PAD003"], "encode_item", "example", checks=("mask",)),
    "p3_mask_false_and_labels_clone.py": _case("PAD003", ["PAD003", "PAD002"], "NoMaskLMCollator", "class_texts"),
    # PAD004: pad is EOS and labels are masked by the pad id; the fix masks them by the attention mask
    "p4_tokenizer_labels_eq_pad.py": _case("PAD004", ["PAD004"], "make_lm_batch", "texts", setup="configure_tokenizer"),
    "p4_lengths_mask_class.py": _case("PAD004", ["PAD004"], "CausalLMCollator", "class", setup="configure_tokenizer"),
    # PAD005: pad is EOS and the mask is `ids != pad_id`; the fix uses lengths or the tokenizer's mask
    "p5_pad_sequence_lengths_ne.py": _case("PAD005", ["PAD005"], "collate", "features", setup="configure_tokenizer"),
    "p5_left_pad_tokenizer_ne.py": _case(
        "PAD005", ["PAD005"], "encode_prompts", "texts", checks=("mask",), side="left", setup="configure_tokenizer"
    ),
    "p5_left_numpy_ne_pad_is_eos.py": _case(
        "PAD005", ["PAD005"], "collate_left_np", "features", checks=("mask",), lib="numpy", side="left", setup="setup"
    ),
    "p5_numpy_rowfill_neq.py": _case(
        "PAD005", ["PAD005"], "collate_np", "features", checks=("mask",), lib="numpy", setup="configure_tokenizer"
    ),
    # PAD006: labels padded with the pad id; the fix pads them with -100
    "p6_pad_sequence_labels_pad_id.py": _case("PAD006", ["PAD006"], "collate", "features"),
    "p6_zero_buffer_tokenized_targets.py": _case("PAD006", ["PAD006"], "batch_texts", "texts"),
    "p6_seq2seq_label_pad_token_id.py": _case("PAD006", ["PAD006"], "CausalSFTCollator", "class", lib="transformers"),
    # PAD009: ids padded in a map function without their mask, then padded again by the tokenizer
    "p9_map_right_pad_tokenizer_pad.py": _case("PAD009", ["PAD009"], "collate_texts", "texts", checks=("mask",)),
    "p9_map_left_pad_inline.py": _case(
        "PAD009", ["PAD009"], "collate_texts", "texts", checks=("mask",), side="left", lib="transformers"
    ),
    # PAD010: `pad_token_id or eos_token_id` (pad id 0 is falsy); the module then masks by that pad id, so
    # PAD005/PAD004 fire too and the fixes together must be right with pad != EOS and pad == EOS
    "p10_fallback_pad_ne_mask.py": _case("PAD010", ["PAD010", "PAD005"], "collate", "features"),
    "p10_fallback_labels_eq_pad.py": _case("PAD010", ["PAD010", "PAD004"], "build_batch", "texts"),
    # PAD012: labels alias input_ids and are written in place (a task prefix set to -100 reaches the ids)
    "p12_prefix_mask_alias_class.py": _case("PAD012", ["PAD012"], "PrefixMaskingCollator", "class", checks=("mask",)),
    # labels a slice of the ids: a view, so the -100 reaches the ids
    "p12_slice_view_shift_write.py": _case("PAD012", ["PAD012"], "encode_batch", "batch", checks=("mask",)),
    "p12_numpy_alias_prefix.py": _case("PAD012", ["PAD012"], "encode_batch", "batch", checks=("mask",), lib="numpy"),
    # ---- cells of the coverage matrix (CONTRIBUTING.md, "Executable fix coverage") ----
    # PAD001 with pad = EOS shown in the module (only a mask from lengths or the tokenizer is right),
    # and left padding by pad_sequence's padding_side
    "p1_helper_pad_value_param.py": _case(
        "PAD001", ["PAD001"], "collate", "features", checks=("mask",), safe_fix=False
    ),
    "p1_pad_sequence_left_side_ones.py": _case(
        "PAD001", ["PAD001"], "collate_left", "features", checks=("mask",), side="left"
    ),
    "p1_left_tokenizer_ones_shape.py": _case(
        "PAD001", ["PAD001"], "prompt_batch", "texts", checks=("mask",), side="left"
    ),
    "p1_numpy_pad_2d_widths.py": _case(
        "PAD001", ["PAD001"], "collate_np", "features", checks=("mask",), lib="numpy", safe_fix=False
    ),
    "p1_eos_lists_right_rows.py": _case("PAD001", ["PAD001"], "collate", "features", lib="lists", setup="setup"),
    "p1_eos_lists_left_example.py": _case(
        "PAD001", ["PAD001"], "encode_prompt", "example", checks=("mask",), lib="lists", side="left", setup="setup"
    ),
    "p1_eos_numpy_right_full.py": _case(
        "PAD001", ["PAD001"], "collate_np", "features", checks=("mask",), lib="numpy", setup="setup"
    ),
    "p1_eos_numpy_left_tokenizer.py": _case(
        "PAD001", ["PAD001"], "encode_batch", "batch", checks=("mask",), lib="numpy", side="left", setup="setup"
    ),
    "p1_eos_torch_left_rowfill.py": _case(
        "PAD001", ["PAD001"], "LeftPadPromptCollator", "class", checks=("mask",), side="left", setup="setup"
    ),
    # PAD002 over numpy batches, and with pad = EOS shown in the module
    # ids padded by a helper whose pad value is a parameter; the same helper, handed 0, pads the mask
    "p2_helper_pad_value_param_labels.py": _case("PAD002", ["PAD002"], "collate", "features"),
    "p2_batched_map_slice_copies.py": _case("PAD002", ["PAD002"], "tokenize_batch", "batch", lib="lists"),
    "p2_tokenizer_pad_features_clone.py": _case("PAD002", ["PAD002"], "PadAndCopyCollator", "class"),
    "p2_numpy_tokenizer_copy.py": _case("PAD002", ["PAD002"], "encode_batch", "batch", lib="numpy"),
    "p2_numpy_left_rows_copy.py": _case("PAD002", ["PAD002"], "collate_left", "features", lib="numpy", side="left"),
    "p2_eos_lists_map_copy.py": _case("PAD002", ["PAD002"], "encode_example", "example", lib="lists", setup="setup"),
    "p2_eos_lists_left_rows.py": _case(
        "PAD002", ["PAD002"], "collate_left", "features", lib="lists", side="left", setup="setup"
    ),
    "p2_eos_numpy_batched_copy.py": _case("PAD002", ["PAD002"], "tokenize_batch", "batch", lib="numpy", setup="setup"),
    "p2_eos_numpy_left_pad.py": _case(
        "PAD002", ["PAD002"], "collate_left_np", "features", lib="numpy", side="left", setup="setup"
    ),
    "p2_eos_torch_pad_sequence.py": _case("PAD002", ["PAD002"], "collate", "features", setup="setup"),
    "p2_eos_torch_left_tokenizer.py": _case(
        "PAD002", ["PAD002"], "ChatBatcher", "class_texts", side="left", setup="setup"
    ),
    # PAD003 with pad = EOS shown in the module (the fix carries the tokenizer's mask, whatever the pad id)
    "p3_generate_left_ids_only.py": _case(
        "PAD003", ["PAD003"], "generate_inputs", "model", checks=("mask",), side="left", safe_fix=False
    ),
    "p3_eos_lists_batched_ids.py": _case(
        "PAD003", ["PAD003"], "tokenize_batch", "batch", checks=("mask",), lib="lists", setup="setup"
    ),
    "p3_eos_lists_left_encoding_attr.py": _case(
        "PAD003", ["PAD003"], "build_prompts", "texts", checks=("mask",), lib="lists", side="left", setup="setup"
    ),
    "p3_eos_numpy_right_ids.py": _case(
        "PAD003", ["PAD003"], "encode_np", "texts", checks=("mask",), lib="numpy", setup="setup"
    ),
    "p3_eos_numpy_left_mask_false.py": _case(
        "PAD003", ["PAD003"], "encode_np_left", "texts", checks=("mask",), lib="numpy", side="left", setup="setup"
    ),
    "p3_eos_torch_right_ids.py": _case("PAD003", ["PAD003"], "encode_texts", "texts", checks=("mask",), setup="setup"),
    "p3_eos_torch_left_generate_inputs.py": _case(
        "PAD003", ["PAD003"], "PromptEncoder", "class_texts", checks=("mask",), side="left", setup="setup"
    ),
    # PAD004 over lists, numpy and left padding (each text ends with a real EOS: add_eos_token in setup);
    # DataCollatorForLanguageModeling(mlm=False) with pad = EOS: the collation by mask is unsafe (dict features only)
    "p4_lists_batched_comprehension.py": _case(
        "PAD004", ["PAD004"], "tokenize_batch", "batch", lib="lists", setup="setup"
    ),
    "p4_lists_left_example.py": _case(
        "PAD004", ["PAD004"], "encode_example", "example", lib="lists", side="left", setup="setup"
    ),
    "p4_numpy_where_pad.py": _case("PAD004", ["PAD004"], "encode_batch", "batch", lib="numpy", setup="setup"),
    "p4_eos_chained_map_example_mask.py": _case("PAD004", ["PAD004"], "prepare", "mapped", lib="lists", setup="setup"),
    "p4_numpy_left_index_write.py": _case(
        "PAD004", ["PAD004"], "collate_left", "features", lib="numpy", side="left", setup="setup"
    ),
    "p4_torch_left_masked_fill.py": _case(
        "PAD004", ["PAD004"], "LeftPaddedLMCollator", "class_texts", side="left", setup="setup"
    ),
    "p4_dclm_pad_is_eos.py": _case(
        "PAD004", ["PAD004"], "CausalCollator", "class", lib="transformers", safe_fix=False, setup="setup"
    ),
    # PAD005 spelled as a negated equality (`~ids.eq(pad)`, `1 - (ids == pad)`), and over lists: a comprehension
    # that compares each token with the pad id
    "p5_torch_inverted_equality.py": _case(
        "PAD005", ["PAD005"], "collate", "features", checks=("mask",), setup="setup"
    ),
    "p5_numpy_one_minus_equality.py": _case(
        "PAD005", ["PAD005"], "encode_batch", "batch", checks=("mask",), lib="numpy", setup="setup"
    ),
    "p5_lists_batched_ne.py": _case(
        "PAD005", ["PAD005"], "tokenize_batch", "batch", checks=("mask",), lib="lists", setup="setup"
    ),
    # a mask of the pad id spelled as `map(lambda t: 0 if t == pad else 1, row)`
    "p5_lists_map_lambda_mask.py": _case(
        "PAD005", ["PAD005"], "collate", "features", checks=("mask",), lib="lists", setup="setup"
    ),
    "p5_lists_left_example_ne.py": _case(
        "PAD005", ["PAD005"], "encode_example", "example", checks=("mask",), lib="lists", side="left", setup="setup"
    ),
    # PAD006 over lists, numpy, left padding and pad = EOS; labels padded by a step of their own may be
    # reported as PAD002, whose fix pads them with -100 too
    "p6_lists_right_rows_pad_id.py": _case("PAD006", ["PAD006"], "collate", "features", lib="lists"),
    "p6_lists_left_example_zero.py": _case("PAD006", ["PAD006"], "encode_example", "example", lib="lists", side="left"),
    "p6_numpy_right_np_pad.py": _case("PAD006", ["PAD006"], "collate_np", "features", lib="numpy"),
    "p6_numpy_left_targets_max_length.py": _case(
        "PAD006", ["PAD006"], "encode_batch", "batch", lib="numpy", side="left", setup="setup"
    ),
    "p6_torch_left_fpad_labels.py": _case("PAD006", ["PAD006"], "collate_left", "features", side="left"),
    "p6_eos_torch_pad_sequence.py": _case("PAD006", ["PAD006"], "SFTCollator", "class", setup="setup"),
    "p6_eos_lists_right_extend.py": _case("PAD006", ["PAD006"], "collate", "features", lib="lists", setup="setup"),
    "p6_eos_lists_left_example.py": _case(
        "PAD006", ["PAD006"], "encode_example", "example", lib="lists", side="left", setup="setup"
    ),
    "p6_eos_numpy_right_np_pad.py": _case("PAD006", ["PAD006"], "ArrayCollator", "class", lib="numpy", setup="setup"),
    "p6_eos_numpy_left_np_pad.py": _case(
        "PAD006", ["PAD006"], "collate_left", "features", lib="numpy", side="left", setup="setup"
    ),
    "p6_eos_numpy_left_full.py": _case(
        "PAD006", ["PAD006"], "collate_left", "features", lib="numpy", side="left", setup="setup"
    ),
    "p6_eos_torch_left_flip.py": _case("PAD006", ["PAD006"], "collate_left", "features", side="left", setup="setup"),
    "p6_pad_sequence_left_side_labels.py": _case("PAD006", ["PAD006"], "collate_left", "features", side="left"),
    # PAD008: DataCollatorForLanguageModeling(mlm=False) throws away the labels a map function built
    # (kind "sft": mapped, then collated; the prompt's labels must stay -100)
    "p8_dclm_prompt_labels.py": _case(
        "PAD008", ["PAD008"], "prepare", "sft", checks=("labels", "prompt"), lib="transformers"
    ),
    "p8_dclm_left_batched_map.py": _case(
        "PAD008",
        ["PAD008"],
        "prepare",
        "sft",
        checks=("labels", "prompt"),
        lib="transformers",
        side="left",
        setup="setup",
    ),
    "p8_eos_dclm_prompt_labels.py": _case(
        "PAD008", ["PAD008"], "prepare", "sft", checks=("labels", "prompt"), lib="transformers", setup="setup"
    ),
    "p8_eos_dclm_left_map.py": _case(
        "PAD008",
        ["PAD008"],
        "prepare",
        "sft",
        checks=("labels", "prompt"),
        lib="transformers",
        side="left",
        setup="setup",
    ),
    # PAD009 (or PAD003, when the map function drops the tokenizer's mask) before tokenizer.pad
    "p9_lists_map_then_pad.py": _case("PAD009", ["PAD009"], "collate_texts", "texts", checks=("mask",), lib="lists"),
    "p9_numpy_map_max_length_then_pad.py": _case(
        "PAD009", ["PAD003"], "collate_texts", "texts", checks=("mask",), lib="numpy"
    ),
    "p9_eos_torch_map_then_pad.py": _case(
        "PAD009", ["PAD009"], "collate_texts", "texts", checks=("mask",), setup="setup"
    ),
    "p9_lists_left_map_then_pad.py": _case(
        "PAD009", ["PAD009"], "collate_texts", "texts", checks=("mask",), lib="lists", side="left"
    ),
    "p9_numpy_left_map_then_pad.py": _case(
        "PAD009", ["PAD009"], "collate_texts", "texts", checks=("mask",), lib="numpy", side="left"
    ),
    "p9_eos_lists_map_then_pad.py": _case(
        "PAD009", ["PAD009"], "collate_texts", "texts", checks=("mask",), lib="lists", setup="setup"
    ),
    "p9_eos_numpy_left_map_then_pad.py": _case(
        "PAD009", ["PAD009"], "collate_texts", "texts", checks=("mask",), lib="numpy", side="left", setup="setup"
    ),
    "p9_eos_lists_left_map_then_pad.py": _case(
        "PAD009", ["PAD009"], "collate_texts", "texts", checks=("mask",), lib="lists", side="left", setup="setup"
    ),
    "p9_eos_numpy_map_then_pad.py": _case(
        "PAD009", ["PAD009"], "collate_texts", "texts", checks=("mask",), lib="numpy", setup="setup"
    ),
    "p9_eos_torch_left_map_then_pad.py": _case(
        "PAD009",
        ["PAD009"],
        "collate_texts",
        "texts",
        checks=("mask",),
        lib="transformers",
        side="left",
        setup="setup",
    ),
    # PAD010 over lists, numpy and left padding, with the pad-id masking it feeds
    "p10_lists_fallback_labels.py": _case("PAD010", ["PAD010", "PAD004"], "collate", "features", lib="lists"),
    "p10_numpy_left_fallback_mask.py": _case(
        "PAD010", ["PAD010", "PAD005"], "collate_left", "features", checks=("mask",), lib="numpy", side="left"
    ),
    "p10_torch_left_fallback_tokenizer.py": _case(
        "PAD010", ["PAD010", "PAD004"], "PromptBatcher", "class_texts", side="left", setup="setup"
    ),
    "p10_lists_left_fallback_example.py": _case(
        "PAD010", ["PAD010", "PAD005"], "encode_example", "example", checks=("mask",), lib="lists", side="left"
    ),
    "p10_numpy_right_fallback_labels.py": _case("PAD010", ["PAD010", "PAD004"], "collate_np", "features", lib="numpy"),
    # PAD012 over lists, numpy, left padding and pad = EOS: the write reaches the ids
    # written row by row through a loop over the aliased rows (`for row, m in zip(labels, mask): row[j] = -100`)
    "p12_eos_lists_left_batched_alias.py": _case(
        "PAD012", ["PAD012"], "tokenize_batch", "batch", lib="lists", side="left", setup="setup"
    ),
    "p12_lists_example_alias.py": _case("PAD012", ["PAD012"], "encode_example", "example", lib="lists"),
    "p12_torch_left_alias_mask_write.py": _case(
        "PAD012", ["PAD012"], "build_batch", "texts", side="left", setup="setup"
    ),
    "p12_eos_numpy_alias_mask_write.py": _case(
        "PAD012", ["PAD012"], "collate_np", "features", lib="numpy", setup="setup"
    ),
    "p12_numpy_left_alias_prefix.py": _case(
        "PAD012", ["PAD012"], "encode_batch", "batch", lib="numpy", side="left", setup="setup"
    ),
    "p12_eos_torch_right_alias.py": _case("PAD012", ["PAD012"], "collate", "features", setup="setup"),
    "p12_eos_lists_example_alias.py": _case(
        "PAD012", ["PAD012"], "encode_example", "example", lib="lists", setup="setup"
    ),
    "p12_eos_torch_left_alias.py": _case(
        "PAD012", ["PAD012"], "LeftBatcher", "class_texts", side="left", setup="setup"
    ),
    "p12_lists_left_example_alias.py": _case(
        "PAD012", ["PAD012"], "encode_prompt", "example", lib="lists", side="left"
    ),
    "p12_eos_numpy_left_alias.py": _case(
        "PAD012", ["PAD012"], "collate_left", "features", lib="numpy", side="left", setup="setup"
    ),
    "p12_eos_lists_left_example_alias.py": _case(
        "PAD012", ["PAD012"], "encode_prompt", "example", lib="lists", side="left", setup="setup"
    ),
}


def test_every_exec_fixture_is_described():
    on_disk = {p.name for p in EXEC_DIR.glob("*.py")}
    assert on_disk == set(CASES), (
        f"undescribed: {sorted(on_disk - set(CASES))}, missing: {sorted(set(CASES) - on_disk)}"
    )


# ---- the coverage matrix (rule x container x side x pad = EOS), printed in CONTRIBUTING.md -----------

COLUMNS = [(lib, side) for lib in ("lists", "numpy", "torch") for side in ("right", "left")]
# Cells that mean nothing for a rule: PAD004/PAD005 are harm only when pad = EOS; PAD010's `pad or eos`
# makes the pad the EOS by itself; DataCollatorForLanguageModeling (PAD008) hands back torch tensors.
NOT_APPLICABLE = {
    "PAD004": {"pad!=eos"},
    "PAD005": {"pad!=eos"},
    "PAD010": {"pad==eos"},
    "PAD008": {("lists", "right"), ("lists", "left"), ("numpy", "right"), ("numpy", "left")},
}
PAD_IS_EOS = re.compile(r"pad_token\s*=\s*\w+\.eos_token\b|pad_token_id\s*=\s*\w+\.eos_token_id\b")


def coverage_table() -> str:
    """The markdown table of how many cases each cell has: "pad != EOS / pad = EOS" (the module itself
    sets the pad token to EOS), "-" where the cell means nothing for the rule."""
    counts: dict[tuple, int] = {}
    for name, case in CASES.items():
        eos = "pad==eos" if PAD_IS_EOS.search((EXEC_DIR / name).read_text()) else "pad!=eos"
        lib = "torch" if case["lib"] == "transformers" else case["lib"]  # a transformers collator returns tensors
        key = (case["rule"], lib, case["side"], eos)
        counts[key] = counts.get(key, 0) + 1
    header = "| rule | " + " | ".join(f"{lib} {side}" for lib, side in COLUMNS) + " |"
    lines = [header, "|---" * (len(COLUMNS) + 1) + "|"]
    for rule in sorted({case["rule"] for case in CASES.values()}):
        skip = NOT_APPLICABLE.get(rule, set())
        cells = []
        for lib, side in COLUMNS:
            if (lib, side) in skip:
                cells.append("-")
                continue
            marks = [
                "-" if eos in skip else str(counts.get((rule, lib, side, eos), 0)) for eos in ("pad!=eos", "pad==eos")
            ]
            cells.append(" / ".join(marks))
        lines.append(f"| {rule} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def test_coverage_table_in_contributing_is_current():
    """CONTRIBUTING.md shows the coverage matrix as CASES make it: a cell with 0 is a case to write."""
    contributing = (Path(__file__).parent.parent / "CONTRIBUTING.md").read_text()
    assert coverage_table() in contributing, "CONTRIBUTING.md's coverage table is stale; it should read:\n" + (
        coverage_table()
    )


# ---- running a module -------------------------------------------------------------------------------


def _require_lib(case):
    if case["lib"] == "torch":
        pytest.importorskip("torch")
    elif case["lib"] == "transformers":  # cases that run a transformers collator (CI does not install it)
        pytest.importorskip("torch")
        pytest.importorskip("transformers")
    elif case["lib"] == "numpy":
        pytest.importorskip("numpy")


def load_module(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is built
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.pop(name, None)
    return module


def recording_model(*args, **kwargs):
    """A stand-in model: returns what it was called with."""
    seen = dict(kwargs)
    if args:
        seen.setdefault("input_ids", args[0])
    return seen


def run_entry(module, case, tokenizer):
    """Call the case's entry point on the ragged batch.

    Returns (real token rows, output dict with one row per text, raw outputs as returned by the entry).
    """
    if case["setup"]:
        tokenizer = getattr(module, case["setup"])(tokenizer) or tokenizer
    real = [tokenizer.encode(t) for t in TEXTS]
    entry = getattr(module, case["entry"])
    features = [{"input_ids": list(r)} for r in real]
    kind = case["kind"]
    if kind == "features":  # entry(features, tokenizer)
        out = entry(features, tokenizer)
    elif kind == "class":  # entry(tokenizer)(features)
        out = entry(tokenizer)(features)
    elif kind == "class_texts":  # entry(tokenizer)(texts)
        out = entry(tokenizer)(list(TEXTS))
    elif kind == "texts":  # entry(texts, tokenizer)
        out = entry(list(TEXTS), tokenizer)
    elif kind == "batch":  # a batched `.map` function: entry({"text": texts}, tokenizer)
        out = entry({"text": list(TEXTS)}, tokenizer)
    elif kind == "example":  # a per-example `.map` function / `__getitem__`, results stacked row by row
        outs = [entry({"text": t}, tokenizer) for t in TEXTS]
        stacked = {
            k: [as_rows(o[k])[0] for o in outs] for k in ("input_ids", "attention_mask", "labels") if k in outs[0]
        }
        return real, stacked, outs
    elif kind == "mapped":  # entry(dataset of texts, tokenizer) -> the dataset its maps made; its rows stacked
        dataset = entry(ListDataset({"text": t} for t in TEXTS), tokenizer)
        out = {k: [row[k] for row in dataset] for k in ("input_ids", "attention_mask", "labels") if k in dataset[0]}
    elif kind == "loader":  # entry(dataset of texts, tokenizer) -> the first batch of a loader over its maps
        out = entry(ListDataset({"text": t} for t in TEXTS), tokenizer)
    elif kind == "model":  # entry(texts, tokenizer, model): returns what the model received
        out = entry(list(TEXTS), tokenizer, recording_model)
    elif kind == "sft":  # entry(dataset, tokenizer) -> (mapped dataset, collator); the collator gets its rows
        pairs = [t.split(maxsplit=PROMPT_WORDS) for t in TEXTS]
        examples = [{"prompt": " ".join(p[:PROMPT_WORDS]), "answer": " ".join(p[PROMPT_WORDS:])} for p in pairs]
        dataset, collator = entry(ListDataset(examples), tokenizer)
        # the Trainer hands the collator only the columns the model takes (remove_unused_columns)
        out = collator([{k: v for k, v in row.items() if k in MODEL_INPUTS} for row in dataset])
    else:
        raise AssertionError(f"unknown kind {kind}")
    return real, out, [out]


def _container(x) -> str:
    mod = type(x).__module__.split(".")[0]
    if mod == "torch":
        return "torch tensor"
    if mod == "numpy":
        return "numpy array"
    return type(x).__name__


def _shape(x):
    if hasattr(x, "shape"):
        return tuple(int(d) for d in x.shape)
    if isinstance(x, (list, tuple)):
        inner = {_shape(v) for v in x}
        return (len(x),) + (inner.pop() if len(inner) == 1 else ("ragged",))
    return ()


def structure_errors(raw_outputs, case) -> list[str]:
    """The mask and labels must come in the same container and shape as the ids they go with."""
    errors = []
    for n, out in enumerate(raw_outputs):
        if "input_ids" not in out:
            continue
        ids = out["input_ids"]
        for key, check in (("attention_mask", "mask"), ("labels", "labels")):
            if check not in case["checks"] or key not in out:
                continue
            where = f"output {n}: " if len(raw_outputs) > 1 else ""
            if _container(out[key]) != _container(ids):
                errors.append(f"{where}{key} is a {_container(out[key])} but input_ids is a {_container(ids)}")
            elif _shape(out[key]) != _shape(ids):
                errors.append(f"{where}{key} has shape {_shape(out[key])} but input_ids has {_shape(ids)}")
    return errors


def as_rows(x) -> list[list[int]]:
    if hasattr(x, "tolist"):
        x = x.tolist()
    x = list(x)
    if x and not isinstance(x[0], (list, tuple)):
        x = [x]
    return [[int(v) for v in row] for row in x]


def invariant_errors(real, out, case) -> list[str]:
    """What is wrong with `out` (empty list: the batch is right)."""
    if "input_ids" not in out:
        return ["no input_ids in the output"]
    ids = as_rows(out["input_ids"])
    errors = []
    if len(ids) != len(real):
        return [f"{len(ids)} rows of input_ids for {len(real)} texts"]
    width = len(ids[0])
    for i, toks in enumerate(real):
        n = len(toks)
        real_pos = list(range(width - n, width)) if case["side"] == "left" else list(range(n))
        pad_pos = [p for p in range(width) if p not in set(real_pos)]
        if [ids[i][p] for p in real_pos] != toks:
            errors.append(f"row {i}: the real tokens are not where expected: ids {ids[i]}, tokens {toks}")
            continue
        if any(ids[i][p] < 0 for p in pad_pos):
            errors.append(f"row {i}: a pad position of the ids holds no token id: ids {ids[i]}")
        if "mask" in case["checks"]:
            if "attention_mask" not in out:
                return errors + ["no attention_mask in the output"]
            m = as_rows(out["attention_mask"])[i]
            if any(m[p] != 1 for p in real_pos):
                errors.append(f"row {i}: a real token is masked out: mask {m}, ids {ids[i]}")
            if any(m[p] != 0 for p in pad_pos):
                errors.append(f"row {i}: padding is attended: mask {m}, ids {ids[i]}")
        if "labels" in case["checks"]:
            if "labels" not in out:
                return errors + ["no labels in the output"]
            lab = as_rows(out["labels"])[i]
            if "prompt" in case["checks"]:  # the prompt is not trained on: its labels are -100 as well
                prompt_pos, real_pos = real_pos[:PROMPT_WORDS], real_pos[PROMPT_WORDS:]
                if any(lab[p] != IGNORE for p in prompt_pos):
                    errors.append(f"row {i}: the prompt is in the loss: labels {lab}, ids {ids[i]}")
            if any(lab[p] != ids[i][p] for p in real_pos):
                errors.append(f"row {i}: a real token lost its label: labels {lab}, ids {ids[i]}")
            if any(lab[p] != IGNORE for p in pad_pos):
                errors.append(f"row {i}: padding is in the loss: labels {lab}, ids {ids[i]}")
    return errors


def run_variant(source: str, name: str, case, tmp_path: Path, tag: str) -> dict[str, list[str]]:
    """Write `source`, import it, run it with pad != EOS and pad == EOS: {"pad!=eos": errors, "pad==eos": errors}."""
    path = tmp_path / f"{Path(name).stem}_{tag}.py"
    path.write_text(source)
    results = {}
    for label, pad_is_eos in (("pad!=eos", False), ("pad==eos", True)):
        try:
            module = load_module(
                path, f"padlint_exec_{Path(name).stem}_{tag}_{label.replace('=', '').replace('!', 'n')}"
            )
            real, out, raw = run_entry(module, case, StandInTokenizer(pad_is_eos=pad_is_eos))
            results[label] = structure_errors(raw, case) + invariant_errors(real, out, case)
        except Exception as exc:  # a fix that breaks the code fails the check
            results[label] = [f"raised {type(exc).__name__}: {exc}"]
    return results


def _report(name, source, results) -> str:
    lines = [f"{name}:"]
    for label, errs in results.items():
        lines.append(f"  {label}: " + ("ok" if not errs else "; ".join(errs)))
    lines.append("---- fixed source ----")
    lines.append(source)
    return "\n".join(lines)


# ---- the tests ---------------------------------------------------------------------------------------


@functools.cache
def fixed(path: Path, unsafe: bool):
    """`fix_source` of a fixture file, computed once for the tests that run and that read the same fix."""
    return fix_source(path.read_text(), path.name, unsafe=unsafe)


NAMES = sorted(CASES)


@pytest.mark.parametrize("name", NAMES)
def test_exec_case_is_buggy(name, tmp_path):
    """Sanity of the fixture itself: unfixed, it breaks an invariant (with pad != EOS or pad == EOS)."""
    case = CASES[name]
    _require_lib(case)
    source = (EXEC_DIR / name).read_text()
    results = run_variant(source, name, case, tmp_path, "orig")
    assert any(results.values()), f"{name} is not buggy under the harness"
    if any(e.startswith("raised") for errs in results.values() for e in errs):
        pytest.fail(_report(name, source, results), pytrace=False)


@pytest.mark.parametrize("name", NAMES)
def test_exec_case_is_flagged(name):
    case = CASES[name]
    source = (EXEC_DIR / name).read_text()
    found = sorted({(d.code, d.location.row) for d in lint_source(source, name)})
    codes = {c for c, _ in found}
    missing = [c for c in case["codes"] if c not in codes]
    assert not missing, f"{name}: expected codes {list(case['codes'])}, found {found}"


@pytest.mark.parametrize("name", NAMES)
def test_safe_fix_executes(name, tmp_path):
    case = CASES[name]
    _require_lib(case)
    source = (EXEC_DIR / name).read_text()
    outcome = fix_source(source, name, unsafe=False)
    assert outcome.error is None, f"{name}: fix refused: {outcome.error}"
    changed = outcome.source != source
    if not changed and not case["safe_fix"]:
        pytest.skip("no safe fix exists for this case and none was applied")
    assert changed, f"{name}: no safe fix was applied (RULES.md promises one); remaining: " + str(
        [(d.code, d.location.row) for d in outcome.remaining]
    )
    results = run_variant(outcome.source, name, case, tmp_path, "safe")
    # a safe fix must be right whatever the tokenizer is, pad == EOS included
    if any(results.values()):
        pytest.fail(_report(name, outcome.source, results), pytrace=False)
    if case["safe_fix"]:
        left = [(d.code, d.location.row) for d in outcome.remaining if d.code in case["codes"]]
        assert not left, f"{name}: the fixed code is still flagged: {left}\n{outcome.source}"


@pytest.mark.parametrize("name", NAMES)
def test_unsafe_fix_executes(name, tmp_path):
    case = CASES[name]
    _require_lib(case)
    source = (EXEC_DIR / name).read_text()
    outcome = fixed(EXEC_DIR / name, unsafe=True)
    assert outcome.error is None, f"{name}: fix refused: {outcome.error}"
    assert outcome.source != source, f"{name}: no fix was applied with unsafe=True; remaining: " + str(
        [(d.code, d.location.row) for d in outcome.remaining]
    )
    results = run_variant(outcome.source, name, case, tmp_path, "unsafe")
    # an unsafe fix need only be right when the pad token is not EOS ...
    if results["pad!=eos"]:
        pytest.fail(_report(name, outcome.source, results), pytrace=False)
    # ... unless the module itself shows that pad is EOS (its setup does): then no unsafe fix may be used
    if case["setup"] and results["pad==eos"]:
        pytest.fail(_report(name, outcome.source, results), pytrace=False)


# ---- fixes keep the code's layout ----------------------------------------------------------------------

RULE_FIXTURES = Path(__file__).parent / "fixtures" / "rules"
LAYOUT_FILES = sorted(EXEC_DIR.glob("*.py")) + sorted(
    p for p in RULE_FIXTURES.glob("PAD*/*.py") if not p.name.startswith("near_")
)


def reindented_lines(original: str, fixed: str) -> list[str]:
    """Lines of `fixed` that are lines of `original` moved to another indentation (and are not also
    present with their own indentation). A line of brackets alone (`)`, `],`) says nothing of where it
    came from: a call the fix writes over several lines closes with one at its own indentation."""
    orig_lines = set(original.splitlines())
    indents: dict[str, set[str]] = {}
    for line in original.splitlines():
        indents.setdefault(line.strip(), set()).add(line[: len(line) - len(line.lstrip())])
    moved = []
    for line in fixed.splitlines():
        body = line.strip()
        if not any(c.isalnum() for c in body) or line in orig_lines or body not in indents:
            continue
        moved.append(line)
    return moved


@pytest.mark.parametrize("path", LAYOUT_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fix_keeps_indentation(path):
    """A fix edits what it must and leaves the other lines where they were (no re-indented calls)."""
    source = path.read_text()
    outcome = fixed(path, unsafe=True)
    moved = reindented_lines(source, outcome.source)
    if moved:
        pytest.fail(
            f"{path.name}: the fix re-indented unchanged lines:\n"
            + "\n".join(f"  |{m}" for m in moved)
            + "\n---- fixed source ----\n"
            + outcome.source,
            pytrace=False,
        )


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="needs torch")
def test_fixed_preference_collator_masks_exactly_the_padding_of_both_sides(tmp_path):
    """The DPO-style masks (`chosen_attention_mask`, `rejected_attention_mask`) are mask places: the
    safe fix gives each side a mask that is 0 exactly at its pad positions, a real token equal to the
    pad id included."""
    import torch

    path = RULE_FIXTURES / "PAD001" / "preference_collator_chosen_rejected_ones.py"
    outcome = fix_source(path.read_text(), path.name, unsafe=False)
    assert [d.code for d in outcome.fixed] == ["PAD001", "PAD001"] and not outcome.remaining
    fixed = tmp_path / "preference_fixed.py"
    fixed.write_text(outcome.source)
    spec = importlib.util.spec_from_file_location("preference_fixed", fixed)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    pad = 0
    features = [
        {"chosen_input_ids": [5, 6, pad], "rejected_input_ids": [8]},  # a real token equal to the pad id
        {"chosen_input_ids": [9], "rejected_input_ids": [3, 4, 2, 1]},
    ]
    batch = module.PreferenceCollator(pad)(features)
    for side in ("chosen", "rejected"):
        lengths = [len(f[f"{side}_input_ids"]) for f in features]
        width = batch[f"{side}_input_ids"].shape[1]
        expected = torch.tensor([[1] * n + [0] * (width - n) for n in lengths])
        assert torch.equal(batch[f"{side}_attention_mask"].long(), expected), side
