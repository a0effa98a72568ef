"""Calls that hand their arguments back (library table, wiring rows of style "returns arguments" and
"returns roles"): `accelerator.prepare(model, optimizer, loader)` returns each argument in its place, and
Opacus's `PrivacyEngine.make_private(module=, optimizer=, data_loader=)` returns (module, optimizer,
data_loader), its loader collating the same dataset with the same function; `with BatchMemoryManager(
data_loader=loader, ...) as physical` yields the same batches, smaller. The batches a training loop reads
through them are the collate function's, so labels the loop copies from padded ids are judged there."""

from __future__ import annotations

import textwrap

import pytest

from padlint.engine import lint_source

HEAD = """
import torch
from accelerate import Accelerator
from opacus import PrivacyEngine
from opacus.utils.batch_memory_manager import BatchMemoryManager
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("gpt2")
tokenizer.pad_token = tokenizer.eos_token
model = AutoModelForCausalLM.from_pretrained("gpt2")


def encode(batch):
    return tokenizer(batch["text"], padding="max_length", max_length=64, truncation=True)


def collate(rows):
    ids = torch.stack([torch.tensor(r["input_ids"]) for r in rows])
    mask = torch.stack([torch.tensor(r["attention_mask"]) for r in rows])
    return {"input_ids": ids, "attention_mask": mask}


data = raw.map(encode, batched=True)
loader = DataLoader(data, batch_size=8, collate_fn=collate)
"""

LOOP = """
for batch in {loader}:
    ids, mask = batch["input_ids"], batch["attention_mask"]
    out = model(ids, attention_mask=mask, labels={labels})
    out.loss.backward()
"""

WIRINGS = {
    "accelerate": "accelerator = Accelerator()\nmodel, optimizer, loader = accelerator.prepare(model, optimizer, loader)\n",
    "opacus": (
        "engine = PrivacyEngine()\n"
        "model, optimizer, loader = engine.make_private(\n"
        "    module=model, optimizer=optimizer, data_loader=loader, noise_multiplier=1.0, max_grad_norm=1.0\n"
        ")\n"
    ),
    "opacus physical batches": (
        "engine = PrivacyEngine()\n"
        "model, optimizer, loader = engine.make_private_with_epsilon(\n"
        "    module=model, optimizer=optimizer, data_loader=loader, target_epsilon=1.0, target_delta=1e-5,\n"
        "    epochs=1, max_grad_norm=1.0,\n"
        ")\n"
        "with BatchMemoryManager(data_loader=loader, max_physical_batch_size=2, optimizer=optimizer) as physical:\n"
        "    pass\n"
    ),
}


def _source(wiring: str, labels: str) -> str:
    loader = "physical" if "BatchMemoryManager" in wiring else "loader"
    loop = LOOP.format(loader=loader, labels=labels)
    if loader == "physical":  # the loop runs inside the `with`
        wiring = wiring.replace("    pass\n", textwrap.indent(loop.lstrip("\n"), "    "))
        loop = ""
    return HEAD + wiring + loop


@pytest.mark.parametrize("wiring", sorted(WIRINGS))
def test_labels_copied_from_padded_ids_are_reported_through_the_wiring(wiring):
    found = [d.code for d in lint_source(_source(WIRINGS[wiring], "ids"), "train.py")]
    assert "PAD002" in found


@pytest.mark.parametrize("wiring", sorted(WIRINGS))
def test_labels_masked_where_the_loop_makes_them_stay_silent(wiring):
    source = _source(WIRINGS[wiring], "ids.masked_fill(mask == 0, -100)")
    assert [d.code for d in lint_source(source, "train.py")] == []


def test_a_mode_that_returns_another_tuple_hands_nothing_known_back():
    # with grad_sample_mode="ghost" make_private returns (module, optimizer, criterion, data_loader): the
    # three names are not the three arguments, and nothing is judged through them
    wiring = WIRINGS["opacus"].replace("max_grad_norm=1.0\n", 'max_grad_norm=1.0, grad_sample_mode="ghost"\n')
    found = [d.code for d in lint_source(_source(wiring, "ids"), "train.py")]
    assert "PAD002" not in found
