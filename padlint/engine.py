"""Lint one source: parse once, analyse once, run the rules, apply suppressions; fix until stable."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import libcst as cst

from padlint import indentation
from padlint.analysis import parsing
from padlint.analysis.patterns import child_nodes
from padlint.types import Applicability, Diagnostic, Edit, Fix, Location

if TYPE_CHECKING:
    from libcst.metadata import CodeRange  # a `from` import would load libcst (lazy_imports.py)

MAX_FIX_ROUNDS = 10
_NEWLINE = re.compile(r"\r\n|\r|\n")


class SourceError(Exception):
    """The source cannot be linted (it does not parse). str(exc) is a one-line reason."""

    def __init__(self, message: str, row: int = 1, column: int = 1):
        super().__init__(message)
        self.row = row
        self.column = column


@dataclass
class FixOutcome:
    source: str  # the fixed text (the input text if nothing was fixed)
    fixed: list[Diagnostic] = field(default_factory=list)  # findings whose fix was applied
    remaining: list[Diagnostic] = field(default_factory=list)  # findings still in `source`
    error: str | None = None  # set when a fix was refused (the fixed code would not parse)

    def elsewhere(self) -> dict[str, list[Edit]]:
        """What the applied fixes change in other files: path -> edits (positions in that file's text
        as the analysis read it). Written by whoever writes `source` (run/elsewhere.py), or not at all."""
        found: dict[str, list[Edit]] = {}
        for diagnostic in self.fixed:
            for edit in diagnostic.fix.elsewhere if diagnostic.fix is not None else ():
                if edit not in found.setdefault(edit.filename or "", []):
                    found[edit.filename or ""].append(edit)
        return found


def parse(source: str) -> cst.Module:
    try:
        return parsing.parse_module(source)
    except cst.ParserSyntaxError as exc:
        raise _syntax_error(source, exc) from None
    except RecursionError:
        raise SourceError("too deeply nested to parse") from None
    except Exception as exc:  # libcst raises a few other types on odd input
        raise SourceError(f"cannot parse: {' '.join(str(exc).split())[:200]}") from None


def _parse_indented_with_tabs(source: str) -> tuple[cst.Module, str, dict[int, int]]:
    """`parse(source)`; where libcst refuses code that CPython reads because a line indents with spaces
    then a tab (indentation.py), the module of the same code with its indentation's tabs expanded, the
    text read, and how many columns each changed row's indentation grew (row -> columns)."""
    try:
        return parse(source), source, {}
    except SourceError as refused:
        expanded = indentation.expanded(source)
        if expanded is None:
            raise
        try:
            return parse(expanded[0]), *expanded
        except SourceError:
            raise refused from None


def _syntax_error(source: str, exc: cst.ParserSyntaxError) -> SourceError:
    """PAD000's reason and position: the token libcst blames (its own positions point past it),
    and the grammar that refused the code."""
    from padlint import grammar

    reason = " ".join(exc.message.split()).removeprefix("parser error: ") or "invalid syntax"
    at = grammar.error_position(source, reason)
    if at is not None:
        reason = grammar.ERROR_AT.sub(f"error at {at[0]}:{at[1]}", reason, count=1)
    else:
        # A tokenizer error has no position: CPython's for the same reason, else its own error's.
        tokenizer = reason.removeprefix("tokenizer error: ")
        at = grammar.cpython_position(source, tokenizer) or grammar.cpython_position(source) or (1, 1)
    return SourceError(f"invalid syntax ({grammar.libcst_grammar()}): {reason}", *at)


def _enabled_rules(select: Collection[str] | None):
    from padlint.rules import ALL_RULES

    return [rule() for rule in ALL_RULES if select is None or rule.code in select]


def lint_source(
    source: str, filename: str = "-", select: Collection[str] | None = None, line_length: int | None = None
) -> list[Diagnostic]:
    """All findings in `source` (suppressions applied), sorted by position.

    `select` is the set of enabled rule codes (None: all); `line_length` the project's (ruff's or
    black's setting; None: 88), which the code fixes write keeps to. Raises SourceError if it does
    not parse.
    """
    from padlint.suppress import filter_suppressed, report_unused_suppressions

    module, read, grown = _parse_indented_with_tabs(source)
    diagnostics = _lint_module(module, filename, select, line_length, read)
    if grown:
        diagnostics = indentation.as_written(diagnostics, grown)
    kept = filter_suppressed(source, diagnostics)
    return report_unused_suppressions(source, diagnostics, kept, filename, select)  # PAD100, opt-in


def may_have_findings(source: str, filename: str = "-", select: Collection[str] | None = None) -> bool:
    """Does any enabled rule find something in `source`, before suppressions? Neither positions nor
    fixes are worked out (on a large file they cost more than the analysis): the first look's reduced
    text only asks whether the whole file must be analysed. Raises SourceError if it does not parse."""
    module, read, _ = _parse_indented_with_tabs(source)
    _, findings, facts = _findings(module, filename, select, None, read)
    return any(facts.is_local(finding.node) for _, finding in findings)  # as _lint_module reports


def _findings(module: cst.Module, filename: str, select, line_length: int | None, source: str | None):
    from padlint.analysis.flow import analyse
    from padlint.analysis.patterns import Imports

    rules = _enabled_rules(select)
    positions = _LazyPositions(module)
    if not rules:
        return positions, [], None
    try:
        facts = analyse(module, positions, Imports(module), filename, source)
    except RecursionError:
        raise SourceError("too deeply nested to analyse") from None
    if line_length:
        facts.line_length = line_length
    return positions, [(rule, finding) for rule in rules for finding in rule.check(facts)], facts


def _lint_module(
    module: cst.Module, filename: str, select, line_length: int | None = None, source: str | None = None
) -> list[Diagnostic]:
    positions, findings, facts = _findings(module, filename, select, line_length, source)
    findings = [(rule, f) for rule, f in findings if facts.is_local(f.node)]  # others: their module's
    if findings:
        findings = _outside_unused_definitions(findings, module, positions, filename)
    if not findings:
        return []
    statements = _StatementIndex(module, positions)
    diagnostics: list[Diagnostic] = []
    names = None
    for rule, finding in findings:
        span = positions.get(finding.node)
        if span is None:
            continue
        fix = _make_fix(finding.fix, positions, module, _quote(facts)) if finding.fix is not None else None
        if fix is not None and fix.elsewhere:
            fix = _spelled_beside(fix, filename)
        no_fix = rule.no_fix_help(finding) if fix is None else None
        if fix is None and finding.fix is not None:  # the rule wrote a fix that cannot be applied as edits
            no_fix = "; ".join(p for p in (UNWRITABLE_FIX, finding.manual_fix or rule.MANUAL_FIX) if p)
        if fix is not None:
            from padlint.rules.bound_names import NameCheck

            names = names or NameCheck(module, positions, source)
            added = ("torch",) * finding.fix.needs_torch + tuple(_imported(finding.fix.import_lines))
            missing = names.unbound(finding.fix.replacements, added)
            if missing:  # the code would raise NameError where it runs: no fix is better than that one
                fix = None
                unbound = f"the fix would read `{missing[0]}`, which is not defined where it would run"
                no_fix = "; ".join(p for p in (unbound, rule.MANUAL_FIX) if p)
        diagnostics.append(
            Diagnostic(
                code=rule.code,
                name=rule.name,
                message=finding.message,
                filename=filename,
                location=Location(span.start.line, span.start.column + 1),
                end_location=Location(span.end.line, span.end.column + 1),
                url=rule.url(),
                fix=fix,
                confidence=finding.confidence,
                no_fix=no_fix,
                statement_rows=statements.rows_of(span.start.line, span.start.column),
            )
        )
    diagnostics.sort(key=Diagnostic.sort_key)
    return diagnostics


def _outside_unused_definitions(findings: list, module: cst.Module, positions, filename: str) -> list:
    """The findings that are not inside a definition nothing in the project names, nor after a
    statement that ends its block: that code never runs, so nothing it does to a batch is a harm
    (analysis/unused_definitions.py, unused_methods.py, dead_code.py)."""
    from padlint.analysis.dead_code import rebound_before_read, unreachable_statements
    from padlint.analysis.unused_definitions import uncalled_nested_functions, unused_definitions
    from padlint.analysis.unused_methods import unused_methods

    never_run = [
        *unused_definitions(module, filename),
        *unused_methods(module, filename),
        *uncalled_nested_functions(module),
        *unreachable_statements(module, notebook=filename.endswith(".ipynb")),
        *rebound_before_read(module),
    ]
    spans = [positions.get(stmt) for stmt in never_run]
    rows = [(span.start.line, span.end.line) for span in spans if span is not None]
    if not rows:
        return findings
    kept = []
    for rule, finding in findings:
        span = positions.get(finding.node)
        if span is None or not any(first <= span.start.line <= last for first, last in rows):
            kept.append((rule, finding))
    return kept


def _self_overlapping(edits: list[Edit]) -> bool:
    """Do two edits of one fix change the same text (applied together they would garble it)?"""
    spans = sorted(((e.location.row, e.location.column), (e.end_location.row, e.end_location.column)) for e in edits)
    for (start, end), (next_start, next_end) in zip(spans, spans[1:]):
        # the next edit starts inside this replacement, or both replace text from the same point
        if next_start < end or (next_start == start and start != end and next_start != next_end):
            return True
    return False


def _spelled_beside(fix: Fix, filename: str) -> Fix:
    """Edits of other files name them as the finding's file is named (relative stays relative)."""
    import os

    if filename == "-" or os.path.isabs(filename):
        return fix
    folder = os.path.dirname(os.path.abspath(filename))
    edits = tuple(
        e
        if e.filename is None
        else Edit(
            e.content,
            e.location,
            e.end_location,
            os.path.normpath(os.path.join(os.path.dirname(filename), os.path.relpath(e.filename, folder))),
        )
        for e in fix.edits
    )
    return Fix(fix.applicability, fix.message, edits)


def _imported(lines) -> list[str]:
    """The names import statements bind: `import numpy` -> numpy, `from x import a as b` -> b."""
    names = []
    for line in lines:
        words = line.replace(",", " ").split()
        if "as" in words:
            names.append(words[words.index("as") + 1])
        elif words[:1] == ["import"]:
            names += [w.split(".")[0] for w in words[1:]]
        elif words[:1] == ["from"] and "import" in words:
            names += words[words.index("import") + 1 :]
    return names


class _LazyPositions:
    """Node positions, computed on first use: a file with no finding never pays for them."""

    def __init__(self, module: cst.Module):
        self.module = module
        self.resolved: Mapping[cst.CSTNode, CodeRange] | None = None

    def get(self, node: cst.CSTNode, default: None = None) -> CodeRange | None:
        if self.resolved is None:
            # Imported here: by now a module was parsed, so a deferred libcst (lazy_imports.py) is loaded.
            from libcst.metadata import MetadataWrapper, PositionProvider

            self.resolved = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)
        return self.resolved.get(node, default)


def _quote(facts) -> str:
    from padlint.rules.sites import quote

    return quote(facts)


UNWRITABLE_FIX = (
    "padlint found a fix but could not write it as separate edits of this file (a padlint bug: please report it)"
)


def _make_fix(proposal, positions, module: cst.Module, quote: str = '"') -> Fix | None:
    """The proposal as text edits, or None where they cannot be applied together: a node without a
    position, or two edits changing the same text (applied one after the other they would garble it)."""
    from padlint.rules.edits import to_edits

    edits = to_edits(proposal.replacements, positions, quote)
    if edits is None or _self_overlapping(edits):
        return None
    lines = (("import torch",) if proposal.needs_torch else ()) + tuple(proposal.import_lines)
    if lines:
        row, before_code = _import_row(module, positions)
        # In a module without imports the new ones stand apart from the code, as PEP 8 lays them out.
        gap = "\n\n" if before_code else ""
        edits.extend(
            Edit(line + "\n" + gap * (i == len(lines) - 1), Location(row, 1), Location(row, 1))
            for i, line in enumerate(lines)
        )
    edits.sort(key=lambda e: e.location)
    return Fix(proposal.applicability, proposal.message, (*edits, *proposal.elsewhere))


def _import_row(module: cst.Module, positions) -> tuple[int, bool]:
    """Where `import torch` goes: before the first statement after the docstring and __future__; and
    whether that statement is code rather than an import."""
    for stmt in module.body:
        first = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and stmt.body else None
        if isinstance(first, cst.Expr) and isinstance(first.value, (cst.SimpleString, cst.ConcatenatedString)):
            continue
        if isinstance(first, cst.ImportFrom) and getattr(first.module, "value", None) == "__future__":
            continue
        span = positions.get(stmt)
        is_import = isinstance(first, (cst.Import, cst.ImportFrom)) or _imports_inside(stmt)
        return (span.start.line if span is not None else 1), not is_import
    return len(module.code.splitlines()) + 1, False


def _imports_inside(stmt: cst.CSTNode) -> bool:
    """`try: import x` / `if TYPE_CHECKING: import x`: an import block, not code."""
    body = getattr(getattr(stmt, "body", None), "body", None) or ()
    return (
        isinstance(stmt, (cst.Try, cst.If))
        and bool(body)
        and all(
            isinstance(s, cst.SimpleStatementLine) and all(isinstance(x, (cst.Import, cst.ImportFrom)) for x in s.body)
            for s in body
        )
    )


class _StatementIndex:
    """The rows of the statement around a position (suppression comments go there)."""

    def __init__(self, module: cst.Module, positions):
        self.spans: list[tuple[int, int, int, int]] = []
        stack: list[cst.CSTNode] = list(module.body)
        while stack:
            node = stack.pop()
            span = positions.get(node)
            if isinstance(node, cst.SimpleStatementLine) and span is not None:
                self.spans.append((span.start.line, span.start.column, span.end.line, span.end.column))
            elif isinstance(node, cst.Match) and span is not None:
                # `match x:` then its cases, each a header (`case ...:`) over its own block
                first = positions.get(node.cases[0]) if node.cases else None
                header_end = first.start.line if first is not None else span.start.line
                self.spans.append((span.start.line, span.start.column, header_end, 10**9))
                for case in node.cases:
                    case_span, body = positions.get(case), positions.get(case.body)
                    if case_span is not None:
                        end = body.start.line if body is not None else case_span.start.line
                        self.spans.append((case_span.start.line, case_span.start.column, end, 10**9))
                    stack.extend(child_nodes(case.body))
            elif isinstance(node, cst.BaseCompoundStatement) and span is not None:
                body = positions.get(node.body)
                header_end = body.start.line if body is not None else span.start.line
                self.spans.append((span.start.line, span.start.column, header_end, 10**9))
                stack.extend(child_nodes(node.body))
                for extra in ("orelse", "handlers", "finalbody"):
                    part = getattr(node, extra, None)
                    if isinstance(part, (list, tuple)):
                        stack.extend(part)
                    elif part is not None:
                        stack.append(part)
            elif not isinstance(node, cst.BaseExpression):
                stack.extend(child_nodes(node))

    def rows_of(self, line: int, column: int) -> tuple[int, int]:
        best = None
        for start, scol, end, _ecol in self.spans:
            if (start, scol) <= (line, column) and line <= end:
                if best is None or (start, scol) >= (best[0], best[1]):
                    best = (start, scol, end)
        return (best[0], best[2]) if best else (line, line)


def fix_source(
    source: str,
    filename: str = "-",
    select: Collection[str] | None = None,
    unsafe: bool = False,
    line_length: int | None = None,
    elsewhere: bool = False,
) -> FixOutcome:
    """Apply every applicable fix (safe ones, plus unsafe ones if `unsafe`), re-linting until stable.

    A fix that also edits another file is applicable only when the caller writes those edits too
    (`elsewhere`, see FixOutcome.elsewhere): half of it would leave the two files disagreeing."""
    allowed = {Applicability.SAFE} | ({Applicability.UNSAFE} if unsafe else set())
    current = source
    fixed: list[Diagnostic] = []
    error = None
    for _ in range(MAX_FIX_ROUNDS):
        diagnostics = lint_source(current, filename, select, line_length)
        applicable = [
            d
            for d in diagnostics
            if d.fix is not None and d.fix.applicability in allowed and (elsewhere or not d.fix.elsewhere)
        ]
        if not applicable:
            return FixOutcome(current, fixed, diagnostics, error)
        candidate, applied = apply_fixes(current, applicable)
        try:
            parse(candidate)
        except SourceError as exc:
            error = f"a fix would produce code that does not parse ({exc}); file left unchanged"
            return FixOutcome(current, fixed, diagnostics, error)
        if candidate == current:
            return FixOutcome(current, fixed, diagnostics, error)
        fixed.extend(applied)
        current = candidate
    return FixOutcome(current, fixed, lint_source(current, filename, select, line_length), error)


def apply_fixes(source: str, diagnostics: list[Diagnostic]) -> tuple[str, list[Diagnostic]]:
    """Apply the fixes of `diagnostics` in one pass; a fix overlapping an earlier one waits a round."""
    offsets = _line_offsets(source)

    def offset(loc: Location) -> int:
        return offsets[loc.row - 1] + loc.column - 1 if loc.row - 1 < len(offsets) else len(source)

    accepted: list[tuple[int, int, str]] = []
    applied = []
    for diagnostic in sorted(diagnostics, key=Diagnostic.sort_key):
        fix = diagnostic.fix
        if fix is None:
            continue
        spans = [(offset(e.location), offset(e.end_location), e.content) for e in fix.edits if e.filename is None]
        if any(
            _overlaps(s, e, ts, te) or _same_point(s, e, ts, te) and c != tc
            for s, e, c in spans
            for ts, te, tc in accepted
        ):
            continue
        for span in spans:
            if span not in accepted:  # two fixes adding the same import go in once
                accepted.append(span)
        applied.append(diagnostic)
    text = source
    for start, end, content in sorted(accepted, key=lambda x: (x[0], x[1]), reverse=True):
        text = text[:start] + content + text[end:]
    return text, applied


def _same_point(s: int, e: int, ts: int, te: int) -> bool:
    """Two insertions at one point: which goes first matters (two fixes naming values before one
    statement would both pick the same free names), so the later fix waits a round."""
    return s == e == ts == te


def _overlaps(s: int, e: int, ts: int, te: int) -> bool:
    if s == e or ts == te:  # insertions only clash when at the same point inside a replacement
        return ts < s < te or s < ts < e
    return s < te and ts < e


def _line_offsets(source: str) -> list[int]:
    # Only \n, \r\n and \r end lines for the parser (str.splitlines also splits on \f and others).
    return [0] + [m.end() for m in _NEWLINE.finditer(source)]
