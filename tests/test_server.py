"""`padlint server` end to end: a real LSP client (pytest-lsp) drives the server in a subprocess.

One server per client kind for the whole module: a VS Code-like client (UTF-16 positions, versioned
document changes, notebook documents) and a Neovim-like one (UTF-8 positions, plain `changes`).
Edits the server returns are applied to the text here, as an editor would, and the text sent back.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

in_module_loop = pytest.mark.asyncio(loop_scope="module")  # the servers live as long as the module

ROOT = Path(__file__).resolve().parent.parent
PUBLISHED: list[tuple[str, int | None]] = []  # (uri, version) of every publishDiagnostics, in order


def _record_publish(ls: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
    PUBLISHED.append((params.uri, params.version))
    ls.diagnostics[params.uri] = params.diagnostics


def _recording_client() -> LanguageClient:
    """pytest-lsp's client, also recording which version of a document each publication was for."""
    client = LanguageClient(converter_factory=default_converter)
    register_lsp_features(client, {**DEFAULT_CLIENT_FEATURES, types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: _record_publish})
    return client


SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "padlint", "server"], client_factory=_recording_client
)

COLLATOR = textwrap.dedent(
    """\
    import torch


    def collate(batch, tokenizer):
        pad_id = tokenizer.pad_token_id or tokenizer.eos_token_id
        longest = max(len(item["input_ids"]) for item in batch)
        input_ids = torch.full((len(batch), longest), pad_id)
        attention_mask = torch.zeros_like(input_ids)
        for row, item in enumerate(batch):
            input_ids[row, : len(item["input_ids"])] = torch.tensor(item["input_ids"])
            attention_mask[row, : len(item["input_ids"])] = 1
        return {"input_ids": input_ids, "attention_mask": attention_mask}


    def masked_token_loss(token_losses, attention_mask):
        return (token_losses * attention_mask).mean()
    """
)
UNSAFE = textwrap.dedent(
    """\
    def attach_labels(features):
        targets, keep = features["input_ids"], features["attention_mask"]
        targets[keep == 0] = -100
        features["labels"] = targets
        return features
    """
)
FALLBACK = textwrap.dedent(
    """\
    import torch
    from torch.nn.utils.rnn import pad_sequence


    def batch_of(sequences, tok):
        fill = tok.pad_token_id or tok.eos_token_id
        rows = [torch.as_tensor(seq) for seq in sequences]
        return pad_sequence(rows, batch_first=True, padding_value=fill)
    """
)
WIDE = textwrap.dedent(
    """\
    def fixed_width_batch(examples, pad_id, width=64):
        rows = [e["input_ids"][:width] for e in examples]
        rows = [r + [pad_id] * (width - len(r)) for r in rows]
        mask = [[1] * width for _ in rows]
        return {"input_ids": rows, "attention_mask": mask}


    def pad_id_of(tokenizer):
        sep = "→ 😋"; pad_id = tokenizer.pad_token_id or tokenizer.eos_token_id
        return fixed_width_batch([], pad_id)
    """
)


def _environment() -> dict[str, str]:
    import os

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


SERVER.server_env = _environment()


def _vscode_capabilities() -> types.ClientCapabilities:
    capabilities = client_capabilities("visual-studio-code")
    # VS Code has synced notebook documents since 1.71 (LSP 3.17); the recorded 1.65 predates it.
    capabilities.notebook_document = types.NotebookDocumentClientCapabilities(
        synchronization=types.NotebookDocumentSyncClientCapabilities(dynamic_registration=True)
    )
    return capabilities


REGISTRATIONS: list[types.Registration] = []


@pytest_lsp.fixture(scope="module", config=SERVER)
async def vscode(lsp_client: LanguageClient):
    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        REGISTRATIONS.extend(params.registrations)

    await lsp_client.initialize_session(types.InitializeParams(capabilities=_vscode_capabilities()))
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(scope="module", config=SERVER)
async def neovim(lsp_client: LanguageClient):
    result = await lsp_client.initialize_session(
        types.InitializeParams(capabilities=client_capabilities("neovim@v0.11.0"))
    )
    assert result.capabilities.position_encoding == types.PositionEncodingKind.Utf8
    yield
    await lsp_client.shutdown_session()


# --- an editor's side -----------------------------------------------------------------------------


class Editor:
    """Open documents as an editor holds them: text and version by uri."""

    def __init__(self, client: LanguageClient, encoding: str = "utf-16"):
        self.client = client
        self.encoding = encoding
        self.texts: dict[str, str] = {}
        self.versions: dict[str, int] = {}

    async def published(self, *uris: str) -> dict[str, list[types.Diagnostic]]:
        """Wait until the server has published diagnostics for each uri since they were forgotten."""

        async def arrived() -> None:
            while not all(uri in self.client.diagnostics for uri in uris):
                await asyncio.sleep(0.02)

        await asyncio.wait_for(arrived(), timeout=60)
        return {uri: list(self.client.diagnostics[uri]) for uri in uris}

    async def open(self, path: Path, text: str) -> list[types.Diagnostic]:
        path.write_text(text, encoding="utf-8")
        uri = path.as_uri()
        self.texts[uri], self.versions[uri] = text, 1
        self.client.diagnostics.pop(uri, None)
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
            )
        )
        return (await self.published(uri))[uri]

    def type(self, uri: str, text: str) -> None:
        """Send the document's new text (a keystroke), without waiting for anything."""
        self.texts[uri] = text
        self.versions[uri] += 1
        self.client.diagnostics.pop(uri, None)
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    async def change(self, uri: str, text: str) -> list[types.Diagnostic]:
        self.type(uri, text)
        return (await self.published(uri))[uri]

    async def actions(self, uri: str, at: types.Range, only: list[str] | None = None) -> list[types.CodeAction]:
        found = await self.client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=at,
                context=types.CodeActionContext(diagnostics=[], only=only),
            )
        )
        return [a for a in found or [] if isinstance(a, types.CodeAction)]

    def apply(self, edit: types.WorkspaceEdit) -> dict[str, str]:
        """The new text of each document the edit changes (checked against the versions held)."""
        per_uri: dict[str, list[types.TextEdit]] = {}
        for change in edit.document_changes or []:
            assert change.text_document.version == self.versions[change.text_document.uri]
            per_uri[change.text_document.uri] = list(change.edits)
        for uri, edits in (edit.changes or {}).items():
            per_uri[uri] = list(edits)
        out = {}
        for uri, edits in per_uri.items():
            text = self.texts[uri]
            spans = [(self.offset(text, e.range.start), self.offset(text, e.range.end), e.new_text) for e in edits]
            for start, end, new in sorted(spans, reverse=True):
                text = text[:start] + new + text[end:]
            out[uri] = text
        return out

    def offset(self, text: str, position: types.Position) -> int:
        lines = [m.group(0) for m in re.finditer(r"[^\r\n]*(?:\r\n|\r|\n)?", text) if m.group(0)]  # LSP's lines
        start = sum(len(line) for line in lines[: position.line])
        line = lines[position.line] if position.line < len(lines) else ""
        codec, width = ("utf-16-le", 2) if self.encoding == "utf-16" else (self.encoding, 1)
        return start + len(line.encode(codec)[: position.character * width].decode(codec))


def check_json(path: Path, *flags: str) -> list[dict]:
    """What `padlint check` reports for the same file."""
    done = subprocess.run(
        [sys.executable, "-m", "padlint", "check", "--no-cache", "--output-format", "json", *flags, str(path)],
        capture_output=True,
        text=True,
        env=_environment(),
        cwd=path.parent,
    )
    return json.loads(done.stdout)


def at(line: int, character: int) -> types.Range:
    return types.Range(start=types.Position(line=line, character=character), end=types.Position(line, character))


def codes(diagnostics: list[types.Diagnostic]) -> list[str]:
    return sorted(str(d.code) for d in diagnostics)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project whose path has a space in it: its uris quote it as %20."""
    root = tmp_path / "my project"
    root.mkdir()
    (root / "pyproject.toml").write_text("[tool.padlint]\n", encoding="utf-8")
    return root


# --- Python files ---------------------------------------------------------------------------------


@in_module_loop
async def test_findings_of_a_buggy_collator_where_check_reports_them(vscode: LanguageClient, project: Path) -> None:
    path = project / "collate.py"
    found = await Editor(vscode).open(path, COLLATOR)
    assert codes(found) == ["PAD010", "PAD011"]
    falsy = next(d for d in found if d.code == "PAD010")
    # `tokenizer.pad_token_id or tokenizer.eos_token_id` on the fifth line
    assert falsy.range == types.Range(start=types.Position(4, 13), end=types.Position(4, 61))
    assert falsy.severity == types.DiagnosticSeverity.Warning
    assert falsy.source == "padlint"
    assert falsy.code_description.href.endswith("/docs/rules/PAD010.md")
    assert falsy.data["name"] == "pad-id-falsy-fallback"
    assert falsy.data["fix"]["applicability"] == "safe"
    expected = {
        (d["code"], d["location"]["row"] - 1, d["location"]["column"] - 1, d["end_location"]["column"] - 1)
        for d in check_json(path)
    }
    shown = {(d.code, d.range.start.line, d.range.start.character, d.range.end.character) for d in found}
    assert shown == expected


@in_module_loop
async def test_quick_fix_then_no_diagnostic(vscode: LanguageClient, project: Path) -> None:
    editor = Editor(vscode)
    path = project / "quick.py"
    found = await editor.open(path, COLLATOR)
    falsy = next(d for d in found if d.code == "PAD010")
    offered = await editor.actions(path.as_uri(), falsy.range)
    fix = next(a for a in offered if a.title.startswith("padlint (PAD010)") and "Disable" not in a.title)
    assert fix.kind == types.CodeActionKind.QuickFix
    assert fix.is_preferred and "unsafe" not in fix.title
    assert [d.code for d in fix.diagnostics] == ["PAD010"]
    new_text = editor.apply(fix.edit)[path.as_uri()]
    assert "tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id" in new_text
    after = await editor.change(path.as_uri(), new_text)
    assert codes(after) == ["PAD011"]  # the other finding is still there, where it was
    assert next(d for d in after if d.code == "PAD011").range == next(d for d in found if d.code == "PAD011").range


@in_module_loop
async def test_a_burst_of_typing_is_linted_once_and_saving_lints(vscode: LanguageClient, project: Path) -> None:
    editor = Editor(vscode)
    path = project / "typing.py"
    uri = path.as_uri()
    await editor.open(path, COLLATOR)
    before = len(PUBLISHED)
    fixed = COLLATOR.replace("tokenizer.pad_token_id or ", "")
    for text in (COLLATOR + "#", COLLATOR + "# x", fixed):  # versions 2, 3 and 4, sent at once
        editor.type(uri, text)
    assert codes((await editor.published(uri))[uri]) == ["PAD011"]
    assert [version for published, version in PUBLISHED[before:] if published == uri] == [4]
    vscode.diagnostics.pop(uri)
    vscode.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    assert codes((await editor.published(uri))[uri]) == ["PAD011"]
    assert [version for published, version in PUBLISHED[before:] if published == uri] == [4, 4]


@in_module_loop
async def test_quick_fix_in_a_file_with_crlf_and_form_feeds(vscode: LanguageClient, project: Path) -> None:
    """Lines end at CR LF only: a form feed (a page break in older code) starts no line for LSP or Python."""
    editor = Editor(vscode)
    path = project / "pages.py"
    text = COLLATOR.replace("\n\n\ndef masked_token_loss", "\n\f\n\ndef masked_token_loss").replace("\n", "\r\n")
    found = await editor.open(path, text)
    falsy = next(d for d in found if d.code == "PAD010")
    assert falsy.range.start == types.Position(4, 13)
    offered = await editor.actions(path.as_uri(), falsy.range)
    fix = next(a for a in offered if a.title.startswith("padlint (PAD010)") and "Disable" not in a.title)
    new_text = editor.apply(fix.edit)[path.as_uri()]
    fixed_line = "    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id"
    assert new_text.split("\r\n") == [fixed_line if i == 4 else line for i, line in enumerate(text.split("\r\n"))]
    after = await editor.change(path.as_uri(), new_text)
    assert codes(after) == ["PAD011"]
    assert next(d for d in after if d.code == "PAD011").range == next(d for d in found if d.code == "PAD011").range


@in_module_loop
async def test_unsafe_fix_says_so(vscode: LanguageClient, project: Path) -> None:
    editor = Editor(vscode)
    path = project / "labels.py"
    (alias,) = await editor.open(path, UNSAFE)
    assert alias.code == "PAD012" and alias.data["fix"]["applicability"] == "unsafe"
    offered = await editor.actions(path.as_uri(), alias.range)
    fix = next(a for a in offered if "Disable" not in a.title)
    assert fix.title == "padlint (PAD012): Copy the ids first with .clone() (assumes a tensor) (unsafe fix)"
    assert not fix.is_preferred
    assert 'features["input_ids"].clone()' in editor.apply(fix.edit)[path.as_uri()]
    # Fix all applies safe fixes only (the project does not set unsafe-fixes), so nothing here.
    assert await editor.actions(path.as_uri(), alias.range, only=["source.fixAll.padlint"]) == []


@in_module_loop
async def test_fix_all_writes_what_check_fix_writes(vscode: LanguageClient, project: Path) -> None:
    editor = Editor(vscode)
    path = project / "fix_all.py"
    await editor.open(path, COLLATOR)
    (fix_all,) = await editor.actions(path.as_uri(), at(0, 0), only=[types.CodeActionKind.SourceFixAll])
    assert fix_all.kind == "source.fixAll.padlint"
    new_text = editor.apply(fix_all.edit)[path.as_uri()]
    by_cli = project / "by_cli.py"
    by_cli.write_text(COLLATOR, encoding="utf-8")
    subprocess.run(
        [sys.executable, "-m", "padlint", "check", "--fix", "--no-cache", str(by_cli)], env=_environment(), check=False
    )
    assert new_text == by_cli.read_text(encoding="utf-8") != COLLATOR
    assert codes(await editor.change(path.as_uri(), new_text)) == []


@in_module_loop
async def test_noqa_comment_silences_the_finding(vscode: LanguageClient, project: Path) -> None:
    editor = Editor(vscode)
    path = project / "noqa.py"
    found = await editor.open(path, COLLATOR)
    falsy = next(d for d in found if d.code == "PAD010")
    offered = await editor.actions(path.as_uri(), falsy.range, only=[types.CodeActionKind.QuickFix])
    noqa = next(a for a in offered if a.title == "padlint (PAD010): Disable for this line")
    new_text = editor.apply(noqa.edit)[path.as_uri()]
    assert new_text.splitlines()[4].endswith("tokenizer.eos_token_id  # noqa: PAD010")
    assert codes(await editor.change(path.as_uri(), new_text)) == ["PAD011"]


@in_module_loop
async def test_unsaved_buffer_is_linted(vscode: LanguageClient) -> None:
    """A new buffer that has no file yet (VS Code's untitled:) is linted too."""
    uri = "untitled:Untitled-1"
    vscode.diagnostics.pop(uri, None)
    vscode.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=COLLATOR)
        )
    )
    assert codes((await Editor(vscode).published(uri))[uri]) == ["PAD010", "PAD011"]


@in_module_loop
async def test_closing_clears_the_diagnostics(vscode: LanguageClient, project: Path) -> None:
    editor = Editor(vscode)
    path = project / "closed.py"
    assert await editor.open(path, COLLATOR)
    vscode.diagnostics.pop(path.as_uri())
    vscode.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=path.as_uri()))
    )
    assert (await editor.published(path.as_uri()))[path.as_uri()] == []


@in_module_loop
async def test_file_that_does_not_parse(vscode: LanguageClient, project: Path) -> None:
    path = project / "broken.py"
    (error,) = await Editor(vscode).open(path, "def collate(batch:\n    return batch\n")
    assert error.code == "PAD000"
    assert error.severity == types.DiagnosticSeverity.Error
    (reported,) = check_json(path)
    assert (error.range.start.line, error.range.start.character) == (
        reported["location"]["row"] - 1,
        reported["location"]["column"] - 1,
    )
    assert error.message == reported["message"]


@in_module_loop
async def test_project_settings_and_config_errors(vscode: LanguageClient, tmp_path: Path) -> None:
    editor = Editor(vscode)
    quiet = tmp_path / "quiet"
    quiet.mkdir()
    (quiet / "pyproject.toml").write_text('[tool.padlint]\nignore = ["PAD011"]\n', encoding="utf-8")
    assert codes(await editor.open(quiet / "collate.py", COLLATOR)) == ["PAD010"]

    broken = tmp_path / "broken"
    broken.mkdir()
    config = broken / "pyproject.toml"
    config.write_text('[tool.padlint]\nselect = ["PAD999"]\n', encoding="utf-8")
    vscode.messages.clear()
    assert await editor.open(broken / "collate.py", COLLATOR) == []
    (shown,) = vscode.messages
    assert shown.type == types.MessageType.Error and "PAD999" in shown.message
    assert any("PAD999" in m.message for m in vscode.log_messages)
    # The same error is not shown again on every keystroke...
    assert await editor.change((broken / "collate.py").as_uri(), COLLATOR + "\n") == []
    assert len(vscode.messages) == 1
    # ...and the server still serves other projects.
    assert codes(await editor.open(quiet / "other.py", COLLATOR)) == ["PAD010"]

    (watch,) = [r for r in REGISTRATIONS if r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES]
    assert "**/pyproject.toml" in [w["globPattern"] for w in watch.register_options["watchers"]]  # as sent
    config.write_text('[tool.padlint]\nselect = ["PAD010"]\n', encoding="utf-8")
    vscode.diagnostics.pop((broken / "collate.py").as_uri())
    vscode.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=config.as_uri(), type=types.FileChangeType.Changed)]
        )
    )
    after = await editor.published((broken / "collate.py").as_uri())
    assert codes(after[(broken / "collate.py").as_uri()]) == ["PAD010"]


@in_module_loop
async def test_utf8_positions_and_plain_changes(neovim: LanguageClient, project: Path) -> None:
    editor = Editor(neovim, encoding="utf-8")
    path = project / "wide.py"
    found = await editor.open(path, WIDE)
    falsy = next(d for d in found if d.code == "PAD010")
    line = WIDE.splitlines()[8]
    start = line.index("tokenizer.pad_token_id")
    assert falsy.range.start == types.Position(8, len(line[:start].encode("utf-8")))
    offered = await editor.actions(path.as_uri(), falsy.range)
    fix = next(a for a in offered if a.title.startswith("padlint (PAD010)") and "Disable" not in a.title)
    assert fix.edit.document_changes is None and fix.edit.changes
    new_text = editor.apply(fix.edit)[path.as_uri()]
    assert 'sep = "→ 😋"; pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None' in new_text
    assert "PAD010" not in codes(await editor.change(path.as_uri(), new_text))


# --- notebooks ------------------------------------------------------------------------------------

NOTEBOOK_CELLS = [
    (types.NotebookCellKind.Markup, "markdown", "# Batching\n\nPads each batch to its longest row.\n"),
    (types.NotebookCellKind.Code, "python", "%pip install torch\nimport torch\n"),
    (
        types.NotebookCellKind.Code,
        "python",
        "def pad_value(tokenizer):\n    return tokenizer.pad_token_id or tokenizer.eos_token_id\n\n\n"
        "def collate(seqs, tokenizer):\n"
        "    pad = pad_value(tokenizer)\n"
        "    return torch.nn.utils.rnn.pad_sequence(seqs, batch_first=True, padding_value=pad)",
    ),
    (types.NotebookCellKind.Code, "python", "lengths = [len(s) for s in (\n"),
]


def _write_ipynb(path: Path, notebook_cells: list = NOTEBOOK_CELLS) -> None:
    cells = []
    for kind, _language, text in notebook_cells:
        source = text.splitlines(keepends=True)
        if kind == types.NotebookCellKind.Code:
            cells.append(
                {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": source}
            )
        else:
            cells.append({"cell_type": "markdown", "metadata": {}, "source": source})
    document = {"cells": cells, "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(document, indent=1), encoding="utf-8")


class NotebookEditor(Editor):
    async def open_notebook(self, path: Path, notebook_cells: list) -> list[str]:
        """Open a notebook of (kind, language, text) cells; the cells' uris."""
        _write_ipynb(path, notebook_cells)
        cell_uris = [f"vscode-notebook-cell:{path}#cell{i}" for i in range(len(notebook_cells))]
        items = []
        for uri, (_kind, language, text) in zip(cell_uris, notebook_cells):
            self.client.diagnostics.pop(uri, None)
            self.texts[uri], self.versions[uri] = text, 1
            items.append(types.TextDocumentItem(uri=uri, language_id=language, version=1, text=text))
        cells = [types.NotebookCell(kind=kind, document=uri) for uri, (kind, _, _) in zip(cell_uris, notebook_cells)]
        self.client.notebook_document_did_open(
            types.DidOpenNotebookDocumentParams(
                notebook_document=types.NotebookDocument(
                    uri=path.as_uri(), notebook_type="jupyter-notebook", version=1, cells=cells
                ),
                cell_text_documents=items,
            )
        )
        return cell_uris


@in_module_loop
async def test_notebook_cell_ipython_dedents(vscode: LanguageClient, project: Path) -> None:
    """Lines that all start indented are dedented by IPython: linted so, shown and fixed where they are."""
    editor = NotebookEditor(vscode)
    text = (
        "  import torch\n"
        "  def collate(seqs, tokenizer):\n"
        "      pad = tokenizer.pad_token_id or tokenizer.eos_token_id\n"
        "      return torch.nn.utils.rnn.pad_sequence(seqs, batch_first=True, padding_value=pad)\n"
    )
    path = project / "indented.ipynb"
    (uri,) = await editor.open_notebook(path, [(types.NotebookCellKind.Code, "python", text)])
    (falsy,) = (await editor.published(uri))[uri]
    line = text.splitlines()[2]
    assert falsy.range.start == types.Position(2, line.index("tokenizer.pad_token_id"))
    (reported,) = check_json(path)
    assert (reported["cell"], reported["location"]["column"] - 1) == (1, falsy.range.start.character)
    offered = await editor.actions(uri, falsy.range)
    fix = next(a for a in offered if a.title.startswith("padlint (PAD010)") and "Disable" not in a.title)
    fixed = editor.apply(fix.edit)[uri].splitlines()
    assert (
        fixed[2]
        == "      pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id"
    )
    assert fixed[:2] + fixed[3:] == text.splitlines()[:2] + text.splitlines()[3:]


@in_module_loop
async def test_notebook_document(vscode: LanguageClient, project: Path) -> None:
    editor = NotebookEditor(vscode)
    path = project / "batching.ipynb"
    cell_uris = await editor.open_notebook(path, NOTEBOOK_CELLS)
    published = await editor.published(*cell_uris)
    markdown, magic, collator, broken = (published[uri] for uri in cell_uris)
    assert markdown == [] and magic == []
    (falsy,) = collator
    assert falsy.code == "PAD010"
    # row 2 of its cell: `tokenizer.pad_token_id or tokenizer.eos_token_id`
    assert falsy.range == types.Range(start=types.Position(1, 11), end=types.Position(1, 59))
    (error,) = broken
    assert error.code == "PAD000" and error.severity == types.DiagnosticSeverity.Error
    # Where `padlint check` puts them in the notebook file.
    by_check = {(d["cell"], d["code"], d["location"]["row"] - 1, d["location"]["column"] - 1) for d in check_json(path)}
    assert by_check == {
        (3, "PAD010", falsy.range.start.line, falsy.range.start.character),
        (4, "PAD000", error.range.start.line, error.range.start.character),
    }

    offered = await editor.actions(cell_uris[2], falsy.range)
    noqa = next(a for a in offered if a.title == "padlint (PAD010): Disable for this line")
    (with_comment,) = editor.apply(noqa.edit).values()
    assert with_comment.splitlines()[1].endswith("tokenizer.eos_token_id  # noqa: PAD010")
    fix = next(a for a in offered if a.title.startswith("padlint (PAD010)") and "Disable" not in a.title)
    changed = editor.apply(fix.edit)
    assert list(changed) == [cell_uris[2]]  # the cell, not the notebook or its other cells
    editor.versions[cell_uris[2]] += 1
    for uri in cell_uris:
        vscode.diagnostics.pop(uri, None)
    vscode.notebook_document_did_change(
        types.DidChangeNotebookDocumentParams(
            notebook_document=types.VersionedNotebookDocumentIdentifier(version=2, uri=path.as_uri()),
            change=types.NotebookDocumentChangeEvent(
                cells=types.NotebookDocumentCellChanges(
                    text_content=[
                        types.NotebookDocumentCellContentChanges(
                            document=types.VersionedTextDocumentIdentifier(
                                uri=cell_uris[2], version=editor.versions[cell_uris[2]]
                            ),
                            changes=[types.TextDocumentContentChangeWholeDocument(text=changed[cell_uris[2]])],
                        )
                    ]
                )
            ),
        )
    )
    published = await editor.published(*cell_uris)
    assert published[cell_uris[2]] == []
    assert codes(published[cell_uris[3]]) == ["PAD000"]
    assert "%pip install torch" in editor.texts[cell_uris[1]]


def test_check_does_not_import_the_server(project: Path) -> None:
    """pygls loads only for `padlint server`: `padlint check` (run by pre-commit on every commit) never pays for it."""
    path = project / "collate.py"
    path.write_text(COLLATOR, encoding="utf-8")
    script = (
        "import sys\n"
        "from padlint.cli.main import main\n"
        "try:\n"
        f"    main(['check', '--no-cache', {str(path)!r}])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pygls', 'lsprotocol', 'cattrs')))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=_environment())
    assert "PAD010" in done.stdout  # it did lint
    assert done.stdout.strip().splitlines()[-1] == "[]"


@pytest.mark.slow  # runs an external tool
@pytest.mark.skipif(shutil.which("nvim") is None, reason="Neovim is not installed")
def test_neovim_headless(project: Path) -> None:
    """Neovim's own LSP client (0.7 and later): the diagnostic, the quick fix applied, none left."""
    path = project / "collate.py"
    path.write_text(FALLBACK, encoding="utf-8")
    env = {**_environment(), "PADLINT_PYTHON": sys.executable}
    command = ["nvim", "--headless", "-n", "-u", "NONE", "-c", f"luafile {ROOT / 'tests' / 'neovim_client.lua'}"]
    subprocess.run([*command, path.name], cwd=project, env=env, timeout=300, capture_output=True, check=False)
    result = (project / "result.txt").read_text(encoding="utf-8").splitlines()
    line = FALLBACK.splitlines()[5]
    start, end = line.index("tok.pad_token_id"), len(line)
    assert result[0] == f"diagnostic PAD010 5:{start}-5:{end} 2"  # 2: a warning
    assert "action padlint (PAD010): Fall back only when the pad id is None" in result
    assert "action padlint (PAD010): Disable for this line" in result
    assert "left 0" in result
    assert "    fill = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id" in result
    assert path.read_text(encoding="utf-8") == FALLBACK  # the buffer changed, not the file


def test_server_without_pygls_says_what_is_missing() -> None:
    """An install without dependencies: one line naming the package, exit 2 (no traceback)."""
    script = "import sys\nsys.modules['pygls'] = None\nfrom padlint.cli.main import main\nmain(['server'])\n"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=_environment())
    assert done.returncode == 2
    assert done.stderr == "padlint: error: `padlint server` needs pygls: pip install 'pygls>=2,<3'\n"
