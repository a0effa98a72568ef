"""The rule registry: every rule class, by code and by name."""

from __future__ import annotations

from padlint.rules.base import Rule

ALL_RULES: list[type[Rule]] = []


def _register() -> None:
    from padlint.rules.attention_mask_all_ones import AttentionMaskAllOnes
    from padlint.rules.collator_overwrites_labels import CollatorOverwritesLabels
    from padlint.rules.double_padding_resets_mask import DoublePaddingResetsMask
    from padlint.rules.ignore_index_mismatch import IgnoreIndexMismatch
    from padlint.rules.label_pad_not_ignored import LabelPadNotIgnored
    from padlint.rules.labels_alias_input_ids import LabelsAliasInputIds
    from padlint.rules.labels_not_masked import LabelsNotMasked
    from padlint.rules.masked_mean_over_padding import MaskedMeanOverPadding
    from padlint.rules.pad_eos_attention_mask import PadEosAttentionMask
    from padlint.rules.pad_eos_label_mask import PadEosLabelMask
    from padlint.rules.pad_id_falsy_fallback import PadIdFalsyFallback
    from padlint.rules.padded_without_mask import PaddedWithoutMask
    from padlint.rules.unused_noqa import UnusedNoqa

    ALL_RULES.extend(
        [
            AttentionMaskAllOnes,
            LabelsNotMasked,
            PaddedWithoutMask,
            PadEosLabelMask,
            PadEosAttentionMask,
            LabelPadNotIgnored,
            IgnoreIndexMismatch,
            CollatorOverwritesLabels,
            DoublePaddingResetsMask,
            PadIdFalsyFallback,
            MaskedMeanOverPadding,
            LabelsAliasInputIds,
            UnusedNoqa,
        ]
    )


_register()

# Rules that run only when selected explicitly (by code, prefix or ALL), like ruff's RUF100.
DEFAULT_OFF: frozenset[str] = frozenset({"PAD100"})

RULES_BY_CODE: dict[str, type[Rule]] = {r.code: r for r in ALL_RULES}
RULES_BY_NAME: dict[str, type[Rule]] = {r.name: r for r in ALL_RULES}


def get_rule(code_or_name: str) -> type[Rule] | None:
    key = code_or_name.strip()
    return RULES_BY_CODE.get(key.upper()) or RULES_BY_NAME.get(key.lower())
