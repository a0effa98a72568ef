"""Models whose class is the checkpoint's own code: an Auto class loaded with `trust_remote_code=True`
(library table: checkpoint_code rows). What such a model's forward and generate do when no attention
mask is handed to them (attend to every position, build the mask from the pad id, replace it) is in a
modeling file of the checkpoint, not in view."""

from __future__ import annotations

import libcst as cst

from padlint.analysis import patterns as P
from padlint.semantics import table as T


def loading_call(value: cst.BaseExpression) -> cst.Call | None:
    """`Cls.from_pretrained(...)`, also followed by `.to(device)` / `.eval()` / `.cuda()`: that call."""
    while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute):
        if value.func.attr.value == "from_pretrained":
            return value
        value = value.func.value
    return None


def switch_dict(value: cst.BaseExpression) -> bool | None:
    """A dict literal or `dict(...)` of keyword arguments: does it set a checkpoint-code switch
    (`trust_remote_code`) to True? None when the value is no such dict."""
    if isinstance(value, cst.Dict):
        for element in value.elements:
            if isinstance(element, cst.DictElement) and P.string_value(element.key) in T.checkpoint_code_switches():
                return P.int_value(element.value) == 1
        return False
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "dict":
        for arg in value.args:
            if arg.keyword is not None and arg.keyword.value in T.checkpoint_code_switches():
                return P.int_value(arg.value) == 1
        return False
    return None


def wrapped_place(call: cst.Call) -> str:
    """The code of the first positional argument of a `from_pretrained` call (`model` in
    `PeftModel.from_pretrained(model, path)`), "" when it is not a name or attribute."""
    first = P.positional(call, 0)
    return P.dotted(first.value) if first is not None and isinstance(first.value, (cst.Name, cst.Attribute)) else ""


def models_loaded_at(place: str, loads: dict, imports: P.Imports, constants: dict, dicts: dict) -> list[bool]:
    """For each `from_pretrained` stored in `place` (`loads`: place -> calls), whether it loads the
    checkpoint's own code. A call handed a model loaded in another place (`PeftModel.from_pretrained(model,
    path)`) wraps that model: its loads count instead (one level)."""
    found: list[bool] = []
    for call in loads.get(place, ()):
        inner = wrapped_place(call)
        if inner and inner in loads:
            found.extend(loads_checkpoint_code(c, imports, constants, dicts) for c in loads[inner] if c is not call)
        else:
            found.append(loads_checkpoint_code(call, imports, constants, dicts))
    return found


def loads_checkpoint_code(call: cst.Call, imports: P.Imports, constants: dict, dicts: dict) -> bool:
    """Does this `from_pretrained` call load the checkpoint's own class: an Auto class of the table
    with its switch set to True, literally, through a module constant (`TRUST = True`) or through a
    `**kwargs` dict that holds it (`dicts`: name -> whether every dict bound to it sets it)? A value
    not in view (`trust_remote_code=args.trust_remote_code`) is not taken as True."""
    switch = T.checkpoint_code_switch(imports.qualify(call.func))
    if switch is None:
        return False
    given = P.keyword(call, switch)
    if given is not None:
        value = given.value
        if isinstance(value, cst.Name) and value.value in constants:
            value = constants[value.value]
        return P.int_value(value) == 1
    return any(
        arg.star == "**" and isinstance(arg.value, cst.Name) and dicts.get(arg.value.value, False) for arg in call.args
    )
