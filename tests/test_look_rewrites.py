"""The first look keeps every finding when the code is spelled another way.

The rule fixtures, the examples and every rule's INVALID examples are rewritten in ways that keep
their meaning (an imported name under another name, a keyword value in parentheses, a chained or
annotated or continued assignment, triple quotes in comments, each collator's values moved into a
class's `__init__`, pad ids read through a helper, decoy defs sharing the real ones' names), and
padlint must report the same findings with the first look on and off.
Rewrites like these found about a dozen misses of the look (tests/fixtures/look_spellings/ holds them).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import libcst as cst
import pytest
from test_prefilter import _findings

from padlint.rules import ALL_RULES

ROOT = Path(__file__).resolve().parents[1]


class _AliasImports(cst.CSTTransformer):
    """`from m import a` -> `from m import a as imported_a`, and every use of `a` renamed."""

    def __init__(self) -> None:
        self.renamed: dict[str, str] = {}

    def leave_ImportAlias(self, original, updated):
        if updated.asname is None and isinstance(updated.name, cst.Name):
            alias = f"imported_{updated.name.value}"
            self.renamed[updated.name.value] = alias
            return updated.with_changes(asname=cst.AsName(name=cst.Name(alias)))
        return updated

    def visit_Import(self, node) -> bool:
        return False  # `import torch` stays: only names imported from a module are renamed


class _RenameUses(cst.CSTTransformer):
    def __init__(self, renamed: dict[str, str]) -> None:
        self.renamed = renamed

    def leave_Attribute(self, original, updated):
        return updated.with_changes(attr=original.attr)  # the receiver may be renamed, the attribute never

    def leave_Arg(self, original, updated):
        return updated.with_changes(keyword=original.keyword)  # `f(name=...)`: a keyword, not a use

    def visit_ImportFrom(self, node) -> bool:
        return False

    def leave_Name(self, original, updated):
        return updated.with_changes(value=self.renamed.get(updated.value, updated.value))


def alias_imports(module: cst.Module) -> cst.Module:
    aliasing = _AliasImports()
    module = module.visit(aliasing)
    return module.visit(_RenameUses(aliasing.renamed))


class _ParenthesiseKeywords(cst.CSTTransformer):
    def leave_Arg(self, original, updated):
        if updated.keyword is None or updated.value.lpar:
            return updated
        return updated.with_changes(value=updated.value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]))


class _Assignments(cst.CSTTransformer):
    """`x = v` (one name target) as a chained, annotated or continued assignment."""

    def __init__(self, how: str) -> None:
        self.how = how
        self.count = 0

    def leave_Assign(self, original, updated):
        if len(updated.targets) != 1 or not isinstance(updated.targets[0].target, cst.Name):
            return updated
        self.count += 1
        if self.how == "chain":
            return updated.with_changes(
                targets=[*updated.targets, cst.AssignTarget(cst.Name(f"_chained_{self.count}"))]
            )
        if self.how == "continued":
            return updated.with_changes(
                targets=[updated.targets[0].with_changes(whitespace_after_equal=cst.SimpleWhitespace(" \\\n        "))]
            )
        return cst.AnnAssign(
            target=updated.targets[0].target, annotation=cst.Annotation(cst.SimpleString('"Any"')), value=updated.value
        )


def _libcst(transformer: Callable[[], cst.CSTTransformer]) -> Callable[[str], str]:
    return lambda text: cst.parse_module(text).visit(transformer()).code


def _triple_quotes_in_comments(text: str) -> str:
    return '# a template wraps these in """\n' + text + '\n# end of the """-wrapped part\n'


def _into_init(text: str) -> str:
    """Each module function `def f(a, b, ...)` also as a class whose `__init__` stores `b, ...` and
    whose `__call__(a)` reads them from `self`: values a collator needs move into `__init__`."""

    def as_class(match: re.Match) -> str:
        name, first, rest = match.group(1), match.group(2), [p.strip() for p in match.group(3).split(",") if p.strip()]
        names = [p.split("=")[0].split(":")[0].strip() for p in rest]
        if not names or any(not n.isidentifier() for n in names):
            return match.group(0)
        stored = "".join(f"        self.{n} = {n}\n" for n in names)
        reads = "".join(f"        {n} = self.{n}\n" for n in names)
        return (
            f"class {name.title().replace('_', '')}Callable:\n    def __init__(self, {', '.join(rest)}):\n{stored}\n"
            f"    def __call__(self, {first}):\n{reads}"
            + "\n".join("    " + line if line else line for line in match.group(4).splitlines())
            + "\n\n\n"
            + match.group(0)
        )

    return re.sub(r"(?ms)^def (\w+)\((\w+), ([^)]*)\):\n((?:[ \t]+[^\n]*\n|\n)+?)(?=^\S|\Z)", as_class, text)


def _pad_id_through_a_helper(text: str) -> str:
    """`tok.pad_token_id` read through a module function defined after its uses."""
    new = re.sub(r"\b([A-Za-z_][\w.]*)\.pad_token_id\b(?!\s*=(?!=))", r"_pad_id_of(\1)", text)
    return new + "\n\ndef _pad_id_of(tokenizer):\n    return tokenizer.pad_token_id\n" if new != text else text


def _decoys(text: str) -> str:
    """Defs that share the names of the real ones: a class with a method named like each module
    function, and a module function named like each method (none of them pads)."""
    module = cst.parse_module(text)
    functions = {s.name.value for s in module.body if isinstance(s, cst.FunctionDef)}
    methods = {
        m.name.value
        for s in module.body
        if isinstance(s, cst.ClassDef)
        for m in s.body.body
        if isinstance(m, cst.FunctionDef)
    }
    methods = {m for m in methods - functions if not m.startswith("__")}
    if not functions and not methods:
        return text
    decoy = "\n\nclass Decoy:\n" + "".join(
        f"    def {f}(self, *args, **kwargs):\n        return None\n\n" for f in sorted(functions)
    )
    decoy += "    pass\n" + "".join(f"\n\ndef {m}(*args, **kwargs):\n    return None\n" for m in sorted(methods))
    return text + decoy


REWRITES: dict[str, Callable[[str], str]] = {
    "pad ids through a helper": _pad_id_through_a_helper,
    "decoy defs sharing names": _decoys,
    "imports under other names": lambda text: alias_imports(cst.parse_module(text)).code,
    "keyword values in parentheses": _libcst(_ParenthesiseKeywords),
    "chained assignments": _libcst(lambda: _Assignments("chain")),
    "annotated assignments": _libcst(lambda: _Assignments("annotated")),
    "continued assignments": _libcst(lambda: _Assignments("continued")),
    "triple quotes in comments": _triple_quotes_in_comments,
    "values stored by __init__": _into_init,
}


def _inputs() -> list[tuple[str, str]]:
    files = sorted((ROOT / "tests" / "fixtures" / "rules").rglob("*.py")) + sorted((ROOT / "examples").glob("*.py"))
    found = [(p.stem, p.read_text(encoding="utf-8")) for p in files]
    found += [(f"{rule.code}_invalid_{i}", example) for rule in ALL_RULES for i, example in enumerate(rule.INVALID)]
    return found


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(REWRITES))
def test_a_rewritten_corpus_has_the_same_findings_with_the_first_look(kind, tmp_path):
    rewrite, written = REWRITES[kind], []
    for name, text in _inputs():
        try:
            new = rewrite(text)
            compile(new, name, "exec")
        except (cst.ParserSyntaxError, SyntaxError, ValueError):
            continue  # a rewrite this input does not take
        if new != text:
            path = tmp_path / f"{name}.py"
            path.write_text(new, encoding="utf-8")
            written.append(str(path))
    assert len(written) > 20, "the rewrite should apply to much of the corpus"
    without = _findings(written, prefilter_on=False)
    assert without, "the rewritten corpus should still have findings"
    assert _findings(written, prefilter_on=True) == without
