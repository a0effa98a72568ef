"""A progress bar for long scans: on stderr, only when stderr is a terminal and the report is for a
person (full or concise), and only once the scan has run for a moment, so short runs never flicker.
Never in pipes, CI logs (CI is set) or machine formats; rich is imported only when it is shown.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import TextIO

DELAY_SECONDS = 0.5  # a scan shorter than this shows nothing


def wanted(stream: TextIO | None = None, output_format: str = "full") -> bool:
    """Whether a progress bar belongs on `stream` (stderr by default) for this run."""
    from padlint.report import HUMAN_FORMATS

    stream = sys.stderr if stream is None else stream
    if output_format not in HUMAN_FORMATS or os.environ.get("CI") or os.environ.get("PADLINT_NO_PROGRESS"):
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def track(
    files: Sequence[str], enabled: bool, stream: TextIO | None = None, delay: float = DELAY_SECONDS
) -> Iterator[str]:
    """Yield `files`; past `delay` seconds (with `enabled`) draw a transient bar on `stream`."""
    if not enabled or len(files) < 2:
        yield from files
        return
    started = time.monotonic()
    iterator = iter(files)
    done = 0
    for filename in iterator:
        yield filename
        done += 1
        if time.monotonic() - started >= delay and done < len(files):
            yield from _with_bar(files, done, iterator, stream or sys.stderr)
            return


def _with_bar(files: Sequence[str], done: int, rest: Iterable[str], stream: TextIO) -> Iterator[str]:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    console = Console(file=stream, stderr=stream is sys.stderr)
    columns = (
        TextColumn("checking"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        TextColumn("{task.fields[current]}", style="dim"),
    )
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("check", total=len(files), completed=done, current="")
        for filename in rest:
            bar.update(task, current=filename)
            yield filename
            bar.advance(task)
