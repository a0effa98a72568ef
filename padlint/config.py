"""Settings: `[tool.padlint]` from the nearest pyproject.toml (read by config_file.py), with
command-line flags on top; which rules are enabled for a file, and which paths excludes match.

Rule selection works in layers, like ruff: the file's `select`/`extend-select`/`ignore` make one
layer and the command line's another; a layer with `select` starts over, so `--select PAD002`
enables PAD002 even if the file ignores it, while `--ignore` / `--extend-select` adjust what the
file chose. Unknown keys and unknown rule codes are errors (a typo must not silently lint less).
"""

from __future__ import annotations

import dataclasses
import functools
import os
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
    # pyproject.toml files passed over on the way up: invalid TOML that names no [tool.padlint] (one line each)
    passed_over: tuple[str, ...] = ()


def known_codes() -> tuple[str, ...]:
    """Codes of every registered rule (from the catalogue: the registry imports the rules)."""
    from padlint.rules.catalogue import CATALOGUE

    return tuple(sorted(CATALOGUE))


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


def codes_option(values: tuple[str, ...]) -> tuple[str, ...] | None:
    """The comma-separated values of a --select/--ignore flag, each time it was given
    (`--extend-exclude a --extend-exclude b,c`) -> codes; None when the flag was not given."""
    if not values:
        return None
    return tuple(code.strip() for value in values for code in value.split(",") if code.strip())


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
