"""CI formats: `github` (workflow commands that become annotations) and `gitlab` (Code Quality)."""

from __future__ import annotations

import json
import os

from padlint.adoption.baseline import fingerprints
from padlint.report import ReportContext, position
from padlint.types import Diagnostic


def _escape_data(text: str) -> str:
    """The message part of a workflow command, escaped as the Actions runner unescapes it."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    """A property value (title, file): also `:` and `,`, which separate the properties."""
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def format_github(diagnostics: list[Diagnostic], context: ReportContext) -> str:
    """One `::error ...::message` line per finding (GitHub Actions shows them as annotations)."""
    lines = []
    for d in diagnostics:
        props = {
            "title": f"padlint ({d.code})",
            "file": d.filename.replace(os.sep, "/"),
            "line": str(d.location.row),
            "col": str(d.location.column),
            "endLine": str(d.end_location.row),
            "endColumn": str(d.end_location.column),
        }
        head = ",".join(f"{key}={_escape_property(value)}" for key, value in props.items())
        message = f"{d.filename}:{position(d)}: {d.code} {d.message}"
        lines.append(f"::error {head}::{_escape_data(message)}\n")
    return "".join(lines)


def _project_path(filename: str) -> str:
    """Paths relative to the project root GitLab knows ($CI_PROJECT_DIR), else as shown."""
    root = os.environ.get("CI_PROJECT_DIR")
    if root and filename != "-":
        rel = os.path.relpath(os.path.abspath(filename), os.path.abspath(root))
        if not rel.startswith(".."):
            filename = rel
    return filename.replace(os.sep, "/")


def format_gitlab(diagnostics: list[Diagnostic], context: ReportContext) -> str:
    """A GitLab Code Quality report: fingerprints hash the statement, not its line number."""
    issues = []
    for d, fingerprint in zip(diagnostics, fingerprints(diagnostics, context.sources)):
        where = f"cell {d.cell}: " if d.cell is not None else ""
        issues.append(
            {
                "description": f"{where}{d.code} {d.message}",
                "check_name": d.code,
                "fingerprint": fingerprint,
                "severity": "major",
                "location": {
                    "path": _project_path(d.filename),
                    "lines": {"begin": d.location.row, "end": max(d.end_location.row, d.location.row)},
                },
            }
        )
    return json.dumps(issues, indent=2, ensure_ascii=False) + "\n"
