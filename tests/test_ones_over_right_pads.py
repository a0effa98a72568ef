"""An all-ones mask over pads the code itself appends on the right, for causal decoders only: no real
token attends to a later position, so the ones change nothing a real token reads, whether or not the
pads' own labels are graded (that is PAD002's finding, reported on its own). Fixtures are our own."""

from __future__ import annotations

import textwrap

from padlint.engine import lint_source


def codes(source: str) -> list[str]:
    return sorted(d.code for d in lint_source(textwrap.dedent(source), "pack.py"))


PACKED_ROWS = """
    import torch
    from torch.utils.data import IterableDataset
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained("my-org/code-decoder")
    model = AutoModelForCausalLM.from_pretrained("my-org/code-decoder")


    class PackedRows(IterableDataset):
        def __init__(self, texts, width):
            self.texts = texts
            self.width = width

        def __iter__(self):
            for text in self.texts:
                token_ids = tokenizer(text)["input_ids"][: self.width]
                token_ids = token_ids + [tokenizer.pad_token_id] * (self.width - len(token_ids))
                labels = list(token_ids)
                yield {
                    "input_ids": torch.tensor(token_ids),
                    "labels": torch.tensor(labels),
                    "attention_mask": torch.ones(len(token_ids), dtype=torch.long),
                }
"""


def test_ones_over_right_pads_of_a_causal_decoder_are_not_an_attention_harm():
    found = codes(PACKED_ROWS)
    assert "PAD001" not in found
    assert "PAD002" in found  # the pads' labels are graded: the labels' finding stays


def test_the_same_ones_over_left_pads_are_read_by_every_real_token():
    left = PACKED_ROWS.replace(
        "token_ids = token_ids + [tokenizer.pad_token_id] * (self.width - len(token_ids))",
        "token_ids = [tokenizer.pad_token_id] * (self.width - len(token_ids)) + token_ids",
    )
    assert "PAD001" in codes(left)


def test_the_same_ones_before_a_bidirectional_encoder_are_read():
    encoder = PACKED_ROWS.replace("AutoModelForCausalLM", "AutoModelForMaskedLM")
    assert "PAD001" in codes(encoder)


def test_a_module_that_loads_no_model_hands_the_ones_to_an_unknown_consumer():
    unknown = PACKED_ROWS.replace('model = AutoModelForCausalLM.from_pretrained("my-org/code-decoder")\n', "").replace(
        "from transformers import AutoModelForCausalLM, AutoTokenizer", "from transformers import AutoTokenizer"
    )
    assert "PAD001" in codes(unknown)


def test_ones_over_tokenizer_padding_of_an_unstated_side_are_still_reported():
    # The side a tokenizer pads on is the checkpoint's unless the code states it: not known to be right.
    by_tokenizer = PACKED_ROWS.replace(
        'token_ids = tokenizer(text)["input_ids"][: self.width]\n'
        "                token_ids = token_ids + [tokenizer.pad_token_id] * (self.width - len(token_ids))",
        'token_ids = tokenizer(text, padding="max_length", max_length=self.width, truncation=True)["input_ids"]',
    )
    assert "PAD001" in codes(by_tokenizer)


def test_a_pooled_mean_over_every_position_reads_the_pads():
    pooled = PACKED_ROWS + textwrap.indent(
        textwrap.dedent(
            """
            def embed(rows):
                batch = next(iter(rows))
                out = model(input_ids=batch["input_ids"][None], attention_mask=batch["attention_mask"][None],
                            output_hidden_states=True)
                return out.hidden_states[-1].mean(dim=1)
            """
        ),
        "    ",
    )
    assert "PAD001" in codes(pooled)
