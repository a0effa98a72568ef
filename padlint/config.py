"""Settings: `[tool.padlint]` from the nearest pyproject.toml, with command-line flags on top.

Rule selection works in layers, like ruff: the file's `select`/`extend-select`/`ignore` make one
layer and the command line's another; a layer with `select` starts over, so `--select PAD002`
enables PAD002 even if the file ignores it, while `--ignore` / `--extend-select` adjust what the
file chose. Unknown keys and unknown rule codes are errors (a typo must not silently lint less).
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PYPROJECT = "pyproject.toml"
SYNTAX_ERROR_CODE = "PAD000"  # files that cannot be read or parsed; not a rule, but can be ignored

# Directories never worth linting (ruff's defaults, plus ours). Setting `exclude` replaces this list.
DEFAULT_EXCLUDE: tuple[str, ...] = (
    ".bzr",
    ".direnv",
    ".eggs",
    ".git",
    ".git-rewrite",
    ".hg",
    ".ipynb_checkpoints",
    ".mypy_cache",
    ".nox",
    ".padlint_cache",
    ".pants.d",
    ".pytest_cache",
    ".pytype",
    ".ruff_cache",
    ".svn",
    ".tox",
    ".venv",
    "__pypackages__",
    "__pycache__",
    "_build",
    "buck-out",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    "venv",
)

_LIST_KEYS = ("select", "ignore", "extend-select", "exclude", "extend-exclude")
_BOOL_KEYS = ("unsafe-fixes", "respect-gitignore", "force-exclude")
_KNOWN_KEYS = frozenset(_LIST_KEYS + _BOOL_KEYS + ("per-file-ignores", "timeout", "target-version"))
# ruff's `target-version` values (padlint.grammar says what they change).
TARGET_VERSIONS = ("py37", "py38", "py39", "py310", "py311", "py312", "py313", "py314", "py315")
DEFAULT_TIMEOUT = 20.0  # seconds one file may take before it is reported and skipped


class ConfigError(Exception):
    """Bad configuration or bad flags: a one-line message; the CLI exits 2."""


@dataclass(frozen=True)
class SelectionLayer:
    select: tuple[str, ...] | None = None  # None: keep what the layers before chose
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()


@dataclass(frozen=True)
class Settings:
    root: Path  # the directory of the pyproject.toml (or the cwd): excludes and globs are relative to it
    config_path: Path | None = None
    layers: tuple[SelectionLayer, ...] = ()
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (glob, codes), in file order
    unsafe_fixes: bool = False
    respect_gitignore: bool = True
    force_exclude: bool = False
    timeout: float = DEFAULT_TIMEOUT  # 0: no limit
    target_version: str | None = None  # the code's Python (`py312`); None: the newest libcst reads


def known_codes() -> tuple[str, ...]:
    """Codes of every registered rule (imported lazily: the registry imports the rules)."""
    from padlint.rules import RULES_BY_CODE

    return tuple(sorted(RULES_BY_CODE))


def expand_codes(codes: Iterable[str], where: str) -> frozenset[str]:
    """Codes and prefixes (`PAD00`, `ALL`) -> rule codes. Raises ConfigError naming `where`."""
    known = known_codes()
    out: set[str] = set()
    for raw in codes:
        code = raw.strip().upper()
        if not code:
            continue
        if code == "ALL":
            out.update(known)
            continue
        matched = [k for k in known if k.startswith(code)]
        if code == SYNTAX_ERROR_CODE:
            # Only by its full code: `ignore = ["PAD0"]` must not silently hide unparseable files.
            matched.append(code)
        if not matched:
            raise ConfigError(f"{where}: unknown rule code {raw.strip()!r}")
        out.update(matched)
    return frozenset(out)


def _select_layers(settings: Settings) -> frozenset[str]:
    from padlint.rules import DEFAULT_OFF

    selected = (frozenset(known_codes()) - DEFAULT_OFF) | {SYNTAX_ERROR_CODE}
    for layer in settings.layers:
        if layer.select is not None:
            selected = expand_codes(layer.select, "select") | {SYNTAX_ERROR_CODE}
        selected |= expand_codes(layer.extend_select, "extend-select")
        selected -= expand_codes(layer.ignore, "ignore")
    return selected


@functools.lru_cache(maxsize=64)
def _compile(patterns: tuple[str, ...]) -> Any:
    import pathspec  # only when there is something to match

    return pathspec.GitIgnoreSpec.from_lines(patterns)


def relative_to_root(settings: Settings, path: str | os.PathLike[str]) -> str:
    """The path as the root-relative, `/`-separated string that gitignore-style globs match."""
    rel = os.path.relpath(os.path.abspath(path), os.path.abspath(settings.root))
    return rel.replace(os.sep, "/")


_GLOB_CHARS = frozenset("/*?[]!\\")


@functools.lru_cache(maxsize=64)
def _plain_names(patterns: tuple[str, ...]) -> frozenset[str] | None:
    """The patterns as bare names (`build`, `.venv`), or None if any uses glob syntax or a slash."""
    names = [p.strip() for p in patterns]
    if any(not n or n.startswith("#") or _GLOB_CHARS.intersection(n) for n in names):
        return None
    return frozenset(names)


def matches(patterns: tuple[str, ...], rel: str) -> bool:
    if not patterns:
        return False
    names = _plain_names(patterns)
    if names is not None:
        # A bare name matches a file or directory of that name at any depth (gitignore's rule), so
        # for the default excludes a set lookup per path component replaces pathspec's regexes.
        return not names.isdisjoint(rel.rstrip("/").split("/"))
    return bool(_compile(patterns).match_file(rel))


def resolve_selection(settings: Settings, path: str | os.PathLike[str]) -> frozenset[str]:
    """The codes enabled for one file: layers, then per-file-ignores whose glob matches it.

    Contains SYNTAX_ERROR_CODE unless that is ignored (then unreadable files are not reported).
    """
    selected = _select_layers(settings)
    if settings.per_file_ignores and os.fspath(path) != "-":
        rel = relative_to_root(settings, path)
        for glob, codes in settings.per_file_ignores:
            if matches((glob,), rel):
                selected -= expand_codes(codes, "per-file-ignores")
    return selected


# --- reading pyproject.toml ---------------------------------------------------------------------


def _load_toml(path: Path) -> dict:
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


def find_pyproject(start: Path) -> Path | None:
    """The nearest pyproject.toml at or above `start` that has a [tool.padlint] table."""
    try:
        start = start.resolve()
    except (OSError, RuntimeError):  # a loop of symbolic links: discovery reports it
        start = Path(os.path.abspath(start))
    if not start.is_dir():  # a file argument (or one that does not exist): look from its folder
        start = start.parent
    for directory in (start, *start.parents):
        candidate = directory / PYPROJECT
        if candidate.is_file() and _section(_load_toml(candidate)) is not None:
            return candidate
    return None


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
        table = _section(_load_toml(config))
        return settings_from_table(table or {}, config)
    found = find_pyproject(start if start is not None else Path.cwd())
    if found is None:
        return Settings(root=Path.cwd().resolve())
    return settings_from_table(_section(_load_toml(found)) or {}, found)


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
            data = _load_toml(path)
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


def codes_option(value: str | None) -> tuple[str, ...] | None:
    """A comma-separated --select/--ignore value -> codes (None when the flag was not given)."""
    if value is None:
        return None
    return tuple(code.strip() for code in value.split(",") if code.strip())


def with_cli(
    settings: Settings,
    *,
    select: tuple[str, ...] | None = None,
    extend_select: tuple[str, ...] | None = None,
    ignore: tuple[str, ...] | None = None,
    exclude: tuple[str, ...] | None = None,
    extend_exclude: tuple[str, ...] | None = None,
    unsafe_fixes: bool | None = None,
    respect_gitignore: bool | None = None,
    force_exclude: bool | None = None,
    timeout: float | None = None,
    target_version: str | None = None,
) -> Settings:
    """Command-line flags on top of the file: a new selection layer; other flags replace values."""
    for flag, codes in (("--select", select), ("--extend-select", extend_select), ("--ignore", ignore)):
        if codes:
            expand_codes(codes, flag)
    changes: dict[str, Any] = {}
    if select is not None or extend_select or ignore:
        layer = SelectionLayer(select, extend_select or (), ignore or ())
        changes["layers"] = settings.layers + (layer,)
    if exclude is not None:
        changes["exclude"] = exclude
    if extend_exclude:
        changes["extend_exclude"] = settings.extend_exclude + extend_exclude
    for name, value in (
        ("unsafe_fixes", unsafe_fixes),
        ("respect_gitignore", respect_gitignore),
        ("force_exclude", force_exclude),
        ("timeout", timeout),
        ("target_version", target_version),
    ):
        if value is not None:
            changes[name] = value
    return dataclasses.replace(settings, **changes)
