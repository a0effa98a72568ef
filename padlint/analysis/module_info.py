"""Module-wide facts gathered in one cheap pass before the flow walk: constants, functions, `.map`
calls, where the pad token is set to EOS, collators, and which function or method each sits in."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any, cast

import libcst as cst

from padlint.analysis import (
    attention,
    batch_uses,
    call_sites,
    checkpoint_code,
    dead_code,
    eos_places,
    lm_collators,
    one_row,
    one_text,
    pad_guards,
)
from padlint.analysis import patterns as P
from padlint.analysis.facts import ModuleFacts, Owner
from padlint.semantics import table as T

KEY_IGNORING_LAYERS = T.names("ignores_true_keys", on="class")


@dataclass
class ModuleInfo:
    """Module-wide facts gathered in one cheap pass before the flow walk."""

    constants: dict = field(default_factory=dict)  # NAME -> literal expression
    functions: dict = field(default_factory=dict)  # name -> FunctionDef (module level)
    map_batched: dict = field(default_factory=dict)  # function name -> batched flag of its .map()
    collate_functions: set = field(default_factory=set)  # names handed as `collate_fn=` / `data_collator=`
    padding_side: str = "right"
    # Every side the module states (`padding_side="right"` to a tokenizer, `tok.padding_side = ...`); a
    # value that is not a string literal counts as unknown (None).
    stated_sides: set = field(default_factory=set)
    model_context_names: set = field(default_factory=set)  # `max_length = tokenizer.model_max_length`
    # `model = T5ForConditionalGeneration.from_pretrained(...)`: the code of the place -> the class's
    # qualified name, for the library table's consumer rows.
    model_classes: dict = field(default_factory=dict)
    classes_loaded: set = field(default_factory=set)  # every class loaded, also where a place is loaded again
    places_loaded_as_several: set = field(default_factory=set)  # `model` loaded as one class here, another there
    # `self.encoder = nn.TransformerEncoder(...)`: place -> the class, for layers whose key padding mask is
    # True at the keys they ignore (library table: ignores_true_keys rows).
    key_ignoring_layers: dict = field(default_factory=dict)
    # Every `from_pretrained` call stored in a place (place -> calls), and the names bound to dicts of
    # keyword arguments (name -> whether each sets `trust_remote_code=True`): checkpoint_code.py.
    model_loads: dict = field(default_factory=dict)
    switch_dicts: dict = field(default_factory=dict)
    clip_context_names: set = field(default_factory=set)  # parameters defaulting to CLIP's 77 tokens
    called: set = field(default_factory=set)  # names called as `name(...)` or `self.name(...)`: helpers
    diffusion: bool = False  # the module imports diffusers: its prompts feed a frozen text encoder
    # `tok.pad_token = tok.eos_token` under `if tok.pad_token is None:` after the pad token was set
    # to something else: the assignment never runs.
    unreachable_pad_eos: set = field(default_factory=set)
    pad_eos_fallbacks: set = field(default_factory=set)  # pad = EOS only where no pad token is set (pad_guards)
    # Module-level functions -> parameters every call of the module hands at most one item (one_row.py),
    # worked out when a tokenizer first pads a list a parameter may have made.
    one_row_params: dict | None = None
    one_text_params: dict | None = None
    program: bool | None = None  # dead_code.program_nobody_imports, once asked
    sites: dict | None = None  # module-level function name -> its calls in view (call_sites.py)
    constant_params: dict | None = None  # function -> parameters every call hands the same truth (call_sites.py)
    method_literal_params: dict = field(default_factory=dict)  # method -> parameters fixed to a literal
    method_names: Any = None  # method_flags.MethodNames of the module, made at the first method asked
    name_read_counts: Any = None  # dead_code.name_reads of the module, once asked
    class_sites: dict | None = None  # module-level class name -> its constructions in view (call_sites.py)
    class_sites_here: dict | None = None  # module-level class name -> its constructions in this module
    importer_names: dict[str, bool] = field(default_factory=dict)  # name -> named by a module importing this one
    instances: dict[str, str | None] | None = None  # name -> the class called to make it (instance_classes)
    dataclass_inits: dict = field(default_factory=dict)  # a dataclass -> the `__init__` it gets (class_constants.py)
    parameter_literals: dict = field(default_factory=dict)  # (def, parameter) -> parameter_literal's answer
    stored_names: dict = field(default_factory=dict)  # id(def) -> the names it assigns (one_row.never_stored)
    dead_functions: set = field(default_factory=set)  # a script's functions nothing calls (dead_code.py)
    # `model = build_model(cfg)`: place -> the imported factories its models are made by, when none is
    # a library-table callable, a class or a wrapper of another model (`made_by_factory`).
    model_factories: dict = field(default_factory=dict)
    # `builder = Recipe(...)` of an imported class the table does not know: place -> the class, so that
    # `model = builder.apply(path)` reads as made by imported code (`Recipe.apply`), as a factory is.
    imported_instances: dict = field(default_factory=dict)
    imports: P.Imports | None = None
    filename: str = "-"
    # Classes of this module that build labels as a library LM collator does (a subclass that keeps its
    # label building): name -> (the library row, whether its own `__init__` sets `mlm=False`).
    lm_classes: dict = field(default_factory=dict)
    # Batch keys a consumer the module makes reads to set labels to -100 where they are 0 (library table:
    # rebuilds_labels rows, e.g. peft's CPT model and `input_type_mask`): labels beside one are masked.
    rebuilt_label_masks: frozenset = frozenset()
    # The module's own classes that attend (attention.py) -> whether each attends only causally; worked
    # out when a consumer is first judged.
    written_models: dict | None = None
    # Whether the module reads outputs where a right pad sits (attention.reads_every_position); worked
    # out when rows it hands on are first judged.
    reads_pad_outputs: bool | None = None
    eos_place_keys: set | None = None  # places that may hold the EOS id (eos_places.py), when first asked

    def note_padding_side(self, side: str | None) -> None:
        self.stated_sides.add(side)
        if side == "left":
            self.padding_side = "left"

    def loaded_models(self) -> dict:
        """`model_classes` without tokenizers and processors: place -> class of each model loaded."""
        return {
            place: name
            for place, name in self.model_classes.items()
            if not P.TOKENIZER_FACTORIES.search(f"{name}.from_pretrained")
        }

    def checkpoint_code(self, place: str) -> bool:
        """Is every model stored in `place` loaded as the checkpoint's own code (an Auto class with
        `trust_remote_code=True`, library table: checkpoint_code rows)? A place also loaded any other
        way (a concrete class, no switch, a switch not in view) is judged as a model the table knows."""
        if self.imports is None:
            return False
        found = checkpoint_code.models_loaded_at(
            place, self.model_loads, self.imports, self.constants, self.switch_dicts
        )
        return bool(found) and all(found)

    def right_side_known(self) -> bool:
        """Do the module's tokenizers pad on the right: it states right padding and no other side, or it
        states none and loads every tokenizer as a class that pads on the right by default (library table)?"""
        if self.stated_sides:
            return self.stated_sides == {"right"}
        loaded = [
            name for name in self.model_classes.values() if P.TOKENIZER_FACTORIES.search(f"{name}.from_pretrained")
        ]
        return bool(loaded) and all(T.tokenizer_default_side(name) == "right" for name in loaded)

    def models_written(self, module: cst.Module | None, code_of) -> dict:
        """The module's classes that attend -> whether each attends only causally (attention.py)."""
        if self.written_models is None:
            classes = [s for s in (module.body if module is not None else ()) if isinstance(s, cst.ClassDef)]
            kinds = {cls.name.value: attention.attends_causally(cls, module, code_of) for cls in classes}
            self.written_models = {name: causal for name, causal in kinds.items() if causal is not None}
        return self.written_models

    def reads_every_position(self, module: cst.Module | None, code_of) -> bool:
        """Does the module read a sequence's output at its last position or pool over the sequence?"""
        if self.reads_pad_outputs is None:
            self.reads_pad_outputs = module is not None and attention.reads_every_position(code_of(module))
        return self.reads_pad_outputs

    def may_hold_eos(self, expr: cst.BaseExpression, fn: cst.CSTNode | None, module: cst.Module | None) -> bool:
        """Can `expr`, read in `fn`, hold the EOS id on some path of the module (eos_places.py)?"""
        if self.eos_place_keys is None:
            self.eos_place_keys = eos_places.eos_places(module) if module is not None else set()
        return eos_places.may_hold_eos(expr, fn, self.eos_place_keys)

    def one_row_parameters(self, module: cst.Module, fn: cst.FunctionDef) -> set[str]:
        """The parameters of `fn` (a function of `module`) every call in view hands at most one item."""
        if self.one_row_params is None:
            self.one_row_params = one_row.one_row_parameters(
                self._functions(module), self._call_sites(module), self.stored_names
            )
        return self.one_row_params.get(fn, set())

    def one_text_parameters(self, module: cst.Module, fn: cst.FunctionDef) -> set[str]:
        """The parameters of `fn` (a function of `module`, or a def nested in one) every call in view
        hands one text."""
        if self.one_text_params is None:
            self.one_text_params = one_text.one_text_parameters(
                self._functions(module), self._call_sites(module), self.stored_names
            )
        if fn not in self.one_text_params and fn not in module.body:
            from padlint.analysis.loader_uses import nearest, parents_of

            enclosing = nearest(parents_of(module), fn, cst.FunctionDef)
            self.one_text_params[fn] = (
                one_text.nested_one_text_parameters(enclosing, fn, self.stored_names, self._call_sites(module))
                if isinstance(enclosing, cst.FunctionDef)
                else set()
            )
        return self.one_text_params.get(fn, set())

    def constant_parameters(self, module: cst.Module, fn: cst.FunctionDef) -> dict[str, bool]:
        """The parameters of `fn` every call in view hands a constant of the same truth -> that truth."""
        if fn not in module.body:
            return {}  # a method or a nested def: its calls are not gathered (and need not be)
        if self.constant_params is None:
            self.constant_params = call_sites.constant_parameters(
                self._functions(module), self._call_sites(module), self.stored_names
            )
        return self.constant_params.get(fn, {})

    def method_literals(self, module: cst.Module, fn: cst.FunctionDef) -> dict:
        """The parameters of `fn`, a method of a top-level class of `module`, every call in view hands
        the same literal -> that literal (method_flags.py)."""
        found = self.method_literal_params.get(fn)
        if found is None:
            from padlint.analysis.method_flags import MethodNames, method_literals

            in_class = _top_class_of(module, fn) is not None
            if in_class and self.method_names is None:
                self.method_names = MethodNames(module)
            found = {}
            if in_class and self.method_names is not None:
                found = method_literals(module, fn, self.filename, self.method_names)
            self.method_literal_params[fn] = found
        return found

    def arguments_in_view(self, module: cst.Module, fn: cst.FunctionDef, param: str) -> list[cst.BaseExpression]:
        """What each call in view hands `param` of `fn` (a module-level function of `module`); for a
        name, also every value its caller stores in it."""
        from padlint.analysis.one_row import argument_for, stored_values

        if self._functions(module).get(fn.name.value) is not fn:
            return []
        sites = self._call_sites(module).get(fn.name.value, [])
        handed = []
        for site in sites:
            arg = argument_for(site.call, fn, param)
            if arg is None:
                continue
            handed.append(arg.value)
            if isinstance(arg.value, cst.Name) and site.caller is not None:
                handed.extend(stored_values(site.caller, arg.value.value))
        return handed

    def _functions(self, module: cst.Module) -> dict[str, cst.FunctionDef]:
        return {stmt.name.value: stmt for stmt in module.body if isinstance(stmt, cst.FunctionDef)}

    def _call_sites(self, module: cst.Module) -> dict:
        if self.sites is None:
            self.sites = call_sites.call_sites(module, self._name_reads(module), self.filename)
        return self.sites

    def _name_reads(self, module: cst.Module):
        if self.name_read_counts is None:
            self.name_read_counts = dead_code.name_reads(module)
        return self.name_read_counts

    def parameter_literal(self, module: cst.Module, fn: cst.FunctionDef, param: str) -> cst.BaseExpression | None:
        """The literal `param` of `fn` holds wherever `fn` runs (parameter_literals.py), for a module-level
        function, a method of a top-level class or its `__init__`: the node of one call's value or default."""
        key = (fn, param)
        if key not in self.parameter_literals:
            self.parameter_literals[key] = self._parameter_literal(module, fn, param)
        return self.parameter_literals[key]

    def _parameter_literal(self, module: cst.Module, fn: cst.FunctionDef, param: str) -> cst.BaseExpression | None:
        from padlint.analysis.parameter_literals import constructs_itself, parameter_literal

        if fn in module.body:
            sites = self._call_sites(module).get(fn.name.value)
            return parameter_literal(fn, param, [s.call for s in sites] if sites else None, bound=False)
        cls = _top_class_of(module, fn)
        if cls is None or constructs_itself(cls):
            return None
        if fn.name.value == "__init__":
            if self.class_sites is None:
                self.class_sites = call_sites.call_sites(module, self._name_reads(module), self.filename, cst.ClassDef)
            sites = self.class_sites.get(cls.name.value)
            return parameter_literal(fn, param, [s.call for s in sites] if sites else None, bound=True)
        if param not in self.method_literals(module, fn) or self.method_names is None:
            return None  # (method_literals checked that its calls in view are all its calls)
        return parameter_literal(fn, param, self.method_names.calls.get(fn.name.value), bound=True)

    def field_literal(self, module: cst.Module, cls: cst.ClassDef, name: str) -> cst.BaseExpression | None:
        """The literal a dataclass field holds in every instance: its `__init__` parameter (the one the
        dataclass writes) fixed by every construction in view, or left to its default by all of them."""
        from padlint.analysis.class_constants import dataclass_init, stored_on_self
        from padlint.analysis.parameter_literals import constructs_itself, parameter_literal

        if cls not in self.dataclass_inits:
            self.dataclass_inits[cls] = dataclass_init(cls) if cls in module.body else None
        init = self.dataclass_inits[cls]
        if init is None or stored_on_self(cls, name) or constructs_itself(cls):
            return None
        # The constructions in this module, and none elsewhere: a module beside it that names the class
        # may construct it otherwise (read as text, not parsed: parsing the importers for every dataclass
        # cost seconds on a trainer library's utilities)
        if self.class_sites_here is None:
            self.class_sites_here = call_sites.call_sites(module, self._name_reads(module), "-", cst.ClassDef)
        sites = self.class_sites_here.get(cls.name.value)
        if sites and self.named_by_importers(cls.name.value):
            return None
        calls = [s.call for s in sites] if sites else None
        if calls and init.params.kwonly_params and any(a.keyword is None for c in calls for a in c.args):
            return None  # a base class's fields come first: a positional argument may be this one
        return parameter_literal(init, name, calls, bound=True)

    def instance_classes(self, module: cst.Module, imports: P.Imports) -> dict[str, str | None]:
        """Each name the module binds to a call -> what is called (loader_uses.instance_classes), once."""
        if self.instances is None:
            from padlint.analysis.loader_uses import instance_classes

            self.instances = instance_classes(module, imports)
        return self.instances

    def named_by_importers(self, name: str) -> bool:
        """Does a module that imports this one name `name` (as a word, in its text)?"""
        if self.filename in ("-", "<stdin>", ""):
            return False
        if name not in self.importer_names:
            from padlint.look.project_text import importers, text_of

            word = re.compile(rf"\b{re.escape(name)}\b")
            paths = importers(os.path.abspath(self.filename))
            self.importer_names[name] = any(word.search(text_of(path) or "") for path in paths)
        return self.importer_names[name]

    def resolve_imported(self, name: str) -> int | None:
        """`IGNORE_INDEX` imported from a module of the scanned project."""
        source = self.imports.from_imports.get(name) if self.imports else None
        if source is None:
            return None
        from padlint.analysis.constants import imported_int

        return imported_int(self.filename, source[0], source[1], source[2])

    def resolve_module_attribute(self, module: str, name: str) -> int | None:
        """`DST.DEFAULT_LABEL_PADDING_NUM` where `DST` is a module of the scanned project."""
        if self.imports is None:
            return None
        from padlint.analysis.constants import imported_int

        if module in self.imports.from_imports:  # `from .data import DST`
            base, level, sub = self.imports.from_imports[module]
            return imported_int(self.filename, f"{base}.{sub}" if base else sub, level, name)
        dotted = self.imports.aliases.get(module)  # `import utils.data.DST as DST`
        return imported_int(self.filename, dotted, 0, name) if dotted else None


def gather_module_info(module: cst.Module, facts: ModuleFacts) -> ModuleInfo:
    info = ModuleInfo()
    settings = pad_guards.pad_settings(module)
    info.unreachable_pad_eos, info.pad_eos_fallbacks = settings.dead, settings.fallbacks
    facts.dedicated_pads |= settings.dedicated
    facts.pad_resets = pad_guards.pad_resets(module)
    info.dead_functions = dead_code.dead_functions(module, facts.filename)
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef):
            info.functions[stmt.name.value] = stmt
        elif isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Assign) and len(small.targets) == 1:
                    target = small.targets[0].target
                    if isinstance(target, cst.Name) and _is_literal(small.value):
                        info.constants[target.value] = small.value
    info.lm_classes = lm_collators.lm_collator_classes(module, facts.imports)
    for top in module.body:
        _gather_top(top, info, facts)
    facts.current_owner = None
    info.dead_functions |= _unfed_collate_functions(module, info, facts)
    return info


def _unfed_collate_functions(module: cst.Module, info: ModuleInfo, facts: ModuleFacts) -> set[cst.FunctionDef]:
    """The collate functions of a script (top-level work, no importer) handed only to DataLoaders it
    never iterates (nor hands on): no batch is ever made, so what they would do to one reaches no model and no loss (dead_code.py)."""
    imports = facts.imports
    candidates = [info.functions[name] for name in sorted(info.collate_functions) if name in info.functions]
    candidates = [fn for fn in candidates if fn not in info.dead_functions]
    # the script test once, and first: most modules of collate functions do no work at their top level
    if not candidates or imports is None or not dead_code.works_nobody_imports(module, facts.filename):
        return set()
    return {fn for fn in candidates if batch_uses.batches_unread(module, fn, imports)}


def gather_definition(
    part: cst.Module, stmt: cst.FunctionDef | cst.ClassDef, info: ModuleInfo, facts: ModuleFacts
) -> None:
    """Add one top-level definition, parsed on its own (project.load_for_definitions), to the facts
    of its module gathered without it."""
    settings = pad_guards.pad_settings(part)
    info.unreachable_pad_eos |= settings.dead
    info.pad_eos_fallbacks |= settings.fallbacks
    facts.dedicated_pads |= settings.dedicated
    if isinstance(stmt, cst.FunctionDef):
        info.functions[stmt.name.value] = stmt
    _gather_top(stmt, info, facts)
    facts.current_owner = None


def _gather_top(top: cst.CSTNode, info: ModuleInfo, facts: ModuleFacts) -> None:
    # Facts are tied to the function or method they sit in: a pad=EOS in one test method
    # does not make another test's collator wrong (see ModuleFacts.connected).
    if isinstance(top, cst.ClassDef):
        for member in top.body.body:
            facts.current_owner = owner_of(member, top)
            _gather(member, info, facts)
    else:
        facts.current_owner = owner_of(top, None)
        _gather(top, info, facts)


def owner_of(stmt: cst.CSTNode, cls: cst.ClassDef | None) -> Owner | None:
    """The owner of a module-level function, a method or a class body; None for script code."""
    if isinstance(stmt, cst.FunctionDef):
        return Owner("method" if cls is not None else "func", stmt, cls)
    return Owner("class", cls, cls) if cls is not None else None


def _gather(top: cst.CSTNode, info: ModuleInfo, facts: ModuleFacts) -> None:
    stack: list[cst.CSTNode] = [top]
    while stack:
        node = stack.pop()
        stack.extend(P.child_nodes(node))
        kind = type(node)  # `type() is`, not isinstance: libcst's ABC checks are slow on every node
        if kind is cst.Call:
            _note_call(cast(cst.Call, node), info, facts)
        elif kind is cst.Assign:
            _note_assign(cast(cst.Assign, node), info, facts)
        elif kind is cst.FormattedStringExpression:
            if _adds_eos(cast(cst.FormattedStringExpression, node)):
                facts.note_eos_in_data(node)
        elif kind is cst.FormattedStringText or kind is cst.SimpleString:
            if _template_with_eos_text(cast(cst.FormattedStringText | cst.SimpleString, node)):
                facts.note_eos_in_data(node)  # `f"[INST] {q} [/INST] {a}</s>"`: the EOS written as text
        elif kind is cst.BooleanOperation:
            either = cast(cst.BooleanOperation, node)
            if type(either.operator) is cst.Or and P.is_pad_id_expression(either.left) and P.mentions_eos(either.right):
                facts.note_pad_eos(either)  # `tok.pad_token_id or tok.eos_token_id`: a pad id 0 becomes EOS
        elif kind is cst.Param:
            param = cast(cst.Param, node)
            if param.default is not None and P.int_value(param.default) == P.CLIP_CONTEXT:
                info.clip_context_names.add(param.name.value)  # open_clip's `context_length=77`
        elif kind is cst.BinaryOperation:
            product = cast(cst.BinaryOperation, node)
            if _adds_eos(product):
                facts.note_eos_in_data(product)
            if type(product.operator) is cst.Multiply and _repeats_eos(product):
                facts.note_pad_eos(product, padding=True)  # `ids + [tok.eos_token_id] * gap`


def _called_by_lambda(function: cst.Lambda) -> str | None:
    """The function a lambda hands its work to (`lambda ex: encode(ex, tok)`, `self.encode`), if its
    body is one call of a name or a method."""
    body = function.body
    if not isinstance(body, cst.Call):
        return None
    if isinstance(body.func, cst.Name):
        return body.func.value
    if isinstance(body.func, cst.Attribute) and isinstance(body.func.value, cst.Name):
        return body.func.attr.value if body.func.value.value in ("self", "cls") else None
    return None


# Calls that put their arguments into the text or ids: an EOS among them reaches the data.
DATA_BUILDERS = {"append", "extend", "insert", "format", "join", "cat", "concatenate", "hstack"}


def _note_mapped(info: ModuleInfo, name: str, batched: bool | None) -> None:
    """`name` is mapped with this `batched=`; mapped with another elsewhere, its rows' form is unknown."""
    info.map_batched[name] = batched if info.map_batched.get(name, batched) == batched else None


def _functions_bound_to(owner: object, name: str) -> list[str]:
    """The functions a local `name` of the owner's def or class is bound to by plain assignments
    (`fn = self.encode`, `fn = encode`, either arm of a conditional expression): their last names."""
    node = getattr(owner, "node", None)
    if node is None:
        return []
    found = []
    for stmt in P.walk(node):
        if isinstance(stmt, cst.Assign) and any(
            isinstance(t.target, cst.Name) and t.target.value == name for t in stmt.targets
        ):
            values = [stmt.value.body, stmt.value.orelse] if isinstance(stmt.value, cst.IfExp) else [stmt.value]
            found += [
                v.value if isinstance(v, cst.Name) else v.attr.value
                for v in values
                if isinstance(v, (cst.Name, cst.Attribute))
            ]
    return found


def _note_call(call: cst.Call, info: ModuleInfo, facts: ModuleFacts) -> None:
    name = P.last_name(call.func)
    if _puts_eos_in_data(call, name):
        facts.note_eos_in_data(call)
    if isinstance(call.func, cst.Name) or (
        isinstance(call.func, cst.Attribute)
        and isinstance(call.func.value, cst.Name)
        and call.func.value.value == "self"
    ):
        info.called.add(name)
    qualified = facts.imports.qualify(call.func) if isinstance(call.func, (cst.Name, cst.Attribute)) else None
    made = _class_loaded(call, facts) or qualified  # `Cls.from_pretrained(...)`, else `Cls(...)`
    if made is not None and T.appends_eos(made):
        facts.eos_appending_class = True  # `T5TokenizerFast.from_pretrained(...)`, `AutoModelForSeq2SeqLM...`
    row = T.class_row(qualified) if qualified else None
    lm_collator = row if row is not None and row.kind == "masks_labels" else None  # transformers', not trl's
    if row is not None and row.kind == "rebuilds_labels":
        info.rebuilt_label_masks |= T.rebuilt_label_masks(row.match[0])
    subclass = None
    if lm_collator is None and isinstance(call.func, cst.Name):
        subclass = info.lm_classes.get(call.func.value) or lm_collators.imported_lm_class(call.func.value, facts)
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in T.collate_keywords():
            handed = arg.value.attr if isinstance(arg.value, cst.Attribute) else arg.value
            if isinstance(handed, cst.Name):
                info.collate_functions.add(handed.value)  # `collate_fn=collate`, `data_collator=self.collate`
    if name == "map" and call.args and isinstance(call.args[0].value, cst.Name):
        mapped_name = call.args[0].value.value
        _note_mapped(info, mapped_name, P.map_batched(call))
        # `fn = self.encode_a if multiple else self.encode_b`, then `ds.map(fn, batched=False)`
        for alias in _functions_bound_to(facts.current_owner, mapped_name):
            _note_mapped(info, alias, P.map_batched(call))
        facts.map_calls.append((mapped_name, facts.current_owner))
    elif name == "map" and call.args and isinstance(call.args[0].value, cst.Attribute):
        _note_mapped(info, call.args[0].value.attr.value, P.map_batched(call))
        facts.map_calls.append((call.args[0].value.attr.value, facts.current_owner))  # `ds.map(self.encode)`
    elif name == "map" and call.args and isinstance(call.args[0].value, cst.Lambda):
        facts.map_calls.append(("<lambda>", facts.current_owner))
        mapped = _called_by_lambda(call.args[0].value)
        if mapped is not None:  # `ds.map(lambda ex: encode(ex, tok))`: the rows are what `encode` returns
            _note_mapped(info, mapped, P.map_batched(call))
            facts.map_calls.append((mapped, facts.current_owner))
    if subclass is not None:
        lm_collator = subclass[0]
    if lm_collator is not None:
        # With mlm on or off, the collator replaces the labels the features carried (library table).
        facts.lm_collator_rebuilds_labels = True
        mlm = P.keyword(call, lm_collator.roles["mlm"][0])
        if mlm is not None:
            mlm_off = P.int_value(mlm.value) == 0
        else:
            mlm_off = lm_collator.defaults.get("mlm") is False or bool(subclass and subclass[1])
        if mlm_off:
            kin = subclass is not None or lm_collator.style == "completion"
            (facts.lm_collator_kin if kin else facts.lm_collators).append((call, facts.current_owner))
    for arg in call.args:
        if arg.keyword is None:
            continue
        if arg.keyword.value in ("pad_token_id", "pad_token") and P.mentions_eos(arg.value) and name not in GENERATES:
            facts.note_pad_eos(arg, fallback=pad_guards.falls_back_to_eos(arg.value))
        if arg.keyword.value in PAD_VALUE_KEYWORDS and name in PADDING_CALLS and P.is_eos_expression(arg.value):
            facts.note_pad_eos(arg, padding=True)  # `pad_sequence(..., padding_value=tok.eos_token_id)`
        if arg.keyword.value == "padding_side":
            info.note_padding_side(P.string_value(arg.value))
        if arg.keyword.value == "attention_mask" and _compares_with_pad_id(arg.value):
            facts.mask_rebuilt_from_pad_id = True


def _adds_eos(node: cst.BinaryOperation | cst.FormattedStringExpression) -> bool:
    """`text + tok.eos_token`, `ids + [tok.eos_token_id]`, f"{prompt}{answer}{tok.eos_token}", `text + "</s>"`."""
    if isinstance(node, cst.FormattedStringExpression):
        return P.mentions_eos(node.expression)
    return isinstance(node.operator, cst.Add) and any(
        P.mentions_eos(side) or P.string_value(side) in EOS_TEXTS for side in (node.left, node.right)
    )


EOS_TEXTS = T.names("eos_text")


def _template_with_eos_text(node: cst.FormattedStringText | cst.SimpleString) -> bool:
    """A text template that writes an EOS token's text (library table: eos_text rows) among other text:
    a part of an f-string, or a string literal longer than the token (the token alone is more often
    something stripped or searched for: `out.replace("</s>", "")`)."""
    value = node.value if isinstance(node, cst.FormattedStringText) else P.string_value(node)
    if not isinstance(value, str) or not any(text in value for text in EOS_TEXTS):
        return False
    return isinstance(node, cst.FormattedStringText) or value not in EOS_TEXTS


def _puts_eos_in_data(call: cst.Call, name: str) -> bool:
    """`ids.append(eos_id)`, `"".join([text, tok.eos_token])`, `tok(text, add_eos_token=True)`,
    `tok.apply_chat_template(...)` (chat templates close each turn with the model's end token)."""
    if name == "apply_chat_template":
        return True
    flag = P.keyword(call, "add_eos_token")
    if flag is not None and P.int_value(flag.value) == 1:
        return True
    return name in DATA_BUILDERS and any(a.keyword is None and P.mentions_eos(a.value) for a in call.args)


# Padding calls (by their last name) and the keywords that give their pad value: padding with the EOS id
# makes the pad the EOS token, with no `pad_token = eos_token` anywhere.
PADDING_CALLS = {"pad", "pad_sequence", "pad_sequences", "full", "new_full", "full_like", "to_padded_tensor"}
PAD_VALUE_KEYWORDS = {"padding_value", "value", "constant_values", "fill_value", "padding"}
# `model.generate(..., pad_token_id=tok.eos_token_id)` fills the rows it finishes early with that id: a fact of
# the sequences it returns (library table), not of the tokenizer that pads the data.
GENERATES = T.names("builds_mask", on="method", style="continues")


def _class_loaded(call: cst.Call, facts: ModuleFacts) -> str | None:
    """The qualified name of the class `Cls.from_pretrained(...)` loads (the dotted name itself when no import
    names it)."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value == "from_pretrained":
        return facts.imports.qualify(func.value)
    return None


def _top_class_of(module: cst.Module, fn: cst.FunctionDef) -> cst.ClassDef | None:
    """The top-level class of `module` whose body defines `fn`, if any."""
    return next((c for c in module.body if isinstance(c, cst.ClassDef) and fn in c.body.body), None)


def _repeats_eos(node: cst.BinaryOperation) -> bool:
    """`[eos_id] * n` or `n * [eos_id]`: a run of EOS ids, which pads."""
    for seq in (node.left, node.right):
        if isinstance(seq, cst.List) and len(seq.elements) == 1 and P.is_eos_expression(seq.elements[0].value):
            return True
    return False


def _compares_with_pad_id(expr: cst.BaseExpression) -> bool:
    """`ids.ne(pad_id)` or `ids != pad_id` somewhere in the expression."""
    stack: list[cst.CSTNode] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Call) and P.last_name(node.func) == "ne" and node.args:
            if P.is_pad_id_expression(node.args[0].value):
                return True
        if isinstance(node, cst.Comparison) and any(
            isinstance(c.operator, cst.NotEqual) and P.is_pad_id_expression(c.comparator) for c in node.comparisons
        ):
            return True
        stack.extend(P.child_nodes(node))
    return False


def _note_assign(node: cst.Assign, info: ModuleInfo, facts: ModuleFacts) -> None:
    loading = checkpoint_code.loading_call(node.value)
    loaded = loading.func.value if loading is not None and isinstance(loading.func, cst.Attribute) else None
    for target in node.targets:
        t = target.target
        if isinstance(t, cst.Name):
            switch = checkpoint_code.switch_dict(node.value)
            if switch is not None:
                info.switch_dicts[t.value] = info.switch_dicts.get(t.value, True) and switch
        if _is_labels_place(t):
            facts.label_marks.update(_marked_runs(node.value))
        if isinstance(t, cst.Attribute) and t.attr.value == "add_eos_token" and P.int_value(node.value) == 1:
            facts.note_eos_in_data(node, every_text=True)  # `tok.add_eos_token = True`: every text ends with EOS
        if isinstance(t, (cst.Name, cst.Attribute)) and isinstance(node.value, cst.Call):
            made = facts.imports.qualify(node.value.func)  # None for a callee that is no dotted name
            if made in KEY_IGNORING_LAYERS:
                info.key_ignoring_layers[P.dotted(t)] = made
            factory = _imported_factory(node.value, facts.imports, info.imported_instances)
            if factory is not None:
                info.model_factories.setdefault(P.dotted(t), set()).add(factory)
            elif isinstance(t, cst.Name) and _imported_class_made(node.value, facts.imports):
                info.imported_instances[t.value] = facts.imports.qualify(node.value.func)
        if loaded is not None and isinstance(t, (cst.Name, cst.Attribute)):
            qualified = facts.imports.qualify(loaded)
            if qualified:
                place = P.dotted(t)
                if info.model_classes.get(place, qualified) != qualified:
                    info.places_loaded_as_several.add(place)
                info.model_classes[place] = qualified
                info.classes_loaded.add(qualified)
            info.model_loads.setdefault(P.dotted(t), []).append(loading)
        if isinstance(t, cst.Name) and P.MASK_NAME.search(t.value) and _compares_with_pad_id(node.value):
            facts.mask_rebuilt_from_pad_id = True
        if (
            isinstance(t, cst.Attribute)
            and t.attr.value in ("pad_token", "pad_token_id")
            and P.mentions_eos(node.value)
            and node not in info.unreachable_pad_eos
        ):
            fallback = node in info.pad_eos_fallbacks or pad_guards.falls_back_to_eos(node.value)
            facts.note_pad_eos(node, P.dotted(t.value) or None, fallback=fallback)
        if (
            facts.current_owner is None
            and isinstance(t, cst.Name)
            and isinstance(node.value, cst.Call)
            and P.TOKENIZER_FACTORIES.search(P.dotted(node.value.func))
        ):
            facts.tokenizer_loads.append((t.value, node))
        if isinstance(t, cst.Attribute) and t.attr.value == "padding_side":
            info.note_padding_side(P.string_value(node.value))
        if (
            isinstance(t, cst.Name)
            and isinstance(node.value, cst.Attribute)
            and node.value.attr.value == "model_max_length"
        ):
            info.model_context_names.add(t.value)


def _is_literal(expr: cst.BaseExpression) -> bool:
    return P.int_value(expr) is not None or P.string_value(expr) is not None


def _is_labels_place(target: cst.BaseExpression) -> bool:
    """`labels`, `self.lm_labels`, `item["labels"]`: a place that holds token labels."""
    if isinstance(target, cst.Subscript):
        elements = target.slice
        index = elements[0].slice if len(elements) == 1 else None
        key = P.string_value(index.value) if isinstance(index, cst.Index) else None
        return key is not None and bool(P.TOKEN_LABELS.match(key))
    leaf = target.attr.value if isinstance(target, cst.Attribute) else getattr(target, "value", None)
    return isinstance(leaf, str) and bool(P.TOKEN_LABELS.match(leaf))


def _marked_runs(value: cst.BaseExpression) -> set[int | str]:
    """Values stored over label positions that are not padding: the whole value is a run
    (`[-1] * len(ids)`), or a run opens a concatenation of real labels (`[pad_id] * len(prompt) + answer`).
    The module does not train on what it marks so: the value (an int, or P.PAD_ID_MARK for a pad id)
    is its own ignore value, whatever its losses are. A negative run marks unless its length is a
    difference (`max_len - len(x)`: padding); a run of a token id (the pad id, 0) is padding too unless
    it is as long as pieces of real tokens (`len(prompt)`, `sum(len(t) for t in turns)`)."""
    runs: set[int | str] = set()
    head = value
    while isinstance(head, cst.BinaryOperation) and isinstance(head.operator, cst.Add):
        head = head.left  # the leftmost operand of `a + b + c`
    if isinstance(head, cst.BinaryOperation) and isinstance(head.operator, cst.Multiply):
        for seq, count in ((head.left, head.right), (head.right, head.left)):
            if isinstance(seq, cst.List) and len(seq.elements) == 1:
                item = seq.elements[0].value
                number = P.int_value(item)
                difference = isinstance(count, cst.BinaryOperation) and isinstance(count.operator, cst.Subtract)
                if number is not None and number < 0 and number != P.IGNORE_VALUE and not difference:
                    runs.add(number)
                elif not _is_length(count):
                    continue  # `[pad] * gap`, `[0] * (max_len - len(x))`: padding
                elif number is not None and number >= 0:
                    runs.add(number)
                elif number is None and P.is_pad_id_expression(item):
                    runs.add(P.PAD_ID_MARK)
    return runs


def _is_length(count: cst.BaseExpression) -> bool:
    """`len(prompt_ids)`, `sum(len(t) for t in turns)`, `len(a) + len(b)`: lengths of pieces of tokens."""
    if isinstance(count, cst.BinaryOperation) and isinstance(count.operator, cst.Add):
        return _is_length(count.left) and _is_length(count.right)
    return isinstance(count, cst.Call) and isinstance(count.func, cst.Name) and count.func.value in ("len", "sum")


def _imported_class_made(value: cst.Call, imports: P.Imports) -> bool:
    """`Recipe(...)`: an instance of an imported class that is no library-table row and no pretrained load."""
    qualified = imports.qualify(value.func)
    leaf = P.last_name(value.func)
    return bool(qualified) and bool(leaf) and leaf[0].isupper() and T.row_for(qualified, "class") is None


def _imported_factory(value: cst.Call, imports: P.Imports, instances: dict | None = None) -> str | None:
    """`build_model(cfg).half().to(device)`: the qualified name of an imported function (not a class, not
    a table row) that makes a new object from arguments none of which is a model; also a method of an
    instance of an imported class (`recipe.apply(path)`, `instances`: place -> class). None otherwise."""
    call: cst.BaseExpression = value
    while isinstance(call, cst.Call):
        func = call.func
        if (
            instances
            and isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value in instances
            and not _hands_a_model(call)
        ):
            return f"{instances[func.value.value]}.{func.attr.value}"
        parts = P.attribute_chain(call.func)
        imported = bool(parts) and (parts[0] in imports.aliases or parts[0] in imports.from_imports)
        if imported:
            break
        if not isinstance(call.func, cst.Attribute):
            return None
        call = call.func.value  # a method of what the inner call made (`.half()`, `.to(device)`)
    if not isinstance(call, cst.Call):
        return None
    qualified = imports.qualify(call.func)
    leaf = P.last_name(call.func)
    if not qualified or not leaf or leaf[0].isupper() or leaf.startswith("from_"):
        return None  # a class (read as a project nn.Module or a table row) or a pretrained loader
    if T.row_for(qualified) is not None:
        return None
    if _hands_a_model(call):
        return None  # `get_peft_model(model, config)`: a wrapper around a model made elsewhere
    return qualified


def _hands_a_model(call: cst.Call) -> bool:
    """Is one of the call's arguments a model by its name (`get_peft_model(model, config)`)?"""
    return any(
        isinstance(arg.value, (cst.Name, cst.Attribute)) and P.model_callee(P.last_name(arg.value)) for arg in call.args
    )
