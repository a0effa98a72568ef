"""PAD013: prompts padded on the right reach a decoder-only `generate`, which continues each row after its
last position (transformers 5.24.0, generation/utils.py: it warns "right-padding was detected"), so a
shorter row's new tokens follow its pads. Only a side the code states is judged: a tokenizer whose side
is the checkpoint's is not in view. The unsafe fix (`padding_side="left"` in the tokenizer call) is run
with rule_fixture_runner's stand-in `transformers` (its model records what `generate` was handed). Fixtures are
our own."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from rule_fixture_runner import load_fixture  # noqa: E402

from padlint.engine import fix_source, lint_source  # noqa: E402

HEAD = """
import torch
from torch.nn.utils.rnn import pad_sequence
from transformers import AutoModelForCausalLM, AutoModelForSeq2SeqLM, AutoTokenizer

"""

STATED_IN_LOAD = """
tokenizer = AutoTokenizer.from_pretrained("org/chat-model", padding_side="right")
model = AutoModelForCausalLM.from_pretrained("org/chat-model")


def answer(questions):
    batch = tokenizer(questions, padding=True, return_tensors="pt")
    return model.generate(**batch, max_new_tokens=16)
"""

STATED_BY_ATTRIBUTE = """
tokenizer = AutoTokenizer.from_pretrained("org/chat-model")
tokenizer.padding_side = "right"
model = AutoModelForCausalLM.from_pretrained("org/chat-model")


def answer(questions):
    enc = tokenizer(questions, padding="longest", return_tensors="pt")
    return model.generate(enc["input_ids"], attention_mask=enc["attention_mask"], max_new_tokens=16)
"""

STATED_IN_CALL = """
tokenizer = AutoTokenizer.from_pretrained("org/chat-model")
model = AutoModelForCausalLM.from_pretrained("org/chat-model")


def answer(questions):
    enc = tokenizer(questions, padding=True, return_tensors="pt", padding_side="right")
    return model.generate(input_ids=enc.input_ids, attention_mask=enc.attention_mask, max_new_tokens=16)
"""

# One module loads an encoder-decoder into `model` for translation and, elsewhere, a causal decoder
# into `model` too: the helper whose `model` is a parameter gets the translator (its callers in view).
TWO_MODELS_ONE_PLACE = """
def load_translator(path):
    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModelForSeq2SeqLM.from_pretrained(path).eval()
    return tokenizer, model


def translate(sentences, model, tokenizer):
    inputs = tokenizer(sentences, padding="longest", return_tensors="pt")
    return model.generate(**inputs, max_new_tokens=64, num_beams=4)


def load_student(path):
    tokenizer = AutoTokenizer.from_pretrained(path)
    tokenizer.padding_side = "right"
    model = AutoModelForCausalLM.from_pretrained(path)
    return tokenizer, model
"""

BY_HAND = """
model = AutoModelForCausalLM.from_pretrained("org/chat-model")


def answer(prompts, pad_id):
    rows = [torch.tensor(p) for p in prompts]
    ids = pad_sequence(rows, batch_first=True, padding_value=pad_id)
    mask = (ids != pad_id).long()
    return model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=16)
"""

# A buffer of pads with each row written in: at its start (right padding) or up to its end (left).
INTO_A_PAD_BUFFER = """
model = AutoModelForCausalLM.from_pretrained("org/chat-model")


def answer(prompts, pad_id):
    rows = [torch.tensor(p) for p in prompts]
    width = max(r.shape[0] for r in rows)
    ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
    mask = torch.zeros_like(ids)
    for j, row in enumerate(rows):
        ids[j, : row.shape[0]] = row
        mask[j, : row.shape[0]] = 1
    return model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=16)
"""
WRITTEN_UP_TO_THE_END = INTO_A_PAD_BUFFER.replace("[j, : row.shape[0]]", "[j, width - row.shape[0] :]")


def findings(body: str) -> list[tuple[str, str]]:
    source = textwrap.dedent(HEAD) + textwrap.dedent(body)
    lines = source.splitlines()
    return [(d.code, lines[d.location.row - 1].strip()) for d in lint_source(source, "answer.py")]


@pytest.mark.parametrize("body", [STATED_IN_LOAD, STATED_BY_ATTRIBUTE, STATED_IN_CALL, BY_HAND, INTO_A_PAD_BUFFER])
def test_right_padded_prompts_reaching_a_decoder_generate_are_flagged(body):
    found = findings(body)
    assert [code for code, _ in found] == ["PAD013"]
    assert ".generate(" in found[0][1]


@pytest.mark.parametrize(
    "body",
    [
        # the side is the checkpoint's: not in view
        STATED_IN_LOAD.replace(', padding_side="right"', ""),
        # stated left where the prompts are tokenized
        STATED_IN_CALL.replace('padding_side="right"', 'padding_side="left"'),
        # the module pads left for generation somewhere: its tokenizer's side is not only "right"
        STATED_BY_ATTRIBUTE.replace(
            "def answer(questions):\n", 'def answer(questions):\n    tokenizer.padding_side = "left"\n'
        ),
        # an encoder-decoder starts a new sequence: the encoder's right pads are masked
        STATED_IN_LOAD.replace("AutoModelForCausalLM", "AutoModelForSeq2SeqLM"),
        # one prompt, padded to its own length: no pads
        STATED_IN_LOAD.replace("tokenizer(questions, padding=True", "tokenizer([questions[0]], padding=True"),
        # a training forward pass, not generation: right pads come after every real token
        STATED_IN_LOAD.replace(
            "return model.generate(**batch, max_new_tokens=16)", "return model(**batch, labels=None)"
        ),
        # `model` is loaded as an encoder-decoder in one place and a causal decoder in another: the
        # class of the parameter is not known to be causal
        TWO_MODELS_ONE_PLACE,
        # padded on the left by hand
        BY_HAND.replace("padding_value=pad_id)", 'padding_value=pad_id, padding_side="left")'),
        # each row written up to the end of a buffer of pads: the pads come first
        WRITTEN_UP_TO_THE_END,
    ],
)
def test_near_misses_stay_silent(body):
    assert [code for code, _ in findings(body) if code == "PAD013"] == []


def test_a_place_loaded_only_as_causal_decoders_is_still_judged():
    only_causal = TWO_MODELS_ONE_PLACE.replace("AutoModelForSeq2SeqLM", "AutoModelForCausalLM")
    assert [code for code, _ in findings(only_causal)] == ["PAD013"]


@pytest.mark.parametrize("body", [STATED_IN_LOAD, STATED_BY_ATTRIBUTE, STATED_IN_CALL])
def test_the_unsafe_fix_makes_every_prompt_end_with_its_last_real_token(body, tmp_path):
    source = textwrap.dedent(HEAD) + textwrap.dedent(body)
    assert fix_source(source, "answer.py").source == source  # no safe fix
    fixed = fix_source(source, "answer.py", unsafe=True).source
    assert fixed != source and "PAD013" not in [d.code for d in lint_source(fixed, "answer.py")]
    module, models = load_fixture(fixed, tmp_path / "answer.py", "padlint_pad013_answer", pad_is_eos=False)
    questions = ["what is two plus two", "why", "name three colours of the flag"]
    module.answer(questions)
    (seen,) = models[0].calls
    ids, mask = seen["input_ids"], seen["attention_mask"]
    assert (mask[:, -1] == 1).all()  # every row ends with a real token: the new token follows it
    assert (ids[:, -1] != module.tokenizer.pad_token_id).all()
    for row, question in zip(ids.tolist(), questions):
        real = module.tokenizer(question)["input_ids"]
        assert row[len(row) - len(real) :] == real  # the prompt itself, whole, right before the new tokens


GENERATED_AND_SCORED = """
tokenizer = AutoTokenizer.from_pretrained("org/chat-model")
tokenizer.padding_side = "right"
model = AutoModelForCausalLM.from_pretrained("org/chat-model")


def continue_and_score(prompts):
    inputs = tokenizer(prompts, padding=True, return_tensors="pt")
    continued = model.generate(**inputs, max_new_tokens=16)
    labels = inputs["input_ids"].masked_fill(inputs["attention_mask"] == 0, -100)
    loss = model(**inputs, labels=labels).loss
    return continued, loss
"""


def test_no_fix_where_the_same_prompts_also_feed_a_forward_pass():
    """Left padding would fix `generate` and move the positions of the forward pass that scores the same
    encoding (absolute positions count from each row's first pad when no position ids are given): the
    finding stays, with no fix, and the help names the forward call."""
    source = textwrap.dedent(HEAD) + textwrap.dedent(GENERATED_AND_SCORED)
    [finding] = [d for d in lint_source(source, "score.py") if d.code == "PAD013"]
    assert finding.fix is None and "`model(...)`" in finding.no_fix and "forward pass" in finding.no_fix
    alone = source.replace("    loss = model(**inputs, labels=labels).loss\n", "    loss = None\n")
    [finding] = [d for d in lint_source(alone, "score.py") if d.code == "PAD013"]
    assert finding.fix is not None  # generation only: left padding is the fix
