"""The click side of the command line: the group that reads `padlint PATH` as `padlint check PATH`
and refuses an unknown subcommand, the command class whose suggestions leave hidden options out,
and the error, warning and note lines, which --quiet and --silent turn off."""

from __future__ import annotations

import os

import click

from padlint.escape import printable

VERBOSITY = "padlint.verbosity"  # in the click context's meta: "normal", "quiet" or "silent"


def verbosity() -> str:
    ctx = click.get_current_context(silent=True)
    return ctx.meta.get(VERBOSITY, "normal") if ctx is not None else "normal"


def error(message: str) -> None:
    if verbosity() != "silent":
        click.echo(f"padlint: error: {printable(message)}", err=True)


def warning(message: str) -> None:
    if verbosity() == "normal":
        click.echo(f"padlint: warning: {printable(message)}", err=True)


def _looks_like_path(arg: str) -> bool:
    """Whether `padlint ARG ...` names something to check rather than a subcommand: an option, an
    existing file or folder, or a path by its form (a separator, a Python or notebook suffix)."""
    from padlint.files.discovery import LINTED_SUFFIXES

    return (
        arg.startswith("-")
        or os.path.exists(arg)
        or "/" in arg
        or os.sep in arg
        or arg.endswith(LINTED_SUFFIXES)
        or arg in (".", "..")
    )


class CheckByDefault(click.Group):
    """`padlint src/` means `padlint check src/`, as with ruff's old default command; a word that
    is neither a subcommand nor a path is an unrecognized subcommand, not a missing file."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("-h", "--help", "--version"):
            if not _looks_like_path(args[0]):
                raise click.UsageError(self._unrecognized(args[0]), ctx)
            args = ["check", *args]
        return super().parse_args(ctx, args)

    def _unrecognized(self, name: str) -> str:
        import difflib

        visible = [n for n, command in self.commands.items() if not command.hidden]
        close = difflib.get_close_matches(name, visible, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        return (
            f"unrecognized subcommand {name!r}{hint}; to check a path of that name, "
            f"which does not exist here, write `padlint check {name}`"
        )

    def invoke(self, ctx: click.Context) -> object:
        # An uncaught exception would exit 1, which means "findings" to CI: make it a one-line
        # error and exit 2, as ruff does for a panic. PADLINT_DEBUG=1 shows the traceback.
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except Exception as exc:
            if os.environ.get("PADLINT_DEBUG"):
                raise
            error(f"internal error: {type(exc).__name__}: {exc} (set PADLINT_DEBUG=1 for the traceback)")
            ctx.exit(2)


class Command(click.Command):
    """A command whose "Did you mean" suggestions leave out hidden options (a typo of `--fix`
    must not be steered to an internal switch)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as exc:
            visible = [
                name
                for param in self.get_params(ctx)
                if isinstance(param, click.Option) and not param.hidden
                for name in (*param.opts, *param.secondary_opts)
                if name.startswith("--")
            ]
            # A new error rather than a changed one: click >= 8.5 declares `possibilities` final.
            raise click.NoSuchOption(exc.option_name, exc.message, visible, exc.ctx) from None


def note(message: str) -> None:
    """A line about the run itself (watch mode's), on stderr; not in --quiet or --silent."""
    if verbosity() == "normal":
        click.echo(message, err=True)
