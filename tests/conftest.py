"""Shared pytest configuration."""

from __future__ import annotations

import pytest


@pytest.fixture
def cli_project(tmp_path, monkeypatch):
    """An empty project as the working directory, with none of padlint's environment settings set."""
    monkeypatch.chdir(tmp_path)
    for name in ("FORCE_COLOR", "PADLINT_OUTPUT_FORMAT", "PADLINT_CACHE_DIR", "CI_PROJECT_DIR"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path
