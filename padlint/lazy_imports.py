"""Deferred imports of the heavy parser: libcst is loaded on its first real use, not when imported.

Every module of the analysis and the rules says `import libcst as cst` at the top, as usual; none of
them touches `cst.` while being imported. A run over files that no rule can fire on (pre-commit
over a change without padding code, most files of a repository) decides that from the text alone
(look/prefilter.py, look/first_look.py), but the rule registry it asks imports those modules. With
libcst deferred, such a run costs little more than the interpreter's start; libcst is loaded
(about 0.27 s) the first time a file needs the analysis. The command line installs this before
anything else is imported; the library API (`padlint.lint_source`) imports libcst as usual.

The stdlib's `importlib.util.LazyLoader` cannot do this on Python 3.11: the `import` statement itself
reads the module's `__spec__`, and any attribute read loads a LazyLoader module. Here the module
object is made from the package's spec (so `__spec__`, `__path__` and `__file__` are there, and
`import libcst` finds it without loading it); its first read of any other attribute (`cst.Name`)
runs the package's own loader into that same object, after which it is the ordinary module.
"""

from __future__ import annotations

import importlib.util
import sys

DEFERRED = ("libcst",)


def defer(name: str) -> None:
    """Make `import name` give a module that loads on first attribute access (no-op if loaded)."""
    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        return  # not installed: the import fails later, where it is needed, as before
    module = importlib.util.module_from_spec(spec)

    def load_on_first_use(attribute: str):  # PEP 562: called only for attributes not there yet
        if attribute.startswith("__") and attribute.endswith("__"):
            raise AttributeError(attribute)  # dunder probes (`__wrapped__`, `__path__` hooks) load nothing
        load(name)
        return getattr(module, attribute)

    module.__getattr__ = load_on_first_use  # type: ignore[method-assign]
    sys.modules[name] = module


def load(name: str) -> None:
    """Run a deferred module's own loader now (no-op if it is loaded or was never deferred)."""
    module = sys.modules.get(name)
    if module is None or "__getattr__" not in vars(module) or vars(module).get("_padlint_loading"):
        return
    vars(module).pop("__getattr__")
    module._padlint_loading = True  # type: ignore[attr-defined]
    try:
        module.__spec__.loader.exec_module(module)  # type: ignore[union-attr]
    except BaseException:
        del sys.modules[name]  # a failed import leaves nothing half-made behind, as `import` does
        raise
    finally:
        vars(module).pop("_padlint_loading", None)


def defer_heavy_imports() -> None:
    for name in DEFERRED:
        defer(name)


def load_heavy_imports() -> None:
    """Before code that imports from a deferred package's submodules (`from libcst.metadata import`)."""
    for name in DEFERRED:
        load(name)


__all__ = ["defer", "defer_heavy_imports", "load", "load_heavy_imports"]
