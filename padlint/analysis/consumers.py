"""What a sink's consumer needs, from the library table and the module: whether a causal decoder
reads right pads, whether the consumer builds or refuses a mask, whether the loss is used."""

from __future__ import annotations

import libcst as cst

from padlint.analysis import attention, consumers_beside, one_row, output_use
from padlint.analysis import patterns as P
from padlint.analysis.env import EMPTY, place_key
from padlint.analysis.facts import (
    MaskLost,
    RealTokensAsIgnoredKeys,
    RightPaddedPrompts,
)
from padlint.analysis.objects import MODEL_ENTRY_METHODS, names_a_model, takes_keyword
from padlint.analysis.values import (
    GoodMask,
    Instance,
    MappedDataset,
    Model,
    Padded,
    PadId,
    PadIdMask,
    Value,
    tags_of,
)
from padlint.analysis.walker_state import WalkerState
from padlint.semantics import table as T

TOKENIZER_METHODS = T.names("tokenizer", on="method")
FORMAT_METHODS = {"set_format", "with_format"}
STRING_METHODS = {"format", "strip", "lstrip", "rstrip", "lower", "upper", "replace"}


class ConsumerQuestions(WalkerState):
    """Mixed into the scope walker."""

    def right_pads_unread(self, side: str, sink: cst.CSTNode | None, stated: bool = False) -> bool:
        """Ids padded on the right (by the code itself, `stated`; a side the module states; or the default
        side of every tokenizer class it loads) for causal decoders only (loaded or written in the module), going anywhere but
        `generate`: no real token attends to a later position, so a missing mask changes nothing a real
        token reads (graded pads are the labels' business). `generate` appends after the pads: it needs it.
        `sink`: the model call, or what hands the rows on to a consumer not in view (None for a dataset's
        columns)."""
        if side != "right" or not (stated or self.module_info.right_side_known()):
            return False
        if not self.causal_models_only():
            # A module with no model of its own hands its rows to the project's modules that import it.
            if (
                sink is not None
                or self.loaded_consumers()
                or self.module_info.models_written(self.facts.module, self.code)
            ):
                return False
            if not consumers_beside.causal_readers_only(self.facts.filename, self.holder_name()):
                return False
        if isinstance(sink, cst.Call) and P.last_name(sink.func) != "dict":  # `dict(...)`: rows handed on
            # The code calling the model must not read its outputs at the pads either (the next token
            # taken at `logits[:, -1]`, a mean over the sequence); `generate` appends after the pads.
            if self.current_fn is not None:
                reads = attention.reads_every_position(self.code(self.current_fn))
            else:
                reads = self.module_info.reads_every_position(self.facts.module, self.code)
            return not reads and P.last_name(sink.func) != "generate"
        # Rows handed on: to the module's own code, which must not read the pads' outputs either.
        return not self.module_info.reads_every_position(self.facts.module, self.code)

    def holder_name(self) -> str | None:
        """The name of the top-level def or class being walked (what an importer names to use it)."""
        owner = self.facts.current_owner
        if owner is not None:
            top = owner.cls if owner.cls is not None else owner.node
            return top.name.value
        # A method walked from elsewhere (a summary): the top-level class or def that holds it.
        module = self.facts.module
        for stmt in module.body if module is not None and self.current_fn is not None else ():
            if stmt is self.current_fn:
                return stmt.name.value
            if isinstance(stmt, cst.ClassDef) and any(part is self.current_fn for part in stmt.body.body):
                return stmt.name.value
        return None

    def causal_consumer(self) -> bool:
        """Are the models this module loads all causal decoders (library table: consumer rows)?"""
        consumers = self.loaded_consumers()
        return bool(consumers) and all(row.attends == "causal" for row in consumers)

    def causal_models_only(self) -> bool:
        """Are the models of this module, those it loads (library table) and those it writes (its own
        classes that attend), all causal decoders, and is there one? Rows a Dataset or a map function
        makes go to them."""
        consumers = self.loaded_consumers()
        written = self.module_info.models_written(self.facts.module, self.facts.code)
        if not consumers and not written:
            return False
        return all(row.attends == "causal" for row in consumers) and all(written.values())

    def loaded_consumers(self) -> list[T.Row]:
        # every class loaded, not only each place's last: `model` loaded as a seq2seq model in one cell
        # and as a causal decoder in another is not a module of causal decoders only
        rows = [T.class_row(name) for name in sorted(self.module_info.classes_loaded)]
        return [row for row in rows if row is not None and row.kind == "consumer"]

    def continued_ids(self, call: cst.Call, receiver: cst.BaseExpression) -> Value:
        """`seqs = model.generate(**enc)` of a decoder-only model (library table: the generate row's
        "continues" style): the sequences start with the ids it was handed, padded as they were, and new
        tokens follow. Left pads stay at the front, so a model that reads `seqs` without a mask attends to
        them. The prompt's mask, its lengths and its gap no longer fit the longer rows: nothing to fix with.
        An encoder-decoder returns decoder tokens only; a model of unknown kind hands nothing on."""
        row = T.row_for(call.func.attr.value, "method") if isinstance(call.func, cst.Attribute) else None
        if row is None or row.style != "continues" or not self.decoder_only(receiver):
            return EMPTY
        keyword = row.roles["ids"][0]
        given = P.role_argument(call, row.roles["ids"])
        if given is not None:
            ids = self.evaluate(given.value)
        else:
            spread = next((a for a in call.args if a.star == "**"), None)
            if spread is None:
                return EMPTY
            ids = self.encoding_field(self.evaluate(spread.value), keyword, spread.value)
        self.right_padded_prompts(call, ids)
        return frozenset(
            p.moved().but(encoding=None, lost_at=None, generated_at=call)
            for p in tags_of(ids, Padded)
            if p.side == "left" and not p.of_labels
        )

    def model_class(self, receiver: cst.BaseExpression) -> str | None:
        """The class the model at `receiver` was loaded as: from the value it holds here (a name bound
        to one model in this function and another elsewhere holds each where it is bound), else from
        what the module assigns to that place (unknown where it assigns it models of several classes)."""
        key = place_key(receiver)
        held = self.env.get(key) if key is not None else None
        loaded = {m.loaded_class for m in tags_of(held or EMPTY, Model) if m.loaded_class}
        if len(loaded) == 1:
            return loaded.pop()
        place = P.dotted(receiver)
        if place in self.module_info.places_loaded_as_several:
            return None
        return self.module_info.model_classes.get(place)

    def right_padded_prompts(self, call: cst.Call, ids: Value) -> None:
        """Ids padded on the right reach a decoder-only `generate`, which continues each row after its last
        position (library table: the generate row's "continues" style). The side must be the code's own:
        padding by hand (`ids + [pad] * n`, `pad_sequence`), or a tokenizer the module pads on the right
        only (`padding_side="right"` in the call, or stated so and never "left"). A tokenizer whose side is
        the checkpoint's is not in view."""
        for padded in tags_of(ids, Padded):
            if padded.side != "right" or padded.of_labels or padded.target_ids or padded.generated_at is not None:
                continue
            if padded.from_tokenizer and not self.stated_right(padded.node):
                continue
            self.facts.record(self.facts.right_padded_prompts, RightPaddedPrompts(call, padded=padded))

    def stated_right(self, padding: cst.CSTNode) -> bool:
        """Does the code say this tokenizer call pads on the right: its own `padding_side=`, else every side
        the module states for its tokenizers is "right"?"""
        given = P.keyword(padding, "padding_side") if isinstance(padding, cst.Call) else None
        if given is not None:
            return P.string_value(given.value) == "right"
        return self.module_info.stated_sides == {"right"}

    def key_padding_masks(self, call: cst.Call, keywords: dict) -> None:
        """A torch attention layer (`self.encoder = nn.TransformerEncoder(...)`, then `self.encoder(x,
        src_key_padding_mask=m)`) ignores the keys where its key padding mask is True (library table:
        ignores_true_keys). A mask of the real tokens there (the tokenizer's, one from lengths, `ids !=
        pad_id`) hides every real token and leaves the pads; `~m`, `m == 0` are the pads."""
        layer = self.module_info.key_ignoring_layers.get(P.dotted(call.func))
        row = T.class_row(layer) if layer else None
        if layer is None or row is None:
            return
        for keyword, _ in row.roles.values():
            given = keywords.get(keyword)
            if given is not None and tags_of(self.evaluate(given.value), (GoodMask, PadIdMask)):
                found = RealTokensAsIgnoredKeys(given.value, layer=layer, keyword=keyword)
                self.facts.record(self.facts.real_tokens_as_ignored_keys, found)

    def decoder_only(self, receiver: cst.BaseExpression) -> bool:
        """Is the model called a causal decoder: loaded as a class the table says attends causally, or,
        loaded out of view, in a module whose models are all causal decoders?"""
        loaded = self.model_class(receiver)
        row = T.class_row(loaded) if loaded else None
        if row is not None and row.kind == "consumer":
            return row.attends == "causal"
        return loaded is None and self.causal_consumer()

    def loaded_model_called(self, call: cst.Call) -> bool:
        """Is the callee a place the module stores a pretrained model in (`self.enc =
        BertModel.from_pretrained(...)` in `__init__`, then `self.enc(ids)` in a method walked with no
        instance in view), whatever it is named? Its forward pass takes the ids first."""
        loaded = self.module_info.loaded_models().get(P.dotted(call.func))
        return loaded is not None and names_a_model(loaded.rsplit(".", 1)[-1])

    def takes_row_labels(self, sink: cst.CSTNode) -> bool:
        """Is `sink` a call of a model whose labels are one class per row (library table: row_labels)?
        Such labels hold no sequence positions: nothing in them is padding."""
        if not isinstance(sink, cst.Call):
            return False
        loaded = self.model_class(_model_called(sink))
        return loaded is not None and T.takes_row_labels(loaded)

    def labels_ignored_by(self, sink: cst.CSTNode) -> int | str | None:
        """What a model handed `labels=` at `sink` ignores when it computes its loss: the library table's
        value (transformers' models: -100) for a model class it knows or a model by provenance (what
        `from_pretrained` returned); None for a model out of view."""
        if not isinstance(sink, cst.Call):
            return None
        loaded = self.model_class(_model_called(sink))
        row = T.class_row(loaded) if loaded else None
        found = self.callees.get(sink)
        pretrained = found is not None and bool(tags_of(found[0], Model)) and found[1] in (None, "forward", "__call__")
        if (row is None or row.kind != "consumer") and not pretrained:
            return None
        return T.default("labels", "ignore_index", on="method")

    def pads_read_unmasked(self, call: cst.Call, padded: Padded) -> tuple[str, str] | None:
        """How the model called here reads ids the code padded itself when no mask goes with them (library
        table: consumer rows), with the class it was loaded as: ("bidirectional" | "encoder_decoder", class)
        where every token attends to every position (an encoder, or an encoder-decoder's encoder); ("left",
        class) where the pads come before each row's tokens, which any consumer attends to. None for a
        model the table does not know, and for `generate`, which makes the mask from the pad id when it can
        (the builds_mask row)."""
        method = call.func.attr.value if isinstance(call.func, cst.Attribute) else None
        if method not in (None, "forward", "__call__"):
            return None
        receiver = call.func.value if method is not None and isinstance(call.func, cst.Attribute) else call.func
        loaded = self.model_class(receiver)
        row = T.class_row(loaded) if loaded else None
        if loaded is None or row is None or row.kind != "consumer":
            return None
        if row.attends in ("bidirectional", "encoder_decoder"):
            return row.attends, loaded
        return ("left", loaded) if padded.side == "left" else None

    def consumer_builds_mask(self, call: cst.Call, keywords: dict) -> bool:
        """Does the callee make the mask itself from the pad id (library table: builds_mask)? `generate`
        does when it is told a pad id that is not the EOS (`pad_token_id=tok.pad_token_id`), or when the
        model's config carries a dedicated one (an encoder-decoder consumer row). A model loaded as a class
        that makes its own mask whatever it is called through (a builds_mask class row) does too."""
        receiver = call.func.value if isinstance(call.func, cst.Attribute) else call.func
        for place in (call.func, receiver):
            named = self.model_class(place)
            own = T.class_row(named) if named else None
            if own is not None and own.kind == "builds_mask":
                return True
        row = T.row_for(call.func.attr.value, "method") if isinstance(call.func, cst.Attribute) else None
        if row is None or row.kind != "builds_mask" or not isinstance(call.func, cst.Attribute):
            return False
        if self.facts.pad_eos_reaches(self.facts.current_owner, call):
            return False  # pad = EOS: generate cannot tell pads from real EOS and builds all ones
        pad = keywords.get(row.roles["pad_id"][0])
        if pad is not None:
            origins = tags_of(self.evaluate(pad.value), PadId)
            told = bool(origins) or P.is_pad_id_expression(pad.value)
            return told and not P.mentions_eos(pad.value) and not any(p.eos_fallback for p in origins)
        model = self.model_class(call.func.value)
        loaded = T.class_row(model) if model else None
        return loaded is not None and loaded.kind == "consumer" and loaded.attends == "encoder_decoder"

    def rejects_mask(self, call: cst.Call) -> bool:
        """Is the callee (`model(...)`, `model.generate(...)`, `model.forward(...)`) loaded as a class that
        refuses an attention mask holding zeros (library table: rejects_mask)?"""
        receiver = call.func.value if isinstance(call.func, cst.Attribute) else call.func
        return any(T.rejects_mask(self.model_class(place)) for place in (call.func, receiver))

    def masks_refused(self) -> bool:
        """Do all the models this module loads refuse an attention mask with zeros (rejects_mask rows)?
        Then its feature dicts go without a mask, or with all ones, on purpose."""
        loaded = self.module_info.loaded_models().values()
        return bool(loaded) and all(T.rejects_mask(name) for name in loaded)

    def made_by_factory(self, call: cst.Call) -> bool:
        """Is the callee (`model(...)`, `model.generate(...)`) made only by imported factory functions
        (`model = build_transformer_model(...)`), never loaded as a class the table knows?"""
        receiver = call.func.value if isinstance(call.func, cst.Attribute) else call.func
        for place in {P.dotted(call.func), P.dotted(receiver)}:
            if place and place in self.module_info.model_factories and place not in self.module_info.model_classes:
                return True
        return False

    def runs_checkpoint_code(self, call: cst.Call) -> bool:
        """Is the callee (`model(...)`, `model.generate(...)`) loaded only as the checkpoint's own code
        (`AutoModel*.from_pretrained(..., trust_remote_code=True)`, library table: checkpoint_code rows)?
        What its forward and generate do without a mask is in the checkpoint's modeling file."""
        receiver = call.func.value if isinstance(call.func, cst.Attribute) else call.func
        return any(
            self.module_info.checkpoint_code(place) for place in {P.dotted(call.func), P.dotted(receiver)} if place
        )

    def only_checkpoint_code(self) -> bool:
        """Is every model this module loads the checkpoint's own code? Then the consumer of its feature
        dicts is code not in view."""
        loaded = self.module_info.loaded_models()
        return bool(loaded) and all(self.module_info.checkpoint_code(place) for place in loaded)

    def one_row_text(self, expr: cst.BaseExpression) -> bool:
        """A list of at most one text (`[prompt]`, or rows built from a parameter every caller hands
        one example): padded to its longest row it pads nothing."""
        fn = self.current_fn
        if fn is None:
            module = self.facts.module if self.walking_home() else None
            return one_row.script_one_row(module, expr) if module is not None else one_row.is_one_element_list(expr)
        params = self.module_info.one_row_parameters(self.facts.module, fn) if self.walking_home() else set()
        return one_row.at_most_one_row(fn, expr, params)

    def copies_of_one_text(self, expr: cst.BaseExpression) -> bool:
        """Copies of one text (`[prompt] * n`, or a name bound to that before `expr`): rows of one length."""
        return one_row.copies_of_one_text(self.current_fn or self.facts.module, expr)

    def walking_home(self) -> bool:
        """Is the code being walked the linted module's own? Facts about its callers (call_sites.py) are
        gathered for the linted module only."""
        return self.facts.module is not None and (self.module_context is None or self.module_context.home)

    def loss_discarded(self, call: cst.Call) -> bool:
        """`out = model(..., labels=y)` read only as `out.logits`: no loss grades the labels."""
        return output_use.loss_never_read(self.current_fn or self.facts.module, call)

    def known_not_a_model(self, call: cst.Call) -> bool:
        """Is the callee of a call handed `input_ids=` known to be something other than a model's forward
        pass? A pretrained model's other attribute, not named like a model (`m.embeddings(input_ids=ids)`:
        an embedding lookup; `m.encoder(...)` and `m.model(...)` stay model calls), or a function or
        method in view that is not a model's and cannot take a mask (`self.embed_hypothesis(input_ids=
        ids)`): its walk with the ids decides, and a model it hands them to is the sink."""
        found = self.callees.get(call)
        if found is not None:
            value, method = found
            if method is not None and tags_of(value, Model) and method not in MODEL_ENTRY_METHODS:
                return not P.model_callee(method)
            return False
        resolved = self.resolve_local(call.func)
        if resolved is None:
            return False
        fn, parent, bound = resolved
        if takes_keyword(fn, "attention_mask"):
            return False
        if bound and fn.name.value in MODEL_ENTRY_METHODS:
            return not any(self.is_model_class(cls, env.parent) for cls, env in self.class_envs[-1:] if env is not None)
        return True

    def consumer_attends(self, call: cst.CSTNode) -> bool:
        """Does the project class called here attend (attention.py)?"""
        found = self.callees.get(call) if isinstance(call, cst.Call) else None
        if found is None:
            return False
        module = self.facts.module
        return any(attention.attends(inst.cls, module, self.facts.code) for inst in tags_of(found[0], Instance))

    def model_by_provenance(self, call: cst.Call) -> bool:
        """A call of a model whatever its name: a pretrained model, or an instance of a project
        nn.Module (its forward, or the method called, takes a mask)."""
        found = self.callees.get(call)
        if found is None:
            return False
        value, method = found
        return self.model_receiver(value, method)

    def check_columns(self, call: cst.Call, method: str, recv: Value) -> None:
        mapped = tags_of(recv, MappedDataset)
        if not mapped:
            return
        arg = P.keyword(call, "columns") or (
            P.positional(call, 1) if method in FORMAT_METHODS else P.positional(call, 0)
        )
        if method == "remove_columns":
            arg = P.positional(call, 0) or P.keyword(call, "column_names")
        if arg is None or not isinstance(arg.value, (cst.List, cst.Tuple)):
            return
        names = {P.string_value(e.value) for e in arg.value.elements}
        if method == "remove_columns":
            lost = "attention_mask" in names
        else:
            lost = "input_ids" in names and "attention_mask" not in names
        encoding = mapped[0].encoding
        if lost and not (encoding is not None and self.right_pads_unread(encoding.side, None)):
            self.facts.mask_lost.append(MaskLost(call, "columns", encoding=encoding, sink=call))


def _model_called(call: cst.Call) -> cst.BaseExpression:
    """The model a call runs: `model` of `model(...)`, `model.forward(...)` and `model.__call__(...)`."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value in ("forward", "__call__"):
        return func.value
    return func
