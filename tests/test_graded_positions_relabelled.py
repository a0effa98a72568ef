"""A store into labels at the positions a loss grades is no padding (fixtures are our own):
`targets[targets != -100] = 0` makes every real target class 0 (the positive of a sampled softmax) and
keeps -100 at the pads. Counted as "labels masked with 0", it made PAD007 report a loss that ignores -100
over labels padded with -100."""

from __future__ import annotations

import textwrap

from padlint.engine import lint_source

SAMPLED = """
    import torch.nn as nn


    class NextItem:
        def compute_loss(self, outputs, batch):
            loss_fct = nn.CrossEntropyLoss()
            return loss_fct(outputs.view(-1, outputs.size(-1)), batch["labels"].view(-1))


    class SampledNextItem(NextItem):
        def compute_loss(self, outputs, batch):
            logits = outputs @ outputs.transpose(1, 2)  # the positive first, then the sampled negatives
            targets = batch["labels"].clone()
            targets[targets != -100] = 0
            return nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())
"""


def codes(source: str) -> list[str]:
    return [d.code for d in lint_source(textwrap.dedent(source), "loss.py")]


def test_relabelling_the_graded_positions_is_no_padding_value():
    assert codes(SAMPLED) == []
    as_a_method = SAMPLED.replace("targets[targets != -100] = 0", "targets[targets.ne(-100)] = 0")
    assert as_a_method != SAMPLED
    assert codes(as_a_method) == []


def test_masking_the_pads_with_another_value_is_still_compared_with_the_loss():
    masked = SAMPLED.replace("targets[targets != -100] = 0", "targets[targets == self.pad_id] = -1")
    assert masked != SAMPLED
    assert codes(masked) == ["PAD007", "PAD007"]
