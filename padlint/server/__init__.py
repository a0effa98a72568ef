"""`padlint server`: a language server, so that editors show padlint's findings and offer its fixes.

pygls (and lsprotocol) are imported only here, when the server starts: `padlint check` never pays
for them.
"""

from __future__ import annotations


def serve() -> None:
    """Serve LSP over stdin and stdout until the client says exit."""
    import logging
    import sys

    try:
        from padlint.server.app import build
    except ModuleNotFoundError as exc:
        missing = (exc.name or "").split(".")[0]
        if missing not in ("pygls", "lsprotocol"):
            raise
        # A dependency of padlint, but an install without dependencies (--no-deps, a vendored copy) lacks it.
        sys.stderr.write(f"padlint: error: `padlint server` needs {missing}: pip install 'pygls>=2,<3'\n")
        raise SystemExit(2) from None

    # pygls logs through `logging`; stderr is the editor's log of the server.
    logging.basicConfig(level=logging.WARNING, format="padlint server: %(levelname)s: %(message)s")
    build().start_io()
