"""padlint: find and fix padding, attention-mask and label-masking bugs in LM batch code."""

from __future__ import annotations

# The one place the version is written: pyproject.toml reads it (dynamic), and so do --version,
# the cache key and SARIF. A ".devN" suffix means unreleased changes since the last tag (CHANGELOG.md).
__version__ = "0.2.0.dev0"

from padlint.types import Applicability, Diagnostic, Edit, Fix, Location  # noqa: E402

__all__ = ["__version__", "Applicability", "Diagnostic", "Edit", "Fix", "Location", "lint_source", "fix_source"]


def __getattr__(name: str):
    # The engine pulls in libcst; load it only when the API is used.
    if name in ("lint_source", "fix_source"):
        from padlint import engine

        return getattr(engine, name)
    raise AttributeError(name)
