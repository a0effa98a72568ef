"""`check --show-settings` and `check --show-files`: what a check would use, without checking."""

from __future__ import annotations

import json
from pathlib import Path

from padlint.config import Settings, resolve_selection


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(key)} = {_toml(item)}" for key, item in value.items()) + "}"
    if isinstance(value, (int, float)):
        return repr(value)
    return json.dumps(str(value), ensure_ascii=False)


def settings_text(settings: Settings, path: str) -> str:
    """The settings in force for `path` (the first path given, or the current directory), in the
    [tool.padlint] spelling, as ruff's --show-settings prints its own."""
    from padlint import grammar
    from padlint.run.cache import cache_dir

    target = settings.target_version or grammar.newest_target()
    rows = {
        "select": sorted(resolve_selection(settings, path)),
        "exclude": settings.exclude,
        "extend-exclude": settings.extend_exclude,
        "per-file-ignores": {glob: codes for glob, codes in settings.per_file_ignores},
        "unsafe-fixes": settings.unsafe_fixes,
        "respect-gitignore": settings.respect_gitignore,
        "force-exclude": settings.force_exclude,
        "timeout": settings.timeout,
        "target-version": target,
    }
    source = str(settings.config_path) if settings.config_path is not None else "none (the defaults)"
    lines = [
        f"Resolved settings for: {json.dumps(path, ensure_ascii=False)}",
        f"Settings path: {source}",
        f"Project root: {settings.root}",
        f"Cache: {cache_dir(settings.root)}",
        "",
        "[tool.padlint]",
        *(f"{key} = {_toml(value)}" for key, value in rows.items()),
    ]
    if settings.target_version is None:
        lines[-1] += "  # the default: the newest grammar libcst reads"
    return "\n".join(lines) + "\n"


def files_text(files: list[str]) -> str:
    """One absolute path a line, sorted (ruff's --show-files)."""
    return "".join(f"{Path(f).resolve()}\n" for f in sorted(files))
