"""The command line: `padlint check`, `padlint rule(s)`, `padlint clean`, and the adoption options."""

from padlint.lazy_imports import defer_heavy_imports

defer_heavy_imports()  # before padlint.cli.main imports anything: a run that never parses never loads libcst

from padlint.cli.main import main  # noqa: E402

__all__ = ["main"]
