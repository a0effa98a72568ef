"""`labels=` handed to a model whose loss nobody reads grades nothing with the model's loss (the
labels only shape the decoder's inputs). The name holding the output may be stored before in the
same loop (`outputs = model.generate(...)`, then `outputs = model(..., labels=...)` read as
`outputs.logits`): only the reads that can see the store count. Seen on unseen code: a reward-weighted
seq2seq step that computes its own loss from the logits, where PAD006's fix changed nothing that
trains. Near-misses read the loss, or read the name where the store can reach it. Fixtures are our own."""

from __future__ import annotations

import textwrap

from padlint.engine import lint_source

REWARD_STEP = """
    import torch
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained("org/translator")
    model = AutoModelForSeq2SeqLM.from_pretrained("org/translator")


    def reward_epoch(pairs, reward_of, optimizer, size=4):
        for i in range(0, len(pairs), size):
            sources = [s for s, _ in pairs[i : i + size]]
            targets = [t for _, t in pairs[i : i + size]]
            src = tokenizer(sources, return_tensors="pt", padding=True)
            tgt = tokenizer(targets, return_tensors="pt", padding=True)
            with torch.no_grad():
                outputs = model.generate(**src, max_new_tokens=40)
                guesses = [tokenizer.decode(o, skip_special_tokens=True) for o in outputs]
            reward = reward_of(guesses, targets)
            outputs = model(**src, labels=tgt["input_ids"])
            picked = outputs.logits.log_softmax(-1).gather(2, tgt["input_ids"].unsqueeze(-1))
            loss = -(reward * picked.squeeze(-1) * tgt["attention_mask"]).sum() / tgt["attention_mask"].sum()
            loss.backward()
            optimizer.step()
"""


def codes(source: str) -> list[str]:
    return sorted({d.code for d in lint_source(textwrap.dedent(source), "rl.py")})


def test_labels_to_a_model_whose_loss_is_never_read_are_not_reported():
    assert "PAD006" not in codes(REWARD_STEP)


def test_the_same_step_reading_the_model_s_loss_is_reported():
    read = REWARD_STEP.replace(
        "            loss = -(reward * picked",
        "            lm_loss = outputs.loss\n            loss = lm_loss - (reward * picked",
    )
    assert read != REWARD_STEP
    assert "PAD006" in codes(read)


def test_a_read_at_the_top_of_the_loop_that_the_store_can_reach_counts():
    # Nothing is stored on every pass before this read: on the next pass it sees the model's output.
    reached = (
        REWARD_STEP.replace(
            "            sources = [s for s, _ in pairs[i : i + size]]",
            "            if i:\n"
            "                print(outputs)\n"
            "            sources = [s for s, _ in pairs[i : i + size]]",
        )
        .replace(
            "            with torch.no_grad():\n                outputs = model.generate(**src, max_new_tokens=40)",
            "            with torch.no_grad():\n                generated = model.generate(**src, max_new_tokens=40)",
        )
        .replace("for o in outputs]", "for o in generated]")
    )
    assert reached != REWARD_STEP
    assert "PAD006" in codes(reached)
