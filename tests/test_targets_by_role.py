"""Padded ids whose pads are given the ignore value are targets, whatever they are called: no embedding
takes -100, so they are no model input and need no attention mask (PAD003 is about inputs). Seen in
bench/fresh23: a captioning collate pads the caption ids and the shifted targets with `tokenizer.pad(...,
return_attention_mask=False)`, writes -100 at the targets' pads and returns both in a tuple; the finding
on the targets was a false alarm. Fixtures are our own."""

from __future__ import annotations

import textwrap

from padlint.engine import lint_source

COLLATE = """
import torch


def collate(batch, tokenizer):
    images = torch.stack([item[0] for item in batch])
    inputs = tokenizer.pad({"input_ids": [item[1] for item in batch]}, padding="longest",
                           return_attention_mask=False, return_tensors="pt")["input_ids"]
    shifted = tokenizer.pad({"input_ids": [item[2] for item in batch]}, padding="longest",
                            return_attention_mask=False, return_tensors="pt")["input_ids"]
    keep = (inputs != tokenizer.pad_token_id).long()
    shifted[keep == 0] = -100
    return images, inputs, shifted


loader = torch.utils.data.DataLoader([], batch_size=4, collate_fn=lambda b: collate(b, tok))
"""


def _pad003_lines(source: str) -> list[int]:
    found = lint_source(textwrap.dedent(source), "captions.py")
    return sorted(f.location.row for f in found if f.code == "PAD003")


def test_the_targets_given_minus_100_at_their_pads_are_no_input():
    lines = textwrap.dedent(COLLATE).splitlines()
    inputs_line = next(i for i, line in enumerate(lines, 1) if "inputs = tokenizer.pad" in line) + 1
    assert _pad003_lines(COLLATE) == [inputs_line]  # the inputs still lose their mask


def test_the_same_tensor_without_the_ignore_value_is_an_input_that_lost_its_mask():
    unmasked = COLLATE.replace("    shifted[keep == 0] = -100\n", "")
    assert len(_pad003_lines(unmasked)) == 2


def test_a_write_of_another_value_at_the_pads_does_not_make_targets():
    zeroed = COLLATE.replace("shifted[keep == 0] = -100", "shifted[keep == 0] = 0")
    assert len(_pad003_lines(zeroed)) == 2
