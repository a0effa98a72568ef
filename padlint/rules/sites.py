"""Where a fix may put a statement of its own, and how the code it writes should read there.

A fix that needs a value more than once (a mask, the lengths it is built from, a tokenizer's
encoding) names it in a statement of its own, right before the statement it edits: the value is
computed once and the edited line stays short. That needs the statement (not a lambda's or a
comprehension's body, whose names the statement could not see), its indentation, names not taken
in the module, and the module's quote style and line length for the code written there.
"""

from __future__ import annotations

import io
import tokenize
from dataclasses import dataclass, field
from typing import TypeVar

import libcst as cst

from padlint.analysis.facts import ModuleFacts
from padlint.rules.layout import wrap

NodeT = TypeVar("NodeT", bound="cst.CSTNode")  # a string: `cst.` is not read at import
DEFAULT_LINE_LENGTH = 88  # black's and ruff's default, when the project sets none
# A value computed here may not move out of these: a lambda's or comprehension's names are its own.
# (Names, not classes: `cst.` is not read while padlint imports, see padlint/lazy_imports.py.)
_OWN_SCOPE = frozenset({"Lambda", "ListComp", "SetComp", "DictComp", "GeneratorExp"})
# Compound statements whose header runs once, before the body: a value it reads can be named before it.
_ONCE_HEADERS = frozenset({"If", "For", "With"})


@dataclass
class Site:
    """A statement a fix can put statements in front of."""

    statement: cst.CSTNode
    indent: str
    facts: ModuleFacts
    taken: set = field(default_factory=set)  # names the fix has chosen so far

    def fresh(self, preferred: str) -> str:
        """`preferred`, or `preferred_2`, ...: a name bound nowhere in the module, nor by another of its fixes."""
        used = module_names(self.facts) | self.taken | self.facts.names_bound_by_fixes
        name, n = preferred, 1
        while name in used:
            n += 1
            name = f"{preferred}_{n}"
        self.taken.add(name)
        self.facts.names_bound_by_fixes.add(name)
        return name

    def insertion(self, statements: list[str]) -> tuple:
        """An edit that puts `statements` (one line each, as written) before the site's statement."""
        width = line_length(self.facts) - len(self.indent)
        lines = [line for statement in statements for line in _wrapped(statement, width)]
        text = "".join(line + "\n" + self.indent for line in lines)
        start = self.facts.range_of(self.statement).start
        return (start, start, text)

    def insertion_after(self, statements: list[str]) -> tuple:
        """An edit that puts `statements` right after the site's statement (after its trailing comment)."""
        width = line_length(self.facts) - len(self.indent)
        lines = [line for statement in statements for line in _wrapped(statement, width)]
        last = self.statement.body[-1] if isinstance(self.statement, cst.SimpleStatementLine) else self.statement
        row = self.facts.range_of(last).end.line
        end = cst.metadata.CodePosition(row, len(_lines(self.facts)[row - 1]))
        return (end, end, "".join("\n" + self.indent + line for line in lines))

    def fits(self, node: cst.CSTNode, code: str) -> bool:
        """Would the line(s) of `node`, with `code` in its place, stay within the line length?"""
        span = self.facts.span(node)
        if span is None:
            return False
        lines = self.facts.module.code.splitlines()
        first, last = lines[span.start.line - 1], lines[span.end.line - 1]
        rebuilt = first[: span.start.column] + code + last[span.end.column :]
        return all(len(line) <= line_length(self.facts) for line in rebuilt.splitlines())


def _wrapped(statement: str, width: int) -> list[str]:
    """`statement` as `wrap` lays it out, for a statement that carries its own indentation (the body of a
    def the fix writes): its continuation lines are indented from that indentation, not from column 0."""
    body = statement.lstrip(" ")
    lead = statement[: len(statement) - len(body)]
    return [lead + line for line in wrap(body, width - len(lead))] if body else [statement]


def source_of(facts: ModuleFacts, node: cst.CSTNode) -> str | None:
    """The text of `node` as the file spells it (continuation lines keep their indentation)."""
    span = facts.span(node)
    return text_between(facts, span.start, span.end) if span is not None else None


def text_between(facts: ModuleFacts, start, end) -> str:
    lines = _lines(facts)
    if start.line == end.line:
        return lines[start.line - 1][start.column : end.column]
    middle = lines[start.line : end.line - 1]
    return "\n".join([lines[start.line - 1][start.column :], *middle, lines[end.line - 1][: end.column]])


def _lines(facts: ModuleFacts) -> list[str]:
    lines = facts.source_lines
    if lines is None:
        lines = facts.source_lines = facts.module.code.splitlines()
    return lines


def fit_line(facts: ModuleFacts, edits: list) -> list:
    """`edits` as they are, or, when they make the one line they change longer than the line length,
    one edit that writes that line broken at its own brackets (a trailing comment stays at its end).
    Only a line whose brackets balance is broken: a break inside them is always a continuation."""
    placed, rows = [], set()
    for edit in edits:
        if len(edit) == 2:
            where = facts.span(edit[0])
            if where is None:
                return edits
            start, end, text = where.start, where.end, edit[1]
        else:
            start, end, text = edit
        if "\n" in text:
            return edits  # a named value on a line of its own: that line is already written to fit
        rows |= {start.line, end.line}
        placed.append((start.column, end.column, text))
    lines_now = _lines(facts)
    if len(rows) == 2 and len(placed) == 1:
        # one value that spanned several lines, written on one: the lines it spanned become that one line
        first_row, last_row = min(rows), max(rows)
        first, last, text = placed[0]
        row, line = first_row, lines_now[first_row - 1]
        new = line[:first] + text + lines_now[last_row - 1][last:]
        end_column = len(lines_now[last_row - 1])
    elif len(rows) == 1:
        row = rows.pop()
        line = lines_now[row - 1]
        new, last_row, end_column = line, row, len(line)
        for first, last, text in sorted(placed, reverse=True):
            new = new[:first] + text + new[last:]
    else:
        return edits
    if len(new) <= line_length(facts):
        return edits
    indent = new[: len(new) - len(new.lstrip())]
    comment = _comment_at(new)
    body = (new[:comment] if comment is not None else new).strip()
    if not _balanced(body) or any(t.type == tokenize.OP and t.string == ";" for t in _line_tokens(body)):
        return edits  # brackets that do not close here, or two statements on one line
    lines = wrap(body, line_length(facts) - len(indent))
    if len(lines) == 1:
        return edits
    text = ("\n" + indent).join(lines)
    if comment is not None:
        text += "  " + new[comment:].strip()
    # from the first character of the line on: a statement a fix puts before it is inserted there too
    column = len(line) - len(line.lstrip())
    return [(cst.metadata.CodePosition(row, column), cst.metadata.CodePosition(last_row, end_column), text)]


def _balanced(code: str) -> bool:
    depth = 0
    for token in _line_tokens(code):
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def _line_tokens(code: str) -> list:
    tokens = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            tokens.append(token)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return []
    return tokens


def _comment_at(line: str) -> int | None:
    """Where the line's trailing `#` comment starts, if it has one."""
    offset = len(line) - len(line.lstrip())
    for token in _line_tokens(line.lstrip()):
        if token.type == tokenize.COMMENT:
            return offset + token.start[1]
    return None


def site_of(facts: ModuleFacts, node: cst.CSTNode) -> Site | None:
    """The statement that evaluates `node` directly, if a statement may go before it."""
    path = path_to(facts, node)
    if not path:
        return None
    statement = None
    for i, step in enumerate(path):
        if isinstance(step, cst.SimpleStatementLine):
            statement = i
        elif type(step).__name__ in _ONCE_HEADERS and not _in_body(path, i):
            statement = i
        elif isinstance(step, cst.BaseCompoundStatement):
            statement = None  # a header evaluated more than once (`while`), or a body below
    if statement is None or any(type(step).__name__ in _OWN_SCOPE for step in path[statement:-1]):
        return None
    stmt = path[statement]
    span = facts.span(stmt)
    if span is None:
        return None
    line = _lines(facts)[span.start.line - 1]
    indent = line[: span.start.column]
    if indent.strip():
        return None  # after `;` or on the line of its `if x:`: no line of its own to go before
    return Site(stmt, indent, facts)


def _in_body(path: list, i: int) -> bool:
    """Is the rest of `path` inside the body (or else-branch) of the compound statement path[i]?"""
    compound = path[i]
    rest = path[i + 1] if i + 1 < len(path) else None
    return rest is not None and rest in (
        compound.body,
        getattr(compound, "orelse", None),
    )


def bound_tightly(facts: ModuleFacts | None, node: cst.CSTNode, code: str) -> str:
    """`code` to write in place of `node`, in parentheses where its parent would split it apart:
    `ids.ne(pad).long()` -> `(positions < lengths).long()`, not `positions < lengths.long()`."""
    if facts is None or getattr(node, "lpar", None):
        return code  # the node's own parentheses stay around it
    try:
        expr = cst.parse_expression(code)
    except cst.ParserSyntaxError:
        return code
    if expr.lpar or isinstance(expr, (cst.Name, cst.Call, cst.Subscript, cst.Attribute, cst.BaseList, cst.BaseComp)):
        return code
    if isinstance(expr, (cst.Integer, cst.Float, cst.SimpleString, cst.Tuple, cst.Dict, cst.Set)):
        return code
    path = path_to(facts, node)
    parent = path[-2] if len(path) > 1 else None
    tight = (cst.Attribute, cst.Subscript, cst.Call, cst.BinaryOperation, cst.UnaryOperation, cst.Comparison)
    if isinstance(parent, tight) and not (isinstance(parent, cst.Call) and parent.func is not node):
        return f"({code})"
    return code


def top_level_name(facts: ModuleFacts, node: cst.CSTNode) -> str | None:
    """The name of the top-level def or class `node` sits in (None: script code, or not found)."""
    path = path_to(facts, node)
    for outer in path[:1]:
        if isinstance(outer, (cst.FunctionDef, cst.ClassDef)):
            return outer.name.value
    return None


def path_to(facts: ModuleFacts, node: cst.CSTNode) -> list:
    """The nodes from the module down to `node` (by position), or [] if it is not found."""
    target = facts.span(node)
    if target is None:
        return []
    path: list[cst.CSTNode] = []
    current: cst.CSTNode = facts.module
    while current is not node:
        for child in current.children:
            if child is node:
                nxt = child
                break
            span = facts.span(child)
            if span is not None and _contains(span, target):
                nxt = child
                break
        else:
            return []
        path.append(nxt)
        current = nxt
    return path


def enclosing(facts: ModuleFacts, node: cst.CSTNode, kind: type[NodeT]) -> NodeT | None:
    """The innermost node of type `kind` that `node` sits in (or is), or None."""
    return next((s for s in reversed(path_to(facts, node)) if isinstance(s, kind)), None)


def _contains(outer, inner) -> bool:
    return (outer.start.line, outer.start.column) <= (inner.start.line, inner.start.column) and (
        outer.end.line,
        outer.end.column,
    ) >= (inner.end.line, inner.end.column)


def module_names(facts: ModuleFacts) -> set[str]:
    """Every identifier of the module: a name a fix binds must not be one of them."""
    names = facts.module_names
    if names is None:
        tokens = _tokens(facts)
        if tokens is not None:
            names = {t.string for t in tokens if t.type == tokenize.NAME}
        else:
            names = {n.value for n in _walk(facts.module) if isinstance(n, cst.Name)}
        facts.module_names = names
    return names


def _tokens(facts: ModuleFacts) -> list[tokenize.TokenInfo] | None:
    """The module's tokens, from its text: reading names and quotes off them costs a fraction of
    walking libcst's tree (seconds on a trainer of thousands of lines). None without the text."""
    if facts.source_text is None:
        return None
    try:
        return list(tokenize.generate_tokens(io.StringIO(facts.source_text).readline))
    except (tokenize.TokenError, SyntaxError):
        return None


def _walk(node: cst.CSTNode):
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.children)


def line_length(facts: ModuleFacts) -> int:
    return facts.line_length or DEFAULT_LINE_LENGTH


def quote(facts: ModuleFacts) -> str:
    """The module's string quote: `'` when most of its plain string literals use it, else `"`."""
    found = facts.quote
    if found is None:
        tokens = _tokens(facts)
        if tokens is not None:
            # f-strings are not plain literals (libcst's FormattedString; 3.12 tokenizes them apart)
            literals = [t.string for t in tokens if t.type == tokenize.STRING and not _is_fstring(t.string)]
        else:
            literals = [n.value for n in _walk(facts.module) if isinstance(n, cst.SimpleString)]
        single = double = 0
        for literal in literals:
            body = literal.lstrip("rRbBuUfF")
            if body.startswith(("'''", '"""')):
                continue
            single += body.startswith("'")
            double += body.startswith('"')
        found = facts.quote = "'" if single > double else '"'
    return found


def _is_fstring(literal: str) -> bool:
    prefix = literal[: len(literal) - len(literal.lstrip("rRbBuUfF"))]
    return "f" in prefix.lower()


def key(facts: ModuleFacts, name: str) -> str:
    """A string literal for a dict key, in the module's quotes: `"attention_mask"`."""
    q = quote(facts)
    return f"{q}{name}{q}"
