"""An EOS written as its text into a template (`"[INST] {q} [/INST] {a}</s>"`, library table: eos_text
rows) puts a real EOS into the data: with pad = EOS, the LM collator's labels then lose it (PAD004),
as when the template appends `tokenizer.eos_token`. Also where pad = EOS is set in the helper that loads
and returns the tokenizer. The token's text alone, stripped from decoded output, is no EOS put in; a
template without one leaves nothing to lose. Fixtures are our own."""

from __future__ import annotations

import textwrap

from padlint.engine import lint_source

SCRIPT = """
from datasets import Dataset
from transformers import AutoModelForCausalLM, AutoTokenizer, DataCollatorForLanguageModeling, Trainer

CHECKPOINT = "mistralai/Mistral-7B-v0.1"


def render(question, answer):
    return f"<s>[INST] {question} [/INST] {answer}{end}"


def load():
    tokenizer = AutoTokenizer.from_pretrained(CHECKPOINT)
    tokenizer.pad_token = tokenizer.eos_token
    return AutoModelForCausalLM.from_pretrained(CHECKPOINT), tokenizer


def clean(tokenizer, ids):
    return tokenizer.decode(ids).replace("</s>", "").strip()


def main(pairs, args):
    model, tokenizer = load()
    texts = [render(q, a) for q, a in pairs]
    enc = tokenizer(texts, truncation=True, max_length=512)
    rows = Dataset.from_dict({"input_ids": enc["input_ids"], "attention_mask": enc["attention_mask"]})
    collate = DataCollatorForLanguageModeling(tokenizer=tokenizer, mlm=False)
    Trainer(model=model, args=args, train_dataset=rows, data_collator=collate).train()


if __name__ == "__main__":
    main([("q", "a")], None)
"""


def _codes(end: str) -> list[str]:
    return [f.code for f in lint_source(textwrap.dedent(SCRIPT).replace("{end}", end), "train.py")]


def test_an_eos_written_into_the_template_loses_its_label():
    assert _codes("</s>") == ["PAD004"]


def test_a_template_ending_with_other_text_puts_no_eos_in():
    assert _codes("\\n### End") == []
