"""`padlint check`: its options, one check (or --watch's repeated checks) from the settings to the
run over the files or stdin; the report and the exit code are check_report.py's.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from padlint.cli.check_report import report_run
from padlint.cli.commands import VERBOSITY, Command, note
from padlint.cli.commands import error as _error
from padlint.cli.commands import warning as _warning
from padlint.config import TARGET_VERSIONS, ConfigError, Settings, codes_option
from padlint.report import FORMAT_NAMES
from padlint.run.runner import Options, check_files, check_stdin  # the file loop lives in padlint.run.runner
from padlint.run.runner import RunResult as _Run


def settings_for(config: str | None, start: Path, cli: dict) -> Settings:
    """The settings in force: the pyproject.toml named by --config or the nearest one above `start`,
    with the command line's flags (`cli`) on top."""
    from padlint.config import with_cli
    from padlint.config_file import load_settings

    settings = load_settings(start=start, config=Path(config) if config else None)
    for passed in settings.passed_over:
        _warning(passed)
    return with_cli(settings, **cli)


@click.command(cls=Command)
@click.argument("paths", nargs=-1)
@click.option("--fix/--no-fix", default=False, help="Apply fixes to resolve findings (safe ones only by default).")
@click.option("--unsafe-fixes/--no-unsafe-fixes", default=None, help="Include fixes that may change behaviour.")
@click.option("--diff", is_flag=True, help="Print a diff of what --fix would change; write nothing.")
@click.option("--show-fixes", is_flag=True, help="List the fixes that --fix applied.")
@click.option("--select", metavar="CODES", multiple=True, help="Comma-separated codes or prefixes to enable (or ALL).")
@click.option("--ignore", metavar="CODES", multiple=True, help="Comma-separated codes or prefixes to disable.")
@click.option(
    "--extend-select", metavar="CODES", multiple=True, help="Codes or prefixes to enable on top of the selection."
)
@click.option(
    "--output-format",
    type=click.Choice(FORMAT_NAMES),
    default="full",
    show_default=True,
    envvar="PADLINT_OUTPUT_FORMAT",
    help="How to print the findings.",
)
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain.")
@click.option("--stdin-filename", metavar="PATH", help="The name of the file read from stdin.")
@click.option(
    "--force-exclude/--no-force-exclude",
    default=None,
    help="Apply exclusions to files named on the command line too (for pre-commit).",
)
@click.option(
    "--exclude", metavar="PATTERNS", multiple=True, help="Comma-separated patterns to exclude (replaces the defaults)."
)
@click.option(
    "--extend-exclude", metavar="PATTERNS", multiple=True, help="Comma-separated patterns to exclude as well."
)
@click.option("--respect-gitignore/--no-respect-gitignore", default=None, help="Skip files that .gitignore ignores.")
@click.option("--config", metavar="PATH", help="The pyproject.toml to read [tool.padlint] from.")
@click.option("-o", "--output-file", metavar="PATH", help="Write the report to PATH instead of standard output.")
@click.option("--statistics", is_flag=True, help="Show the number of findings per rule instead of each one.")
@click.option("--add-noqa", is_flag=True, help="Add `# noqa: CODE` comments to silence every current finding.")
@click.option("--baseline", metavar="FILE", help="Report only findings that this baseline file does not record.")
@click.option("--write-baseline", is_flag=True, help="Record every current finding in the --baseline FILE, exit 0.")
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="Worker processes for linting (default: one per core, within a container's CPU quota).",
)
@click.option("--no-cache", is_flag=True, help="Neither read nor write the result cache (.padlint_cache/).")
@click.option(
    "--timeout",
    type=click.FloatRange(min=0),
    default=None,
    metavar="SECONDS",
    help="Per-file limit in seconds of CPU time (10x that on the clock); a file that takes longer is reported and skipped (0: none).",
)
@click.option(
    "--target-version",
    type=click.Choice(TARGET_VERSIONS),
    default=None,
    help="The Python the code is written for (default: the newest grammar padlint's parser reads).",
)
@click.option("-q", "--quiet", is_flag=True, help="Print the findings and nothing else (no summary, no warnings).")
@click.option("-s", "--silent", is_flag=True, help="Print nothing (errors included); the exit code tells.")
@click.option("--show-settings", is_flag=True, help="Print the settings in force for the first PATH, then exit.")
@click.option("--show-files", is_flag=True, help="Print the files that would be checked, then exit.")
@click.option("-w", "--watch", is_flag=True, help="Check again whenever a checked file changes (Ctrl-C stops).")
@click.option("--no-prefilter", is_flag=True, hidden=True, help="Parse every file, even those no rule can flag.")
def check(
    paths: tuple[str, ...],
    fix: bool,
    unsafe_fixes: bool | None,
    diff: bool,
    show_fixes: bool,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    extend_select: tuple[str, ...],
    output_format: str,
    exit_zero: bool,
    stdin_filename: str | None,
    force_exclude: bool | None,
    exclude: tuple[str, ...],
    extend_exclude: tuple[str, ...],
    respect_gitignore: bool | None,
    config: str | None,
    jobs: int | None,
    no_cache: bool,
    timeout: float | None,
    target_version: str | None,
    quiet: bool,
    silent: bool,
    show_settings: bool,
    show_files: bool,
    watch: bool,
    no_prefilter: bool,
    **adoption,
) -> None:
    """Lint PATHS (files or directories; `-` reads stdin). Default: the current directory."""
    from padlint.cli.adoption import Adoption

    click.get_current_context().meta[VERBOSITY] = "silent" if silent else ("quiet" if quiet else "normal")
    extras = Adoption(output_format=output_format, chatty=not (quiet or silent), **adoption)
    use_stdin = paths == ("-",) or (not paths and stdin_filename is not None)
    if "-" in paths and not use_stdin:
        raise click.UsageError("`-` (stdin) cannot be combined with other paths")
    if watch and (use_stdin or extras.add_noqa or extras.write_baseline):
        raise click.UsageError("--watch checks files again as they change: not stdin, --add-noqa or --write-baseline")
    first = stdin_filename if use_stdin else (paths[0] if paths else None)
    start = Path(first) if first else Path.cwd()
    cli = dict(
        select=codes_option(select),
        ignore=codes_option(ignore),
        extend_select=codes_option(extend_select),
        exclude=codes_option(exclude),
        extend_exclude=codes_option(extend_exclude),
        unsafe_fixes=unsafe_fixes,
        respect_gitignore=respect_gitignore,
        force_exclude=force_exclude,
        timeout=timeout,
        target_version=target_version,
    )
    mode = "diff" if diff else ("fix" if fix else "lint")
    extras.validate(mode, use_stdin)
    if show_fixes and mode != "fix":
        # ruff ignores the flag silently; saying so costs nothing and saves a puzzled rerun.
        _warning("`--show-fixes` lists the fixes that `--fix` applies: add `--fix` to apply and list them")

    def check_once() -> int:
        """One check from the settings on: --watch reads a changed pyproject.toml again."""
        try:
            settings = settings_for(config, start, cli)
        except ConfigError as exc:
            _error(str(exc))
            return 2
        if show_settings:
            from padlint.cli.views import settings_text

            click.echo(settings_text(settings, first or "."), nl=False)
            return 0
        if mode != "diff" and not extras.baseline_readable(_error):
            return 2  # before linting: a report unfiltered by the baseline would mislead
        options = Options(
            mode=mode, jobs=jobs, cache=not no_cache, timeout=settings.timeout, prefilter=not no_prefilter
        )
        if use_stdin:
            run = _check_stdin(settings, stdin_filename, options)
        else:
            from padlint.files.discovery import discover

            found = discover(paths or (".",), settings)
            for message in found.warnings:
                _warning(message)
            for message in found.errors:
                _error(message)
            if not found.files and not found.errors:
                _warning("No Python files found under the given path(s)")
            if show_files:
                from padlint.cli.views import files_text

                click.echo(files_text(found.files), nl=False)
                return 2 if found.errors else 0
            if extras.add_noqa:
                return extras.add_noqa_to(found.files, settings, _warning, _error, bool(found.errors))
            run = check_files(extras.track(found.files), settings, options, _warning, _error)
            run.failed |= bool(found.errors)
        return report_run(
            run,
            settings,
            mode,
            output_format,
            show_fixes,
            exit_zero,
            to_stderr=use_stdin and mode == "fix",
            extras=extras,
        )

    if watch and not (show_settings or show_files):
        from padlint.cli import watch as watching

        sys.exit(watching.watch(check_once, lambda: _watched(config, start, cli, paths), note))
    sys.exit(check_once())


def _watched(config: str | None, start: Path, cli: dict, paths: tuple[str, ...]) -> list[str]:
    """What --watch polls: the files a check would lint, and the settings file."""
    from padlint.config import PYPROJECT
    from padlint.files.discovery import discover

    folder = start.resolve() if start.is_dir() else start.resolve().parent
    configs = [config] if config else [str(d / PYPROJECT) for d in (folder, *folder.parents)]
    try:
        settings = settings_for(config, start, cli)
    except ConfigError:
        return configs  # a broken pyproject.toml: its repair is the change to wait for
    return [*discover(paths or (".",), settings).files, *configs]


def _check_stdin(settings: Settings, stdin_filename: str | None, options) -> _Run:
    data = sys.stdin.buffer.read()
    filename = os.path.normpath(stdin_filename) if stdin_filename else "-"
    if stdin_filename and settings.force_exclude:
        from padlint.files.discovery import is_force_excluded

        if is_force_excluded(filename, settings):
            # Excluded: pass the text through untouched and report nothing (ruff does the same).
            if options.mode == "fix":
                sys.stdout.buffer.write(data)
            return _Run()
    run, out = check_stdin(data, filename, settings, options, _warning, _error)
    if options.mode == "fix":
        sys.stdout.flush()
        sys.stdout.buffer.write(out if out is not None else data)
    return run
