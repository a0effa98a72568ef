"""`--output-format json`: a JSON list of findings with ruff's fields (plus `name`, `confidence`)."""

from __future__ import annotations

import json

from padlint.report import ReportContext
from padlint.suppress import noqa_row
from padlint.types import Diagnostic, Location


def _loc(location: Location) -> dict:
    return {"row": location.row, "column": location.column}


def diagnostic_to_dict(d: Diagnostic) -> dict:
    fix = None
    if d.fix is not None:
        fix = {
            "applicability": d.fix.applicability.value,
            "message": d.fix.message,
            "edits": [
                {
                    "content": e.content,
                    "location": _loc(e.location),
                    "end_location": _loc(e.end_location),
                    **({"filename": e.filename} if e.filename else {}),  # another file than the finding's
                }
                for e in d.fix.edits
            ],
        }
    return {
        "code": d.code,
        "name": d.name,
        "message": d.message,
        "filename": d.filename,
        "location": _loc(d.location),
        "end_location": _loc(d.end_location),
        "fix": fix,
        "url": d.url or None,
        "cell": d.cell,
        "noqa_row": noqa_row(d),
        "confidence": d.confidence,
    }


def format_json(diagnostics: list[Diagnostic], context: ReportContext) -> str:
    return json.dumps([diagnostic_to_dict(d) for d in diagnostics], indent=2, ensure_ascii=False) + "\n"


def format_json_lines(diagnostics: list[Diagnostic], context: ReportContext) -> str:
    """`--output-format json-lines`: the same objects as `json`, one per line."""
    return "".join(json.dumps(diagnostic_to_dict(d), ensure_ascii=False) + "\n" for d in diagnostics)
