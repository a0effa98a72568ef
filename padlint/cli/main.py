"""The command line: `padlint check` (cli/check.py, its report cli/check_report.py), `padlint rule
CODE`, `padlint rules`, `padlint clean` and `padlint server` (ruff's behaviour).

Exit codes: 0 nothing remains (or everything was fixed), 1 findings remain (or --diff would change
something), 2 a usage, configuration or internal error. Imports are kept lazy: pre-commit starts
us on every commit, so loading libcst (the engine) and rich (colour) only when needed matters.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from padlint import __version__
from padlint.cli.check import check, settings_for
from padlint.cli.commands import CheckByDefault
from padlint.cli.commands import error as _error
from padlint.config import ConfigError
from padlint.escape import printable

if TYPE_CHECKING:
    from padlint.rules.base import Rule

SUBCOMMANDS = ("check", "clean", "rule", "rules", "server")


@click.group(cls=CheckByDefault, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="padlint")
def main() -> None:
    """padlint: find and fix padding, attention-mask and label-masking bugs in LM batch code."""


main.add_command(check)  # cli/check.py


@main.command("clean")
@click.argument("path", required=False)
@click.option("--config", metavar="FILE", help="The pyproject.toml whose folder is the project root.")
def clean_command(path: str | None, config: str | None) -> None:
    """Remove the result cache of the project at PATH (default: the current directory).

    The project is the folder of the nearest pyproject.toml with [tool.padlint] at or above PATH;
    without one, PATH itself (a file's folder).

    The cache is `.padlint_cache/` in the project root, or `PADLINT_CACHE_DIR`. Entries are never
    wrong (each is keyed by content, padlint's version and the rules in force), but they pile up as
    files and padlint change; this removes them all."""
    from padlint.run.cache import cache_dir, clear

    start = Path(path) if path else Path.cwd()
    try:
        settings = settings_for(config, start, {})
    except ConfigError as exc:
        _error(str(exc))
        sys.exit(2)
    root = settings.root
    if settings.config_path is None and path:
        # No [tool.padlint] above PATH: PATH is the project (the folder of a file), not the cwd.
        root = start if start.is_dir() else start.parent
    directory = cache_dir(root)
    if not directory.is_dir():
        click.echo(f"No cache at {printable(str(directory))}")
        return
    try:
        removed = clear(directory)
    except OSError as exc:
        _error(f"cannot remove the cache at {directory}: {exc.strerror}" if exc.strerror else str(exc))
        sys.exit(2)
    left = " (other files there were kept)" if directory.exists() else ""
    click.echo(
        f"Removed the cache at {printable(str(directory))}: {removed} entr{'y' if removed == 1 else 'ies'}{left}"
    )


def _rule_page(rule: type[Rule]) -> str:
    """The shipped Markdown page for a rule (padlint/rules/docs/CODE.md), else its docstring page."""
    page = Path(__file__).parent.parent / "rules" / "docs" / f"{rule.code}.md"
    try:
        return page.read_text(encoding="utf-8")
    except OSError:
        return rule.page()


@main.command("rule")
@click.argument("code")
def rule_command(code: str) -> None:
    """Print the documentation page of rule CODE (a code such as PAD001, or a rule name)."""
    from padlint.rules import get_rule

    rule = get_rule(code)
    if rule is None:
        _error(f"unknown rule code {code!r} (see `padlint rules`)")
        sys.exit(2)
    page = _rule_page(rule)
    click.echo(page, nl=not page.endswith("\n"))


@main.command("rules")
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text", show_default=True)
def rules_command(output_format: str) -> None:
    """List every rule: code, name, fix safety and summary."""
    from padlint.rules import ALL_RULES

    rows = [(r.code, r.name, r.fix_safety, r.summary) for r in sorted(ALL_RULES, key=lambda r: r.code)]
    if output_format == "json":
        import json

        keys = ("code", "name", "fix_safety", "summary")
        click.echo(json.dumps([dict(zip(keys, row)) for row in rows], indent=2))
        return
    header = ("CODE", "NAME", "FIX", "SUMMARY")
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(3)]
    for row in [header, *rows]:
        click.echo("  ".join(str(cell).ljust(widths[i]) for i, cell in enumerate(row[:3])) + "  " + row[3])


@main.command("server")
def server_command() -> None:
    """Run the language server (LSP over stdin and stdout) for editors: see docs/editors.md."""
    from padlint.server import serve

    serve()
