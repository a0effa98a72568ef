"""IPython syntax in notebook cells: the lines that are not Python (`%magic`, `%%cell magic` (the
whole cell), `!shell`, `obj?` help, `x = !cmd`) replaced line for line by placeholder comments, so
that rows still match, and restored on the way back (notebook.py). A cell whose code all starts
indented is dedented first, as IPython does (its `leading_indent` input transformation).

Whether a cell parses is CPython's verdict, then libcst's when CPython's may not count: the code may
be written for a newer Python than the one running padlint (padlint.grammar)."""

from __future__ import annotations

import ast
import io
import re
import tokenize

from padlint import grammar
from padlint.files.source import quiet_parser

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)?")
PLACEHOLDER = re.compile(r"^[ \t]*(?:pass  )?# padlint-magic (\d+)$")
# Lines IPython rewrites: magics, shell escapes, help, and assignments from magics or the shell.
_MAGIC = re.compile(r"^[ \t]*(?:[%!]|\?|[A-Za-z_][\w.]*\?\??[ \t]*$|[\w.,\[\] \t]+=[ \t]*[%!])")
# Line magics IPython runs without their `%` (automagic, on by default): `pip install x`, `cd data`.
_AUTOMAGIC = re.compile(
    r"^[ \t]*(?:pip|pip3|conda|mamba|cd|ls|pwd|mkdir|cat|cp|mv|rm|env|set_env|load_ext|"
    r"reload_ext|matplotlib|time|timeit|run|who|whos|history|autoreload|config)(?:[ \t]|$)"
)


def lines_of(text: str) -> list[str]:
    return [m.group(0) for m in _LINE.finditer(text) if m.group(0)]


def _string_rows(text: str) -> set[int]:
    """0-based rows inside (not at the start of) a multi-line string token of `text`."""
    rows: set[int] = set()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.STRING and tok.end[0] > tok.start[0]:
                rows.update(range(tok.start[0], tok.end[0]))  # 1-based start+1..end -> 0-based
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass
    return rows


def _parses(text: str) -> bool:
    """CPython's verdict (this interpreter's grammar)."""
    try:
        with quiet_parser():
            ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return True


def _accepted(text: str, target: str | None) -> bool:
    """Whether the code's Python (`target`) accepts `text`: CPython's verdict, and libcst's when
    CPython's refusal does not count (a PEP 701 f-string read by 3.11 for a 3.12 notebook)."""
    if _parses(text):
        return True
    return not grammar.cpython_refusal_counts(target) and grammar.libcst_accepts(text)


def leading_indent(lines: list[str]) -> str:
    """IPython's `leading_indent`: after the blank lines it drops, the whitespace the first line
    starts with, which it removes from every line that starts with it ("" when there is none)."""
    first = next((line for line in lines if line.strip()), "")
    return first[: len(first) - len(first.lstrip(" \t"))]


def mask_magics(
    text: str, counter: list[int], target: str | None = None
) -> tuple[str, dict[int, str], str | None, str]:
    """The cell with IPython-only lines replaced by placeholders, the lines replaced, for a cell
    that is not Python even so that text (then every line of the cell is a placeholder: Jupyter
    compiles each cell on its own, so the other cells still run and are still linted), and the
    indentation removed from the start of its lines as IPython does (`""`: none)."""
    lines = lines_of(text)
    if not lines:
        return text, {}, None, ""
    cell_magic = lines[0].lstrip().startswith("%%")  # the whole cell is not Python
    if not cell_magic and _parses(text):  # plain Python, the common case: one parse
        return text, {}, None, ""
    indent = "" if cell_magic else leading_indent(lines)
    if indent:  # IPython removes it before anything else
        lines = [line[len(indent) :] if line.startswith(indent) else line for line in lines]
        text = "".join(lines)
        cell_magic = lines[0].lstrip().startswith("%%")
        if not cell_magic and _parses(text):
            return text, {}, None, indent
    if cell_magic:
        candidates = set(range(len(lines)))
    else:
        candidates = {i for i, line in enumerate(lines) if _MAGIC.match(line) or _is_automagic(line, target)}
        for _ in range(3):  # a "%" or "!" line inside a triple-quoted string is text, not a magic
            inside = _string_rows(_render(lines, candidates, counter[:], {})) & candidates
            if not inside:
                break
            candidates -= inside
        candidates |= _continued(lines, candidates)
    broken = None
    if len(candidates) < len(lines):
        masked = _render(lines, candidates, counter[:], {})
        if not _accepted(masked, target):  # `api_key = <your-key>`, an unclosed bracket
            broken, candidates = masked, set(range(len(lines)))
    magics: dict[int, str] = {}
    return _render(lines, candidates, counter, magics), magics, broken, indent


def _is_automagic(line: str, target: str | None = None) -> bool:
    return bool(_AUTOMAGIC.match(line)) and not _accepted(line.strip(), target)


def _continued(lines: list[str], candidates: set[int]) -> set[int]:
    """The lines a magic continues onto with a trailing backslash (`%pip install \\`)."""
    found = set()
    for i in sorted(candidates):
        while i + 1 < len(lines) and lines[i].rstrip("\r\n").endswith("\\"):
            i += 1
            found.add(i)
    return found


def _render(lines: list[str], candidates: set[int], counter: list[int], magics: dict[int, str]) -> str:
    out = []
    whole_cell = len(candidates) == len(lines)
    for i, line in enumerate(lines):
        if i not in candidates:
            out.append(line)
            continue
        body = line.rstrip("\r\n")
        ending = line[len(body) :]
        counter[0] += 1
        magics[counter[0]] = body
        indent = body[: len(body) - len(body.lstrip())]
        # An indented line magic is a statement of its block: keep the block non-empty. A line a
        # magic continues onto (after its backslash) is no statement.
        continued = i > 0 and i - 1 in candidates and lines[i - 1].rstrip("\r\n").endswith("\\")
        stmt = "pass  " if indent and not whole_cell and not continued else ""
        out.append(f"{indent if stmt else ''}{stmt}# padlint-magic {counter[0]}{ending}")
    return "".join(out)


def restore(text: str, magics: dict[int, str]) -> str:
    if not magics:
        return text
    out = []
    for line in lines_of(text):
        body = line.rstrip("\r\n")
        match = PLACEHOLDER.match(body)
        if match and int(match.group(1)) in magics:
            out.append(magics[int(match.group(1))] + line[len(body) :])
        else:
            out.append(line)
    return "".join(out)


def reindent(changed: str, dedented: str, original: str, indent: str) -> str:
    """A dedented cell after a fix (`changed`), with the indentation IPython removes put back:
    the lines the fix kept are the `original` lines again; the lines it wrote get `indent`."""
    import difflib

    if not indent:
        return changed
    before, after, source = lines_of(dedented), lines_of(changed), lines_of(original)
    out: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
        if tag == "equal":
            out.extend(source[i1:i2])
        else:
            out.extend(indent + line if line.strip() else line for line in after[j1:j2])
    return "".join(out)
