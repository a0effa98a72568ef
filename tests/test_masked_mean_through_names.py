"""PAD011 follows a product with a padding mask by its value (issue 13: the padded value crosses a
name or a function): `scores = logps * mask` then `scores.mean(dim=1)`, or the product handed to a
loss helper that averages it, divides by the padded length as `(logps * mask).mean()` does. A mean
computed from such a mean (sliced, passed through `logsigmoid`, averaged again) is a loss where the
result is one. Near misses: a sum per sequence divided by the real length, a sum per sequence (DPO's
own reduction), a mean that is only printed, a product with per-example weights. Fixtures are our own."""

from __future__ import annotations

import textwrap

from padlint.engine import lint_source

PREFERENCE = """
import torch
import torch.nn.functional as F


def token_logps(logits, targets):
    return torch.gather(F.log_softmax(logits, dim=-1), 2, targets.unsqueeze(2)).squeeze(2)


def preference_loss(policy, reference, beta):
    policy = {reduce_policy}
    reference = {reduce_reference}
    half = policy.shape[0] // 2
    margin = (policy[:half] - policy[half:]) - (reference[:half] - reference[half:])
    return -F.logsigmoid(beta * margin).mean()


def train(model, ref_model, loader, optimizer):
    for batch in loader:
        ids, targets, mask = batch["ids"], batch["targets"], batch["loss_mask"]
        with torch.no_grad():
            ref = token_logps(ref_model(ids).logits, targets) * mask
        pol = token_logps(model(ids).logits, targets) * {factor}
        loss = preference_loss(pol, ref, 0.1)
        loss.backward()
        optimizer.step()
"""


def findings(reduce: str = "{x}.mean(dim=1)", factor: str = "mask") -> list[tuple[str, int]]:
    source = textwrap.dedent(
        PREFERENCE.format(
            reduce_policy=reduce.format(x="policy"), reduce_reference=reduce.format(x="reference"), factor=factor
        )
    )
    return sorted((d.code, d.location.row) for d in lint_source(source, "dpo.py"))


def test_a_per_sequence_mean_of_masked_logps_handed_to_the_loss_is_reported():
    assert [code for code, _ in findings()] == ["PAD011", "PAD011"]


def test_a_sum_per_sequence_is_silent():
    assert findings("{x}.sum(-1)") == []  # DPO's own reduction


def test_a_product_with_per_example_weights_is_not_a_padding_mask():
    # the policy side is weighted per example; the reference side is still masked and averaged
    assert [code for code, _ in findings(factor="batch['weights'].unsqueeze(1)")] == ["PAD011"]


PRINTED = """
import torch


def report(logps, mask):
    scores = logps * mask
    print("mean masked log-prob", scores.mean().item())
"""


def test_a_mean_of_a_stored_product_that_is_only_printed_is_silent():
    assert lint_source(textwrap.dedent(PRINTED), "report.py") == []


STORED = """
import torch.nn.functional as F


def lm_loss(logits, targets, attention_mask):
    per_token = F.cross_entropy(logits.transpose(1, 2), targets, reduction="none")
    weighted = per_token * attention_mask
    return weighted.mean()
"""


def test_a_stored_product_averaged_in_a_loss_is_reported_without_a_fix():
    (finding,) = lint_source(textwrap.dedent(STORED), "loss.py")
    assert finding.code == "PAD011"
    assert finding.fix is None  # the mean is not written over the product: rewriting it is not in view


def test_a_stored_product_divided_by_the_real_count_is_silent():
    counted = STORED.replace("return weighted.mean()", "return weighted.sum() / attention_mask.sum().clamp(min=1)")
    assert counted != STORED
    assert lint_source(textwrap.dedent(counted), "loss.py") == []
