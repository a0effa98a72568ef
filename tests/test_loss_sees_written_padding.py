"""A loss judged against the padding the labels really carry (issue 12: "safe means right for every
value the code can see"). Two wrong fixes seen on unseen code:

- PAD007 offered "make the loss ignore -100" to a loss that ignores the pad id, because a seq2seq
  collator pads labels with -100 by default. The labels it grades were padded with the pad id by the
  tokenizer, to one width, so that collator never pads them; after the fix every pad was graded.
- PAD011 offered "divide by the mask's sum" for a scalar loss times one weight per example
  (`np.ones(len(batch))`, down-weighted for some rows): there is no position axis, so no pad is in
  the mean, and the fix cancelled the weights.

Fixtures are our own."""

from __future__ import annotations

import textwrap

import pytest

from padlint.engine import lint_source

torch = pytest.importorskip("torch")


def found(source: str, code: str):
    return [d for d in lint_source(textwrap.dedent(source), "train.py") if d.code == code]


# ---- PAD007: the loss ignores the pad id the tokenizer padded the labels with -----------------------
FIXED_WIDTH_TARGETS = """
    import torch.nn as nn
    from transformers import DataCollatorForSeq2Seq, Seq2SeqTrainer


    def encode_pairs(batch, tokenizer):
        source = tokenizer(batch["src"], max_length=256, padding="max_length", truncation=True)
        target = tokenizer(batch["tgt"], max_length=256, padding="max_length", truncation=True)
        return {
            "input_ids": source["input_ids"],
            "attention_mask": source["attention_mask"],
            "labels": target["input_ids"],
        }


    class PadIgnoringTrainer(Seq2SeqTrainer):
        def compute_loss(self, model, inputs, return_outputs=False):
            out = model(**inputs)
            grade = nn.CrossEntropyLoss(ignore_index=self.tokenizer.pad_token_id)
            labels = inputs["labels"]
            loss = grade(out.logits.view(-1, out.logits.size(-1)), labels.view(-1))
            return (loss, out) if return_outputs else loss


    def build(model, tokenizer, rows):
        data = rows.map(lambda b: encode_pairs(b, tokenizer), batched=True)
        collator = DataCollatorForSeq2Seq(tokenizer, model=model)
        return PadIgnoringTrainer(model=model, train_dataset=data, data_collator=collator)
"""


def test_a_loss_ignoring_the_pad_id_of_fixed_width_labels_is_not_reported():
    assert found(FIXED_WIDTH_TARGETS, "PAD007") == []


def test_labels_padded_per_map_batch_reach_the_collator_ragged_and_are_reported_without_a_fix():
    # `padding=True` pads each map batch to its own longest row: the collator pads the rows of a
    # training batch drawn from two map batches with its -100, which this loss does not ignore.
    ragged = FIXED_WIDTH_TARGETS.replace(
        'target = tokenizer(batch["tgt"], max_length=256, padding="max_length", truncation=True)',
        'target = tokenizer(batch["tgt"], max_length=256, padding=True, truncation=True)',
    )
    assert ragged != FIXED_WIDTH_TARGETS
    (finding,) = found(ragged, "PAD007")
    assert finding.fix is None  # ignoring -100 instead would grade every pad id the tokenizer wrote
    assert "out of" in finding.message  # a negative target is out of the class range: it raises


def test_a_collator_told_to_pad_labels_with_minus_100_on_fixed_width_labels_is_not_reported():
    told = FIXED_WIDTH_TARGETS.replace(
        "DataCollatorForSeq2Seq(tokenizer, model=model)",
        "DataCollatorForSeq2Seq(tokenizer, model=model, label_pad_token_id=-100)",
    )
    assert told != FIXED_WIDTH_TARGETS
    assert found(told, "PAD007") == []


def test_labels_padded_by_hand_with_minus_100_beside_are_still_reported():
    # Not a collator's fallback: the module itself writes -100 into labels this loss grades.
    by_hand = textwrap.dedent(FIXED_WIDTH_TARGETS) + textwrap.dedent(
        """
        import torch


        def collate(rows):
            width = max(len(r["labels"]) for r in rows)
            labels = torch.full((len(rows), width), -100)
            for i, r in enumerate(rows):
                labels[i, : len(r["labels"])] = torch.tensor(r["labels"])
            return {"labels": labels}
        """
    )
    (finding,) = found(by_hand, "PAD007")
    assert finding.fix is None


def test_the_fix_is_offered_where_the_labels_hold_only_minus_100():
    # The earlier shape stays: labels padded with -100 alone, a loss that ignores -1.
    source = """
        import torch
        import torch.nn.functional as F


        def collate(rows):
            width = max(len(r) for r in rows)
            labels = torch.full((len(rows), width), -100)
            for i, r in enumerate(rows):
                labels[i, : len(r)] = torch.tensor(r)
            return labels


        def loss_fn(logits, labels):
            return F.cross_entropy(logits.flatten(0, 1), labels.flatten(), ignore_index=-1)
    """
    (finding,) = found(source, "PAD007")
    assert finding.fix is not None


def test_what_the_ragged_finding_says_happens_does_happen():
    # The message's claim, run: a -100 target the loss does not ignore raises.
    logits = torch.randn(3, 7)
    with pytest.raises((IndexError, RuntimeError)):
        torch.nn.functional.cross_entropy(logits, torch.tensor([1, 2, -100]), ignore_index=0)


# ---- PAD011: one weight per example is no padding mask ------------------------------------------------
PER_EXAMPLE_WEIGHTS = """
    import numpy as np
    import torch


    def suspicion_weights(vectors, threshold):
        weights = np.ones(len(vectors))
        weights[np.linalg.norm(vectors, axis=1) > threshold] = 0.2
        return weights


    def train_step(model, optimizer, batch, threshold=3.0):
        out = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"], labels=batch["labels"])
        task_loss = out.loss
        vectors = out.logits[:, 0].detach().numpy()
        weights = torch.tensor(suspicion_weights(vectors, threshold))
        loss = (task_loss * weights).mean()
        loss.backward()
        optimizer.step()
"""


def test_a_loss_times_one_weight_per_example_is_not_a_mean_over_pads():
    assert found(PER_EXAMPLE_WEIGHTS, "PAD011") == []


def test_ones_zeroed_past_each_length_are_a_padding_mask_and_still_reported():
    zeroed = PER_EXAMPLE_WEIGHTS.replace(
        "        loss = (task_loss * weights).mean()",
        "        per_token = out.logits.logsumexp(-1)\n"
        "        keep = torch.ones(per_token.shape)\n"
        '        for i, n in enumerate(batch["lengths"]):\n'
        "            keep[i, n:] = 0\n"
        "        loss = (per_token * keep).mean()",
    )
    assert zeroed != PER_EXAMPLE_WEIGHTS
    assert len(found(zeroed, "PAD011")) == 1


def test_a_mask_read_from_the_batch_is_still_reported():
    read = PER_EXAMPLE_WEIGHTS.replace(
        "        loss = (task_loss * weights).mean()",
        '        per_token = out.logits.logsumexp(-1)\n        loss = (per_token * batch["attention_mask"]).mean()',
    )
    assert read != PER_EXAMPLE_WEIGHTS
    assert len(found(read, "PAD011")) == 1


# ---- what a value is made of says what it is, whatever its name ---------------------------------------------
CONTRASTIVE = """
    import torch
    import torch.nn.functional as F


    def collate_labels(rows):
        width = max(len(r) for r in rows)
        labels = torch.full((len(rows), width), -1)
        for i, r in enumerate(rows):
            labels[i, : len(r)] = torch.tensor(r)
        return {"labels": labels}


    def in_batch_loss(query, response, scale=20.0):
        labels = torch.arange(query.shape[0], device=query.device)
        return F.cross_entropy(query @ response.T * scale, labels)
"""


def test_in_batch_indices_named_labels_are_class_targets_not_token_labels():
    # `arange(B)` are the matching rows' indices: the -100 default of the loss concerns no padding.
    assert found(CONTRASTIVE, "PAD007") == []


def test_token_labels_padded_with_minus_one_beside_are_still_compared():
    graded = CONTRASTIVE.replace(
        "        labels = torch.arange(query.shape[0], device=query.device)\n"
        "        return F.cross_entropy(query @ response.T * scale, labels)",
        '        labels = collate_labels(response)["labels"]\n'
        "        return F.cross_entropy(query.flatten(0, 1), labels.flatten())",
    )
    assert graded != CONTRASTIVE
    assert len(found(graded, "PAD007")) == 1


SEQUENCE_SCALED = """
    def sequence_loss(per_sequence_loss, completion_mask):
        # one loss per sequence (B, 1), scaled by the sequence's length
        return (per_sequence_loss * completion_mask.sum(1, keepdim=True)).mean()
"""


def test_a_loss_scaled_by_the_mask_s_row_counts_is_no_masked_mean():
    assert found(SEQUENCE_SCALED, "PAD011") == []


def test_a_loss_times_the_mask_itself_is_still_reported():
    masked = SEQUENCE_SCALED.replace("completion_mask.sum(1, keepdim=True)", "completion_mask")
    assert masked != SEQUENCE_SCALED
    assert len(found(masked, "PAD011")) == 1


# ---- PAD012: a place named as labels holds labels, whatever its suffix ----------------------------------------
LABELS_KEY = """
    import torch
    import torch.nn as nn


    class SpeechLM(nn.Module):
        def prepare(self, prompt_ids, target_ids):
            input_ids = torch.tensor(prompt_ids + target_ids, dtype=torch.int64)
            labels = torch.tensor([-1] * len(prompt_ids) + target_ids, dtype=torch.int64)
            mask = torch.tensor([1] * len(input_ids))
            return {"input_ids": input_ids[None,], "attention_mask": mask[None,], "labels_ids": labels}

        def forward(self, prompt_ids, target_ids):
            batch = self.prepare(prompt_ids, target_ids)
            labels_ids = batch["labels_ids"]
            labels_ids[labels_ids == -1] = -100
            embeds = self.embed(batch["input_ids"])
            out = self.llm(inputs_embeds=embeds, attention_mask=batch.get("attention_mask"), labels=labels_ids)
            return out.loss, batch
"""


def test_labels_kept_under_a_labels_key_are_not_the_input_ids():
    # The write changes the batch's labels too, which are what it means to change: no ids are touched.
    assert found(LABELS_KEY, "PAD012") == []


def test_labels_taken_from_the_input_ids_key_are_still_reported():
    aliased = LABELS_KEY.replace('labels_ids = batch["labels_ids"]', 'labels_ids = batch["input_ids"]')
    assert aliased != LABELS_KEY
    assert len(found(aliased, "PAD012")) == 1
