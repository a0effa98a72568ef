"""Every rule's code and name, where its class lives, and the words it cannot fire without: what the
configuration (which codes exist) and the word look (look/prefilter.py) need, without importing the
rules, which import the analysis. A run over files without padding code then imports neither.

The rule classes read their REQUIRES from here (one place), and tests/test_rule_catalogue.py checks
that the registry (padlint.rules) and this catalogue name the same rules.
"""

from __future__ import annotations

# Words (case-insensitive substrings) one of which every file with a finding of the rule contains: a
# necessary condition of the analysis, never a sufficient one. Empty: the rule may fire anywhere.
PADDING_STEP = (
    "pad",
    "[0]",
    "zeros",
    "append(0)",
)  # pad_sequence, F.pad, tokenizer.pad, padding=, a pad id; `[0] * n`, zeros, `ids.append(0)` in a loop

# code -> (name, module under padlint.rules, class, REQUIRES)
CATALOGUE: dict[str, tuple[str, str, str, tuple[str, ...]]] = {
    "PAD001": ("attention-mask-all-ones", "attention_mask_all_ones", "AttentionMaskAllOnes", PADDING_STEP),
    "PAD002": ("labels-not-masked", "labels_not_masked", "LabelsNotMasked", PADDING_STEP),
    # a padding tokenizer call (padding=, .pad)
    "PAD003": ("padded-without-mask", "padded_without_mask", "PaddedWithoutMask", ("pad",)),
    # a comparison with the pad id
    "PAD004": ("pad-eos-label-mask", "pad_eos_label_mask", "PadEosLabelMask", ("pad",)),
    # `ids != pad_id`
    "PAD005": ("pad-eos-attention-mask", "pad_eos_attention_mask", "PadEosAttentionMask", ("pad",)),
    # a label padding step or label_pad_token_id
    "PAD006": ("label-pad-not-ignored", "label_pad_not_ignored", "LabelPadNotIgnored", PADDING_STEP),
    # a loss call
    "PAD007": (
        "ignore-index-mismatch",
        "ignore_index_mismatch",
        "IgnoreIndexMismatch",
        ("cross_entropy", "CrossEntropyLoss", "nll_loss", "NLLLoss"),
    ),
    "PAD008": (
        "collator-overwrites-labels",
        "collator_overwrites_labels",
        "CollatorOverwritesLabels",
        ("DataCollatorForLanguageModeling",),
    ),
    # list padding, then a collator that pads again
    "PAD009": ("double-padding-resets-mask", "double_padding_resets_mask", "DoublePaddingResetsMask", PADDING_STEP),
    # `pad_token_id or eos_token_id`
    "PAD010": ("pad-id-falsy-fallback", "pad_id_falsy_fallback", "PadIdFalsyFallback", ("pad",)),
    # `.mean()` / torch.mean of a product; a loss called in a product
    "PAD011": (
        "masked-mean-over-padding",
        "masked_mean_over_padding",
        "MaskedMeanOverPadding",
        ("mean", "mask", "loss", "criterion"),
    ),
    # labels aliasing the ids
    "PAD012": ("labels-alias-input-ids", "labels_alias_input_ids", "LabelsAliasInputIds", ("label", "target", "tgt")),
    # a padding step whose value reaches `generate`
    "PAD013": ("right-padded-generation", "right_padded_generation", "RightPaddedGeneration", ("generate",)),
    # a torch layer's key padding mask
    "PAD014": (
        "key-padding-mask-inverted",
        "key_padding_mask_inverted",
        "KeyPaddingMaskInverted",
        ("key_padding_mask",),
    ),
    # hidden states read from a model's output
    "PAD015": ("mean-pool-over-padding", "mean_pool_over_padding", "MeanPoolOverPadding", ("hidden_state",)),
    # a model's per-position output read at position -1
    "PAD016": (
        "last-position-of-right-padding",
        "last_position_of_right_padding",
        "LastPositionOfRightPadding",
        ("-1",),
    ),
    # a suppression comment
    "PAD100": ("unused-noqa", "unused_noqa", "UnusedNoqa", ("noqa", "padlint")),
}

# Rules that run only when selected explicitly (by code, prefix or ALL), like ruff's RUF100.
DEFAULT_OFF: frozenset[str] = frozenset({"PAD100"})


def requires(code: str) -> tuple[str, ...]:
    """The words the rule `code` cannot fire without."""
    return CATALOGUE[code][3]
