"""A library LM collator whose labels nothing reads masks no label that matters (PAD004).

`DataCollatorForLanguageModeling(mlm=False)` with pad = EOS gives every real EOS the label -100, but only
a consumer of `batch["labels"]` is harmed. A hand-written loop that computes its own loss from the ids
never reads them: when every batch of every loader the collator is handed to is read in view and none
reads the labels (or the batch whole), the finding goes. Loaders handed through `accelerator.prepare`
(library table: it hands each argument back in order, a loader yielding the same batches) are followed.
Fixtures are our own."""

from __future__ import annotations

import textwrap

import pytest

from padlint.engine import lint_source

SCRIPT = """
import torch
from torch.utils.data import DataLoader
from transformers import AutoTokenizer, GPT2LMHeadModel, DataCollatorForLanguageModeling
from accelerate import Accelerator

tokenizer = AutoTokenizer.from_pretrained("gpt2")
tokenizer.pad_token = tokenizer.eos_token
collate = DataCollatorForLanguageModeling(tokenizer, mlm=False)
train_loader = DataLoader(rows["train"], batch_size=16, shuffle=True, collate_fn=collate)
valid_loader = DataLoader(rows["valid"], batch_size=16, collate_fn=collate)
model = GPT2LMHeadModel.from_pretrained("gpt2")
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
{prepare}

def token_loss(ids, logits):
    targets = ids[:, 1:]
    return torch.nn.functional.cross_entropy(logits[:, :-1].flatten(0, 1), targets.flatten())

for step, batch in enumerate(train_loader):
    logits = model(batch["input_ids"]).logits
    loss = token_loss(batch["input_ids"], logits)
    loss.backward()
    optimizer.step()

with torch.no_grad():
    for batch in valid_loader:
        {valid}
"""

PREPARED = """accelerator = Accelerator()
model, optimizer, train_loader, valid_loader = accelerator.prepare(model, optimizer, train_loader, valid_loader)"""


def _pad004(prepare: str = PREPARED, valid: str = 'out = model(batch["input_ids"], labels=batch["input_ids"])'):
    source = textwrap.dedent(SCRIPT).format(prepare=prepare, valid=valid)
    return [f for f in lint_source(source, "train_lm.py") if f.code == "PAD004"]


def test_loops_that_never_read_the_labels_are_not_harmed():
    assert _pad004() == []


def test_without_accelerate_the_same_loops_are_followed():
    assert _pad004(prepare="") == []


def test_a_loader_prepared_alone_is_followed_under_its_new_name():
    prepare = "accelerator = Accelerator()\nvalid_loader = accelerator.prepare(valid_loader)"
    assert _pad004(prepare=prepare) == []


def test_a_loop_reading_the_labels_is_reported():
    [finding] = _pad004(valid='out = model(batch["input_ids"], labels=batch["labels"])')
    assert "every real EOS loses its label" in finding.message


def test_a_batch_handed_on_whole_is_reported():
    assert len(_pad004(valid="out = model(**batch)")) == 1


def test_a_loader_handed_to_code_out_of_view_is_reported():
    prepare = "valid_loader = wrap_for_eval(valid_loader)"
    assert len(_pad004(prepare=prepare)) == 1


def test_prepare_of_something_not_known_as_accelerate_is_not_followed():
    """Only a method the library table knows hands its arguments back: `helper.prepare` may not."""
    prepare = PREPARED.replace("Accelerator()", "make_helper()")
    assert len(_pad004(prepare=prepare)) == 1


def test_a_collator_handed_to_a_trainer_is_reported():
    source = textwrap.dedent(
        """
        from transformers import AutoTokenizer, DataCollatorForLanguageModeling, Trainer

        tokenizer = AutoTokenizer.from_pretrained("gpt2")
        tokenizer.pad_token = tokenizer.eos_token
        collate = DataCollatorForLanguageModeling(tokenizer, mlm=False)
        Trainer(model=model, args=args, train_dataset=rows, data_collator=collate).train()
        """
    )
    assert [f.code for f in lint_source(source, "train_lm.py")] == ["PAD004"]


def test_the_table_row_holds_for_the_installed_accelerate():
    """`Accelerator.prepare` hands its arguments back in order, the loader yielding the same batches."""
    torch = pytest.importorskip("torch")
    accelerate = pytest.importorskip("accelerate")
    from torch.utils.data import DataLoader

    rows = [{"input_ids": torch.tensor([i, i + 1])} for i in range(4)]
    loader = DataLoader(rows, batch_size=2)
    model = torch.nn.Linear(2, 2)
    accelerator = accelerate.Accelerator(cpu=True)
    prepared_model, prepared_loader = accelerator.prepare(model, loader)
    assert isinstance(prepared_model, torch.nn.Module)
    got = [batch["input_ids"].tolist() for batch in prepared_loader]
    assert got == [batch["input_ids"].tolist() for batch in loader]
