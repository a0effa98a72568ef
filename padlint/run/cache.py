"""The result cache: a file's findings, keyed by its bytes and everything else that decides them.

The key of an entry hashes the file's content, padlint's version, a fingerprint of padlint's own
code (so a changed rule never serves old results, even between releases), the Python and libcst
versions, and the effective configuration for that file: the enabled codes (after selection
layers and per-file-ignores), unsafe-fixes and the prefilter switch. Ruff's stale-cache bugs
(#1589, #12721) came from configuration missing from the key; here the key is computed from the
resolved selection itself, so any setting that changes what is enabled changes the key.

Entries are small JSON files under `.padlint_cache/` in the project root (or `PADLINT_CACHE_DIR`),
written to a temporary file and renamed into place, so two concurrent runs never see half an
entry; an entry that cannot be read or decoded is a miss. The filename is not part of an entry:
the same bytes with the same configuration give the same findings wherever the file is.

A file's findings may also depend on other files of the project that the analysis read (an imported
constant, analysis/reads.py): the entry then lists them with their digests, and it is a miss as
soon as one of them has changed or cannot be read. Such an entry depends on where the file is,
which it does through those absolute paths.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Collection
from pathlib import Path

from padlint import __version__
from padlint.types import Applicability, Diagnostic, Edit, Fix, Location

CACHE_DIR_NAME = ".padlint_cache"
ENV_VAR = "PADLINT_CACHE_DIR"
LAYOUT = "v1"


def cache_dir(root: str | os.PathLike[str]) -> Path:
    override = os.environ.get(ENV_VAR)
    return Path(override) if override else Path(root) / CACHE_DIR_NAME


def _code_fingerprint() -> str:
    """Size and mtime of every module of padlint: a development checkout changes under the cache."""
    base = Path(__file__).resolve().parents[1]  # the whole padlint package
    digest = hashlib.sha256()
    for directory, dirs, files in os.walk(base):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith((".py", ".md")):
                try:
                    st = os.stat(os.path.join(directory, name))
                except OSError:
                    continue
                digest.update(
                    f"{os.path.relpath(os.path.join(directory, name), base)}:{st.st_size}:{st.st_mtime_ns};".encode()
                )
    return digest.hexdigest()


def _libcst_version() -> str:
    """Which libcst parses (its version file and native parser, by size and mtime), without importing
    it: a warm run that finds everything in the cache never loads libcst or importlib.metadata."""
    import importlib.util

    spec = importlib.util.find_spec("libcst")
    if spec is None or not spec.submodule_search_locations:
        return "?"
    base = next(iter(spec.submodule_search_locations))
    try:
        names = sorted(n for n in os.listdir(base) if n == "_version.py" or n.startswith("native"))
    except OSError:
        return "?"
    parts = []
    for name in names:
        try:
            st = os.stat(os.path.join(base, name))
        except OSError:
            continue
        parts.append(f"{name}:{st.st_size}:{st.st_mtime_ns}")
    return ";".join(parts) or "?"


class Cache:
    """Lint results by content hash. Only lint results go in: --fix and --diff never use it."""

    def __init__(
        self,
        directory: str | os.PathLike[str],
        unsafe_fixes: bool,
        prefilter: bool,
        target_version: str | None = None,
    ):
        self.directory = Path(directory) / LAYOUT
        self._root = str(self.directory)
        base = f"{__version__}|{_code_fingerprint()}|{sys.version_info[:2]}|{_libcst_version()}"
        # The target version decides which notebook cells count as broken (padlint.grammar).
        self._base = f"{base}|unsafe={unsafe_fixes}|prefilter={prefilter}|target={target_version}"
        self._config_keys: dict[tuple[frozenset[str], int], str] = {}
        # What each dependency holds now, asked once per run: a warm run checks the same few modules
        # (transformers' modeling_utils.py) for hundreds of entries. A lint run writes no file.
        self._dependencies_now: dict[str, str | None] = {}
        self._ready = False
        self.hits = self.misses = 0

    def key(self, digest: str, selection: Collection[str], line_length: int = 88) -> str:
        """The entry name for a file whose bytes hash to `digest` (sha256), linted with `selection`
        (fixes are part of the entry, and their code keeps to the project's `line_length`)."""
        frozen = (frozenset(selection), line_length)
        config = self._config_keys.get(frozen)
        if config is None:
            text = f"{self._base}|{','.join(sorted(frozen[0]))}|line-length={line_length}"
            config = hashlib.sha256(text.encode()).hexdigest()
            self._config_keys[frozen] = config
        return f"{digest}-{config[:32]}"

    def _path(self, key: str) -> str:
        return os.path.join(self._root, key[:2], key[2:])

    def get(self, key: str, filename: str) -> list[Diagnostic] | None:
        """The cached findings (with `filename` filled in), or None on a miss or a broken entry."""
        try:
            with open(self._path(key), encoding="utf-8") as fh:
                raw = fh.read()
            entry = json.loads(raw) if raw != "[]" else []
            if isinstance(entry, dict):  # {"findings": [...], "reads": {path: sha256}}
                if not self._unchanged(entry["reads"]):
                    self.misses += 1
                    return None
                entry = entry["findings"]
            found = [_load(item, filename) for item in entry]
        except (OSError, ValueError, TypeError, KeyError, IndexError, AttributeError):
            self.misses += 1
            return None
        self.hits += 1
        return found

    def _unchanged(self, reads: dict[str, str]) -> bool:
        """Do the files an entry depends on still hold the bytes the analysis read?"""
        from padlint.analysis.reads import current_digest

        now = self._dependencies_now
        for path, digest in reads.items():
            if path not in now:
                now[path] = current_digest(path)
            if now[path] != digest:
                return False
        return True

    def put(self, key: str, diagnostics: list[Diagnostic], reads: dict[str, str] | None = None) -> None:
        """Store an entry atomically; a cache that cannot be written is silently not used. `reads`:
        the other files the findings depend on, {absolute path: sha256 of the bytes read}."""
        path = self._path(key)
        try:
            if not self._ready:
                self._prepare()
            os.makedirs(os.path.dirname(path), exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                findings = [_dump(d) for d in diagnostics]
                entry = {"findings": findings, "reads": reads} if reads else findings
                out.write(json.dumps(entry, separators=(",", ":")))
            os.replace(tmp, path)
        except OSError:
            try:
                os.unlink(tmp)
            except (OSError, NameError):
                pass

    def _prepare(self) -> None:
        top = self.directory.parent
        self.directory.mkdir(parents=True, exist_ok=True)
        for name, (text, _) in _MARKERS.items():
            if not (top / name).exists():
                fd, tmp = tempfile.mkstemp(dir=top, prefix=".tmp-")
                with os.fdopen(fd, "w", encoding="utf-8") as out:
                    out.write(text)
                os.replace(tmp, top / name)
        self._ready = True


def clear(directory: str | os.PathLike[str]) -> int:
    """Remove what padlint wrote in the cache `directory` (its entries, `.gitignore`, `CACHEDIR.TAG`)
    and the directory itself if that leaves it empty; anything else there stays (PADLINT_CACHE_DIR
    may name a folder that holds other things). Returns the number of entries removed.
    Raises OSError if something padlint wrote cannot be removed."""
    import re
    import shutil

    top = Path(directory)
    if not top.is_dir():
        return 0
    if not any(_ours(top / name) for name in _MARKERS):
        raise OSError(f"{top} does not look like padlint's cache (no .gitignore or CACHEDIR.TAG of padlint's)")
    removed = 0
    for child in top.iterdir():
        if child.is_dir() and not child.is_symlink() and re.fullmatch(r"v\d+", child.name) and _layout(child):
            removed += sum(1 for _, _, files in os.walk(child) for name in files if not name.startswith(".tmp-"))
            shutil.rmtree(child)
        elif child.name.startswith(".tmp-") or (child.name in _MARKERS and _ours(child)):
            child.unlink()
    try:
        top.rmdir()
    except OSError:
        pass  # other files are there: not ours to remove
    return removed


# The files padlint writes beside its entries, and the line `clear` knows them by.
_MARKERS = {
    ".gitignore": ("# Created by padlint.\n*\n", "# Created by padlint."),
    "CACHEDIR.TAG": (
        "Signature: 8a477f597d28d172789f06886806bc55\n# padlint's result cache\n",
        "# padlint's result cache",
    ),
}


def _layout(directory: Path) -> bool:
    """Is `directory` laid out as padlint writes entries (folders named by two hex digits)?"""
    import re

    return all(re.fullmatch(r"[0-9a-f]{2}", c.name) and c.is_dir() and not c.is_symlink() for c in directory.iterdir())


def _ours(path: Path) -> bool:
    try:
        return _MARKERS[path.name][1] in path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def _loc(loc: Location) -> list[int]:
    return [loc.row, loc.column]


def _dump(d: Diagnostic) -> dict[str, object]:
    out: dict[str, object] = {
        "code": d.code,
        "name": d.name,
        "message": d.message,
        "location": _loc(d.location),
        "end": _loc(d.end_location),
        "url": d.url,
        "confidence": d.confidence,
        "cell": d.cell,
        "rows": list(d.statement_rows),
    }
    if d.no_fix:
        out["no_fix"] = d.no_fix
    if d.fix is not None:
        out["fix"] = [
            d.fix.applicability.value,
            d.fix.message,
            [[e.content, _loc(e.location), _loc(e.end_location), *_other(e, d.filename)] for e in d.fix.edits],
        ]
    return out


def _other(edit: Edit, filename: str) -> list[str]:
    """The file an edit of another file changes, relative to the finding's (the cache is read from
    any working directory)."""
    return [os.path.relpath(edit.filename, os.path.dirname(filename) or ".")] if edit.filename else []


def _load(item: dict, filename: str) -> Diagnostic:
    fix = None
    if "fix" in item:
        applicability, message, edits = item["fix"]
        fix = Fix(
            Applicability(applicability),
            message,
            tuple(
                Edit(c, Location(*start), Location(*end), *[os.path.join(os.path.dirname(filename), o) for o in other])
                for c, start, end, *other in edits
            ),
        )
    return Diagnostic(
        code=item["code"],
        name=item["name"],
        message=item["message"],
        filename=filename,
        location=Location(*item["location"]),
        end_location=Location(*item["end"]),
        url=item["url"],
        fix=fix,
        confidence=item["confidence"],
        cell=item["cell"],
        statement_rows=tuple(item["rows"]),
        no_fix=item.get("no_fix"),
    )
