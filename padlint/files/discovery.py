"""Paths -> the Python files to lint.

Directories are walked for *.py, *.pyi and Jupyter notebooks (*.ipynb), skipping what `.gitignore`
files ignore (every one in the tree, plus those above it up to the repository root, and
.git/info/exclude) and what `exclude` / `extend-exclude` name. A file named on the command line is linted even if excluded, unless
`force-exclude` is set: pre-commit passes every staged file by name, so its hook needs that flag.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from padlint.config import Settings, relative_to_root
from padlint.config import matches as _matches

PYTHON_SUFFIXES = (".py", ".pyi")
NOTEBOOK_SUFFIX = ".ipynb"
LINTED_SUFFIXES = PYTHON_SUFFIXES + (NOTEBOOK_SUFFIX,)
ALWAYS_SKIP = frozenset({".git"})  # even when `exclude` replaces the defaults

# (directory the ignore file applies from, compiled gitignore spec)
_Spec = tuple[str, Any]


@dataclass
class Discovery:
    files: list[str] = field(default_factory=list)  # display paths, sorted, each file once
    errors: list[str] = field(default_factory=list)  # one line each: "nope.py: No such file or directory"
    warnings: list[str] = field(default_factory=list)


def _read_ignore_file(path: str, base: str) -> _Spec | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return None
    import pathspec

    return (base, pathspec.GitIgnoreSpec.from_lines(lines))


def _git_root(directory: str) -> str | None:
    for candidate in (directory, *_parents(directory)):
        if os.path.exists(os.path.join(candidate, ".git")):
            return candidate
    return None


def _parents(directory: str) -> list[str]:
    out: list[str] = []
    while True:
        parent = os.path.dirname(directory)
        if parent == directory:
            return out
        out.append(parent)
        directory = parent


def _ancestor_specs(directory: str) -> list[_Spec]:
    """.gitignore files that apply to `directory` from above it (up to the repository root)."""
    directory = os.path.abspath(directory)
    root = _git_root(directory)
    if root is None:
        return []
    chain = [directory, *_parents(directory)]
    chain = list(reversed(chain[: chain.index(root) + 1]))  # root first: deeper files override
    specs = [_read_ignore_file(os.path.join(root, ".git", "info", "exclude"), root)]
    specs += [_read_ignore_file(os.path.join(d, ".gitignore"), d) for d in chain[:-1]]
    return [s for s in specs if s is not None]


def _gitignored(abs_path: str, is_dir: bool, specs: list[_Spec]) -> bool:
    verdict = None
    for base, spec in specs:  # outermost first; the last file with an opinion wins (git's rule)
        rel = os.path.relpath(abs_path, base).replace(os.sep, "/")
        if rel.startswith(".."):
            continue
        rel += "/" if is_dir else ""
        if hasattr(spec, "check_file"):
            include = spec.check_file(rel).include
        else:  # pathspec < 0.12 has no negation-aware check
            include = True if spec.match_file(rel) else None
        if include is not None:
            verdict = include
    return bool(verdict)


class _Walker:
    def __init__(self, settings: Settings, result: Discovery):
        self.settings = settings
        self.result = result
        self.patterns = tuple(settings.exclude) + tuple(settings.extend_exclude)
        self.visited: set[str] = set()  # real paths of directories already walked (symlink loops)

    def excluded(self, path: str, is_dir: bool, parent: str | None) -> bool:
        """Matched by exclude/extend-exclude. A parent that matches too means the user named an
        excluded directory on purpose, so its contents are not excluded by the same pattern."""
        if os.path.basename(path) in ALWAYS_SKIP:
            return True
        if not self.patterns:
            return False

        def hit(p: str, d: bool) -> bool:
            rel = relative_to_root(self.settings, p)
            return rel != "." and _matches(self.patterns, rel + ("/" if d else ""))

        return hit(path, is_dir) and not (parent is not None and hit(parent, True))

    def skipped_explicit(self, path: str, is_dir: bool) -> bool:
        """With force-exclude, named paths obey the exclusions too."""
        if not self.settings.force_exclude:
            return False
        if self.excluded(path, is_dir, None):
            return True
        if self.settings.respect_gitignore:
            directory = os.path.dirname(os.path.abspath(path))
            specs = _ancestor_specs(directory)
            local = _read_ignore_file(os.path.join(directory, ".gitignore"), directory)
            return _gitignored(os.path.abspath(path), is_dir, specs + ([local] if local else []))
        return False

    def walk(self, top: str) -> None:
        specs = _ancestor_specs(top) if self.settings.respect_gitignore else []
        root_real = os.path.realpath(top)
        self._walk_dir(top, specs, root_real)

    def _walk_dir(self, directory: str, specs: list[_Spec], root_real: str) -> None:
        real = os.path.realpath(directory)
        if real in self.visited:
            return
        self.visited.add(real)
        if self.settings.respect_gitignore:
            local = _read_ignore_file(os.path.join(directory, ".gitignore"), os.path.abspath(directory))
            if local is not None:
                specs = specs + [local]
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as exc:
            self.result.warnings.append(f"{directory}: {exc.strerror or exc}")
            return
        for entry in entries:
            path = os.path.join(directory, entry.name)
            try:
                is_dir = entry.is_dir()  # follows symlinks
                is_file = not is_dir and entry.is_file()
            except OSError:  # a loop of symbolic links, an unreadable entry
                is_dir = is_file = False
            if not (is_dir or is_file) and entry.name.endswith(LINTED_SUFFIXES) and entry.is_symlink():
                self._unresolvable_link(path)
                continue
            if not (is_dir or (is_file and entry.name.endswith(LINTED_SUFFIXES))):
                continue
            if self.excluded(path, is_dir, directory):
                continue
            if specs and _gitignored(os.path.abspath(path), is_dir, specs):
                continue
            if entry.is_symlink():
                target = os.path.realpath(path)
                if target != root_real and not target.startswith(root_real + os.sep):
                    continue  # a link out of the tree being scanned (file or folder): not ours to lint
                if is_dir and (real == target or real.startswith(target + os.sep)):
                    self.result.warnings.append(f"{path}: symbolic link loop (to {target}); skipped")
                    continue
            if is_file:
                self.result.files.append(path)
                continue
            self._walk_dir(path, specs, root_real)

    def _unresolvable_link(self, path: str) -> None:
        try:
            os.stat(path)
        except OSError as exc:
            self.result.warnings.append(f"{path}: {exc.strerror or exc} (symbolic link); skipped")


def is_force_excluded(path: str, settings: Settings) -> bool:
    """Whether --force-exclude skips this named file. It need not exist: stdin's --stdin-filename."""
    return _Walker(settings, Discovery()).skipped_explicit(os.path.normpath(path), is_dir=False)


def _display(path: str) -> str:
    return os.path.normpath(path)


def discover(paths: Sequence[str], settings: Settings) -> Discovery:
    """The files under `paths`, sorted and de-duplicated, plus one-line errors for missing paths."""
    result = Discovery()
    walker = _Walker(settings, result)
    for given in paths:
        path = _display(given)
        if not os.path.exists(path):
            reason = "No such file or directory"
            if os.path.islink(path):  # a dangling link, or a loop of links
                try:
                    os.stat(path)
                except OSError as exc:
                    reason = f"{exc.strerror or exc} (symbolic link)"
            result.errors.append(f"{given}: {reason}")
        elif os.path.isdir(path):
            if not walker.skipped_explicit(path, True):
                walker.walk(path)
        elif not walker.skipped_explicit(path, False):
            result.files.append(path)
    seen: set = set()
    unique = []
    for path in sorted(result.files, key=lambda p: (os.path.normpath(p), p)):
        try:
            st = os.stat(path)  # one stat instead of realpath's lstat per path component
            key: object = (st.st_dev, st.st_ino)
        except OSError:
            key = os.path.realpath(path)
        if key not in seen:  # `src` and `src/a.py` both given, or a link to a file already listed
            seen.add(key)
            unique.append(_display(path))
    result.files = unique
    return result
