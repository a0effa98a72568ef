"""`[tool.padlint]` read from pyproject.toml: the nearest file with the table (or the one --config
names), its keys validated (an unknown key, a wrong type or an unknown rule code is a ConfigError
naming the file, the key's line and the key), and Settings made from it (config.py).
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
from pathlib import Path
from typing import Any

from padlint.config import (
    DEFAULT_EXCLUDE,
    PYPROJECT,
    TARGET_VERSIONS,
    ConfigError,
    SelectionLayer,
    Settings,
    expand_codes,
)

_LIST_KEYS = ("select", "ignore", "extend-select", "exclude", "extend-exclude")
_BOOL_KEYS = ("unsafe-fixes", "respect-gitignore", "force-exclude")
_KNOWN_KEYS = frozenset(_LIST_KEYS + _BOOL_KEYS + ("per-file-ignores", "timeout", "target-version"))


def load_toml(path: Path) -> dict:
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except OSError as exc:
        raise ConfigError(f"{_shown(path)}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{_shown(path)}: invalid TOML: {exc}") from None


def _shown(path: Path) -> str:
    rel = os.path.relpath(path)
    return str(path) if rel.startswith("..") else rel


def _section(data: dict) -> dict | None:
    tool = data.get("tool")
    return tool.get("padlint") if isinstance(tool, dict) else None


_NAMES_PADLINT = re.compile(r"^\s*\[\s*tool\s*\.\s*[\"']?padlint\b|\bpadlint\s*=", re.MULTILINE)


def find_pyproject(start: Path, passed_over: list[str] | None = None) -> Path | None:
    """The nearest pyproject.toml at or above `start` that has a [tool.padlint] table. One that is not
    valid TOML and whose text names no padlint table is another tool's broken file: it is passed over
    (noted in `passed_over`) rather than stopping the run; one that names it is an error."""
    try:
        start = start.resolve()
    except (OSError, RuntimeError):  # a loop of symbolic links: discovery reports it
        start = Path(os.path.abspath(start))
    if not start.is_dir():  # a file argument (or one that does not exist): look from its folder
        start = start.parent
    for directory in (start, *start.parents):
        candidate = directory / PYPROJECT
        if not candidate.is_file():
            continue
        try:
            data = load_toml(candidate)
        except ConfigError as exc:
            if "invalid TOML" not in str(exc) or _names_padlint(candidate):
                raise
            if passed_over is not None:
                passed_over.append(f"{exc}; it has no [tool.padlint] table, so it was passed over")
            continue
        if _section(data) is not None:
            return candidate
    return None


def _names_padlint(path: Path) -> bool:
    """Does the file's text name a padlint table (`[tool.padlint]`, `padlint = {...}`)?"""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return True
    return _NAMES_PADLINT.search(text) is not None


class _BadValue(Exception):
    """A problem with one key of the table: settings_from_table adds the file and the key's line.
    The message follows the key: `'select' in [tool.padlint]` + ` must be a list of strings`."""

    def __init__(self, key: str, message: str, table: str = "tool.padlint"):
        super().__init__(f"{key!r} in [{table}] {message}")
        self.key = key
        self.table = table


def _string_list(value: Any, key: str, table: str = "tool.padlint") -> tuple[str, ...]:
    if isinstance(value, str):
        # The docs call a wrong type an error: "PAD001,PAD002" is not silently split.
        raise _BadValue(
            key, f"must be a list of strings, not a string (write [{', '.join(map(repr, value.split(',')))}])", table
        )
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _BadValue(key, "must be a list of strings", table)
    return tuple(v.strip() for v in value if v.strip())


def _codes(codes: tuple[str, ...], key: str, table: str = "tool.padlint") -> None:
    try:
        expand_codes(codes, "")
    except ConfigError as exc:
        raise _BadValue(key, f"has an {str(exc).removeprefix(': ')}", table) from None


_TABLE_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$")


def key_line(text: str, key: str, table: str = "tool.padlint") -> int | None:
    """The 1-based line of `key = ...` in `[table]` of a TOML text (tomllib gives no positions), or
    of the `[table.key]` header for a sub-table; None if it is not written in either form."""
    current = ""
    quoted = re.escape(key)
    assignment = re.compile(rf"""^\s*(?:{quoted}|"{quoted}"|'{quoted}')\s*=""")
    for number, line in enumerate(text.splitlines(), start=1):
        header = _TABLE_HEADER.match(line)
        if header:
            current = ".".join(part.strip().strip("\"'") for part in header.group(1).split("."))
            if current == f"{table}.{key}":
                return number
        elif current == table and assignment.match(line):
            return number
    return None


def _at(path: Path, key: str, table: str) -> str:
    """`pyproject.toml:LINE` for the line that sets `key` (just the file if it cannot be found)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return _shown(path)
    line = key_line(text, key, table)
    if line is None and table.count(".") > 1:  # an inline table: `per-file-ignores = {...}`
        parent, name = table.rsplit(".", 1)
        line = key_line(text, name, parent)
    return f"{_shown(path)}:{line}" if line else _shown(path)


def settings_from_table(table: dict, path: Path) -> Settings:
    """Validate a [tool.padlint] table and turn it into Settings rooted at the file's directory.

    A bad value is a ConfigError naming the file, the key's line and the key."""
    try:
        return _settings_from_table(table, path)
    except _BadValue as exc:
        raise ConfigError(f"{_at(path, exc.key, exc.table)}: {exc}") from None


def _settings_from_table(table: dict, path: Path) -> Settings:
    for key in table:
        if key not in _KNOWN_KEYS:
            raise _BadValue(key, "is an unknown key")
    lists = {k: _string_list(table[k], k) for k in _LIST_KEYS if k in table}
    flags: dict[str, Any] = {}
    for key in _BOOL_KEYS:
        if key in table:
            if not isinstance(table[key], bool):
                raise _BadValue(key, "must be true or false")
            flags[key.replace("-", "_")] = table[key]
    if "timeout" in table:
        value = table["timeout"]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise _BadValue("timeout", "must be a number of seconds (0: no limit)")
        flags["timeout"] = float(value)
    if "target-version" in table:
        value = table["target-version"]
        if value not in TARGET_VERSIONS:
            raise _BadValue("target-version", f"must be one of {', '.join(TARGET_VERSIONS)}")
        flags["target_version"] = value
    pfi = table.get("per-file-ignores", {})
    if not isinstance(pfi, dict):
        raise _BadValue("per-file-ignores", "must be a table of glob = [codes]")
    pfi_table = "tool.padlint.per-file-ignores"
    per_file = tuple((glob, _string_list(codes, glob, pfi_table)) for glob, codes in pfi.items())
    layer = SelectionLayer(lists.get("select"), lists.get("extend-select", ()), lists.get("ignore", ()))
    for key in ("select", "extend-select", "ignore"):
        _codes(lists.get(key, ()), key)
    for glob, codes in per_file:
        _codes(codes, glob, pfi_table)
    return Settings(
        root=path.parent.resolve(),
        config_path=path,
        layers=(layer,),
        exclude=lists.get("exclude", DEFAULT_EXCLUDE),
        extend_exclude=lists.get("extend-exclude", ()),
        per_file_ignores=per_file,
        **flags,
    )


def load_settings(start: Path | None = None, config: Path | None = None) -> Settings:
    """Settings from `config` (an explicit pyproject.toml) or the nearest one above `start`.

    Without a [tool.padlint] table anywhere, the defaults apply, rooted at the current directory.
    """
    if config is not None:
        if not config.is_file():
            raise ConfigError(f"{config}: No such file")
        table = _section(load_toml(config))
        return settings_from_table(table or {}, config)
    passed_over: list[str] = []
    found = find_pyproject(start if start is not None else Path.cwd(), passed_over)
    if found is None:
        return Settings(root=Path.cwd().resolve(), passed_over=tuple(passed_over))
    settings = settings_from_table(_section(load_toml(found)) or {}, found)
    return dataclasses.replace(settings, passed_over=tuple(passed_over)) if passed_over else settings
