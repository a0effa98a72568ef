"""A fix may only read names that are bound where its code runs.

A rule builds fix code from what the analysis followed, and the analysis follows values across
methods and functions: code that is right in one method (`model_inputs["attention_mask"]`) raises
NameError when it is written into another. Before a fix is offered, every name its code reads that
the replaced text did not already read must be visible at the edit point: bound by the fix itself
(a statement it puts first, a comprehension's or lambda's own variable, an import it adds), a local
bound before the edit, a parameter, a name of an enclosing function or of the module, or a builtin.
"""

from __future__ import annotations

import ast
import builtins
import io
import keyword
import tokenize
from collections.abc import Iterable

import libcst as cst


class NameCheck:
    """Which names are bound where: the module's scopes from the stdlib's `ast` (only for a file with
    a fix to check). libcst's ScopeProvider gives the same answer at some fifty times the cost on a
    large module (measured on transformers' generation/utils.py)."""

    def __init__(self, module: cst.Module, positions, source: str | None = None) -> None:
        self.module = module
        self.positions = positions
        self.source = source if source is not None else module.code
        self._scopes: list[_Scope] | None = None
        self.star_import = any(
            isinstance(small, cst.ImportFrom) and isinstance(small.names, cst.ImportStar)
            for stmt in module.body
            if isinstance(stmt, cst.SimpleStatementLine)
            for small in stmt.body
        )

    def scopes(self) -> list[_Scope]:
        if self._scopes is None:
            try:
                tree = ast.parse(self.source)
            except (SyntaxError, ValueError):
                tree = None  # a text libcst parses and CPython does not: no scopes, nothing refused
            self._scopes = _index(tree, self.source) if tree is not None else []
        return self._scopes

    def unbound(self, replacements: Iterable[tuple], added: Iterable[str] = ()) -> list[str]:
        """The names the edits read that are not bound where they run (empty: the fix may be offered)."""
        if self.star_import:
            return []  # `from x import *` binds names nobody can list
        edits = [self._placed(r) for r in replacements]
        if any(e is None for e in edits) or not self.scopes():
            return []
        own = set(added)
        for _, text, _ in edits:
            own |= bound_by(text)
        missing: list[str] = []
        for start, text, replaced in edits:
            chain = [s for s in self.scopes() if s.holds(start.line, start.column)]
            chain.sort(key=lambda s: s.depth, reverse=True)  # innermost first
            for name in read_by(text) - own - read_by(replaced):
                if name not in missing and not _visible(chain, name, start.line):
                    missing.append(name)
        return missing

    def _placed(self, replacement: tuple):
        """(start position, new text, replaced text) of one edit, or None."""
        if len(replacement) == 2:
            node, text = replacement
            span = self.positions.get(node)
            return (span.start, text, self.module.code_for_node(node)) if span is not None else None
        start, end, text = replacement
        return start, text, _text_between(self.source, start, end)


class _Scope:
    """One scope of the module: where its code runs (lines and columns, libcst's counting) and the
    names bound in it, each with the lines that bind it and the block each binding is confined to."""

    def __init__(self, kind: str, depth: int, start: tuple[int, int], end: tuple[int, int]) -> None:
        self.kind = kind  # "module", "class", "function", "lambda", "comprehension"
        self.depth = depth
        self.start, self.end = start, end
        # name -> (line, the lines of the block that binds it only on some paths, or None: every path)
        self.bindings: dict[str, list[tuple[int, tuple[int, int] | None]]] = {}
        self.declared: dict[str, str] = {}  # name -> "global" / "nonlocal"

    def holds(self, line: int, column: int) -> bool:
        return self.start <= (line, column) <= self.end

    def bind(self, name: str, line: int, block: tuple[int, int] | None = None) -> None:
        self.bindings.setdefault(name, []).append((line, block))

    def bound_at(self, name: str, line: int) -> bool:
        """Is `name` bound on every path to `line` of this scope's own code: by an earlier line that
        always runs, or inside the same branch, loop or `try` body as `line`?"""
        return any(
            at <= line and (block is None or block[0] <= line <= block[1]) for at, block in self.bindings.get(name, ())
        )


def _visible(chain: list[_Scope], name: str, line: int) -> bool:
    """Python's lookup from the innermost scope out: a local of the function the edit is in must be
    bound on an earlier line; enclosing functions, the module and builtins bind for the whole run;
    a class body is not seen from the functions inside it."""
    for i, scope in enumerate(chain):
        if scope.declared.get(name) == "global":
            return name in chain[-1].bindings or hasattr(builtins, name)
        if (scope.kind == "class" and i > 0) or scope.declared.get(name) == "nonlocal":
            continue
        if name in scope.bindings:
            # Module code runs in order too: an edit in it reads what earlier lines bound on every path.
            return scope.kind not in ("function", "module") or i > 0 or scope.bound_at(name, line)
    return hasattr(builtins, name)


TRY_STAR = (ast.TryStar,) if hasattr(ast, "TryStar") else ()  # Python 3.11+


def _index(tree: ast.Module, source: str) -> list[_Scope]:
    lines = source.splitlines()

    def at(line: int, byte_column: int) -> tuple[int, int]:
        """ast counts columns in UTF-8 bytes, libcst in characters."""
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        return line, len(text.encode("utf-8")[:byte_column].decode("utf-8", errors="ignore"))

    module = _Scope("module", 0, (0, 0), (len(lines) + 1, 0))
    scopes = [module]

    def opened(kind: str, node: ast.AST, first: ast.AST, parent: _Scope) -> _Scope:
        end = at(node.end_lineno or node.lineno, node.end_col_offset or 0)  # type: ignore[attr-defined]
        scope = _Scope(kind, parent.depth + 1, at(first.lineno, first.col_offset), end)  # type: ignore[attr-defined]
        scopes.append(scope)
        return scope

    # The block of the scope's code being read that runs on some paths only (a branch, a loop body,
    # a `try` body or handler), innermost last; None where every path runs (a new scope's body).
    blocks: list[tuple[int, int] | None] = [None]

    def bind(scope: _Scope, name: str, line: int) -> None:
        scope.bind(name, line, blocks[-1])

    def bind_target(target: ast.AST, scope: _Scope) -> None:
        # only names stored to: `rows[i, : len(x)] = v` binds nothing (`rows`, `i`, `len`, `x` are read)
        for node in ast.walk(target):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                bind(scope, node.id, node.lineno)

    def visit_block(stmts: list, scope: _Scope, function_scope: _Scope, extra: tuple = ()) -> None:
        if not stmts:
            return
        blocks.append((stmts[0].lineno, stmts[-1].end_lineno or stmts[-1].lineno))
        for part in (*extra, *stmts):
            visit(part, scope, function_scope)
        blocks.pop()

    def visit_new_scope(stmts: list, scope: _Scope, function_scope: _Scope) -> None:
        blocks.append(None)
        for stmt in stmts:
            visit(stmt, scope, function_scope)
        blocks.pop()

    def visit_branches(node: ast.AST, scope: _Scope, function_scope: _Scope) -> bool:
        """Branches, loops and `try`: each block binds for its own lines; a name every way through
        binds (`if`/`else` both, a `try` body and each handler that goes on) binds after it."""
        ways: list[list] = []
        if isinstance(node, ast.If):
            visit(node.test, scope, function_scope)
            visit_block(node.body, scope, function_scope)
            visit_block(node.orelse, scope, function_scope)
            ways = [node.body, node.orelse] if node.orelse else []
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            visit(node.iter, scope, function_scope)
            blocks.append((node.body[0].lineno, node.end_lineno or node.lineno))
            bind_target(node.target, scope)  # the loop variable is bound only once the loop runs
            blocks.pop()
            visit_block(node.body, scope, function_scope)
            visit_block(node.orelse, scope, function_scope)
        elif isinstance(node, ast.While):
            visit(node.test, scope, function_scope)
            visit_block(node.body, scope, function_scope)
            visit_block(node.orelse, scope, function_scope)
        elif isinstance(node, (ast.Try, *TRY_STAR)):
            tried = [*node.body, *node.orelse]  # type: ignore[attr-defined]
            handlers: list[ast.ExceptHandler] = node.handlers  # type: ignore[attr-defined]
            visit_block(tried, scope, function_scope)
            for handler in handlers:
                if handler.type is not None:
                    visit(handler.type, scope, function_scope)
                if handler.name:
                    blocks.append((handler.lineno, handler.end_lineno or handler.lineno))
                    bind(scope, handler.name, handler.lineno)
                    blocks.pop()
                visit_block(handler.body, scope, function_scope)
            for stmt in node.finalbody:  # type: ignore[attr-defined]
                visit(stmt, scope, function_scope)
            ways = [tried, *(h.body for h in handlers if not _stops(h.body))]
        elif isinstance(node, ast.Match):
            visit(node.subject, scope, function_scope)
            for case in node.cases:
                visit_block(case.body, scope, function_scope, (case.pattern, *([case.guard] if case.guard else [])))
        else:
            return False
        if ways:
            end = ways[-1][-1].end_lineno or ways[-1][-1].lineno  # the last way's last statement
            for name in set.intersection(*(_bound_in(way) for way in ways)):
                bind(scope, name, end)
        return True

    def visit(node: ast.AST, scope: _Scope, function_scope: _Scope) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bind(scope, node.name, node.lineno)
            for outer in [*node.decorator_list, *getattr(node, "bases", ()), *getattr(node, "keywords", ())]:
                visit(outer, scope, function_scope)
            if isinstance(node, ast.ClassDef):
                inner = opened("class", node, node.body[0], scope)
                visit_new_scope(node.body, inner, function_scope)
                return
            for default in [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]:
                visit(default, scope, function_scope)
            inner = opened("function", node, node.body[0], scope)
            _bind_parameters(node.args, inner, node.lineno)
            visit_new_scope(node.body, inner, inner)
            return
        if isinstance(node, ast.Lambda):
            inner = opened("lambda", node, node.body, scope)
            _bind_parameters(node.args, inner, node.lineno)
            visit_new_scope([node.body], inner, inner)
            return
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            inner = opened("comprehension", node, node, scope)
            blocks.append(None)
            for generator in node.generators:
                bind_target(generator.target, inner)
            for child in ast.iter_child_nodes(node):
                visit(child, inner, function_scope)
            blocks.pop()
            return
        if visit_branches(node, scope, function_scope):
            return
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                scope.declared[name] = "global" if isinstance(node, ast.Global) else "nonlocal"
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                bind_target(target, scope)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            bind_target(node.target, scope)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            bind_target(node.optional_vars, scope)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                bind(scope, alias.asname or alias.name.split(".")[0], node.lineno)
        elif isinstance(node, ast.NamedExpr):
            bind_target(node.target, function_scope)  # `:=` in a comprehension binds in the function
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            bind(scope, node.name, node.lineno)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            bind(scope, node.rest, node.lineno)
        for child in ast.iter_child_nodes(node):
            visit(child, scope, function_scope)

    for stmt in tree.body:
        visit(stmt, module, module)
    return scopes


def _bound_in(stmts: list) -> set[str]:
    """The names `stmts` bind in their own scope on some path (nested functions' bodies aside)."""
    names: set[str] = set()
    todo: list[ast.AST] = list(stmts)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {alias.asname or alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        todo.extend(ast.iter_child_nodes(node))
    return names


def _stops(stmts: list) -> bool:
    """Does this block end the way through it (`raise`, `return`, `sys.exit(...)`...)?"""
    last = stmts[-1] if stmts else None
    if isinstance(last, (ast.Raise, ast.Return, ast.Continue, ast.Break)):
        return True
    call = last.value if isinstance(last, ast.Expr) else None
    if isinstance(call, ast.Call):
        func = call.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        return name in ("exit", "_exit", "quit")
    return False


def _bind_parameters(args: ast.arguments, scope: _Scope, line: int) -> None:
    for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
        if arg is not None:
            scope.bind(arg.arg, line)


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
        unpacked = _unpacking_targets(tokens)  # `a, b, c = ...`
        names |= set(unpacked)
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


def _unpacking_targets(tokens: list) -> list[str]:
    """`a, b, c = ...` -> [a, b, c]: plain names separated by commas, then `=`."""
    names: list[str] = []
    for i, token in enumerate(tokens):
        if i % 2 == 0:
            if token.type != tokenize.NAME or keyword.iskeyword(token.string):
                return []
            names.append(token.string)
        elif token.string == "=":
            return names if len(names) > 1 else []
        elif token.string != ",":
            return []
    return []


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
