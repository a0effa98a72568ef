"""A model whose class is the checkpoint's own code (an Auto class loaded with `trust_remote_code=True`,
library table: checkpoint_code rows) is a consumer padlint cannot read: what its forward or generate does
when no mask is handed to it is in the checkpoint's modeling file. PAD003 stays silent there; a concrete
class, a load without the switch, or a switch whose value is not in view is judged as before. Masks that
are handed over (PAD001) and labels (PAD002) do not depend on that code and are judged as before.
Fixtures are our own."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from padlint.engine import lint_source
from padlint.semantics import table as T
from padlint.semantics.row import TRANSFORMERS


def codes(source: str) -> set[str]:
    return {d.code for d in lint_source(textwrap.dedent(source), "case.py")}


# A captioning fine-tune: the processor pads the prompts, the step hands the ids and the image to the
# model without the prompts' mask. `{load}` is how the model is made.
CAPTION_STEP = """
    import torch
    from transformers import AutoModelForCausalLM, AutoProcessor, LlamaForCausalLM

    CHECKPOINT = "org/caption-base"
    {setup}
    model = {load}.to("cuda")
    processor = AutoProcessor.from_pretrained(CHECKPOINT, trust_remote_code=True)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-6)


    def train_step(model, prompts, images, answers):
        inputs = processor(text=prompts, images=images, return_tensors="pt", padding=True)
        labels = processor.tokenizer(answers, return_tensors="pt", padding=True).input_ids
        labels[labels == processor.tokenizer.pad_token_id] = -100
        out = model(input_ids=inputs["input_ids"], pixel_values=inputs["pixel_values"], labels=labels)
        out.loss.backward()
        optimizer.step()
        optimizer.zero_grad()
"""

REMOTE_LOADS = {
    "literal": ("", "AutoModelForCausalLM.from_pretrained(CHECKPOINT, trust_remote_code=True)"),
    "module constant": ("TRUST = True", "AutoModelForCausalLM.from_pretrained(CHECKPOINT, trust_remote_code=TRUST)"),
    "kwargs dict": (
        'load_kwargs = {"torch_dtype": torch.bfloat16, "trust_remote_code": True}',
        "AutoModelForCausalLM.from_pretrained(CHECKPOINT, **load_kwargs)",
    ),
    "dict call": (
        "load_kwargs = dict(trust_remote_code=True, revision='main')",
        "AutoModelForCausalLM.from_pretrained(CHECKPOINT, **load_kwargs)",
    ),
}

NATIVE_LOADS = {
    "concrete class": ("", "LlamaForCausalLM.from_pretrained(CHECKPOINT, trust_remote_code=True)"),
    "no switch": ("", "AutoModelForCausalLM.from_pretrained(CHECKPOINT)"),
    "switch off": ("", "AutoModelForCausalLM.from_pretrained(CHECKPOINT, trust_remote_code=False)"),
    "switch not in view": (
        "import sys\n    remote = '--remote' in sys.argv",
        "AutoModelForCausalLM.from_pretrained(CHECKPOINT, trust_remote_code=remote)",
    ),
    "kwargs dict without it": (
        'load_kwargs = {"torch_dtype": torch.bfloat16, "trust_remote_code": False}',
        "AutoModelForCausalLM.from_pretrained(CHECKPOINT, **load_kwargs)",
    ),
}


def caption_step(setup: str, load: str) -> str:
    return CAPTION_STEP.replace("{setup}", setup).replace("{load}", load)


@pytest.mark.parametrize("how", REMOTE_LOADS)
def test_ids_without_mask_to_the_checkpoints_own_model_are_silent(how: str):
    assert "PAD003" not in codes(caption_step(*REMOTE_LOADS[how]))


@pytest.mark.parametrize("how", NATIVE_LOADS)
def test_ids_without_mask_to_a_model_the_table_knows_are_reported(how: str):
    assert "PAD003" in codes(caption_step(*NATIVE_LOADS[how]))


def test_a_model_loaded_natively_on_one_path_is_judged():
    # One branch loads the checkpoint's code, the other transformers' class: the native path is harmed.
    source = caption_step("import sys", "AutoModelForCausalLM.from_pretrained(CHECKPOINT, trust_remote_code=True)")
    source = source.replace(
        '    model = AutoModelForCausalLM.from_pretrained(CHECKPOINT, trust_remote_code=True).to("cuda")\n',
        "    if sys.argv[-1] == 'remote':\n"
        '        model = AutoModelForCausalLM.from_pretrained(CHECKPOINT, trust_remote_code=True).to("cuda")\n'
        "    else:\n"
        '        model = AutoModelForCausalLM.from_pretrained(CHECKPOINT).to("cuda")\n',
    )
    assert "if sys.argv" in source
    assert "PAD003" in codes(source)


def test_an_adapter_around_the_checkpoints_own_model_is_still_that_model():
    setup, load = REMOTE_LOADS["literal"]
    source = caption_step(setup, load).replace(
        "    processor = ",
        "    from peft import PeftModel\n    model = PeftModel.from_pretrained(model, 'org/caption-lora')\n    processor = ",
        1,
    )
    assert "PeftModel.from_pretrained(model" in source
    assert "PAD003" not in codes(source)


# ---- generate, and a collator's batch in a module whose only model is the checkpoint's own ----------
BATCHED_ANSWERS = """
    import torch
    from transformers import AutoModel, AutoTokenizer

    tok = AutoTokenizer.from_pretrained("org/chat-7b", trust_remote_code=True, padding_side="left")
    model = {load}


    def answer(questions):
        ids = tok(questions, return_tensors="pt", padding=True).input_ids
        with torch.no_grad():
            out = model.generate(ids, max_new_tokens=32)
        return tok.batch_decode(out[:, ids.shape[1]:], skip_special_tokens=True)
"""

COLLATOR = """
    import torch
    from torch.utils.data import DataLoader
    from transformers import AutoModel, AutoTokenizer

    tok = AutoTokenizer.from_pretrained("org/chat-7b", trust_remote_code=True)
    model = {load}


    def collate(rows):
        enc = tok([r["text"] for r in rows], padding=True, return_tensors="pt")
        return {"input_ids": enc["input_ids"]}


    def train(dataset):
        for batch in DataLoader(dataset, batch_size=8, collate_fn=collate):
            model(**batch).loss.backward()
"""


@pytest.mark.parametrize("template", [BATCHED_ANSWERS, COLLATOR], ids=["generate", "collator"])
def test_the_checkpoints_own_model_is_not_judged_for_a_missing_mask(template: str):
    assert "PAD003" not in codes(
        template.replace("{load}", 'AutoModel.from_pretrained("org/chat-7b", trust_remote_code=True)')
    )
    assert "PAD003" in codes(template.replace("{load}", 'AutoModel.from_pretrained("org/chat-7b")'))


# ---- what does not depend on the model's own code is judged as before ----------------------------
ONES_MASK = """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained("org/chat-7b", trust_remote_code=True, padding_side="left")
    model = AutoModelForCausalLM.from_pretrained("org/chat-7b", trust_remote_code=True)


    def answer(questions):
        ids = tok(questions, return_tensors="pt", padding=True)["input_ids"]
        out = model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=32)
        return tok.batch_decode(out, skip_special_tokens=True)
"""


def test_a_mask_of_ones_handed_to_the_checkpoints_own_model_is_reported():
    # An explicit mask says "attend to the pads" whoever reads it: PAD001 does not depend on the default.
    assert "PAD001" in codes(ONES_MASK)


def test_padded_labels_for_the_checkpoints_own_model_are_reported():
    setup, load = REMOTE_LOADS["literal"]
    unmasked = caption_step(setup, load).replace(
        "        labels[labels == processor.tokenizer.pad_token_id] = -100\n", ""
    )
    assert "PAD002" in codes(unmasked)
    assert "PAD003" not in codes(unmasked)


# ---- the table row --------------------------------------------------------------------------------
def test_only_auto_classes_load_the_checkpoints_own_code():
    assert T.checkpoint_code_switch("transformers.AutoModelForCausalLM.from_pretrained") == "trust_remote_code"
    assert T.checkpoint_code_switch("transformers.AutoModel.from_pretrained") == "trust_remote_code"
    assert T.checkpoint_code_switch("transformers.LlamaForCausalLM.from_pretrained") is None
    assert T.checkpoint_code_switch("transformers.AutoTokenizer.from_pretrained") is None


def test_the_auto_classes_of_the_row_are_auto_classes_of_the_installed_transformers():
    """Each 5.x name is a `_BaseAutoModelClass` in the installed modeling_auto.py (read as text: importing
    transformers takes half a minute); the two 4.x names are cited to 4.46.3."""
    import importlib.util

    spec = importlib.util.find_spec("transformers")
    if spec is None or not spec.origin:
        pytest.skip("transformers not installed")
    if not TRANSFORMERS.endswith(__import__("importlib.metadata").metadata.version("transformers")):
        pytest.skip("another transformers version than the table's")
    text = (Path(spec.origin).parent / "models" / "auto" / "modeling_auto.py").read_text(encoding="utf-8")
    defined = set(re.findall(r"^class (\w+)\(_BaseAutoModelClass\)", text, re.M))
    (row,) = [r for r in T.ROWS if r.kind == "checkpoint_code"]
    autos = {name.split(".")[1] for name in row.match}
    assert autos - defined == {"AutoModelForVision2Seq", "AutoModelWithLMHead"}
    assert all(name in row.checked for name in autos - defined)
