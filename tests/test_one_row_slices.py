"""A batch of one row fixed by the caller (issue 12, class 6), reached through the shapes inference
scripts use: a slice of width one (`ds[i : i + 1]`, `ds[i : i + step]` with `step = 1`), a column of
such a batch (`batch["question"]`), a comprehension over `range(len(column))`, a call in script code,
and statements before the call in the loop that makes the slice. Padded to its longest row, such a
batch pads nothing, so ids handed to `generate` without their mask harm nothing. Each near miss
hands the tokenizer several rows and must still be reported. Fixtures are our own."""

from __future__ import annotations

import textwrap

from padlint.engine import lint_source

HEADER = """
from datasets import load_dataset
from transformers import AutoModelForCausalLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("org/chat-model")
tokenizer.padding_side = "left"
model = AutoModelForCausalLM.from_pretrained("org/chat-model")
questions = load_dataset("org/questions", split="test")
"""

BY_COLUMN = """
def answer(batch):
    enc = tokenizer(batch["question"], padding="longest", return_tensors="pt")
    out = model.generate(enc["input_ids"], max_new_tokens=32)
    return tokenizer.batch_decode(out, skip_special_tokens=True)
"""

BY_ROWS = """
def answer(batch):
    rows = [{key: batch[key][j] for key in batch} for j in range(len(batch["question"]))]
    prompts = ["Q: " + row["question"] + "\\nA:" for row in rows]
    enc = tokenizer(prompts, padding="longest", return_tensors="pt")
    out = model.generate(enc["input_ids"], max_new_tokens=32)
    return tokenizer.batch_decode(out, skip_special_tokens=True)
"""

LOOP = """
{step}
answers = []
for start in range(0, len(questions), STEP):
    chunk = questions[start : start + {width}]
    answers.extend(answer(chunk))
"""


def source(fn: str, step: str = "STEP = 1", width: str = "STEP") -> str:
    return textwrap.dedent(HEADER) + textwrap.dedent(fn) + textwrap.dedent(LOOP.format(step=step, width=width))


def codes(text: str) -> list[str]:
    return sorted(d.code for d in lint_source(text, "answer.py"))


def test_a_slice_of_width_one_named_as_a_constant_pads_nothing():
    assert codes(source(BY_COLUMN)) == []


def test_a_slice_of_literal_width_one_pads_nothing():
    assert codes(source(BY_COLUMN, step="STEP = 4", width="1")) == []


def test_rows_rebuilt_over_the_range_of_a_column_of_one_row_pad_nothing():
    assert codes(source(BY_ROWS)) == []


def test_a_wider_slice_is_padded():
    assert codes(source(BY_COLUMN, step="STEP = 8")) == ["PAD003"]
    assert codes(source(BY_ROWS, step="STEP = 8")) == ["PAD003"]


def test_a_width_constant_changed_before_the_call_is_no_longer_one():
    changed = source(BY_COLUMN).replace("answers = []", "answers = []\nSTEP = 16")
    assert "STEP = 16" in changed
    assert codes(changed) == ["PAD003"]


def test_a_slice_from_another_start_is_not_width_one():
    assert codes(source(BY_COLUMN, width="1 + STEP")) == ["PAD003"]  # questions[start : 1 + STEP]


LOOP_GROWS = """
from transformers import AutoModelForCausalLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("org/chat-model")
tokenizer.padding_side = "left"
model = AutoModelForCausalLM.from_pretrained("org/chat-model")
texts = ["first question", "a second, longer question", "third"]

batch = [texts[0]]
for round_ in range(3):
    enc = tokenizer(batch, padding="longest", return_tensors="pt")
    out = model.generate(enc["input_ids"], max_new_tokens=8)
    batch = texts[: round_ + 2]
"""


def test_a_list_the_loop_grows_after_the_call_holds_more_rows_on_the_next_pass():
    assert codes(textwrap.dedent(LOOP_GROWS)) == ["PAD003"]


def test_a_list_made_one_before_the_call_on_every_pass_pads_nothing():
    each_pass = textwrap.dedent(LOOP_GROWS).replace(
        "for round_ in range(3):\n", "for round_ in range(3):\n    batch = [texts[round_]]\n"
    )
    assert "batch = [texts[round_]]" in each_pass
    assert codes(each_pass) == []
