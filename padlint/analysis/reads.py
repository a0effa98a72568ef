"""The other files one analysis read, so that a result kept for a file is dropped when they change.

The analysis of a file may read other modules of the scanned project (an imported constant such as
`from .consts import LABEL_PAD`, a helper or base class in a sibling module). Its findings then
depend on those files too, and the result cache (run/cache.py) must key them by every file read,
not only by the linted file's bytes. Whatever reads another module calls `note(path, data)` with
the bytes it read; the runner wraps each file's analysis in `recording()` and stores the digests
with the result. A file that is looked for and not found is not recorded: creating it later does
not invalidate a result (the resolver looks only at a module's own candidates, see constants.py).

No libcst here: the runner imports this module in processes that never parse.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager

_recording: dict[str, str] | None = None  # absolute path -> sha256 of the bytes read, while recording


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def note(path: str, data_digest: str) -> None:
    """The analysis read `path`, whose bytes hash to `data_digest` (see `digest`)."""
    if _recording is not None:
        _recording[os.path.abspath(path)] = data_digest


@contextmanager
def recording() -> Iterator[dict[str, str]]:
    """Collect the files read inside the block: {absolute path: sha256} (an enclosing block gets them too)."""
    global _recording
    saved, _recording = _recording, {}
    inner = _recording
    try:
        yield inner
    finally:
        _recording = saved
        if saved is not None:
            saved.update(inner)


def listing_digest(directory: str) -> str | None:
    """The sha256 of a folder's entry names (hidden ones aside): what a search of it for modules saw."""
    try:
        names = sorted(name for name in os.listdir(directory) if not name.startswith("."))
    except OSError:
        return None
    return digest("\n".join(names).encode("utf-8", "surrogateescape"))


def note_listing(directory: str) -> None:
    """The analysis looked through `directory`'s entries (for modules that import another): a file
    added there later, or removed, may change what it finds, so the listing is read like a file."""
    if _recording is not None:
        found = listing_digest(directory)
        if found is not None:
            _recording[os.path.abspath(directory)] = found


_DIGESTS: dict[str, tuple[tuple[int, int, int], str]] = {}  # path -> (stat key, sha256), this process


def current_digest(path: str) -> str | None:
    """The sha256 of the file now (None: it cannot be read). A warm run asks this of the same few
    modules once per file that read them (transformers' modeling_utils.py, hundreds of times): the
    digest is kept while the file's inode, size and modification time stay the same (a fix that
    rewrites the file changes them). A folder's is the digest of its entries' names (note_listing)."""
    try:
        stat = os.stat(path)
        key = (stat.st_ino, stat.st_size, stat.st_mtime_ns)
        known = _DIGESTS.get(path)
        if known is not None and known[0] == key:
            return known[1]
        if os.path.isdir(path):  # a folder searched for modules (note_listing): its entries' names
            listed = listing_digest(path)
            if listed is None:
                return None
            found = listed
        else:
            with open(path, "rb") as handle:
                found = digest(handle.read())
    except OSError:
        return None
    _DIGESTS[path] = (key, found)
    return found
