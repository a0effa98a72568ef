"""Rule fixtures whose fix has a shape no exec fixture has, run as they are: fixed, imported, called.

tests/fixtures/exec/ holds small modules written to be run; the fixtures of tests/fixtures/rules/ are
shaped like real code and only linted there. For the ones listed here (fixes added in the last
sessions, fixes made by code paths no exec case reaches, and a few known gaps) the fixture file itself
is fixed with `fix_source`, imported (a stand-in `transformers`, see rule_fixture_runner.py) and called
on the ragged batch with pad != EOS and with pad == EOS. The invariants are test_fix_execution.py's:
the mask is 1 exactly on real tokens, labels equal the ids there (a real EOS equal to the pad id
included) and are -100 exactly on padding, in the ids' container and shape. A safe fix must hold for
both tokenizers, an unsafe one with pad != EOS, and with pad == EOS too when the fixture makes pad the
EOS itself (`eos`). The unfixed fixture must break an invariant under the same harness.

A case (rule_fixture_runner.Case): `run(module, tokenizer, models)` calls the fixture and returns
(real token rows, one output dict with a row per text); `checks`, `side`, `safe` and `lib` as in
test_fix_execution.py. Scripts that run at import are in test_fix_execution_rule_scripts.py.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from rule_fixture_runner import (  # noqa: E402
    Case,
    RecordingEncoder,
    case_tests,
)
from test_fix_execution import TEXTS, ListDataset  # noqa: E402


def real_rows(tokenizer, texts=TEXTS) -> list[list[int]]:
    return [tokenizer.encode(t) for t in texts]


def features(tokenizer, key: str = "input_ids") -> list[dict]:
    return [{key: row} for row in real_rows(tokenizer)]


def _generate_told_pad_id(module, tokenizer, models):
    module.complete(list(TEXTS))
    [call] = models[0].calls
    return real_rows(tokenizer), call


def _embedder(module, tokenizer, models):
    module.embed_passages(list(TEXTS))
    [call] = models[0].calls
    return real_rows(tokenizer), call


def _encoder_states(module, tokenizer, models):
    module.encoder_states(list(TEXTS))
    [call] = models[0].calls
    return real_rows(tokenizer), call


def _sample_each(module, tokenizer, models):
    model = RecordingEncoder()
    module.sample_each(model, tokenizer, list(TEXTS), k=1)
    [call] = model.calls
    return real_rows(tokenizer), call


def _pad_block(module, tokenizer, models):
    block = module.pad_block(real_rows(tokenizer), tokenizer.pad_token_id)
    return real_rows(tokenizer), {"input_ids": block["tokens"], "attention_mask": block["mask"]}


def _zero_padded_pairs(module, tokenizer, models):
    encoded = [{"input_ids": row, "token_type_ids": [0] * len(row)} for row in real_rows(tokenizer)]
    return real_rows(tokenizer), module.collate_pairs(encoded, [0] * len(encoded))


def _sft_collate_appends_eos(module, tokenizer, models):
    rows = [{"input_ids": tokenizer.encode(t, add_special_tokens=False)} for t in TEXTS]
    return real_rows(tokenizer), module.sft_collate(rows, tokenizer)


def _student_collator(module, tokenizer, models):
    student = module.student_tok
    encoded = [{"input_ids": row, "attention_mask": [1] * len(row)} for row in real_rows(student)]
    return real_rows(student), module.student_collator()(encoded)


def _map_lambda_pairs(module, tokenizer, models):
    pairs = [t.split(maxsplit=1) for t in TEXTS]
    batch = {"q": [p[0] for p in pairs], "a": [p[1] if len(p) > 1 else "" for p in pairs]}
    tok = module.tokenizer
    real = [tok.encode(" ".join(p)) + [tok.eos_token_id] for p in pairs]
    return real, module.encode_pairs(batch)


def _prompt_prefix(module, tokenizer, models):
    rows = real_rows(tokenizer)
    examples = [{"prompt_ids": row[:1], "answer_ids": row[1:]} for row in rows]
    return rows, module.collate(examples, tokenizer.pad_token_id)


def _pair_scores(module, tokenizer, models):
    seen = []
    module.answer_logprob = lambda logits, labels: seen.append(labels) or labels.sum(-1)
    model = RecordingEncoder()
    module.pair_scores(model, tokenizer, list(TEXTS), list(TEXTS))
    [call] = model.calls
    return real_rows(tokenizer) * 2, {"input_ids": call["input_ids"], "labels": seen[0]}


def _numpy_collate_copy(module, tokenizer, models):
    return real_rows(tokenizer), module.collate_numpy(features(tokenizer), tokenizer.pad_token_id, width=12)


def _seq2seq_zero_buffer(module, tokenizer, models):
    out = module.seq2seq_batch(tokenizer, list(TEXTS), list(TEXTS))
    targets = tokenizer(list(TEXTS), padding=True, return_tensors="np")["input_ids"]
    return real_rows(tokenizer), {"input_ids": targets, "labels": out["labels"]}


# a fixture that imports datasets only to map at its end: the test calls its map function itself
_NO_DATASETS = {"datasets": {"load_dataset": None}}


def _torch_zero_buffer(module, tokenizer, models):
    out = module.seq2seq_batch(tokenizer, list(TEXTS), list(TEXTS))
    targets = tokenizer(list(TEXTS), padding=True, return_tensors="pt")["input_ids"]
    return real_rows(tokenizer), {"input_ids": targets, "labels": out["labels"]}


def _numpy_place_map(module, tokenizer, models):
    width = max(len(r) for r in real_rows(tokenizer)) + 1  # padded to max_length: every row has pads
    out: dict[str, list] = {"input_ids": [], "attention_mask": [], "labels": []}
    for text in TEXTS:
        encoded = tokenizer(text, padding="max_length", max_length=width)
        example = module.add_labels({k: list(v) for k, v in encoded.items()})
        for key in out:
            out[key].append(example[key])
    return real_rows(tokenizer), out


def _packer_rows(module, tokenizer, models):
    rows = module.Packer(tokenizer).pack(list(TEXTS))
    return real_rows(tokenizer), tokenizer.pad(rows)


def _transcripts(module, tokenizer, models):
    rows = real_rows(tokenizer)
    features = [{"frames": [0.5] * (2 * len(row)), "labels": row} for row in rows]
    out = module.TranscriptCollator(tokenizer)(features)
    # the transcripts padded, as the labels must equal them on real tokens
    padded = tokenizer.pad([{"input_ids": row} for row in rows], return_tensors="pt")["input_ids"]
    return rows, {"input_ids": padded, "labels": out["labels"]}


def _rows_of(outputs: list[dict]) -> dict:
    """Per-example outputs (a map function's, a Dataset's items) as one output with a row per text."""
    return {key: [out[key] for out in outputs] for key in outputs[0]}


def _with_eos(tokenizer, texts) -> list[list[int]]:
    """Rows of texts that end with the EOS token's text (`text + tokenizer.eos_token`)."""
    return real_rows(tokenizer, [t + tokenizer.eos_token for t in texts])


def _deepcopy_lists(module, tokenizer, models):
    return _with_eos(tokenizer, TEXTS), _rows_of(module.encode_for_lm(tokenizer, list(TEXTS)))


def _row_slices(module, tokenizer, models):
    return real_rows(module.tok), module.tokenize({"story": list(TEXTS)})


def _slice_copy_example(module, tokenizer, models):
    tok = module.tok
    return _with_eos(tok, TEXTS), _rows_of([module.to_features({"text": t}) for t in TEXTS])


def _instruction_example(module, tokenizer, models):
    tok = module.tok
    pairs = [t.split(maxsplit=1) + [""] for t in TEXTS]
    examples = [{"instruction": p[0], "output": p[1]} for p in pairs]
    texts = [f"### Instruction:\n{e['instruction']}\n### Response:\n{e['output']}{tok.eos_token}" for e in examples]
    return real_rows(tok, texts), _rows_of([module.encode_example(e) for e in examples])


def _seq2seq_targets(module, tokenizer, models):
    tok = module.tokenizer
    out = module.preprocess({"question": list(TEXTS), "answer": list(TEXTS)})
    targets = tok(text_target=[t + tok.eos_token for t in TEXTS], max_length=96, padding="max_length")
    return _with_eos(tok, TEXTS), {"input_ids": targets["input_ids"], "labels": out["labels"]}


def _left_generate(module, tokenizer, models):
    module.complete_functions(list(TEXTS))
    [call] = models[0].calls
    return real_rows(module.tok), call


def _numpy_rowfill(module, tokenizer, models):
    return real_rows(module.tok), module.collate_np(features(module.tok))


def _labelled_features(module, tokenizer, models):
    rows = [{"input_ids": row, "labels": row} for row in real_rows(tokenizer)]
    return real_rows(tokenizer), module.CodeCompletionCollator(tokenizer)(rows)


def _source_rows_repadded(module, tokenizer, models):
    rows = [module.encode_pair({"source": t, "target": t}, tokenizer) for t in TEXTS]
    return real_rows(tokenizer), tokenizer.pad([{k: r[k] for k in r if k != "labels"} for r in rows])


def _dataset_items_repadded(module, tokenizer, models):
    dataset = module.ClaimsDataset(list(TEXTS), [0, 1, 0], tokenizer)
    rows = [dataset[i] for i in range(len(dataset))]
    return real_rows(tokenizer), tokenizer.pad([{k: r[k] for k in r if k != "labels"} for r in rows])


class PromptRows(ListDataset):
    column_names = ["prompt"]


def _left_prompt_loader(module, tokenizer, models):
    tokenizer.padding_side = "left"
    loader = module.prompt_loader(PromptRows({"prompt": t} for t in TEXTS), tokenizer, batch_size=len(TEXTS))
    return real_rows(tokenizer), next(iter(loader))


def _with_setup(entry: str) -> Callable:
    def run(module, tokenizer, models):
        tokenizer = module.load(tokenizer) or tokenizer
        if entry == "encode_batch":
            return real_rows(tokenizer), module.encode_batch({"text": list(TEXTS)}, tokenizer)
        if entry == "perplexity_batch":
            return real_rows(tokenizer), module.perplexity_batch(list(TEXTS), tokenizer)
        return real_rows(tokenizer), getattr(module, entry)(features(tokenizer), tokenizer)

    return run


CASES = {
    # PAD001: a mask from the lengths of rows padded in a helper; zero-padded rows sized by the widest;
    # the tokenizer's own mask for prompts repeated k times; `new_ones` over a nested tensor padded
    # by `to_padded_tensor` (no lengths in view: the unsafe `ids != pad`)
    "PAD001/encoder_right_pad_ignored_labels_ones.py": Case(
        ("PAD001",),
        lambda m, tok, models: (real_rows(tok), m.collate(features(tok), tok.pad_token_id)),
        checks=("mask", "labels"),
    ),
    "PAD001/helper_dict_mask_key_consumed.py": Case(("PAD001",), _pad_block, lib="numpy"),
    "PAD001/zero_padded_id_rows_ones_width.py": Case(("PAD001",), _zero_padded_pairs),
    "PAD001/prompt_list_repeated_ones.py": Case(("PAD001",), _sample_each),
    "PAD001/nested_to_padded_ones.py": Case(
        ("PAD001",),
        lambda m, tok, models: (real_rows(tok), m.collate_nested(features(tok), tok.pad_token_id)),
        safe=False,
    ),
    # PAD002: labels from the lengths where only the prompt prefix is masked; labels of two stacked
    # encodings; the unsafe numpy `np.where(ids == pad, -100, ids)`
    "PAD002/prompt_prefix_masked_pads_kept.py": Case(("PAD002",), _prompt_prefix, checks=("labels", "prompt")),
    "PAD002/stacked_pairs_labels_graded_by_ignore.py": Case(("PAD002",), _pair_scores, checks=("labels",)),
    "PAD002/labels_copied_before_numpy_place.py": Case(
        ("PAD002",), _numpy_place_map, checks=("mask", "labels"), lib="numpy", stand_ins=lambda: _NO_DATASETS
    ),
    "PAD002/numpy_collate_copy_dict_call.py": Case(
        ("PAD002",), _numpy_collate_copy, checks=("mask", "labels"), safe=False, lib="numpy"
    ),
    # PAD003: the encoding's mask handed to a model loaded at import time (an encoder named embedder,
    # `generate` told a pad id that is EOS, left padded; a model's `.encoder`, whose signature is not in view)
    "PAD003/encoder_named_embedder_given_ids.py": Case(("PAD003",), _embedder),
    "PAD003/generate_told_pad_id_that_is_eos.py": Case(("PAD003",), _generate_told_pad_id, side="left", eos=True),
    "PAD003/submodule_encoder_given_input_ids.py": Case(("PAD003",), _encoder_states, safe=False),
    # PAD004: rows padded with EOS, labels masked by EOS; the DataCollatorForLanguageModeling replaced by
    # a collate function for the tokenizer whose pad id is EOS, beside one with a pad token of its own
    "PAD004/eos_padding_labels_masked_by_eos.py": Case(
        ("PAD004",), _sft_collate_appends_eos, checks=("mask", "labels")
    ),
    "PAD004/pad_eos_tokenizer_beside_one_with_own_pad.py": Case(
        ("PAD004",), _student_collator, checks=("mask", "labels"), safe=False, eos=True
    ),
    # PAD005: rows filled with EOS on the left; a mask made by `map(lambda ...)`; the tokenizer's mask
    "PAD005/eos_filled_rows_mask_ne_eos.py": Case(
        ("PAD005",),
        lambda m, tok, models: (real_rows(tok), m.left_padded_prompts(tok, list(TEXTS))),
        side="left",
    ),
    "PAD005/map_lambda_mask_pad_eos.py": Case(("PAD005",), _map_lambda_pairs, lib="lists"),
    "PAD005/token_comparison_rows_pad_is_eos.py": Case(("PAD005",), _with_setup("encode_batch"), lib="lists"),
    # the tokenizer's mask written where `ids.ne(pad)` stood, read inverted after: it stays boolean
    "PAD005/perplexity_targets_by_inverted_mask.py": Case(
        ("PAD005",), _with_setup("perplexity_batch"), checks=("mask", "labels")
    ),
    # PAD006: label buffers filled with the pad id or zeros, rows appended padded with EOS; transcripts
    # padded by the tokenizer and handed on as labels (masked by their encoding's mask)
    "PAD006/speech_collator_transcripts_padded_by_tokenizer.py": Case(("PAD006",), _transcripts, checks=("labels",)),
    "PAD006/full_buffer_rows_written_labels.py": Case(
        ("PAD006",),
        lambda m, tok, models: (real_rows(tok), m.collate(features(tok), tok)),
        checks=("labels",),
    ),
    "PAD006/numpy_zero_buffer_tokenized_targets.py": Case(
        ("PAD006",), _seq2seq_zero_buffer, checks=("labels",), lib="numpy"
    ),
    "PAD006/zero_buffer_cast_after_that_requires_grad.py": Case(("PAD006",), _torch_zero_buffer, checks=("labels",)),
    "PAD006/rows_appended_padded_with_eos.py": Case(
        ("PAD006",), _with_setup("collate"), checks=("mask", "labels"), lib="lists"
    ),
    # PAD009: rows padded in a method, then padded again by a collator stored on the object; rows padded
    # in a map function, a Dataset's items, left-padded prompts re-padded by a loader's lambda
    "PAD009/repadding_collator_stored_then_used.py": Case(("PAD009",), _packer_rows),
    "PAD009/seq2seq_collator_after_manual_pad.py": Case(("PAD009",), _source_rows_repadded),
    "PAD009/dataset_getitem_pads_then_padding_collator.py": Case(("PAD009",), _dataset_items_repadded),
    "PAD009/left_pad_lambda_tokenizer_pad.py": Case(("PAD009",), _left_prompt_loader, side="left"),
    # fixes written over several lines (the line grew past the project's length): the wrapped code runs
    "PAD001/list_extend_rows_per_row_ones.py": Case(
        ("PAD001",),
        lambda m, tok, models: (real_rows(tok), m.collate_lists(features(tok), tok)),
        safe=False,
        lib="lists",
    ),
    "PAD002/batch_encode_plus_deepcopy_lists.py": Case(("PAD002",), _deepcopy_lists, checks=("labels",), lib="lists"),
    "PAD002/batched_map_row_slices_padding_true.py": Case(("PAD002",), _row_slices, checks=("labels",), lib="lists"),
    "PAD002/detach_clone_chain_labels.py": Case(
        ("PAD002",),
        lambda m, tok, models: (real_rows(tok), m.CausalBatcher(tok)(list(TEXTS))),
        checks=("mask", "labels"),
    ),
    "PAD002/map_single_example_slice_copy.py": Case(
        ("PAD002",), _slice_copy_example, checks=("mask", "labels"), lib="lists"
    ),
    "PAD004/list_map_single_example_comprehension.py": Case(
        ("PAD004",), _instruction_example, checks=("mask", "labels"), lib="lists"
    ),
    "PAD004/seq2seq_comprehension_pad_is_eos.py": Case(("PAD004",), _seq2seq_targets, checks=("labels",), lib="lists"),
    "PAD005/inverted_equality_mask_pad_is_eos.py": Case(("PAD005",), _with_setup("collate")),
    "PAD005/left_pad_generate_ne.py": Case(("PAD005",), _left_generate, side="left"),
    "PAD005/numpy_rowfill_neq_pad.py": Case(("PAD005",), _numpy_rowfill, checks=("mask", "labels"), lib="numpy"),
    "PAD005/subscript_store_batch_mask.py": Case(("PAD005",), _labelled_features, checks=("mask", "labels")),
}


# the unfixed fixture is reported and breaks the batch; its safe fix, and its unsafe fixes, are right when run
(
    test_unfixed_rule_fixture_breaks_the_batch,
    test_safe_fix_of_rule_fixture_is_right_when_run,
    test_unsafe_fix_of_rule_fixture_is_right_when_run,
) = case_tests(CASES)
