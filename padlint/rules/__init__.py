"""The rule registry: every rule class, by code and by name."""
from __future__ import annotations

from padlint.rules.base import Rule

ALL_RULES: list[type[Rule]] = []


def _register() -> None:
    from padlint.rules.attention_mask_all_ones import AttentionMaskAllOnes
    from padlint.rules.labels_not_masked import LabelsNotMasked
    from padlint.rules.padded_without_mask import PaddedWithoutMask

    ALL_RULES.extend([AttentionMaskAllOnes, LabelsNotMasked, PaddedWithoutMask])


_register()

RULES_BY_CODE: dict[str, type[Rule]] = {r.code: r for r in ALL_RULES}
RULES_BY_NAME: dict[str, type[Rule]] = {r.name: r for r in ALL_RULES}


def get_rule(code_or_name: str) -> type[Rule] | None:
    key = code_or_name.strip()
    return RULES_BY_CODE.get(key.upper()) or RULES_BY_NAME.get(key.lower())
