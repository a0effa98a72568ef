"""`check --watch`: check, then check again whenever a file that would be checked changes.

A polling loop over the files discovery finds (and the settings file): their modification times and
sizes, once every POLL_SECONDS. It needs no dependency and sees new and deleted files too; a tree
large enough for the polling to cost something is not what one watches while editing.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable

import click

POLL_SECONDS = 0.5

Snapshot = dict[str, tuple[int, int]]


def snapshot(paths: list[str]) -> Snapshot:
    """(modification time, size) of each path that exists."""
    found: Snapshot = {}
    for path in paths:
        try:
            st = os.stat(path)
        except OSError:
            continue
        found[path] = (st.st_mtime_ns, st.st_size)
    return found


def watch(check_once: Callable[[], int], watched: Callable[[], list[str]], say: Callable[[str], None]) -> int:
    """Run `check_once` now and after every change to the files `watched()` lists; Ctrl-C ends it
    (exit code 0, as ruff's watch mode)."""
    say("Starting padlint in watch mode...")
    try:
        while True:
            if sys.stdout.isatty():
                click.clear()
            check_once()
            sys.stdout.flush()
            before = snapshot(watched())
            while snapshot(watched()) == before:
                time.sleep(POLL_SECONDS)
            say("File change detected...")
    except KeyboardInterrupt:
        return 0
