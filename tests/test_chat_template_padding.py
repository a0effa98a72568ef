"""`tokenizer.apply_chat_template(..., padding=...)` pads like `tokenizer(...)` (library table row,
transformers 4.46.3 and 5.24.0): the rendered conversations are tokenized with the padding asked for.

One conversation pads only to `max_length`; a batch of conversations (a list of lists) to the longest
too. The result is the ids alone in 4.x (and with `return_dict=False`), the encoding with its mask with
`return_dict=True` (5.x's default): the mask is known lost only where `return_dict=False` says so.
`tokenize=False` renders text, as a processor's `apply_chat_template` does by default.
"""

from __future__ import annotations

import textwrap

import pytest

from padlint.engine import lint_source

HEADER = """
from transformers import AutoModelForCausalLM, AutoProcessor, AutoTokenizer

tok = AutoTokenizer.from_pretrained("Qwen/Qwen2.5-0.5B-Instruct")
processor = AutoProcessor.from_pretrained("Qwen/Qwen2-VL-2B-Instruct")
model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B-Instruct")
"""

REPORTED = {
    # the ids of one conversation padded to max_length, a mask of ones over them and labels copied
    "rows_to_max_length": (
        """
        def train_row(example):
            ids = tok.apply_chat_template(example["messages"], padding="max_length", max_length=512, truncation=True)
            return {"input_ids": ids, "attention_mask": [1] * len(ids), "labels": list(ids)}
        """,
        ["PAD001", "PAD002"],
    ),
    # a batch of conversations padded to the longest, the ids alone handed to generate
    "batch_ids_alone": (
        """
        def answer_all(questions):
            chats = [[{"role": "user", "content": q}] for q in questions]
            ids = tok.apply_chat_template(chats, add_generation_prompt=True, padding=True, return_tensors="pt", return_dict=False)
            return model.generate(ids, max_new_tokens=32)
        """,
        ["PAD003"],
    ),
    # pad = EOS, and the mask compared with the pad id: a chat template closes turns with EOS
    "mask_from_pad_id": (
        """
        tok.pad_token = tok.eos_token

        def scoring_row(messages):
            input_ids = tok.apply_chat_template(messages, padding="max_length", max_length=256, return_tensors="pt")[0]
            attention_mask = input_ids.ne(tok.pad_token_id)
            return model(input_ids=input_ids[None], attention_mask=attention_mask[None])
        """,
        ["PAD005"],
    ),
}

SILENT = {
    "encoding_kept": """
        def answer_all(questions):
            chats = [[{"role": "user", "content": q}] for q in questions]
            enc = tok.apply_chat_template(chats, add_generation_prompt=True, padding=True, return_tensors="pt", return_dict=True)
            return model.generate(**enc, max_new_tokens=32)
        """,
    # one conversation padded to its own longest row pads nothing
    "one_conversation_longest": """
        def answer_one(question):
            ids = tok.apply_chat_template([{"role": "user", "content": question}], padding=True, return_tensors="pt")
            return model.generate(ids, max_new_tokens=32)
        """,
    "rendered_text": """
        def render(messages):
            text = tok.apply_chat_template(messages, tokenize=False, padding="max_length", max_length=64)
            return {"text": text, "attention_mask": [1] * len(text)}
        """,
    "processor_renders_text": """
        def render(messages):
            text = processor.apply_chat_template(messages, padding="max_length", max_length=64)
            return {"text": text, "attention_mask": [1] * len(text)}
        """,
}


def _codes(body: str) -> list[str]:
    source = textwrap.dedent(HEADER) + textwrap.dedent(body)
    return sorted(f.code for f in lint_source(source, "chat.py"))


@pytest.mark.parametrize("name", sorted(REPORTED))
def test_chat_template_padding_is_judged_like_a_tokenizer_call(name):
    body, expected = REPORTED[name]
    assert _codes(body) == expected


@pytest.mark.parametrize("name", sorted(SILENT))
def test_chat_template_near_misses_stay_silent(name):
    assert _codes(SILENT[name]) == []


def test_the_lost_mask_names_the_call_that_lost_it():
    source = textwrap.dedent(HEADER) + textwrap.dedent(REPORTED["batch_ids_alone"][0])
    [finding] = lint_source(source, "chat.py")
    assert finding.message.startswith("`apply_chat_template(..., padding=...)`")
