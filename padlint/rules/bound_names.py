"""A fix may only read names that are bound where its code runs.

A rule builds fix code from what the analysis followed, and the analysis follows values across
methods and functions: code that is right in one method (`model_inputs["attention_mask"]`) raises
NameError when it is written into another. Before a fix is offered, every name its code reads that
the replaced text did not already read must be visible at the edit point: bound by the fix itself
(a statement it puts first, a comprehension's or lambda's own variable, an import it adds), a local
bound before the edit, a parameter, a name of an enclosing function or of the module, or a builtin.
"""

from __future__ import annotations

import io
import keyword
import tokenize
from collections.abc import Iterable, Mapping

import libcst as cst

LOCAL_SCOPES = ("FunctionScope", "ComprehensionScope")


class NameCheck:
    """The module's scopes, resolved once (only for a file with a fix to check)."""

    def __init__(self, module: cst.Module, positions) -> None:
        self.module = module
        self.positions = positions
        self._scopes: Mapping[cst.CSTNode, object] | None = None
        self.star_import = any(
            isinstance(small, cst.ImportFrom) and isinstance(small.names, cst.ImportStar)
            for stmt in module.body
            if isinstance(stmt, cst.SimpleStatementLine)
            for small in stmt.body
        )

    def scopes(self):
        if self._scopes is None:
            from libcst.metadata import MetadataWrapper, ScopeProvider

            self._scopes = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(ScopeProvider)
        return self._scopes

    def unbound(self, replacements: Iterable[tuple], added: Iterable[str] = ()) -> list[str]:
        """The names the edits read that are not bound where they run (empty: the fix may be offered)."""
        if self.star_import:
            return []  # `from x import *` binds names nobody can list
        edits = [self._placed(r) for r in replacements]
        if any(e is None for e in edits):
            return []
        own = set(added)
        for _, _, text, _ in edits:
            own |= bound_by(text)
        missing: list[str] = []
        for node, start, text, replaced in edits:
            scope = self._scope_at(node, start)
            if scope is None:
                continue
            for name in read_by(text) - own - read_by(replaced):
                if name not in missing and not self._visible(scope, name, start.line):
                    missing.append(name)
        return missing

    def _placed(self, replacement: tuple):
        """(node at the edit, start position, new text, replaced text) of one edit, or None."""
        if len(replacement) == 2:
            node, text = replacement
            span = self.positions.get(node)
            return (node, span.start, text, self.module.code_for_node(node)) if span is not None else None
        start, end, text = replacement
        node = self._node_at(start)
        return (node, start, text, _text_between(self.module.code, start, end)) if node is not None else None

    def _node_at(self, at) -> cst.CSTNode | None:
        """The innermost node whose span holds the position `at`."""
        node: cst.CSTNode = self.module
        found: cst.CSTNode | None = None
        while True:
            for child in node.children:
                span = self.positions.get(child)
                if span is not None and (span.start.line, span.start.column) <= (at.line, at.column) <= (
                    span.end.line,
                    span.end.column,
                ):
                    node = found = child
                    break
            else:
                return found if found is not None else self.module

    def _scope_at(self, node: cst.CSTNode, start):
        return self.scopes().get(node)

    def _visible(self, scope, name: str, line: int) -> bool:
        if name not in scope:
            return False
        if type(scope).__name__ not in LOCAL_SCOPES or not scope.assignments[name]:
            return True  # bound in an enclosing function, the module or builtins
        # a local: bound before the edit (a parameter, an earlier statement, an enclosing loop's target)
        for assignment in scope.assignments[name]:
            span = self.positions.get(getattr(assignment, "node", None))
            if span is None or span.start.line <= line:
                return True
        return False


def read_by(code: str) -> set[str]:
    """The names `code` reads (attributes, keywords of a call and string contents are not names)."""
    names = set()
    tokens = _tokens(code)
    for i, token in enumerate(tokens):
        if token.type != tokenize.NAME or keyword.iskeyword(token.string):
            continue
        before = tokens[i - 1].string if i else ""
        after = tokens[i + 1].string if i + 1 < len(tokens) else ""
        if before == "." or (after == "=" and before in ("(", ",")):
            continue
        names.add(token.string)
    return names


def bound_by(code: str) -> set[str]:
    """The names `code` binds: `name = ...` statements, `name := ...`, comprehension and lambda variables."""
    names = set()
    for line in code.splitlines():
        tokens = _tokens(line.strip())
        if len(tokens) > 1 and tokens[0].type == tokenize.NAME and tokens[1].string == "=":
            names.add(tokens[0].string)
        if len(tokens) > 1 and tokens[0].string in ("def", "class"):
            names.add(tokens[1].string)
        if tokens and tokens[0].string in ("import", "from"):
            names |= set(_imported_names(tokens))
        if tokens and tokens[0].string == "def":  # its parameters are bound in its body
            names |= {t.string for t in tokens[2:] if t.type == tokenize.NAME}
        binding = None
        for i, token in enumerate(tokens):
            if token.string in ("for", "lambda"):
                binding = token.string
            elif binding and token.string in ("in", ":"):
                binding = None
            elif binding and token.type == tokenize.NAME:
                names.add(token.string)
            if token.string == ":=" and i and tokens[i - 1].type == tokenize.NAME:
                names.add(tokens[i - 1].string)
    return names


def _imported_names(tokens: list) -> list[str]:
    """`import a.b as c, d` -> [c, d]; `from x import y` -> [y]."""
    words = [t.string for t in tokens]
    start = words.index("import") + 1 if "import" in words else len(words)
    names: list[str] = []
    i = start
    while i < len(words):
        if words[i] == "as" and i + 1 < len(words):
            names[-1:] = [words[i + 1]]
            i += 2
            continue
        if words[i] not in (",", ".", "(", ")"):
            names.append(words[i] if not names or words[i - 1] != "." else names.pop())
        i += 1
    return names


def _tokens(code: str) -> list[tokenize.TokenInfo]:
    found = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.type in (tokenize.NAME, tokenize.OP):
                found.append(token)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass  # an edit is often a fragment (`, mask=m`, `name = f(`): the tokens up to there will do
    return found


def _text_between(source: str, start, end) -> str:
    lines = source.splitlines(keepends=True)
    if start.line == end.line:
        return lines[start.line - 1][start.column : end.column] if start.line <= len(lines) else ""
    middle = lines[start.line : end.line - 1]
    tail = lines[end.line - 1][: end.column] if end.line <= len(lines) else ""
    return "".join([lines[start.line - 1][start.column :], *middle, tail])
