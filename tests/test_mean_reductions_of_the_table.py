"""PAD011 reads its averaging reductions from the library table (`reduces` rows: torch.mean, numpy.mean,
tf.reduce_mean), and a product made in place (`losses *= mask`) is a product like `losses * mask`.

The TensorFlow shape is the classic sequence-model tutorial loss: per-token losses multiplied by a padding
mask, then `tf.reduce_mean` over every position. A TensorFlow tensor has no `.sum()`, so no automatic fix is
offered there; the manual fix names `tf.reduce_sum`. Fixtures are our own.
"""

from __future__ import annotations

import textwrap

import pytest

from padlint.engine import lint_source

TF_LOSS = """
    import tensorflow as tf

    loss_object = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")


    def loss_function(real, pred):
        mask = tf.math.logical_not(tf.math.equal(real, 0))
        loss_ = loss_object(real, pred)
        mask = tf.cast(mask, dtype=loss_.dtype)
        loss_ *= mask
        return tf.reduce_mean(loss_)
"""

TORCH_IN_PLACE = """
    import torch
    import torch.nn.functional as F


    def loss_fn(logits, labels, mask):
        per_token = F.cross_entropy(logits.transpose(1, 2), labels, reduction="none")
        per_token *= mask
        return torch.mean(per_token)
"""


def pad011(source: str) -> list:
    return [d for d in lint_source(textwrap.dedent(source), "loss.py") if d.code == "PAD011"]


@pytest.mark.parametrize(
    "source",
    [
        TF_LOSS,
        TF_LOSS.replace(
            "loss_ *= mask\n        return tf.reduce_mean(loss_)", "return tf.math.reduce_mean(loss_ * mask)"
        ),
        TORCH_IN_PLACE,
    ],
    ids=["tf-in-place", "tf-math-product", "torch-in-place"],
)
def test_a_mean_over_a_masked_product_is_reported(source):
    found = pad011(source)
    assert len(found) == 1 and found[0].fix is None  # the product is a name, or a TensorFlow tensor


def test_the_tensorflow_finding_says_how_to_fix_it_by_hand():
    (found,) = pad011(
        TF_LOSS.replace("loss_ *= mask\n        return tf.reduce_mean(loss_)", "return tf.reduce_mean(loss_ * mask)")
    )
    assert found.fix is None and found.no_fix is not None and "tf.reduce_sum" in found.no_fix  # the help line


@pytest.mark.parametrize(
    "source",
    [
        TF_LOSS.replace("return tf.reduce_mean(loss_)", "return tf.reduce_sum(loss_) / tf.reduce_sum(mask)"),
        TORCH_IN_PLACE.replace("return torch.mean(per_token)", "return per_token.sum() / mask.sum().clamp(min=1)"),
        TORCH_IN_PLACE.replace("per_token *= mask", "per_token *= 0.5"),  # a scale, not a mask
    ],
    ids=["tf-sum-over-count", "torch-sum-over-count", "scaled-not-masked"],
)
def test_near_misses_stay_silent(source):
    assert pad011(source) == []


def test_the_first_look_sees_the_tables_means():
    from padlint.look.first_look import Look

    look = Look(
        textwrap.dedent(
            TF_LOSS.replace(
                "loss_ *= mask\n        return tf.reduce_mean(loss_)", "return tf.reduce_mean(loss_ * mask)"
            )
        )
    )
    assert look.has("mean") and look.has("mean_product")  # `reduce_mean(` is a mean, `x.reduce_mean` is no word of it


TF_MULTIPLY = """
    import tensorflow as tf


    def loss_function(y_true, y_pred):
        loss = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")(y_true, y_pred)
        mask = tf.cast(tf.not_equal(y_true, 0), tf.float32)
        loss = tf.multiply(loss, mask)
        return tf.reduce_mean(loss)
"""


@pytest.mark.parametrize(
    "source",
    [
        TF_MULTIPLY,
        TORCH_IN_PLACE.replace("per_token *= mask", "per_token = torch.mul(per_token, mask)"),
    ],
    ids=["tf-multiply", "torch-mul"],
)
def test_a_product_written_as_a_table_multiply_call_is_a_product(source):
    assert len(pad011(source)) == 1


def test_a_table_multiply_by_a_scale_is_no_masked_product():
    assert pad011(TORCH_IN_PLACE.replace("per_token *= mask", "per_token = torch.mul(per_token, 0.5)")) == []
