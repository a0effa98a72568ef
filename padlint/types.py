"""Frozen records shared by the engine, the rules and every reporter."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Applicability(str, enum.Enum):
    """How sure we are that a fix keeps the program right (ruff's names)."""

    SAFE = "safe"  # right for every tokenizer, applied by --fix
    UNSAFE = "unsafe"  # right under an assumption, applied only with --unsafe-fixes
    DISPLAY_ONLY = "display-only"  # shown as a suggestion, never applied


@dataclass(frozen=True, order=True)
class Location:
    """A position in the source: row is 1-based, column is 1-based (in characters)."""

    row: int
    column: int


@dataclass(frozen=True)
class Edit:
    """Replace the text between location and end_location with content."""

    content: str
    location: Location
    end_location: Location
    # The file this edit changes when it is not the finding's own (a fix whose harm is repaired in
    # another module of the project: the caller that unpacks what this module returns). Absolute.
    filename: str | None = None


@dataclass(frozen=True)
class Fix:
    applicability: Applicability
    message: str
    edits: tuple[Edit, ...]

    @property
    def elsewhere(self) -> tuple[Edit, ...]:
        """The edits of other files than the finding's own."""
        return tuple(e for e in self.edits if e.filename is not None)


@dataclass(frozen=True)
class Diagnostic:
    code: str
    name: str
    message: str
    filename: str
    location: Location
    end_location: Location
    url: str
    fix: Fix | None = None
    confidence: str = "high"
    cell: int | None = None  # notebook cell (1-based), None for plain modules
    # Without a fix: why there is none and what to change by hand (the `help:` line of the report).
    no_fix: str | None = None
    # Lines of the flagged statement (first, last): where suppressions are looked for.
    statement_rows: tuple[int, int] = field(default=(0, 0), compare=False)

    def sort_key(self) -> tuple:
        return (self.filename, self.cell or 0, self.location.row, self.location.column, self.code)
