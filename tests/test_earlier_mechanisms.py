"""Mechanisms behind crashes and false alarms met when re-scanning real repositories with main
(issues 12 and 13): each shape is our own fixture; a near-miss must stay silent and the bug beside it
must still fire."""

from __future__ import annotations

import textwrap

from padlint.engine import lint_source


def findings(source: str, filename: str = "case.py") -> list[tuple[str, int]]:
    return sorted((d.code, d.location.row) for d in lint_source(textwrap.dedent(source), filename))


def codes(source: str, filename: str = "case.py") -> set[str]:
    return {code for code, _ in findings(source, filename)}


# ---- a dotted decorator that is not a fixture (`@pytest.mark.slow`) ---------------------------------
MARKED_TEST_BESIDE_GENERATE = """
    import pytest
    from transformers import AutoModelForCausalLM, AutoTokenizer


    class TestGeneration:
        @pytest.mark.slow
        def test_eos_as_pad(self):
            tokenizer = AutoTokenizer.from_pretrained("gpt2")
            tokenizer.pad_token = tokenizer.eos_token
            assert tokenizer.pad_token_id == tokenizer.eos_token_id

        @pytest.mark.parametrize("width", [4, 8])
        def test_batch(self, width):
            tokenizer = AutoTokenizer.from_pretrained("gpt2")
            model = AutoModelForCausalLM.from_pretrained("gpt2")
            ids = tokenizer(["hi"] * width + ["a longer prompt"], padding=True, return_tensors="pt").input_ids
            return model.generate(input_ids=ids, max_new_tokens=2)
"""

FIXTURE_SETS_PAD_EOS = """
    import pytest
    from transformers import AutoModelForCausalLM, AutoTokenizer


    class TestChatLoss:
        @pytest.mark.slow
        def test_loss(self):
            texts = ["hi" + self.tokenizer.eos_token, "a longer answer" + self.tokenizer.eos_token]
            enc = self.tokenizer(texts, padding=True, return_tensors="pt")
            labels = enc.input_ids.clone()
            labels[enc.input_ids == self.tokenizer.pad_token_id] = -100
            return self.model(**enc, labels=labels).loss

        @pytest.fixture(autouse=True)
        def load(self):
            self.tokenizer = AutoTokenizer.from_pretrained("gpt2")
            self.tokenizer.pad_token = self.tokenizer.eos_token
            self.model = AutoModelForCausalLM.from_pretrained("gpt2")
"""


def test_a_marked_test_method_is_analysed_not_crashed_on():
    # A `@pytest.mark.slow` method is no set-up: its pad = EOS stays its own, the other test is analysed.
    assert codes(MARKED_TEST_BESIDE_GENERATE) == {"PAD003"}


def test_a_fixture_still_sets_up_the_class_for_a_marked_method():
    assert ("PAD004", 12) in findings(FIXTURE_SETS_PAD_EOS)
