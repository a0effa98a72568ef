"""The language server: documents in, diagnostics and code actions out (pygls, LSP over stdio).

Documents are linted when opened and saved, and a moment after the last change (a burst of typing is
linted once). Lints run in the server's main thread, one at a time, so that the per-file time limit
of `padlint check` (a SIGALRM deadline) holds here too. Text documents are synced in full: pygls
applies incremental changes over str.splitlines() rows, which also break at form feeds and other
characters that end no line in LSP or in Python, and would shift the text of such a file.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from padlint import __version__
from padlint.config import ConfigError, Settings
from padlint.line_length import forget_line_lengths
from padlint.server import actions, linting
from padlint.server.convert import TextLines, to_lsp
from padlint.server.documents import Document, Finding, NotebookDocument, Part, PythonDocument

DEBOUNCE_SECONDS = 0.3  # after the last change of a burst of typing
PYTHON_SUFFIXES = (".py", ".pyi", ".pyw")
# Watched: a change lints the open documents again ([tool.padlint]; the line length fixes keep to).
CONFIG_NAMES = ("pyproject.toml", "ruff.toml", ".ruff.toml")
logger = logging.getLogger(__name__)


@dataclass
class Snapshot:
    """The last lint of a document: what was linted, with which settings, and what was found."""

    document: Document
    settings: Settings | None  # None: the configuration could not be read (nothing was linted)
    findings: list[Finding] = field(default_factory=list)
    _fixed: tuple[str | None] | None = None  # fix all's text, once worked out

    def versions(self) -> tuple:
        return versions_of(self.document)

    def fixed_all(self) -> str | None:
        """The engine text with every applicable fix applied (None: nothing to fix). Worked out once
        per lint, and only if some finding has a fix to apply: clients ask for code actions on every
        move of the cursor."""
        if self._fixed is None:
            from padlint.report import fix_is_applicable

            unsafe = self.settings is not None and self.settings.unsafe_fixes
            fixable = any(f.found is not None and fix_is_applicable(f.found, unsafe) for f in self.findings)
            settings = self.settings
            self._fixed = (linting.fix_all(self.document, settings) if fixable and settings is not None else None,)
        return self._fixed[0]


def versions_of(document: Document) -> tuple:
    """Which versions of its parts a document was read at (a lint of other versions is stale)."""
    return tuple((part.uri, part.version) for part in document.parts)


class PadlintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "padlint",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Full,
            notebook_document_sync=types.NotebookDocumentSyncOptions(
                notebook_selector=[
                    # "*": every notebook type (Jupyter, VS Code's interactive window); the Python cells.
                    types.NotebookDocumentFilterWithCells(
                        notebook="*", cells=[types.NotebookCellLanguage(language="python")]
                    )
                ],
                save=True,
            ),
        )
        self.snapshots: dict[str, Snapshot] = {}  # by the uri of the file or the notebook
        self.published: dict[str, set[str]] = {}  # uris we published diagnostics for, by document
        self.pending: dict[str, asyncio.TimerHandle] = {}
        self.config_errors: dict[str, str] = {}  # the configuration error each document last hit
        self.config_errors_shown: set[str] = set()

    # -- documents -------------------------------------------------------------------------------
    def key_of(self, uri: str) -> str:
        """The document a uri belongs to: the notebook of a cell, or the file itself."""
        notebook = self.workspace.get_notebook_document(cell_uri=uri)
        return notebook.uri if notebook is not None else uri

    def document(self, key: str, target_version: str | None = None) -> Document | None:
        notebook = self.workspace.get_notebook_document(notebook_uri=key)
        path = to_fs_path(key)
        if notebook is not None:
            cells = []
            for cell in notebook.cells:
                text = self.workspace.get_text_document(cell.document)
                is_code = cell.kind == types.NotebookCellKind.Code and text.language_id in (None, "python")
                cells.append((Part(cell.document, text.source, text.version), is_code))
            return NotebookDocument(key, path or "-", cells, target_version)
        text = self.workspace.text_documents.get(unquote(key))  # pygls keys them by the unquoted uri
        if text is None:
            return None
        if text.language_id != "python" and not (path or "").endswith(PYTHON_SUFFIXES):
            return None  # a client that sends every file it opens
        return PythonDocument(key, path or "-", text.source, text.version)

    def fallback_root(self) -> Path:
        root = self.workspace.root_path
        return Path(root) if root else Path.cwd()

    # -- linting ---------------------------------------------------------------------------------
    def schedule(self, key: str) -> None:
        self.cancel(key)
        self.pending[key] = asyncio.get_running_loop().call_later(DEBOUNCE_SECONDS, self.lint_later, key)

    def lint_later(self, key: str) -> None:
        """lint_now from a timer: pygls does not see an error raised here, so say it in the log."""
        try:
            self.lint_now(key)
        except Exception as exc:
            logger.exception("linting %s failed", key)
            self.tell(types.MessageType.Error, f"{key}: internal error: {type(exc).__name__}: {exc}", show=False)

    def cancel(self, key: str) -> None:
        handle = self.pending.pop(key, None)
        if handle is not None:
            handle.cancel()

    def lint_now(self, key: str) -> Snapshot | None:
        self.cancel(key)
        try:
            settings = linting.settings_for(to_fs_path(key), self.fallback_root())
        except ConfigError as exc:
            settings, error = None, str(exc)
        document = self.document(key, settings.target_version if settings is not None else None)
        if document is None:
            return None
        if settings is None:
            self.config_error(key, error)
            snapshot = Snapshot(document, None)
        else:
            self.config_ok(key)
            linted = linting.lint(document, settings)
            if linted.problem:
                self.tell(types.MessageType.Warning, linted.problem, show=False)
            snapshot = Snapshot(document, settings, linted.findings)
        self.snapshots[key] = snapshot
        self.publish(key, snapshot)
        return snapshot

    def current(self, key: str) -> Snapshot | None:
        """The snapshot of the document as the editor has it now (linted again if it changed)."""
        snapshot = self.snapshots.get(key)
        document = self.document(key, snapshot.settings.target_version if snapshot and snapshot.settings else None)
        if document is None:
            return None
        if snapshot is None or key in self.pending or snapshot.versions() != versions_of(document):
            return self.lint_now(key)
        return snapshot

    def lint_all(self) -> None:
        forget_line_lengths()  # a changed ruff line-length is read again
        for key in list(self.snapshots):
            self.lint_now(key)

    def units(self, text: str) -> int:
        return self.workspace.position_codec.client_num_units(text)

    def lsp_diagnostic(self, finding: Finding) -> types.Diagnostic:
        return to_lsp(finding.shown, TextLines(finding.part.text, self.units))

    def publish(self, key: str, snapshot: Snapshot) -> None:
        by_part: dict[str, list[types.Diagnostic]] = {part.uri: [] for part in snapshot.document.parts}
        for finding in snapshot.findings:
            by_part.setdefault(finding.part.uri, []).append(self.lsp_diagnostic(finding))
        versions = {part.uri: part.version for part in snapshot.document.parts}
        for uri in self.published.get(key, set()) - set(by_part):  # cells deleted since
            self.clear(uri)
        for uri, diagnostics in by_part.items():
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=versions.get(uri))
            )
        self.published[key] = set(by_part)

    def clear(self, uri: str) -> None:
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def forget(self, key: str) -> None:
        self.cancel(key)
        self.snapshots.pop(key, None)
        for uri in self.published.pop(key, set()):
            self.clear(uri)
        self.config_ok(key)

    # -- telling the user ------------------------------------------------------------------------
    def tell(self, kind: types.MessageType, message: str, show: bool) -> None:
        self.window_log_message(types.LogMessageParams(type=kind, message=f"padlint: {message}"))
        if show:
            self.window_show_message(types.ShowMessageParams(type=kind, message=f"padlint: {message}"))

    def config_error(self, key: str, message: str) -> None:
        """Shown once per distinct error (not on every keystroke), and again once fixed and broken again."""
        self.config_errors[key] = message
        if message not in self.config_errors_shown:
            self.config_errors_shown.add(message)
            self.tell(types.MessageType.Error, f"{message}; {key} is not linted until it is fixed", show=True)

    def config_ok(self, key: str) -> None:
        message = self.config_errors.pop(key, None)
        if message is not None and message not in self.config_errors.values():
            self.config_errors_shown.discard(message)

    # -- code actions ----------------------------------------------------------------------------
    def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        uri = params.text_document.uri
        snapshot = self.current(self.key_of(uri))
        if snapshot is None or snapshot.settings is None:
            return None
        only = params.context.only
        versioned = bool(
            self.client_capabilities.workspace
            and self.client_capabilities.workspace.workspace_edit
            and self.client_capabilities.workspace.workspace_edit.document_changes
        )
        builder = actions.ActionBuilder(snapshot.document, self.units, versioned)
        found: list[types.CodeAction] = []
        if actions.wanted(types.CodeActionKind.QuickFix, only):
            touching = [f for f in snapshot.findings if actions.in_range(f, uri, params.range, self.lsp_diagnostic(f))]
            found.extend(builder.quick_fixes(touching, self.lsp_diagnostic))
        for kind in (actions.FIX_ALL_KIND,):
            if actions.wanted(kind, only):
                fix_all = builder.fix_all(snapshot.fixed_all(), kind)
                if fix_all is not None:
                    found.append(fix_all)
        return found or None


# What each document event does: lint at once, lint after the burst of typing, or forget.
_EVENTS = (
    (types.TEXT_DOCUMENT_DID_OPEN, "text_document", "lint_now"),
    (types.TEXT_DOCUMENT_DID_CHANGE, "text_document", "schedule"),
    (types.TEXT_DOCUMENT_DID_SAVE, "text_document", "lint_now"),
    (types.TEXT_DOCUMENT_DID_CLOSE, "text_document", "forget"),
    (types.NOTEBOOK_DOCUMENT_DID_OPEN, "notebook_document", "lint_now"),
    (types.NOTEBOOK_DOCUMENT_DID_CHANGE, "notebook_document", "schedule"),
    (types.NOTEBOOK_DOCUMENT_DID_SAVE, "notebook_document", "lint_now"),
    (types.NOTEBOOK_DOCUMENT_DID_CLOSE, "notebook_document", "forget"),
)


def _on_document(document_field: str, action: str):
    def handler(ls: PadlintServer, params) -> None:
        getattr(ls, action)(getattr(params, document_field).uri)

    return handler


def build() -> PadlintServer:
    server = PadlintServer()
    for method, document_field, action in _EVENTS:
        server.feature(method)(_on_document(document_field, action))

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched_files_changed(ls: PadlintServer, params: types.DidChangeWatchedFilesParams) -> None:
        ls.lint_all()  # a pyproject.toml changed: its [tool.padlint] may select other rules

    @server.feature(types.INITIALIZED)
    async def initialized(ls: PadlintServer, params: types.InitializedParams) -> None:
        watched = ls.client_capabilities.workspace and ls.client_capabilities.workspace.did_change_watched_files
        if watched and watched.dynamic_registration:
            options = types.DidChangeWatchedFilesRegistrationOptions(
                watchers=[types.FileSystemWatcher(glob_pattern=f"**/{name}") for name in CONFIG_NAMES]
            )
            registration = types.Registration(
                id="padlint-config", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES, register_options=options
            )
            try:
                await ls.client_register_capability_async(types.RegistrationParams(registrations=[registration]))
            except Exception as exc:  # the client said no: configuration changes then apply on the next edit
                ls.tell(types.MessageType.Warning, f"cannot watch configuration files: {exc}", show=False)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=actions.KINDS, resolve_provider=False),
    )
    def code_action(ls: PadlintServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        return ls.code_actions(params)

    return server
