"""`--output-format sarif`: one SARIF 2.1.0 log, for code scanning (GitHub, Azure DevOps, IDEs).

Every rule is described in `tool.driver.rules` (summary, what it does, the whole rule page as help,
and the page's URL); each finding is a result with its region, a stable partial fingerprint and its
fix as `fixes[].artifactChanges[].replacements`. Paths are relative to `%SRCROOT%`, the directory
padlint ran in. Columns count Unicode code points, as padlint's do (`columnKind`).
"""

from __future__ import annotations

import json
import os
import re
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from padlint import __version__
from padlint.adoption.baseline import fingerprints
from padlint.config import SYNTAX_ERROR_CODE
from padlint.report import ReportContext
from padlint.types import Diagnostic, Location

if TYPE_CHECKING:
    from padlint.rules.base import Rule

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/padlint/padlint"
ROOT_ID = "%SRCROOT%"


def _page(rule: type[Rule]) -> str:
    path = Path(__file__).resolve().parents[1] / "rules" / "docs" / f"{rule.code}.md"
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return rule.page()


def _section(page: str, heading: str) -> str:
    match = re.search(rf"^## {re.escape(heading)}\s*\n(.*?)(?=^## |\Z)", page, re.MULTILINE | re.DOTALL)
    return " ".join(match.group(1).split()) if match else ""


def _rule_descriptor(rule: type[Rule]) -> dict:
    page = _page(rule)
    full = _section(page, "What it does") or " ".join(textwrap.dedent(rule.__doc__ or rule.summary).split())
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": full},
        "help": {"text": page, "markdown": page},
        "helpUri": rule.url(),
        "defaultConfiguration": {"level": "error"},
        "properties": {"fixSafety": rule.fix_safety},
    }


_INVALID_SYNTAX = {
    "id": SYNTAX_ERROR_CODE,
    "name": "invalid-syntax",
    "shortDescription": {"text": "The file cannot be read or parsed, so it was not checked"},
    "defaultConfiguration": {"level": "error"},
}


def _rules(diagnostics: list[Diagnostic]) -> list[dict]:
    from padlint.rules import ALL_RULES

    rules = [_rule_descriptor(rule) for rule in sorted(ALL_RULES, key=lambda r: r.code)]
    if any(d.code == SYNTAX_ERROR_CODE for d in diagnostics):
        rules.insert(0, _INVALID_SYNTAX)
    return rules


def _uri(filename: str) -> str:
    return quote(filename.replace(os.sep, "/"))


def _artifact(filename: str) -> dict:
    return {"uri": _uri(filename), "uriBaseId": ROOT_ID}


def _region(start: Location, end: Location) -> dict:
    return {"startLine": start.row, "startColumn": start.column, "endLine": end.row, "endColumn": end.column}


def _fixes(d: Diagnostic) -> list[dict]:
    if d.fix is None or not d.fix.edits:
        return []
    files = list(dict.fromkeys(e.filename or d.filename for e in d.fix.edits))  # the finding's first
    changes = [
        {
            "artifactLocation": _artifact(name),
            "replacements": [
                {"deletedRegion": _region(e.location, e.end_location), "insertedContent": {"text": e.content}}
                for e in d.fix.edits
                if (e.filename or d.filename) == name
            ],
        }
        for name in files
    ]
    return [
        {
            "description": {"text": d.fix.message},
            "artifactChanges": changes,
            "properties": {"applicability": d.fix.applicability.value},
        }
    ]


def _result(d: Diagnostic, index: dict[str, int], fingerprint: str) -> dict:
    properties: dict = {"name": d.name, "confidence": d.confidence}
    if d.cell is not None:
        properties["cell"] = d.cell  # rows are counted within this notebook cell
    result: dict[str, object] = {
        "ruleId": d.code,
        "level": "error",
        "message": {"text": d.message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": _artifact(d.filename),
                    "region": _region(d.location, d.end_location),
                }
            }
        ],
        "partialFingerprints": {"padlintStatementHash/v1": fingerprint},
        "properties": properties,
    }
    if d.code in index:
        result["ruleIndex"] = index[d.code]
    fixes = _fixes(d)
    if fixes:
        result["fixes"] = fixes
    return result


def sarif_log(diagnostics: list[Diagnostic], context: ReportContext) -> dict:
    rules = _rules(diagnostics)
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    results = [_result(d, index, fp) for d, fp in zip(diagnostics, fingerprints(diagnostics, context.sources))]
    root = Path.cwd().resolve().as_uri().rstrip("/") + "/"
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "padlint",
                        "version": __version__,
                        "semanticVersion": _semantic_version(__version__),
                        "informationUri": INFORMATION_URI,
                        "rules": rules,
                    }
                },
                "originalUriBaseIds": {ROOT_ID: {"uri": root}},
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }


def format_sarif(diagnostics: list[Diagnostic], context: ReportContext) -> str:
    return json.dumps(sarif_log(diagnostics, context), indent=2, ensure_ascii=False) + "\n"


def _semantic_version(version: str) -> str:
    """SARIF's semanticVersion is SemVer 2.0: a PEP 440 development release `0.2.0.dev0` is `0.2.0-dev0`."""
    release, dot, rest = version.partition(".dev")
    return f"{release}-dev{rest}" if dot else version
