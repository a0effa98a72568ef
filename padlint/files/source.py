"""Bytes <-> text for source files: encoding (PEP 263 cookie, UTF-8 BOM), newline style, safe writes.

The text is kept exactly as it is on disk (no newline normalisation), so that positions reported by
the engine match the file and a fix changes only the bytes it means to change.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import re
import stat
import tempfile
import tokenize
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from padlint.files.notebook import Notebook

MAX_BYTES = 8 * 1024 * 1024  # larger files are generated or data, not batch code: refuse them
NOTEBOOK_MAX_BYTES = 64 * 1024 * 1024  # notebooks carry their outputs (plots, tables) along
BINARY_SNIFF_BYTES = 8192  # a NUL byte in this prefix marks a binary file (git's heuristic)
_BOM = b"\xef\xbb\xbf"
_LONE_LF = re.compile(r"(?<!\r)\n")


@contextlib.contextmanager
def quiet_parser():
    """Silence the warnings CPython's parser gives about the scanned code (`0x1for`, "\\d"): they
    came out on stderr as `<padlint>:1: SyntaxWarning: ...`, with no file name, from the syntax check."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


class SourceReadError(Exception):
    """The file cannot be turned into text. str(exc) is a one-line reason; row/column locate it."""

    def __init__(self, reason: str, row: int = 1, column: int = 1):
        super().__init__(reason)
        self.row = row
        self.column = column


class SourceWriteError(Exception):
    """The fixed text was not written (the file changed on disk, or cannot be encoded or written)."""


@dataclass(frozen=True)
class SourceFile:
    text: str
    encoding: str  # the codec named by the cookie, or "utf-8" (never "utf-8-sig": see has_bom)
    has_bom: bool
    newline: str  # the first line ending in the file ("\n" if there is none)
    digest: str  # sha256 of the bytes read, to notice a file changed before we write it
    path: str | None = None
    notebook: Notebook | None = None  # `text` is the notebook's virtual module


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _newline_style(text: str) -> str:
    match = re.search(r"\r\n|\r|\n", text)
    return match.group(0) if match else "\n"


def _row_col(data: bytes, offset: int) -> tuple[int, int]:
    """1-based row and byte column of a byte offset (for decode errors)."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    return data.count(b"\n", 0, offset) + 1, offset - line_start + 1


def decode_python(data: bytes, path: str | None = None) -> SourceFile:
    """Turn a Python file's bytes into a SourceFile, or raise SourceReadError with the reason.
    (padlint.files.reading.decode_source sends notebooks elsewhere first.)"""
    if len(data) > MAX_BYTES:
        raise SourceReadError(f"file is larger than {MAX_BYTES // (1024 * 1024)} MB ({len(data)} bytes)")
    if b"\0" in data[:BINARY_SNIFF_BYTES]:
        raise SourceReadError("binary file (contains a NUL byte)")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        if "invalid or missing encoding declaration" not in str(exc):
            # An unknown codec in the cookie, or a cookie that contradicts the BOM.
            raise SourceReadError(str(exc).replace("\n", " "), row=exc.lineno or 1) from None
        encoding = "utf-8"  # no cookie and the first lines are not UTF-8: decoding says where
    has_bom = data.startswith(_BOM)
    if encoding == "utf-8-sig":
        encoding = "utf-8"
    body = data[len(_BOM) :] if has_bom else data
    try:
        text = body.decode(encoding)
    except UnicodeDecodeError as exc:
        row, col = _row_col(body, exc.start)
        label = "UTF-8" if encoding == "utf-8" else encoding
        raise SourceReadError(
            f"not valid {label}: byte 0x{body[exc.start]:02x} at line {row}, column {col}", row, col
        ) from None
    return SourceFile(text, encoding, has_bom, _newline_style(text), _digest(data), path)


def is_notebook(path: str | os.PathLike[str]) -> bool:
    return os.fspath(path).endswith(".ipynb")


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """The file's bytes, within the size limit (SourceReadError otherwise): read_source without decoding."""
    limit = NOTEBOOK_MAX_BYTES if is_notebook(path) else MAX_BYTES
    try:
        with open(path, "rb") as fh:
            # Read one byte past the limit so an oversized file is refused without loading it whole.
            data = fh.read(limit + 1)
            if len(data) > limit:
                size = os.fstat(fh.fileno()).st_size
                raise SourceReadError(f"file is larger than {limit // (1024 * 1024)} MB ({size} bytes)")
    except OSError as exc:
        raise SourceReadError(exc.strerror or str(exc)) from None
    return data


def encode_source(text: str, like: SourceFile) -> bytes:
    """Encode text the way `like` was stored: same codec, same BOM, same line endings."""
    if like.notebook is not None:
        return like.notebook.encode(text)  # the fixed cells spliced into the notebook's JSON
    if like.newline == "\r\n" and not _LONE_LF.search(like.text):
        # Fixes are written with "\n"; in a file that uses CRLF throughout keep it CRLF throughout.
        text = _LONE_LF.sub("\r\n", text)
    try:
        data = text.encode(like.encoding)
    except UnicodeEncodeError as exc:
        raise SourceWriteError(f"the fixed text cannot be encoded as {like.encoding}: {exc.reason}") from None
    return _BOM + data if like.has_bom else data


def write_source_atomic(path: str | os.PathLike[str], new_text: str, like: SourceFile) -> None:
    """Replace the file with new_text, encoded like `like`, all at once.

    Refuses (SourceWriteError) if the file's bytes changed since `like` was read: another tool or
    the user edited it, and writing would lose that edit. The new bytes go to a temporary file in
    the same directory (same file system, so os.replace is atomic) that gets the old mode bits.
    """
    data = encode_source(new_text, like)
    target = os.path.realpath(path)  # replace the file a symlink points to, not the symlink
    try:
        with open(target, "rb") as fh:
            current = fh.read()
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except OSError as exc:
        raise SourceWriteError(exc.strerror or str(exc)) from None
    if _digest(current) != like.digest:
        raise SourceWriteError("file changed on disk since it was read; not overwriting it")
    directory = os.path.dirname(target)
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(target)}.", suffix=".padlint-tmp")
    except OSError as exc:
        raise SourceWriteError(exc.strerror or str(exc)) from None
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise SourceWriteError(exc.strerror or str(exc)) from None
        raise
