"""Library consumers as table rows (issue 12): a trainer that only holds a dataset, a model that rebuilds
its labels from a mask of its own, a model that refuses a custom attention mask. Each near-miss stays
silent; the sibling that differs only in what the row reads is still reported. Fixtures are our own."""

from __future__ import annotations

import textwrap

import pytest
from nbwriters import code, jupyter, markdown, notebook

from padlint.engine import lint_source
from padlint.files.notebook import Notebook
from padlint.semantics import table as T


def codes(source: str, filename: str = "case.py") -> list[str]:
    return sorted({d.code for d in lint_source(textwrap.dedent(source), filename)})


# ---- a trainer that holds the dataset and feeds nothing itself (trl 0.x PPOTrainer) -----------------
PROMPTS = """
    from datasets import Dataset, load_dataset
    from transformers import AutoTokenizer
    from trl import AutoModelForCausalLMWithValueHead, PPOConfig, PPOTrainer

    tok = AutoTokenizer.from_pretrained("gpt2", padding_side="left")
    tok.pad_token = tok.eos_token
    policy = AutoModelForCausalLMWithValueHead.from_pretrained("gpt2")
    raw = load_dataset("json", data_files="prompts.json", split="train")

    rows = raw.map(
        lambda r: {"input_ids": tok.encode(r["prompt"], padding="max_length", max_length=24, return_tensors="pt")[0]}
    )
    rows = rows.map(lambda r: {"query": tok.decode(r["input_ids"])})
    rows = Dataset.from_dict(rows[:512])
    rows.set_format("torch")
    rows
    trainer = PPOTrainer(PPOConfig(batch_size=8), policy, None, tok, dataset=rows)
"""

LOOP_OVER_THE_LOADER = """
    for batch in trainer.dataloader:
        queries = list(batch["input_ids"])
        responses = [trainer.generate(q, max_new_tokens=16) for q in queries]
        trainer.step(queries, responses, [1.0] * len(queries))
"""


def test_a_dataset_only_held_by_a_trainer_that_feeds_nothing_is_silent():
    assert "PAD003" not in codes(PROMPTS)
    # steps that hand the trainer tensors made elsewhere do not read the rows it holds
    assert "PAD003" not in codes(PROMPTS + "    trainer.log_stats({}, {}, [])\n")


def notebook_codes(loop_cell: str) -> list[str]:
    """The PPO notebook as cells: setup, the mapped prompts, the trainer, then the loop cell."""
    cells = textwrap.dedent(PROMPTS).strip().split("\n\n")
    nb = notebook(
        *(code(text, f"c{i}") for i, text in enumerate(cells)),
        markdown("Training loop", "m1"),
        code(textwrap.dedent(loop_cell).strip(), "loop"),
    )
    virtual = Notebook(jupyter(nb)).virtual_text()
    return sorted({d.code for d in lint_source(virtual, "ppo.ipynb")})


def test_a_notebook_whose_ppo_loop_cell_is_commented_out_feeds_nothing():
    commented = "\n".join("# " + line for line in textwrap.dedent(LOOP_OVER_THE_LOADER).strip().splitlines())
    assert "PAD003" not in notebook_codes(commented)
    assert "PAD003" in notebook_codes(LOOP_OVER_THE_LOADER)


@pytest.mark.parametrize(
    "later",
    [
        LOOP_OVER_THE_LOADER,  # the user's loop reads the batches the trainer exposes
        "    trainer.train()\n",  # the newer API feeds its dataset in train()
        "    loader = DataLoader(rows, batch_size=8)\n",  # the rows go elsewhere too
        "    rows.save_to_disk('prompts')\n",  # saved for code not in view
        "    run_ppo(trainer)\n",  # the trainer handed to a function not in view
    ],
)
def test_the_rows_reach_a_reader_and_are_reported(later: str):
    assert "PAD003" in codes(PROMPTS + textwrap.indent(textwrap.dedent(later), "    "))


def test_the_rows_handed_under_another_keyword_are_not_held():
    fed = PROMPTS.replace(
        "PPOTrainer(PPOConfig(batch_size=8), policy, None, tok, dataset=rows)", "SFTTrainer(policy, train_dataset=rows)"
    )
    fed = fed.replace("PPOConfig, PPOTrainer", "PPOConfig, PPOTrainer, SFTTrainer")
    assert fed != PROMPTS
    assert "PAD003" in codes(fed)


def test_a_mapped_function_that_calls_a_model_consumes_the_rows():
    scored = PROMPTS.replace(
        'rows = rows.map(lambda r: {"query": tok.decode(r["input_ids"])})',
        'rows = rows.map(lambda r: {"score": policy(r["input_ids"][None])[0].mean()})',
    )
    assert scored != PROMPTS
    assert "PAD003" in codes(scored)


def test_a_dataset_left_at_the_end_of_a_script_keeps_its_finding():
    unheld = PROMPTS.replace("    trainer = PPOTrainer(PPOConfig(batch_size=8), policy, None, tok, dataset=rows)\n", "")
    assert unheld != PROMPTS
    assert "PAD003" in codes(unheld)


def test_labels_in_rows_no_model_reads_are_not_graded():
    labelled = PROMPTS.replace(
        """rows = raw.map(
        lambda r: {"input_ids": tok.encode(r["prompt"], padding="max_length", max_length=24, return_tensors="pt")[0]}
    )""",
        """def encode(row):
        enc = tok(row["prompt"], padding="max_length", max_length=24)
        return {"input_ids": enc["input_ids"], "attention_mask": enc["attention_mask"], "labels": enc["input_ids"]}


    rows = raw.map(encode)""",
    )
    assert labelled != PROMPTS
    assert "PAD002" not in codes(labelled)
    assert "PAD002" in codes(labelled + LOOP_OVER_THE_LOADER)


# ---- a model that rebuilds its labels from a mask of its own (peft's CPT) --------------------------
CPT_COLLATOR = """
    import torch
    from peft import {config}, get_peft_model
    from transformers import AutoModelForCausalLM, Trainer

    base = AutoModelForCausalLM.from_pretrained("bigscience/bloom-560m")
    model = get_peft_model(base, {config}(task_type="CAUSAL_LM"))


    class TypedCollator:
        def __call__(self, examples):
            width = max(len(e["input_ids"]) for e in examples)

            def fill(values, pad_value=0):
                return values + [pad_value] * (width - len(values))

            batch = {{
                "input_ids": torch.tensor([fill(e["input_ids"]) for e in examples]),
                "attention_mask": torch.tensor([fill(e["attention_mask"]) for e in examples]),
                {type_mask}
            }}
            batch["labels"] = batch["input_ids"].clone()
            return batch


    trainer = Trainer(model=model, train_dataset=train_rows, data_collator=TypedCollator())
"""
TYPE_MASK = '"input_type_mask": torch.tensor([fill(e["input_type_mask"]) for e in examples]),'


def test_labels_beside_the_type_mask_the_model_rebuilds_them_from_are_silent():
    assert "PAD002" not in codes(CPT_COLLATOR.format(config="CPTConfig", type_mask=TYPE_MASK))


@pytest.mark.parametrize(
    ("config", "type_mask"),
    [
        ("LoraConfig", TYPE_MASK),  # another adapter: nothing reads the type mask
        ("CPTConfig", ""),  # no type mask in the batch: the model keeps every label
    ],
)
def test_labels_without_the_rebuilding_consumer_are_reported(config: str, type_mask: str):
    assert "PAD002" in codes(CPT_COLLATOR.format(config=config, type_mask=type_mask))


# ---- a model that refuses a custom attention mask (petals) ------------------------------------------
SWARM = """
    import torch
    from {source} import {model_class}
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained("bigscience/bloom-560m", padding_side="left")
    model = {model_class}.from_pretrained("bigscience/bloom-560m")


    def complete(prompts):
        ids = tok(prompts, padding=True, return_tensors="pt")["input_ids"]
        return model.generate(ids, max_new_tokens=8)


    def forward_pass(texts):
        enc = tok(texts, padding=True, return_tensors="pt")
        return model(input_ids=enc["input_ids"], attention_mask=torch.ones_like(enc["input_ids"])).logits


    def collate(rows):
        ids = tok([r["text"] for r in rows], padding=True, return_tensors="pt")["input_ids"]
        return {{"input_ids": ids, "attention_mask": torch.ones_like(ids)}}
"""


def test_a_model_that_refuses_a_mask_is_handed_none_on_purpose():
    swarm = SWARM.format(source="petals", model_class="AutoDistributedModelForCausalLM")
    found = codes(swarm)
    assert "PAD001" not in found and "PAD003" not in found


def test_the_same_code_on_a_model_that_takes_the_mask_is_reported():
    local = SWARM.format(source="transformers", model_class="AutoModelForCausalLM")
    found = codes(local)
    assert "PAD001" in found and "PAD003" in found


def test_labels_are_still_judged_for_a_model_that_refuses_a_mask():
    swarm = SWARM.format(source="petals", model_class="AutoDistributedModelForCausalLM").replace(
        ").logits", ", labels=enc['input_ids']).loss"
    )
    assert "PAD002" in codes(swarm)


def test_the_rows_cite_the_versions_they_were_read_from():
    assert T.rejects_mask("petals.AutoDistributedModelForCausalLM")
    assert not T.rejects_mask("transformers.AutoModelForCausalLM")
    assert T.rebuilt_label_masks("peft.CPTConfig") == {"input_type_mask"}
    held = T.holds_rows("trl.PPOTrainer")
    assert held is not None and "dataloader" in held.exposes and held.roles["dataset"][0] == "dataset"


# ---- a labels column every loop reads into a variable nothing uses (distillation on logits) --------
DISTILL = """
    import torch
    import torch.nn.functional as F
    from datasets import load_dataset
    from torch.utils.data import DataLoader
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained("gpt2")
    tok.pad_token = tok.eos_token
    teacher = AutoModelForCausalLM.from_pretrained("gpt2-medium")
    student = AutoModelForCausalLM.from_pretrained("gpt2")


    def encode(batch):
        enc = tok(batch["text"], padding="max_length", max_length=64, truncation=True, return_tensors="pt")
        labels = enc["input_ids"].clone()
        return {"input_ids": enc["input_ids"], "attention_mask": enc["attention_mask"], "labels": labels}


    corpus = load_dataset("text", data_files="train.txt", split="train").select(range(100))
    encoded = corpus.map(encode, batched=True, remove_columns=["text"])
    encoded.set_format("torch")
    loader = DataLoader(encoded, batch_size=4, shuffle=True)

    for epoch in range(2):
        for step, batch in enumerate(loader):
            ids = batch["input_ids"].to("cpu")
            mask = batch["attention_mask"].to("cpu")
            labels = batch["labels"].to("cpu")
            with torch.no_grad():
                target = F.softmax(teacher(ids, attention_mask=mask).logits, dim=-1)
            logits = student(ids, attention_mask=mask).logits
            loss = F.kl_div(F.log_softmax(logits, dim=-1), target, reduction="batchmean")
            loss.backward()
        print(epoch, len(loader))
"""


def test_labels_read_into_a_variable_nothing_uses_are_not_graded():
    assert "PAD002" not in codes(DISTILL)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        # the loss grades the labels after all
        (
            "logits = student(ids, attention_mask=mask).logits",
            "logits = student(ids, attention_mask=mask, labels=labels).logits",
        ),
        # the variable is read after the loop
        ("print(epoch, len(loader))", "print(epoch, labels.shape)"),
        # the whole batch goes to the model
        ("logits = student(ids, attention_mask=mask).logits", "logits = student(**batch).logits"),
        # a collate function not in view sits between the rows and the loop
        ("DataLoader(encoded, batch_size=4, shuffle=True)", "DataLoader(encoded, batch_size=4, collate_fn=pack)"),
        # the rows also go to a trainer
        (
            "        print(epoch, len(loader))\n",
            "        print(epoch, len(loader))\n    Trainer(model=student, train_dataset=encoded).train()\n",
        ),
    ],
)
def test_labels_some_reader_uses_are_reported(before: str, after: str):
    changed = DISTILL.replace(before, after)
    assert changed != DISTILL
    assert "PAD002" in codes(changed)


# ---- a value-head wrapper whose generate is the wrapped encoder-decoder's (trl 0.x) --------------------
VALUE_HEAD = """
    from transformers import AutoTokenizer
    from trl import {wrapper}

    tokenizer = AutoTokenizer.from_pretrained("org/code-t5")
    policy = {wrapper}.from_pretrained("org/code-t5")


    def refactor(methods):
        ids = tokenizer(methods, padding="max_length", max_length=512, truncation=True, return_tensors="pt").input_ids
        out = policy.generate(ids, max_new_tokens=128)
        return tokenizer.batch_decode(out, skip_special_tokens=True)
"""


def test_generate_of_a_seq2seq_value_head_wrapper_is_the_encoder_decoders():
    # the wrapped encoder-decoder's generate masks its config's dedicated pad id (the consumer row)
    assert T.class_row("trl.AutoModelForSeq2SeqLMWithValueHead").attends == "encoder_decoder"
    assert codes(VALUE_HEAD.format(wrapper="AutoModelForSeq2SeqLMWithValueHead")) == []


def test_generate_of_a_causal_value_head_wrapper_is_still_reported():
    assert codes(VALUE_HEAD.format(wrapper="AutoModelForCausalLMWithValueHead")) == ["PAD003"]
