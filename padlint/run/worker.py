"""The worker side of a run: one file's analysis, pure (no I/O but reading other modules of the project).

analyse() takes one task (a file's text and what to do with it) and returns its findings and fixed text;
runner.py hands tasks to forked workers (pool.py), or runs them in its own process with
analyse_in_process() within the time limit (deadline.py), as the language server does. A file that cannot
be read or parsed is a finding (invalid_file_diagnostic, PAD000).
"""

from __future__ import annotations

from padlint.config import SYNTAX_ERROR_CODE
from padlint.types import Diagnostic, Location


def invalid_file_diagnostic(filename: str, message: str, row: int = 1, column: int = 1) -> Diagnostic:
    """PAD000: a file that cannot be read or parsed is a finding (like ruff's invalid-syntax)."""
    here = Location(max(row, 1), max(column, 1))
    return Diagnostic(
        code=SYNTAX_ERROR_CODE,
        name="invalid-syntax",
        message=message,
        filename=filename,
        location=here,
        end_location=here,
        url="",
        statement_rows=(here.row, here.row),
    )


def analyse(task: tuple) -> tuple:
    """(filename, text, select, mode, unsafe, look, report_invalid, line_length) -> ("ok", found, new_text, fixed,
    fix_error, parsed, reads) or ("invalid", message, row, column) for a source libcst cannot parse.
    `reads`: the other files the analysis read, {absolute path: sha256} (analysis/reads.py), which
    the cache keeps with the result."""
    from padlint.analysis import reads

    with reads.recording() as read:
        outcome = _analyse(task)
    return outcome + (dict(read),) if outcome[0] == "ok" else outcome


def _analyse(task: tuple) -> tuple:
    """analyse() without the record of files read: ("ok", found, new_text, fixed, fix_error, parsed).

    `look`: "full" analyses the file; "sharp" first takes the sharp look (first_look.py) and
    analyses only a file some rule may fire on; "syntax" only checks that the file parses (no rule
    can fire on it). A file that is not analysed is still checked for syntax errors when PAD000 is
    enabled, with the stdlib parser; only a file that fails that check goes on to libcst, so PAD000
    is reported with libcst's message, as without the first look.
    """
    filename, text, select, mode, unsafe, look, report_invalid, line_length, *rest = task
    elsewhere = bool(rest and rest[0])  # fixes may also edit other files: the caller writes them (elsewhere.py)
    plan: bool | str = True
    if look != "full":
        from padlint.look import prefilter

        try:
            plan = prefilter.look_plan(text, select, filename) if look == "sharp" else False
        except Exception:  # a bug in the sharp look must cost no file: the analysis decides alone
            plan = True
        if plan is False:
            if not report_invalid or prefilter.parses(text):
                return ("ok", [], text, [], None, False)
            plan = True  # a syntax error: libcst reports it
    from padlint import engine

    if isinstance(plan, str) and mode == "lint":
        # The defs no padding step reaches have `...` for a body; only a finding there (or a text
        # that does not parse) sends the whole file to the analysis, which then says what is reported.
        # The stubs hide their bodies from libcst, so the whole text's syntax is checked too.
        try:
            if not engine.may_have_findings(plan, filename, select) and (not report_invalid or prefilter.parses(text)):
                return ("ok", [], text, [], None, True)
        except engine.SourceError:
            pass

    if _has_long_line(text) and too_deeply_nested(text):
        # A 20,000-link attribute or subscript chain keeps libcst's parser busy for minutes (or
        # crashes it); CPython refuses such code anyway, and its parser says so in milliseconds.
        return ("invalid", "cannot parse: too deeply nested to parse", 1, 1)
    try:
        if mode == "lint":
            return ("ok", engine.lint_source(text, filename, select, line_length), text, [], None, True)
        outcome = engine.fix_source(text, filename, select, unsafe=unsafe, line_length=line_length, elsewhere=elsewhere)
        if (
            outcome.source != text
            and _still_fixable(outcome.remaining, unsafe)
            and engine.fix_source(
                outcome.source, filename, select, unsafe=unsafe, line_length=line_length, elsewhere=elsewhere
            ).source
            != outcome.source
        ):
            # The fixes did not settle (fixing the result again would change it): write nothing.
            found = engine.lint_source(text, filename, select)
            return ("ok", found, text, [], "fixes did not settle after repeated rounds; file left unchanged", True)
        return ("ok", outcome.remaining, outcome.source, outcome.fixed, outcome.error, True)
    except engine.SourceError as exc:
        return ("invalid", f"cannot parse: {exc}", exc.row, exc.column)


def _still_fixable(remaining: list[Diagnostic], unsafe: bool) -> bool:
    from padlint.types import Applicability

    allowed = {Applicability.SAFE} | ({Applicability.UNSAFE} if unsafe else set())
    return any(d.fix is not None and d.fix.applicability in allowed for d in remaining)


def analyse_in_process(task: tuple, timeout: float | None) -> tuple:
    """analyse() here, within the time limit where there is one (deadline.py; raises Timeout)."""
    from padlint.run import deadline

    if too_deeply_nested(task[1]):  # libcst's parser can crash the process on such input
        return ("invalid", "cannot parse: too deeply nested to parse", 1, 1)
    with deadline.limited(timeout):
        return analyse(task)


def _has_long_line(text: str, limit: int = 10_000) -> bool:
    if len(text) <= limit:
        return False
    start = 0
    while True:
        end = text.find("\n", start)
        if (end if end != -1 else len(text)) - start > limit:
            return True
        if end == -1:
            return False
        start = end + 1


def too_deeply_nested(text: str) -> bool:
    """Nesting that CPython's own parser refuses (and that can crash libcst's): ask the stdlib."""
    import ast

    from padlint.files.source import quiet_parser

    try:
        with quiet_parser():
            compile(text, "<padlint>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except (RecursionError, MemoryError):
        return True
    except SyntaxError as exc:
        return "too many nested" in str(exc) or "too complex" in str(exc)
    except ValueError:
        return False
    return False
