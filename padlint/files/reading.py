"""Read any file padlint lints: a Python module, or a notebook as one virtual module.

The one place that knows both kinds, so that files.source (bytes and text) and files.notebook (cells)
need not import each other."""

from __future__ import annotations

import os

from padlint.files.notebook import decode_notebook
from padlint.files.source import (
    NOTEBOOK_MAX_BYTES,
    SourceFile,
    SourceReadError,
    decode_python,
    is_notebook,
    read_bytes,
)


def decode_source(data: bytes, path: str | None = None, target_version: str | None = None) -> SourceFile:
    """Turn file bytes into a SourceFile, or raise SourceReadError with the reason. `target_version`
    is the code's Python (`py312`; None: the newest libcst reads): which notebook cells parse."""
    if path is not None and is_notebook(path):
        if len(data) > NOTEBOOK_MAX_BYTES:
            limit = NOTEBOOK_MAX_BYTES // (1024 * 1024)
            raise SourceReadError(f"notebook is larger than {limit} MB ({len(data)} bytes)")
        return decode_notebook(data, os.fspath(path), target_version)
    return decode_python(data, path)


def read_source(path: str | os.PathLike[str], target_version: str | None = None) -> SourceFile:
    """Read and decode one file. Every failure is a SourceReadError with a one-line reason."""
    return decode_source(read_bytes(path), os.fspath(path), target_version)
