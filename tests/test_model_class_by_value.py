"""The class a model was loaded as is a fact about the value a name holds where it is called, not about
the name across the module (issue 12, a consumer that rebuilds the mask; issue 13, models by
provenance). Two functions that each bind `model` to a different class judge each call by its own
model: an encoder-decoder's `generate` builds the mask from a dedicated pad id (library table, the
encoder-decoder consumer rows), a causal decoder's does not. Fixtures are our own."""

from __future__ import annotations

import textwrap

from padlint.engine import lint_source

SEQ2SEQ = """
def summarise(path, text):
    tokenizer = AutoTokenizer.from_pretrained("org/code-t5")
    model = {seq2seq}.from_pretrained(path)
    model = model.to("cuda")
    ids = tokenizer(text, return_tensors="pt", padding="max_length", max_length=512, truncation=True).input_ids
    return model.generate(ids.to("cuda"), max_length=128)
"""

CAUSAL = """
def complete(path, texts):
    tokenizer = AutoTokenizer.from_pretrained(path)
    tokenizer.padding_side = "left"
    model = AutoModelForCausalLM.from_pretrained(path)
    model = model.to("cuda")
    ids = tokenizer(texts, return_tensors="pt", padding=True).input_ids
    return model.generate(ids.to("cuda"), max_new_tokens=64)
"""

HEAD = """
from transformers import AutoModelForCausalLM, AutoModelForSeq2SeqLM, AutoTokenizer
from trl import AutoModelForSeq2SeqLMWithValueHead
"""


def findings(*parts: str, seq2seq: str = "AutoModelForSeq2SeqLM") -> list[tuple[str, str]]:
    source = textwrap.dedent(HEAD) + "".join(textwrap.dedent(p) for p in parts).format(seq2seq=seq2seq)
    lines = source.splitlines()
    return sorted((d.code, lines[d.location.row - 1].strip()) for d in lint_source(source, "infer.py"))


def test_an_encoder_decoder_loaded_in_one_function_is_judged_as_one_when_the_name_is_reused_later():
    for seq2seq in ("AutoModelForSeq2SeqLM", "AutoModelForSeq2SeqLMWithValueHead"):
        assert [code for code, line in findings(SEQ2SEQ, CAUSAL, seq2seq=seq2seq) if "512" in line] == []


def test_a_causal_decoder_loaded_in_one_function_is_judged_as_one_when_the_name_is_reused_later():
    found = findings(CAUSAL, SEQ2SEQ)
    assert [code for code, line in found if "padding=True" in line] == ["PAD003"]


def test_each_function_alone_judges_its_own_model():
    assert [c for c, line in findings(SEQ2SEQ) if "512" in line] == []
    assert [c for c, line in findings(CAUSAL) if "padding=True" in line] == ["PAD003"]
