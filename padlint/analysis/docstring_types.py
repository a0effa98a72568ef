"""Parameter types a function's docstring declares, where it has no annotation.

`def train_step(self, claim, target_label):` with `target_label (str): ...` under `Args:` says the
function is handed one text, as `target_label: str` would. docstring_parser reads the three common
styles (Google `name (str):`, numpy `name : str`, Sphinx `:type name: str` / `:param str name:`).
"""

from __future__ import annotations

import functools

import libcst as cst


def str_parameters(fn: cst.FunctionDef) -> frozenset[str]:
    """The parameters of `fn` its docstring declares to be one `str`."""
    doc = fn.get_docstring(clean=False)
    if not doc or "str" not in doc:
        return frozenset()
    return _str_parameters(doc)


@functools.lru_cache(maxsize=1024)
def _str_parameters(doc: str) -> frozenset[str]:
    import docstring_parser  # only for functions whose docstring names a type of str

    try:
        parsed = docstring_parser.parse(doc)
    except docstring_parser.ParseError:
        return frozenset()
    return frozenset(p.arg_name for p in parsed.params if (p.type_name or "").strip() in ("str", "string"))
