"""A loop over texts hands the tokenizer one text at a time (issue 12, class 6: a batch of one): a
padded call over one string pads nothing, so ids without their mask harm nothing. A `for` loop reads
its items as a comprehension over the same iterable does: texts are the items of a list of string
literals, of a text's lines or parts, of a file's lines, or of a parameter annotated as strings.
Each near-miss hands the tokenizer a list per call and must still be reported. Fixtures are our own."""

from __future__ import annotations

import textwrap

from padlint.engine import lint_source


def codes(source: str) -> list[str]:
    return sorted({d.code for d in lint_source(textwrap.dedent(source), "ask.py")})


QUESTIONS = """
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained("org/chat-model")
    model = AutoModelForCausalLM.from_pretrained("org/chat-model")

    questions = ["What is a tensor?", "Why pad batches?", "What does a mask do?"]
    answers = []
    for question in questions:
        enc = tokenizer(question, padding=True, return_tensors="pt")
        out = model.generate(enc.input_ids, max_new_tokens=32)
        answers.append(tokenizer.decode(out[0], skip_special_tokens=True))
"""


def test_a_loop_over_string_literals_tokenizes_one_text_at_a_time():
    assert "PAD003" not in codes(QUESTIONS)


def test_the_same_with_enumerate():
    numbered = QUESTIONS.replace("for question in questions:", "for number, question in enumerate(questions):")
    assert numbered != QUESTIONS
    assert "PAD003" not in codes(numbered)


def test_the_lines_of_a_text_are_texts():
    lines = QUESTIONS.replace(
        'questions = ["What is a tensor?", "Why pad batches?", "What does a mask do?"]',
        'questions = "What is a tensor?\\nWhy pad batches?".splitlines()',
    )
    assert lines != QUESTIONS
    assert "PAD003" not in codes(lines)


def test_groups_of_texts_are_batches_and_still_reported():
    grouped = QUESTIONS.replace(
        "    for question in questions:",
        "    groups = [questions[i : i + 2] for i in range(0, len(questions), 2)]\n    for question in groups:",
    )
    assert grouped != QUESTIONS
    assert "PAD003" in codes(grouped)


def test_a_list_literal_of_lists_is_no_list_of_texts():
    nested = QUESTIONS.replace(
        'questions = ["What is a tensor?", "Why pad batches?", "What does a mask do?"]',
        'questions = [["What is a tensor?", "Why pad batches?"], ["What does a mask do?"]]',
    )
    assert nested != QUESTIONS
    assert "PAD003" in codes(nested)


def test_the_loop_name_rebound_to_a_list_inside_the_loop_is_a_batch_again():
    rebound = QUESTIONS.replace(
        '        enc = tokenizer(question, padding=True, return_tensors="pt")',
        '        question = [question, question + " Explain."]\n'
        '        enc = tokenizer(question, padding=True, return_tensors="pt")',
    )
    assert rebound != QUESTIONS
    assert "PAD003" in codes(rebound)


def test_the_parts_of_a_text_are_texts():
    parts = QUESTIONS.replace(
        'questions = ["What is a tensor?", "Why pad batches?", "What does a mask do?"]',
        'questions = "What is a tensor? | Why pad batches?".split(" | ")',
    )
    assert parts != QUESTIONS
    assert "PAD003" not in codes(parts)
