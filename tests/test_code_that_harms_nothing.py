"""Code that runs a model on padded batches but where nothing the padding touches is used (issue 12,
false-alarm class 5): a model called for its time alone, its output dropped; an all-ones mask that is
one of two options the code writes, the other the right mask for the same ids. Each near-miss differs
in the one thing the mechanism reads and must still be reported. Fixtures are our own."""

from __future__ import annotations

import textwrap

from padlint.engine import lint_source


def codes(source: str) -> list[str]:
    return sorted({d.code for d in lint_source(textwrap.dedent(source), "probe.py")})


# ---- a model run for its speed: nothing reads what it makes of the pads ---------------------------------
TIMING = """
    import time

    import torch
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained("my-org/encoder")
    encoder = AutoModel.from_pretrained("my-org/encoder")


    def sentences_per_second(sentences, rounds=20):
        ids = tokenizer(sentences, padding="max_length", max_length=96, return_tensors="pt").input_ids
        began = time.perf_counter()
        with torch.inference_mode():
            for _ in range(rounds):
                encoder(ids)
        return rounds * len(sentences) / (time.perf_counter() - began)
"""


def test_a_model_run_only_for_its_time_is_not_reported():
    assert "PAD003" not in codes(TIMING)


def test_the_same_run_whose_output_is_kept_is_reported():
    kept = TIMING.replace(
        "                encoder(ids)", "                vectors = encoder(ids).last_hidden_state[:, 0]"
    )
    assert "vectors" in kept
    assert "PAD003" in codes(kept)


def test_a_forward_hook_reads_the_outputs_the_caller_drops():
    hooked = TIMING.replace(
        "        began = time.perf_counter()",
        "        kept = []\n"
        "        encoder.encoder.layer[-1].register_forward_hook(lambda mod, inp, out: kept.append(out[0]))\n"
        "        began = time.perf_counter()",
    )
    assert "register_forward_hook" in hooked
    assert "PAD003" in codes(hooked)


def test_labels_into_a_dropped_call_grade_nothing_but_into_a_kept_one_do():
    warm_up = """
        import torch
        from torch.nn.utils.rnn import pad_sequence
        from transformers import AutoModelForCausalLM

        model = AutoModelForCausalLM.from_pretrained("my-org/decoder")


        def warm_up(rows, pad_id):
            ids = pad_sequence([torch.tensor(r) for r in rows], batch_first=True, padding_value=pad_id)
            mask = (ids != pad_id).long()
            model(input_ids=ids, attention_mask=mask, labels=ids)
    """
    assert "PAD002" not in codes(warm_up)
    trained = warm_up.replace(
        "            model(input_ids=ids, attention_mask=mask, labels=ids)",
        "            model(input_ids=ids, attention_mask=mask, labels=ids).loss.backward()",
    )
    assert "PAD002" in codes(trained)


# ---- an all-ones mask that is one option of two ----------------------------------------------------------
OPTION = """
    import torch
    from torch.nn.utils.rnn import pad_sequence


    class Batcher:
        def __init__(self, pad_id, attend_to_pads=False):
            self.pad_id = pad_id
            self.attend_to_pads = attend_to_pads

        def __call__(self, rows):
            ids = pad_sequence([torch.tensor(r["ids"]) for r in rows], batch_first=True, padding_value=self.pad_id)
            if self.attend_to_pads:
                mask = torch.ones_like(ids)  # the baseline of the ablation
            else:
                mask = ids.ne(self.pad_id).long()
            return {"input_ids": ids, "attention_mask": mask}
"""


def test_ones_chosen_beside_the_right_mask_for_the_same_ids_are_an_option():
    assert "PAD001" not in codes(OPTION)


def test_ones_on_every_path_are_reported():
    only_ones = OPTION.replace("mask = ids.ne(self.pad_id).long()", "mask = torch.ones(ids.shape, dtype=torch.long)")
    assert "PAD001" in codes(only_ones)


def test_a_right_mask_for_other_ids_does_not_excuse_the_ones():
    # The other path masks the prompts, not these ids: the ones over `ids` are the only mask they get.
    other_ids = OPTION.replace(
        "            ids = pad_sequence(",
        "            prompts = pad_sequence([torch.tensor(r['prompt']) for r in rows], batch_first=True,"
        " padding_value=self.pad_id)\n"
        "            ids = pad_sequence(",
    ).replace("mask = ids.ne(self.pad_id).long()", "mask = prompts.ne(self.pad_id).long()")
    assert "mask = prompts.ne" in other_ids
    assert "PAD001" in codes(other_ids)


# ---- labels a collate function makes that every loop only decodes ----------------------------------------
DECODED = """
    import torch
    from torch.nn.utils.rnn import pad_sequence
    from torch.utils.data import DataLoader
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained("my-org/decoder", padding_side="left")
    model = AutoModelForCausalLM.from_pretrained("my-org/decoder")


    def collate_questions(rows):
        prompts = [torch.tensor(r["prompt"]) for r in rows]
        ids = pad_sequence(prompts, batch_first=True, padding_value=tokenizer.pad_token_id, padding_side="left")
        answers = pad_sequence([torch.tensor(r["answer"]) for r in rows], batch_first=True,
                               padding_value=tokenizer.pad_token_id)
        return {"input_ids": ids, "attention_mask": ids.ne(tokenizer.pad_token_id).long(), "labels": answers}


    def exact_match(rows):
        right = 0
        for batch in DataLoader(rows, batch_size=8, collate_fn=collate_questions):
            made = model.generate(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"])
            guesses = tokenizer.batch_decode(made, skip_special_tokens=True)
            truths = tokenizer.batch_decode(batch["labels"], skip_special_tokens=True)
            right += sum(g.strip() == t.strip() for g, t in zip(guesses, truths))
        return right
"""


def test_labels_every_loop_only_decodes_are_graded_by_nothing():
    assert "PAD002" not in codes(DECODED)


def test_the_same_labels_handed_to_the_model_are_graded():
    graded = DECODED.replace(
        "            made = model.generate(",
        '            loss = model(input_ids=batch["input_ids"], labels=batch["labels"]).loss\n'
        "            made = model.generate(",
    )
    assert "labels=batch" in graded
    assert "PAD002" in codes(graded)


def test_a_batch_spread_into_the_model_hands_it_the_labels():
    spread = DECODED.replace(
        "            made = model.generate(",
        "            model(**batch).loss.backward()\n            made = model.generate(",
    )
    assert "PAD002" in codes(spread)


def test_labels_named_on_the_way_to_the_decoder_are_still_only_decoded():
    named = DECODED.replace(
        '            truths = tokenizer.batch_decode(batch["labels"], skip_special_tokens=True)',
        '            answers = batch["labels"].cpu()\n'
        "            truths = tokenizer.batch_decode(answers, skip_special_tokens=True)",
    )
    assert "answers = batch" in named
    assert "PAD002" not in codes(named)
    graded_too = named.replace(
        "            right += sum(",
        "            model(input_ids=batch['input_ids'], labels=answers).loss.backward()\n            right += sum(",
    )
    assert "PAD002" in codes(graded_too)
