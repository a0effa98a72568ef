"""The other side of an import: who uses what the module being linted defines.

A collate function in data.py that returns `enc["input_ids"]` without the mask is a bug only where
a caller hands those ids to a model: in train.py, which imports it. When a top-level def or class
of the linted module hands back padded ids or an encoding, the modules beside it that import it
(project_text.importers) are read, and their code that names it is walked with it (flow.py): what
reaches a model there reaches it from here, and the findings whose place is in this module are
this module's. The importers' own findings are theirs: they are reported when they are linted.
"""

from __future__ import annotations

import functools
import re

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.project import ModuleContext, load_for_definitions
from padlint.analysis.walker_state import WalkerState
from padlint.look.project_text import importers, text_of
from padlint.semantics import table as T

# The facts rules judge across the whole module (pad = EOS, losses, label masks): what an importer adds to them is
# the importer's own business, reported when it is linted.
MODULE_WIDE = (
    "labels_masked_where_pad_id",
    "pad_id_masks_at_sink",
    "labels_padded_with_token",
    "pad_id_fallbacks",
    "masked_means",
    "means_over_ignored",
    "aliases_written_in_place",
    "unmasked_list_padding",
    "label_values",
    "labels_reaching",
    "loss_ignores",
    "lm_collators",
    "lm_collator_kin",
    "labels_built",
    "map_calls",
    "eos_additions",
    "pad_eos",
    "pad_eos_fallbacks",
    "tokenizer_loads",
)
MAX_IMPORTERS = 6  # modules beside the linted one walked for it
MAX_IMPORTER_BYTES = 150_000  # a larger importer (a trainer of thousands of lines) is not read for it


class Importers(WalkerState):
    """Mixed into the scope walker."""

    def walk_importers(self) -> None:
        facts = self.facts
        # Module-wide judgements (values compared across the whole module) stay this
        # module's own: what an importer pads or which loss it calls is not this module's business.
        lists = [getattr(facts, name) for name in MODULE_WIDE]
        sizes = [len(values) for values in lists]
        flags = (
            facts.repadding_collator,
            facts.lm_collator_rebuilds_labels,
            facts.pad_is_eos,
            facts.pad_token_set_to_eos,
            facts.eos_in_data,
            facts.text_tokenized,
            facts.special_tokens_added,
            facts.eos_appending_class,
        )
        names = P.any_word(self.exported)
        found = importers(self.project.filename)
        # Each exported name -> whether every importer naming it makes an LM collator (None: one may not)
        relabelled: dict[str, bool] = {}
        for path in found[:MAX_IMPORTERS]:
            text = text_of(path)
            wanted = text is not None and len(text) <= MAX_IMPORTER_BYTES and names.search(text)
            context = load_for_definitions(path) if wanted else None
            if context is None:
                continue
            makes = makes_lm_collator(context)
            for name in set(names.findall(context.text)):
                relabelled[name] = relabelled.get(name, True) and makes
            self.prepare_context(context)
            facts.dependencies.add(path)
            saved_env = self.env
            with self.in_context(context):
                self.env = context.env
                try:
                    self._walk_mentions(context, names)
                finally:
                    self.env = saved_env
        for values, size in zip(lists, sizes):
            del values[size:]
        if len(found) <= MAX_IMPORTERS:
            self.relabelled_by_importers(relabelled)
        (
            facts.repadding_collator,
            facts.lm_collator_rebuilds_labels,
            facts.pad_is_eos,
            facts.pad_token_set_to_eos,
            facts.eos_in_data,
            facts.text_tokenized,
            facts.special_tokens_added,
            facts.eos_appending_class,
        ) = flags

    def relabelled_by_importers(self, relabelled: dict[str, bool]) -> None:
        """An exported def the module never calls itself, whose every importer makes a library LM collator
        (`DataCollatorForLanguageModeling`): the rows it hands back are batched there by a collator that
        replaces their labels, as the module-wide rule says for a module making one (labels_not_masked)."""
        for name, every in relabelled.items():
            node = self.module_info.functions.get(name)
            if every and node is not None and name not in self.module_info.called:
                self.facts.defs_relabelled_by_importers.append(node)

    def _walk_mentions(self, context: ModuleContext, names: re.Pattern) -> None:
        """Walk the importer's code that names what the linted module exports: its definitions that
        mention it (found in their text, parsed only then), then its script code that does."""
        mentions = functools.partial(_mentions, context.module, names)
        for name, _span in sorted(context.spans.items(), key=lambda item: item[1]):
            if not names.search(context.definition_source(name) or ""):
                continue
            node = context.definition(name)
            if isinstance(node, cst.FunctionDef):
                self.walk_function(node, context.env)
            elif isinstance(node, cst.ClassDef):
                self.walk_class(node, context.env, only=mentions)  # the methods that name it
        for stmt in context.module.body:
            if mentions(stmt) and not (isinstance(stmt, cst.SimpleStatementLine) and _is_import(stmt)):
                self.execute(stmt)


def makes_lm_collator(context: ModuleContext) -> bool:
    """Does the module construct a library LM collator (`DataCollatorForLanguageModeling(...)`, as imported)?"""
    for dotted in set(_CONSTRUCTED.findall(context.text)):
        if dotted.rsplit(".", 1)[-1] not in _LM_COLLATOR_NAMES:
            continue
        qualified = context.imports.qualify(cst.parse_expression(dotted))
        row = T.class_row(qualified) if qualified else None
        if row is not None and row.kind == "masks_labels":
            return True
    return False


_LM_COLLATOR_NAMES = frozenset(n.rsplit(".", 1)[-1] for n in T.names("masks_labels", on="class"))
_CONSTRUCTED = re.compile(r"\b((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*)\s*\(")


def _mentions(module: cst.Module, names: re.Pattern, node: cst.CSTNode) -> bool:
    return names.search(module.code_for_node(node)) is not None


def _is_import(stmt: cst.SimpleStatementLine) -> bool:
    return all(isinstance(small, (cst.Import, cst.ImportFrom)) for small in stmt.body)
