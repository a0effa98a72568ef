"""The rule registry: every rule class, by code and by name.

Imported lazily (PEP 562): `from padlint.rules import RULES_BY_CODE` imports the rule modules, which
import the analysis; the codes, names and words alone are in padlint.rules.catalogue.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from padlint.rules.catalogue import CATALOGUE, DEFAULT_OFF

if TYPE_CHECKING:
    from padlint.rules.base import Rule

    ALL_RULES: list[type[Rule]]
    RULES_BY_CODE: dict[str, type[Rule]]
    RULES_BY_NAME: dict[str, type[Rule]]

__all__ = ["ALL_RULES", "DEFAULT_OFF", "RULES_BY_CODE", "RULES_BY_NAME", "get_rule"]


def _register() -> dict[str, Any]:
    rules = []
    for _name, module, cls, _words in CATALOGUE.values():  # the order rules run in and are listed
        rules.append(getattr(importlib.import_module(f"padlint.rules.{module}"), cls))
    return {
        "ALL_RULES": rules,
        "RULES_BY_CODE": {r.code: r for r in rules},
        "RULES_BY_NAME": {r.name: r for r in rules},
    }


def _registry() -> dict[str, Any]:
    if "ALL_RULES" not in globals():
        globals().update(_register())
    return globals()


def __getattr__(name: str) -> Any:
    if name in ("ALL_RULES", "RULES_BY_CODE", "RULES_BY_NAME"):
        return _registry()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get_rule(code_or_name: str) -> type[Rule] | None:
    key = code_or_name.strip()
    registry = _registry()
    return registry["RULES_BY_CODE"].get(key.upper()) or registry["RULES_BY_NAME"].get(key.lower())
