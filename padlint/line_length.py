"""The line length the project's code is kept to, read from its ruff or black configuration: fixes
write code within it.
"""

from __future__ import annotations

import functools
from pathlib import Path

from padlint.config import PYPROJECT, ConfigError
from padlint.config_file import load_toml

DEFAULT_LINE_LENGTH = 88  # black's and ruff's default


@functools.lru_cache(maxsize=256)
def project_line_length(directory: str) -> int:
    """The line length the code in `directory` is kept to: `line-length` of the nearest ruff.toml,
    .ruff.toml or pyproject.toml ([tool.ruff], else [tool.black]) that sets one; 88 otherwise.
    Fixes write code within it. A file that cannot be read counts as setting nothing."""
    here = Path(directory)
    for folder in (here, *here.parents):
        value = _line_length_set_in(str(folder))
        if value is not None:
            return value
    return DEFAULT_LINE_LENGTH


@functools.lru_cache(maxsize=4096)
def _line_length_set_in(folder: str) -> int | None:
    """The line length a config file of `folder` itself sets, if one does. Kept per folder: a scan
    asks for every directory of the tree, and they share their parents."""
    for name in ("ruff.toml", ".ruff.toml", PYPROJECT):
        path = Path(folder) / name
        if not path.is_file():
            continue
        try:
            data = load_toml(path)
        except ConfigError:
            continue
        tool = data.get("tool", {}) if name == PYPROJECT else {"ruff": data}
        for section in ("ruff", "black"):
            table = tool.get(section) if isinstance(tool, dict) else None
            value = table.get("line-length", table.get("line_length")) if isinstance(table, dict) else None
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                return value
    return None


def forget_line_lengths() -> None:
    """Read the config files again on the next question (the language server, after one changed)."""
    project_line_length.cache_clear()
    _line_length_set_in.cache_clear()
