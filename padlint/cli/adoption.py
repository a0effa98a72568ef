"""The `check` options for adopting padlint and feeding other tools, kept apart from padlint.cli.main:
`--add-noqa`, `--baseline FILE` / `--write-baseline`, `--statistics`, `-o/--output-file`, and the
progress bar of long scans.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass

import click

from padlint.types import Diagnostic

Say = Callable[[str], None]


@dataclass
class Adoption:
    output_format: str
    output_file: str | None = None
    statistics: bool = False
    add_noqa: bool = False
    baseline: str | None = None
    write_baseline: bool = False
    checked: list[str] | None = None  # the files linted (not known for stdin)
    chatty: bool = True  # lines about the run (counts, progress); off with --quiet and --silent

    def validate(self, mode: str, use_stdin: bool) -> None:
        if self.write_baseline and not self.baseline:
            raise click.UsageError("--write-baseline needs --baseline FILE (where to write it)")
        for flag, on in (("--add-noqa", self.add_noqa), ("--write-baseline", self.write_baseline)):
            if on and mode != "lint":
                raise click.UsageError(f"{flag} cannot be combined with --fix or --diff")
            if on and use_stdin:
                raise click.UsageError(f"{flag} works on files, not on standard input")

    def baseline_readable(self, error: Say) -> bool:
        """Whether the --baseline file can be used: read it before linting, so that a missing or
        malformed file is one error line, not an error followed by the whole unfiltered report.
        With --write-baseline the file may be missing (it is being created), not malformed."""
        from padlint.adoption.baseline import BaselineError, read_baseline

        if not self.baseline or (self.write_baseline and not os.path.exists(self.baseline)):
            return True
        try:
            read_baseline(self.baseline)
        except BaselineError as exc:
            error(str(exc))
            return False
        return True

    def track(self, files: list[str]):
        from padlint.run import progress

        self.checked = list(files)
        return progress.track(files, enabled=self.chatty and progress.wanted(sys.stderr, self.output_format))

    def add_noqa_to(self, files: list[str], settings, warn: Say, error: Say, failed: bool) -> int:
        from padlint.adoption.noqa import add_noqa_to_files

        added, write_failed = add_noqa_to_files(files, settings, warn, error)
        if self.chatty:
            click.echo(f"Added {added} noqa directive{'s' if added != 1 else ''}.", err=True)
        return 2 if failed or write_failed else 0

    def apply_baseline(self, run, warn: Say, error: Say, quiet: bool) -> int | None:
        """Filter run.diagnostics through the baseline; with --write-baseline write it and return
        the exit code instead."""
        from padlint.adoption.baseline import BaselineError, apply_baseline, write_baseline

        if self.baseline is None:
            return None
        try:
            if self.write_baseline:
                count = write_baseline(run.diagnostics, run.sources, self.baseline, self.checked)
                if self.chatty:
                    click.echo(
                        f"Wrote {count} finding{'s' if count != 1 else ''} to the baseline {self.baseline}.", err=True
                    )
                return 2 if run.failed else 0
            result = apply_baseline(run.diagnostics, run.sources, self.baseline, self.checked)
        except BaselineError as exc:
            error(str(exc))
            run.failed = True
            return None
        run.diagnostics = result.kept
        if self.output_format in ("full", "concise") and not quiet:
            if result.matched:
                click.echo(
                    f"{result.matched} finding{'s' if result.matched != 1 else ''} in the baseline "
                    f"{self.baseline} not shown.",
                    err=True,
                )
            if result.stale:
                warn(
                    f"{result.stale} baseline entr{'ies' if result.stale != 1 else 'y'} no longer match any "
                    f"finding: run with --write-baseline to drop them"
                )
        return None

    def emit(self, diagnostics: list[Diagnostic], context, err: bool, error: Say) -> bool:
        """Write the report (or the statistics) to --output-file or the terminal; False on failure."""
        from padlint.report import render
        from padlint.report.text import summary

        if self.statistics:
            from padlint.adoption.noqa import format_statistics

            as_json = self.output_format in ("json", "json-lines")
            text = format_statistics(diagnostics, context.unsafe_fixes, as_json)
            closing = summary(diagnostics, context)
            if closing and not as_json:
                text += "\n".join(closing) + "\n"
        else:
            text = render(self.output_format, diagnostics, context)
        if not self.output_file:
            click.echo(text, nl=False, err=err)
            return True
        try:
            directory = os.path.dirname(os.path.abspath(self.output_file))
            os.makedirs(directory, exist_ok=True)
            with open(self.output_file, "w", encoding="utf-8", newline="") as fh:
                fh.write(text)
        except OSError as exc:
            error(f"{self.output_file}: cannot write the report: {exc.strerror or exc}")
            return False
        return True
