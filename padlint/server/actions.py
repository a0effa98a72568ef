"""Code actions: each finding's fix, a noqa comment for it, and every safe fix in the document at once.

Titles follow ruff's server (`padlint (PAD001): <what the fix does>`); an unsafe fix says so in its
title, since it is right only under an assumption the rule page names. Fixes and comments are worked
out on the engine text (for a notebook, its virtual module) and handed back as edits of each part
(the file, or each cell) they change.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from lsprotocol import types

from padlint.adoption.noqa import NOT_ADDED
from padlint.server import linting
from padlint.server.convert import Units, offers_fix, text_edits
from padlint.server.documents import Document, Finding
from padlint.types import Applicability

FIX_ALL_KIND = "source.fixAll.padlint"
KINDS = [types.CodeActionKind.QuickFix, types.CodeActionKind.SourceFixAll, FIX_ALL_KIND]


def wanted(kind: str, only: Sequence[str] | None) -> bool:
    """Whether the client asked for actions of `kind` (`only` lists kinds or their parents)."""
    return only is None or any(kind == o or kind.startswith(f"{o}.") for o in only)


class ActionBuilder:
    """Builds the actions for one document; `edit` makes the WorkspaceEdit the client understands."""

    def __init__(self, document: Document, units: Units, versioned_edits: bool):
        self.document = document
        self.units = units
        self.versioned_edits = versioned_edits  # the client takes documentChanges (checked against versions)

    def edit(self, new_engine_text: str | None) -> types.WorkspaceEdit | None:
        if new_engine_text is None:
            return None
        changed = self.document.changed_parts(new_engine_text)
        if not changed:
            return None
        per_part = [(part, text_edits(part.text, text, self.units)) for part, text in changed]
        if self.versioned_edits:
            return types.WorkspaceEdit(
                document_changes=[
                    types.TextDocumentEdit(
                        text_document=types.OptionalVersionedTextDocumentIdentifier(uri=part.uri, version=part.version),
                        edits=edits,
                    )
                    for part, edits in per_part
                ]
            )
        return types.WorkspaceEdit(changes={part.uri: edits for part, edits in per_part})

    def quick_fixes(
        self, findings: Iterable[Finding], diagnostic_of: Callable[[Finding], types.Diagnostic]
    ) -> list[types.CodeAction]:
        """For each finding: its fix (if it has one the user may apply), and a noqa comment."""
        offered = []
        for finding in findings:
            shown, found = finding.shown, finding.found
            if found is None:
                continue
            if offers_fix(found) and found.fix is not None:
                fix = found.fix
                unsafe = fix.applicability is Applicability.UNSAFE
                title = f"{fix.message} (unsafe fix)" if unsafe else fix.message
                new_text = linting.fix_one(self.document, found)
                offered.append((finding, title, new_text, not unsafe))
            if shown.code not in NOT_ADDED:
                offered.append((finding, "Disable for this line", linting.with_noqa(self.document, found), False))
        actions = []
        for finding, title, new_text, preferred in offered:
            edit = self.edit(new_text)
            if edit is not None:
                actions.append(
                    types.CodeAction(
                        title=f"padlint ({finding.shown.code}): {title}",
                        kind=types.CodeActionKind.QuickFix,
                        diagnostics=[diagnostic_of(finding)],
                        is_preferred=preferred or None,
                        edit=edit,
                    )
                )
        return actions

    def fix_all(self, new_engine_text: str | None, kind: str) -> types.CodeAction | None:
        edit = self.edit(new_engine_text)
        if edit is None:
            return None
        return types.CodeAction(title="padlint: Fix all auto-fixable problems", kind=kind, edit=edit)


def in_range(finding: Finding, uri: str, requested: types.Range, diagnostic: types.Diagnostic) -> bool:
    """Whether a finding shown in `uri` touches the requested range (a cursor is an empty range)."""
    if finding.part.uri != uri:
        return False
    start, end = diagnostic.range.start, diagnostic.range.end
    return (start.line, start.character) <= (requested.end.line, requested.end.character) and (
        requested.start.line,
        requested.start.character,
    ) <= (end.line, end.character)
