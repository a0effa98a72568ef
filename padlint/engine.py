"""Lint one source: parse once, analyse once, run the rules, apply suppressions; fix until stable."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Collection

from padlint.types import Diagnostic


class SourceError(Exception):
    """The source cannot be linted (it does not parse). str(exc) is a one-line reason."""

    def __init__(self, message: str, row: int = 1, column: int = 1):
        super().__init__(message)
        self.row = row
        self.column = column


@dataclass
class FixOutcome:
    source: str  # the fixed text (the input text if nothing was fixed)
    fixed: list[Diagnostic] = field(default_factory=list)  # findings whose fix was applied
    remaining: list[Diagnostic] = field(default_factory=list)  # findings still in `source`
    error: str | None = None  # set when a fix was refused (the fixed code would not parse)


def lint_source(source: str, filename: str = "-", select: Collection[str] | None = None) -> list[Diagnostic]:
    """All findings in `source` (suppressions applied), sorted by position.

    `select` is the set of enabled rule codes (None: all). Raises SourceError if it does not parse.
    """
    raise NotImplementedError


def fix_source(
    source: str, filename: str = "-", select: Collection[str] | None = None, unsafe: bool = False
) -> FixOutcome:
    """Apply every applicable fix (safe ones, plus unsafe ones if `unsafe`), re-linting until stable."""
    raise NotImplementedError
