"""Whether two names can hold one tokenizer object, as far as one scope's own code says.

Pad = EOS is a fact about one tokenizer object: `reward_tok.pad_token = reward_tok.eos_token` says
nothing about `self.tokenizer` unless some code of the scope makes them the same object. Within one
scope (a function, a class whose methods share `self.*`, or the module's script code) that takes an
assignment, a loop or `with` target, or a call of one of the class's own methods that connects them,
through what the bound value can be (`_sources`: names, container elements, a helper's arguments, but
not what a class or factory called makes). A link that may not be one keeps the setting in play, as the
analysis did before. Names of different scopes (a helper's parameter, a caller's argument) are never
judged here.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.facts import ModuleFacts, Owner, tokenizer_argument
from padlint.analysis.module_info import owner_of
from padlint.analysis.patterns import child_nodes, dotted


def setting_may_reach(facts: ModuleFacts, setting: cst.CSTNode, tok: str | None, at: cst.CSTNode | None) -> bool:
    """Can the tokenizer `tok` given pad = EOS at `setting` be the one whose pad `at` uses (named there:
    `x.pad_token_id`, or a call's `tokenizer=`)? Judged only within one scope whose names mean the same
    in both places: the same function, the methods of one class, or script code. Facts carry the owner
    they were walked in (script code that calls a method), so the places are found where they are written."""
    used = _tokenizer_named(facts, at) if at is not None else None
    if tok is None or used is None or at is None or tok == used:
        return True
    found_setting, where = _written_in(facts, setting)
    found_use, owner = _written_in(facts, at)
    if not (found_setting and found_use):
        return True  # a node of another module
    if where == owner:
        return may_be_one_object(facts.module if where is None else where.node, tok, used)
    if where is not None and owner is not None and where.cls is not None and where.cls is owner.cls:
        return may_be_one_object(where.cls, tok, used)
    return True


def _tokenizer_named(facts: ModuleFacts, node: cst.CSTNode) -> str | None:
    """The tokenizer `node` names as the one whose pad it uses: a call's `tokenizer=` argument, or the
    one receiver of `.pad_token_id` / `.pad_token` written in it."""
    given = tokenizer_argument(node) if isinstance(node, cst.Call) else None
    if given is not None:
        return dotted(given.value) or None
    receivers = facts.pad_id_receivers(node)
    if len(receivers) != 1 or receivers & {"self", "cls"}:
        return None  # several, or an id kept on an object (`self.pad_token_id`): not one tokenizer named
    return receivers.pop()


def _written_in(facts: ModuleFacts, node: cst.CSTNode) -> tuple[bool, Owner | None]:
    """(found in this module, the top-level def, method or class body `node` is written in; None for
    script code)."""
    index = facts.order(node)
    if index < 0:
        return False, None
    top = _last_before(facts, facts.module.body, index)
    if not isinstance(top, cst.ClassDef):
        return True, owner_of(top, None) if top is not None else None
    member = _last_before(facts, top.body.body, index)
    return True, owner_of(member if isinstance(member, cst.FunctionDef) else top, top)


def _last_before(facts: ModuleFacts, statements: Sequence[cst.CSTNode], index: int) -> cst.CSTNode | None:
    """The last of `statements` that starts at or before reading position `index`."""
    found = None
    for stmt in statements:
        if facts.order(stmt) > index:
            break
        found = stmt
    return found


def may_be_one_object(scope: cst.CSTNode, first: str, second: str) -> bool:
    """Can `first` and `second` (dotted codes: `tok`, `self.tokenizer`, `tok.pad_token_id`) hold the
    same object, going by the bindings written in `scope`?"""
    a, b = _key(first), _key(second)
    if a == b:
        return True
    bindings, scope_variables = _scope_bindings(scope)
    # Only variables of the scope link: `transformers` or `AutoTokenizer` mentioned in two loads does
    # not make their results one object.
    variables = scope_variables | {a.split(".")[0], b.split(".")[0]}
    links: dict[str, set[str]] = {}
    for targets, sources in bindings:
        for target in targets:
            for source in sources:
                if source.split(".")[0] in variables:
                    links.setdefault(target, set()).add(source)
                    links.setdefault(source, set()).add(target)
    return _linked(links, a, b)


@functools.lru_cache(maxsize=16)
def _scope_bindings(scope: cst.CSTNode) -> tuple[tuple[tuple[set[str], set[str]], ...], frozenset[str]]:
    """The scope's bindings and its variables (parameters, bound names), walked once for every use of a
    pad id the scope judges (a few scopes per module; nodes hash by identity)."""
    bindings = tuple(_bindings(scope))
    variables = _parameters(scope) | {name.split(".")[0] for targets, _ in bindings for name in targets}
    return bindings, frozenset(variables)


def _linked(links: dict[str, set[str]], a: str, b: str) -> bool:
    """Is `b` reachable from `a`, where `x.attr` and `y.attr` are one object when `x` and `y` are?"""
    seen, todo = {a}, [a]
    while todo:
        name = todo.pop()
        if name == b or _same_attribute_of_one_object(links, name, b):
            return True
        for other in links.get(name, ()):
            if other not in seen:
                seen.add(other)
                todo.append(other)
    return False


def _same_attribute_of_one_object(links: dict[str, set[str]], a: str, b: str) -> bool:
    """`processor.tokenizer` and `self.processor.tokenizer` after `self.processor = processor`."""
    base_a, _, attr_a = a.rpartition(".")
    base_b, _, attr_b = b.rpartition(".")
    return bool(base_a and base_b) and attr_a == attr_b and _linked(links, base_a, base_b)


# The tokenizer's own attributes a code names it by: `tok.pad_token_id` is about `tok`.
_TOKEN_ATTRIBUTES = (".pad_token_id", ".pad_token", ".eos_token_id", ".eos_token")


def _key(code: str) -> str:
    for suffix in _TOKEN_ATTRIBUTES:
        if code.endswith(suffix):
            return code[: -len(suffix)]
    return code


def _sources(node: cst.CSTNode) -> set[str]:
    """The objects an expression can evaluate to or hold: names and attribute chains, the elements of
    containers and of the branches of `a or b` and `a if c else b`, and the arguments of a call (a
    helper may hand one back; a class or a factory makes a new object); not the function called nor its receiver (`AutoTokenizer.from_pretrained`,
    `tok.batch_decode(ids)` make new objects), nor an attribute of a name (`tok.eos_token` is not `tok`)
    nor an index (`toks[i]` is an element of `toks`, not `i`)."""
    found: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Call):
            if not _makes_a_new_object(current):
                stack.extend(arg.value for arg in current.args)
        elif isinstance(current, cst.Subscript):
            stack.append(current.value)
        elif isinstance(current, (cst.Name, cst.Attribute)):
            code = dotted(current)
            if code:
                found.add(code)
        elif isinstance(current, (cst.Lambda, cst.Comparison, cst.UnaryOperation)):
            continue  # a function or a truth value, never the object
        else:
            stack.extend(child_nodes(current))
    return found


def _makes_a_new_object(call: cst.Call) -> bool:
    """A class called (`ULDLoss(student_tokenizer=..., teacher_tokenizer=...)`), or a factory of one
    (`AutoTokenizer.from_pretrained(name, trust_remote_code=args.trust)`): the result is a new object,
    none of its arguments."""
    name = call.func.attr.value if isinstance(call.func, cst.Attribute) else getattr(call.func, "value", "")
    if not isinstance(name, str) or not name:
        return False
    return name[0].isupper() or name == "from_pretrained"


def _targets(node: cst.CSTNode) -> set[str]:
    """The objects a binding target names: a name, `self.attr`, the container `xs` of `xs[i] = v`, each
    element of a tuple target. `obj.attr = v` stores into an attribute, which is not `obj`."""
    if isinstance(node, (cst.Tuple, cst.List)):
        return set().union(set(), *(_targets(e.value) for e in node.elements))
    if isinstance(node, cst.StarredElement):
        return _targets(node.value)
    if isinstance(node, cst.Subscript):
        return _targets(node.value)
    code = dotted(node) if isinstance(node, (cst.Name, cst.Attribute)) else ""
    return {code} if code else set()


def _bindings(scope: cst.CSTNode) -> Iterator[tuple[set[str], set[str]]]:
    """(objects bound, objects the bound value can be) for each binding written in `scope`."""
    methods = (
        {s.name.value: s for s in scope.body.body if isinstance(s, cst.FunctionDef)}
        if isinstance(scope, cst.ClassDef)
        else {}
    )
    for node in P.walk(scope):
        if isinstance(node, cst.Assign):
            yield set().union(set(), *(_targets(t.target) for t in node.targets)), _sources(node.value)
        elif isinstance(node, (cst.AnnAssign, cst.AugAssign)) and node.value is not None:
            yield _targets(node.target), _sources(node.value)
        elif isinstance(node, cst.NamedExpr):
            yield _targets(node.target), _sources(node.value)
        elif isinstance(node, (cst.For, cst.CompFor)):
            yield _targets(node.target), _sources(node.iter)
        elif isinstance(node, cst.WithItem) and node.asname is not None:
            yield _targets(node.asname.name), _sources(node.item)
        elif isinstance(node, cst.Call) and methods:
            yield from _method_call_bindings(node, methods)


def _method_call_bindings(call: cst.Call, methods: dict[str, cst.FunctionDef]) -> Iterator[tuple[set[str], set[str]]]:
    """`self.prepare(tok)`: the method's parameters are bound to what the call hands them."""
    func = call.func
    if not (
        isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value in ("self", "cls")
    ):
        return
    method = methods.get(func.attr.value)
    if method is None:
        return
    names = [p.name.value for p in (*method.params.posonly_params, *method.params.params)][1:]
    keyword_names = names + [p.name.value for p in method.params.kwonly_params]
    for index, arg in enumerate(call.args):
        if arg.star:
            yield set(keyword_names), _sources(arg.value)  # spread: any parameter may get it
        elif arg.keyword is not None:
            yield {arg.keyword.value}, _sources(arg.value)
        elif index < len(names):
            yield {names[index]}, _sources(arg.value)


def _parameters(scope: cst.CSTNode) -> set[str]:
    """The parameter names of every function written in `scope` (itself included)."""
    return {p.name.value for node in P.walk(scope) if isinstance(node, cst.Parameters) for p in P.parameters(node)}
