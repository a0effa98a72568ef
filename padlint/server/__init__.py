"""`padlint server`: a language server, so that editors show padlint's findings and offer its fixes.

pygls (and lsprotocol) are imported only here, when the server starts: `padlint check` never pays
for them.
"""

from __future__ import annotations


def serve() -> None:
    """Serve LSP over stdin and stdout until the client says exit."""
    import logging

    from padlint.server.app import build

    # pygls logs through `logging`; stderr is the editor's log of the server.
    logging.basicConfig(level=logging.WARNING, format="padlint server: %(levelname)s: %(message)s")
    build().start_io()
