"""The command line: `padlint check`, `padlint rule(s)`, `padlint clean`, and the adoption options."""

from padlint.cli.main import main

__all__ = ["main"]
