"""The facts one analysis of a module provides: what the rules read.

A fact describes what the code does with a value (labels masked where they equal the pad id, a mean
over a masked product, ids written through an alias); it never names a rule: each rule module holds
its own judgement over the facts. Facts are recorded while the flow pass walks each scope; the sets of
corrected masks and masked labels are read only after every scope has been walked, so a correction
anywhere later silences.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, TypeVar

import libcst as cst

from padlint.analysis.patterns import Imports, dotted, node_order
from padlint.analysis.values import Context, Copy, Encoding, Ones, Padded, PadIdMask

# `tok.pad_token_id`, `self.tokenizer.pad_token`: the tokenizer whose pad a comparison or a fill uses.
PAD_ID_RECEIVER = re.compile(r"([A-Za-z_][\w.]*)\.pad_token(?:_id)?\b")

if TYPE_CHECKING:
    from libcst.metadata import CodeRange  # a `from` import would load libcst (lazy_imports.py)


@dataclass
class OnesAtMask:
    """An all-ones mask over a padded value reached an attention-mask place."""

    ones: Ones | PadIdMask  # the mask (a PadIdMask: `ids != pad_id` reached the place)
    padded: Padded  # what the ones are shaped like (with the encoding that holds its real mask)
    sink: cst.CSTNode
    context: Context
    padded_code: str | None  # a name holding the padded value at the builder, for fixes
    lengths_ok: bool
    gap_ok: bool
    pad_code: str | None = None  # the pad value, when its code is valid at the builder
    data_ok: bool = False  # list padding: the unpadded `x` of `x + [pad] * gap` is still valid here


@dataclass
class LabelsAtSink:
    """Padded ids (a copy, or the ids themselves) reached a labels place."""

    node: cst.CSTNode  # the copy, or the value at the sink
    padded: Padded
    copy: Copy | None
    sink: cst.CSTNode
    sink_kind: str  # "dict", "store", "keyword"
    context: Context
    source_code: str  # the ids expression the labels are taken from
    lengths_ok: bool
    gap_ok: bool
    mask_code: str | None  # a correct mask for these ids in scope, if any
    pad_code: str | None = None  # the pad value, when its code is valid at the sink
    in_test_code: bool = False  # built by a test (docs/usage.md, "Test code")
    pads_differ: bool = False  # padded with different values on different paths: no one pad value masks them
    # The container returned whole whose `"labels"` entry holds them (`batch["labels"].append(...)`, then
    # `return batch`): `node` is the container, not the labels.
    held_in: str | None = None
    # The labels reach their loss in code of another module of the project: `node` and `sink` are the
    # call of this module that hands them there, and this is the code of the place they reach.
    reached_in_other_module: str | None = None


@dataclass
class MaskLost:
    """A padded tokenizer output whose attention mask does not reach the model."""

    node: cst.CSTNode  # where to report
    how: str  # "dropped", "subscript", "encode", "sink", "columns", "decoder"
    padded: Padded | None = None
    encoding: Encoding | None = None
    sink: cst.CSTNode | None = None
    mask_code: str | None = None  # the mask to carry along, when known
    # Does the model call the mask would go into take `attention_mask=`? None: its signature is not in view.
    mask_accepted: bool | None = None
    # The ids' name is stored again in a loop around the sink (a decoding loop growing them): a mask
    # taken once fits the first pass only.
    ids_grown: bool = False


class Owner(NamedTuple):
    """The top-level def or class a fact sits in: a module-level function ("func"), a method
    ("method", with its class) or a class body ("class": node and cls are the class)."""

    kind: str
    node: cst.FunctionDef | cst.ClassDef
    cls: cst.ClassDef | None


@dataclass
class Fact:
    """Something the flow pass saw at a node, described, not judged: rules decide what it means."""

    node: cst.CSTNode
    owner: Owner | None = field(default=None, kw_only=True)  # set when recorded


@dataclass
class MaskPaddedAsIds(Fact):
    """A value padded like token ids, with the pad id, reached an attention-mask place: at the pads
    the mask holds the pad id, which is 0 only for some vocabularies. `node`: the padding step."""

    sink: cst.CSTNode
    pad: int | str  # the fill: "pad" (the pad id)
    pad_node: cst.BaseExpression | None = None  # the fill's expression, when written at the step


@dataclass
class LabelsMaskedWherePadId(Fact):
    """Labels set to -100 where they equal the pad id: `labels[labels == pad_id] = -100`, a write under
    `if labels[i] == pad_id:`, `[t if t != pad_id else -100 for t in row]`."""

    how: str  # "subscript", "where", "loop", "comprehension", ...
    condition: cst.BaseExpression | None = None  # the tensor comparison, when there is one
    mask_code: str | None = None  # the copied ids' attention mask, when known
    # A comprehension that compares each token with the pad id (`[[t if t != pad else -100 for t in row]
    # for row in rows]`): the outermost one, which a fix replaces whole, the padded ids it walks (their
    # code and padding) and whether it walks rows of them.
    rewrite: cst.BaseExpression | None = None
    ids_code: str | None = None
    padded: Padded | None = None
    nested: bool = False


@dataclass
class PadIdMaskAtSink(Fact):
    """A mask made as `ids != pad_id` (any spelling) reached an attention-mask place."""

    at_sink: OnesAtMask  # what a mask over the same ids needs at the sink


@dataclass
class LabelsPaddedWithToken(Fact):
    """Labels padded with a token value (the pad id, 0, -1), not -100, reached a labels place: a
    padding step, a collator's `label_pad_token_id`, or targets tokenized with `text_target=`."""

    how: str  # "padding_value", "list", "collator", "text_target"
    pad_arg: cst.Arg | cst.BaseExpression | None = None  # the pad value as written
    # text_target: the target ids where they become labels (their encoding keeps their mask) ...
    padded: Padded | None = None
    labels_at: cst.CSTNode | None = None  # the labels value at that place
    labels_code: str | None = None
    # ... or the encoding that carries them as its `labels`, returned as it is
    encoding: Encoding | None = None
    # text_target: where the labels went ("dict", "store", "return": held in rows; "keyword", "loss":
    # handed to a model or a loss)
    sink_kind: str = ""
    sink: cst.CSTNode | None = None  # the labels place they reached (a feature dict, a store), None for a loss


@dataclass
class RaisedByStore:
    """The label and mask events one store into a place raised: a later store into the same place
    replaces the value the consumer receives, and withdraws them (the new value raises its own)."""

    labels: list[LabelsAtSink] = field(default_factory=list)
    masks: list[OnesAtMask] = field(default_factory=list)
    label_pads: list[LabelsPaddedWithToken] = field(default_factory=list)

    def withdraw_from(self, facts: ModuleFacts) -> None:
        _withdraw(facts.labels_at_sink, self.labels)
        _withdraw(facts.ones_at_mask, self.masks)
        _withdraw(facts.labels_padded_with_token, self.label_pads)


def _withdraw(found: list[Any], raised: list[Any]) -> None:
    found[:] = [e for e in found if all(e is not x for x in raised)]


@dataclass
class RightPaddedPrompts(Fact):
    """Prompts padded on the right, as the code states, reach a decoder-only `generate` (node: the call):
    each row is continued after its last position, so a shorter row's new tokens follow its pads."""

    padded: Padded


@dataclass
class RealTokensAsIgnoredKeys(Fact):
    """A mask that is 1 (True) at the real tokens reached a layer's key padding mask, which is True at the keys
    it ignores (library table: ignores_true_keys). node: the mask argument."""

    layer: str  # the layer's class, qualified
    keyword: str


@dataclass
class PadIdFallback(Fact):
    """A pad id read as `pad_token_id or eos_token_id` is used to pad, mask or compare."""


@dataclass
class MaskedMean(Fact):
    """`(x * mask).mean()`: the mean of a product with a padding mask (node: the `.mean` call)."""

    product: cst.BinaryOperation
    mask: cst.BaseExpression
    dims: bool  # the mean is over given dimensions
    loss: bool = False  # it is a loss: reaches a backward pass, or a function, class or place named as one
    # The mean's receiver is the product itself (`(x * m).mean()`), not a name or parameter holding it:
    # only then can the mean be rewritten where it stands.
    in_place: bool = True


@dataclass
class MeanOverPositions(Fact):
    """A mean (or max) over the sequence axis of a model's hidden states for a padded batch, not weighted
    (or masked) by its mask (`out.last_hidden_state.mean(dim=1)`, `h.max(dim=1)`; node: the call). The
    pads' states count."""

    states: cst.BaseExpression  # what is averaged (the receiver, or torch.mean's first argument)
    mask: str | None  # code of the mask the model was given, when it still holds here
    model_call: cst.Call
    method: bool  # `states.mean(...)` rather than `torch.mean(states, ...)`
    reduction: str = "mean"  # "mean", or "max" (a max pool: library table, "pools" rows)


@dataclass
class LastPositionRead(Fact):
    """The last position of a model's per-position output for a batch padded on the right, read for
    every row (`out.logits[:, -1]`, `h[:, -1, :]`; node: the subscript). For a row shorter than the
    longest it is a pad."""

    states: cst.BaseExpression  # what is indexed
    model_call: cst.Call
    padded: Padded  # the ids' padding (its step, on the right)
    mask: str | None  # code of the mask the model was given, when it still holds here


@dataclass
class MaskAfterAverage(Fact):
    """`loss_fn(logits, y) * mask`: a loss that already averaged every position it grades, multiplied
    afterwards by a padding mask made by comparing its own targets with the pad id. Those targets hold
    the pad id at the pads and the loss does not ignore it: the pads are in the average, and a mask
    applied to one number cannot take them out (node: the product)."""

    loss_call: cst.Call
    mask: cst.BaseExpression


@dataclass
class MeanOverIgnored(Fact):
    """`losses.mean()` over a per-position loss (`reduction="none"`) whose ignored positions are there:
    the loss was told what to ignore, or the labels it grades hold the ignore value at their pads.
    Those positions hold 0 and count in the mean (node: the mean call)."""

    receiver: cst.BaseExpression  # what `.mean()` is taken of
    loss_call: cst.Call  # the loss that returned one loss per position
    target_code: str | None  # the target's code, where it still means the same at the mean
    ignored_code: str | None  # the ignored value's code, where it still means the same at the mean
    only_the_loss: bool  # the mean is taken of the per-position losses themselves, nothing added
    loss: bool = False  # it is a loss: reaches a backward pass, or a function, class or place named as one


@dataclass
class AliasWrittenInPlace(Fact):
    """Labels bound to the ids themselves (`labels = input_ids`) were written in place, and the ids
    were read again after the write (node: the ids expression the labels were bound to)."""

    kind: str  # what the ids are: "pt", "np", "list" or "?"
    list_write: bool  # the write stores a list
    into_rows: bool = False  # written through a row (`labels[i][j] = ...`): a list's rows must be copied too


@dataclass
class UnmaskedListPadding(Fact):
    """Features whose ids were padded by hand as lists reached a feature dict with no attention mask."""

    padded: Padded
    ids_code: str
    gap_ok: bool  # the padding's gap code is still valid at the dict
    data_ok: bool  # the unpadded list is still valid at the dict


@dataclass
class UnmaskedIds(Fact):
    """Ids the code padded itself (no tokenizer made a mask for them) reach a model call (node) that is handed
    no mask at all, where the library table says the model reads the pads: it attends both ways (an encoder,
    or an encoder-decoder's encoder), or the pads come before each row's tokens."""

    padded: Padded
    reads: str  # "bidirectional", "encoder_decoder" or "left": how the model reaches the pads
    model_class: str  # the class the model was loaded as
    context: Context
    ids_code: str | None  # the ids' code at the call, for fixes
    lengths_ok: bool
    gap_ok: bool
    pad_code: str | None  # the pad value, when its code is valid at the call
    mask_accepted: bool | None = None  # as MaskLost's


@dataclass
class LabelPadValue:
    """Labels are padded or masked with this value somewhere in the module."""

    node: cst.CSTNode
    value: int | str | None  # an int, "pad" for a pad id, None when it cannot be read
    code: str
    # A collator's label padding: written only where the rows it receives differ in length.
    by_collator: bool = False
    # Padding every row to one width (`padding="max_length"`): rows padded so reach a collator unragged.
    fixed_width: bool = False
    # The nodes of the value tags that carry these labels on (a padding step, a write of the value): where
    # they are seen at a labels place (LabelsReaching), that place's consumer grades this value.
    tags: tuple[cst.CSTNode, ...] = ()
    # Written into labels in place (`labels[pads] = -1`, `masked_fill`): judged only where those labels are
    # seen leaving the function (a labels place, a return); kept local, they are no labels (a gather index).
    written: bool = False
    # Where it was written: the function and the name written into (`func_labels[i][n:] = -1`), which a
    # loss of the same function grading that name grades.
    place: tuple[cst.FunctionDef | None, str] | None = None

    def carried_by(self, seen: frozenset[int]) -> bool:
        return any(id(node) in seen for node in (self.node, *self.tags))


@dataclass
class LabelsReaching:
    """Labels reached a labels place: the ids of their value tags' nodes; whether that place grades them (a
    loss, a model given `labels=`, which computes its own loss) or hands them on (a batch, a return); and the
    value it ignores, where known (a loss, a model of the library table or by provenance: -100)."""

    tags: frozenset[int]
    ignored: int | str | None
    graded_there: bool = True


@dataclass
class LossIgnoreIndex:
    """A loss call and the label value it ignores."""

    call: cst.Call
    arg: cst.Arg | None  # the `ignore_index=` argument; None: the default
    value: int | str | None  # the value ignored (-100 by default; "pad" for a pad id; None: unread)
    # Are the targets it grades token labels? None: not seen (a loss module whose calls are out of view);
    # False: every target seen is something else (class indices `y_true`, a score).
    labels_target: bool | None = None
    # A loss module stored in a name or attribute that nothing in the module reads again: it grades nothing.
    unused: bool = False
    # The ids of the value tags of the targets it grades (empty: targets the analysis does not follow).
    graded: frozenset[int] = frozenset()
    # Where it grades: each call's function, the name its target reads (`func_labels.reshape(-1)`) and the
    # target expression.
    target_places: list[tuple[cst.FunctionDef | None, str, cst.CSTNode]] = field(default_factory=list)


FactT = TypeVar("FactT", bound=Fact)


class Positions(Protocol):
    """Where each node of the module is (libcst's PositionProvider, resolved when first asked)."""

    def get(self, node: cst.CSTNode, default: None = None) -> CodeRange | None: ...


# A store of the labels or the loss mask: (the function it is in, the place stored into).
StorePlace = tuple["cst.FunctionDef | None", str | None]  # a string: `cst.` is not read at import (lazy_imports)
OwnerOrScript = Owner | None  # None: script code (the module body)


@dataclass
class ModuleFacts:
    module: cst.Module
    positions: Positions
    imports: Imports
    pad_is_eos: bool = False
    pad_token_set_to_eos: bool = False  # pad = EOS by setting the pad token, not only by padding with EOS
    # The module puts an EOS into the data (`text + tok.eos_token`, `ids + [eos_id]`, a chat template,
    # `add_eos_token=True`): only then can masking by a pad id equal to EOS cost a real EOS its label.
    eos_in_data: cst.CSTNode | None = None
    # Every place that puts an EOS into text or ids, with the def it sits in (None: every text, or script code)
    eos_additions: list[tuple[cst.CSTNode, OwnerOrScript]] = field(default_factory=list)
    text_tokenized: bool = False  # the module tokenizes text itself (not only `tokenizer.pad` of features)
    # A tokenizer call of the module leaves `add_special_tokens` on: the tokenizer may end the ids with EOS.
    special_tokens_added: bool = False
    # The module loads or makes a class whose tokenizer ends every text with its EOS when special tokens are
    # added (library table: appends_eos; a seq2seq tokenizer or model). The tokenizers that need pad = EOS
    # (no pad token of their own: GPT-2, Llama, GPT-NeoX, Falcon) add no EOS by default.
    eos_appending_class: bool = False
    pads_with_eos: bool = False  # a padding step pads with the EOS id (`padding_value=tok.eos_token_id`)
    # Values the module writes into labels over positions that are not padding (`[-1] * len(prompt) + answer`,
    # `[pad_id] * len(prompt) + answer`; P.PAD_ID_MARK for a pad id): its own ignore value, which padding
    # with the same value agrees with.
    label_marks: set[int | str] = field(default_factory=set)
    lm_collator_rebuilds_labels: bool = False
    # Top-level defs whose rows every importer batches with a library LM collator (importers.py).
    defs_relabelled_by_importers: list[cst.FunctionDef] = field(default_factory=list)
    mask_rebuilt_from_pad_id: bool = False  # a collator in this module derives the mask from the pad id
    ones_at_mask: list[OnesAtMask] = field(default_factory=list)
    masks_padded_as_ids: list[MaskPaddedAsIds] = field(default_factory=list)
    corrected_ones: set[Ones] = field(default_factory=set)  # Ones tags zeroed at pad positions later
    rows_overwritten: set[cst.CSTNode] = field(default_factory=set)  # padding steps whose rows are all written over
    masks_read: set[cst.CSTNode] = field(default_factory=set)  # tokenizer calls whose encoding's mask is read
    # Features that carry a loss mask next to their labels (`label_mask`, Megatron's `loss_mask`): a dict
    # node, or (function, place) of `batch["loss_mask"] = ...`; label sinks there need no -100.
    loss_masked: set[cst.CSTNode | StorePlace] = field(default_factory=set)
    label_store_places: dict[cst.CSTNode, StorePlace] = field(default_factory=dict)  # `batch["labels"] = ...`
    # Feature dicts a function mapped over a script's dataset returns, where no model ever reads that
    # dataset's rows (analysis/dataset_uses.py): what they hold reaches no consumer.
    rows_unconsumed: set[cst.CSTNode] = field(default_factory=set)
    # Padding steps whose values reach a model as labels of one class per row (library table: row_labels).
    row_label_paddings: set[cst.CSTNode] = field(default_factory=set)
    # ... and those whose `labels` column every loop over the dataset's batches drops unread.
    labels_unread: set[cst.CSTNode] = field(default_factory=set)
    labels_at_sink: list[LabelsAtSink] = field(default_factory=list)
    # Loss calls with one value per position (`reduction="none"`) whose result is averaged whole
    # (`losses.mean()`): -100 labels make the pads' terms 0 and the mean still counts them.
    losses_averaged_whole: set[cst.CSTNode] = field(default_factory=set)
    masked_copies: set[Copy] = field(default_factory=set)  # Copy tags set to -100 at pad positions later
    # Copy tags whose masking selects no position (`torch.tensor(ids_list == pad_id)`): copy -> the write
    masking_selects_nothing: dict[Copy, cst.CSTNode] = field(default_factory=dict)
    mask_lost: list[MaskLost] = field(default_factory=list)
    unmasked_ids: list[UnmaskedIds] = field(default_factory=list)
    # Returns of collate functions handing back bare ids (the Return, or the lambda) -> the calls that
    # receive their batches, where every one is in view (analysis/batch_uses.py)
    batch_consumers: dict[cst.CSTNode, tuple[cst.Call, ...] | None] = field(default_factory=dict)
    # Model calls whose consumer makes the mask itself from the pad id, or refuses one (library table),
    # or whose output nothing reads
    mask_not_needed_at: set[cst.CSTNode] = field(default_factory=set)
    # id of a padding step's node -> a model call (not `generate`) whose forward pass reads those ids
    ids_at_forward: dict[int, cst.Call] = field(default_factory=dict)
    dropped_results: set[cst.CSTNode] = field(default_factory=set)  # calls made as statements on their own
    outputs_hooked: bool | None = None  # the module registers a forward hook (worked out when first asked)
    filename: str = "-"
    line_length: int = 88  # the scanned project's line length: fixes keep their lines within it
    # What fixes work out once per module (rules/sites.py): every identifier in it, its string quote.
    module_names: set[str] | None = field(default=None, repr=False)
    # Names the module's fixes bind (`encoding`, `encoding_2`): two fixes applied together must not
    # bind one name twice, or the second's reads pick up the first's value.
    names_bound_by_fixes: set[str] = field(default_factory=set, repr=False)
    quote: str | None = None
    source_text: str | None = field(default=None, repr=False)  # the module's text, where the engine has it
    text_words_memo: dict[str, bool] = field(default_factory=dict, repr=False)  # text_has, once per word
    # labels_as_inputs.model_feeding_labels, asked once per module ("" until asked: None is an answer)
    labels_fed_by: str | None = field(default="", repr=False)
    # labels_as_inputs.labels_given_as_inputs, asked once per module (None until asked)
    labels_shared: list | None = field(default=None, repr=False)
    source_lines: list[str] | None = field(default=None, repr=False)  # the module's lines, for fix layout
    dependencies: set[str] = field(default_factory=set)  # other files of the project this analysis read
    # where pad is set to EOS: (node, owner, the tokenizer's code when known)
    pad_eos: list[tuple[cst.CSTNode, OwnerOrScript, str | None]] = field(default_factory=list)
    # where pad is set to EOS only for a tokenizer without a pad token (note_pad_eos), alike
    pad_eos_fallbacks: list[tuple[cst.CSTNode, OwnerOrScript, str | None]] = field(default_factory=list)
    program: bool | None = field(default=None, repr=False)  # is_program, once asked
    # Script code (owner None) binding a tokenizer name anew: (name, node). A tokenizer loaded again
    # starts with its checkpoint's own pad token.
    tokenizer_loads: list[tuple[str, cst.CSTNode]] = field(default_factory=list)
    # Statements that surely give a tokenizer (its code) a pad token of its own, with the top-level
    # function they sit in (None: script code) (pad_guards.pad_resets).
    pad_resets: list[tuple[cst.CSTNode, str, cst.FunctionDef | None]] = field(default_factory=list)
    dedicated_pads: set[str] = field(default_factory=set)  # tokenizers (code) given a pad token of their own
    current_owner: OwnerOrScript = None  # the top-level def/class being gathered or walked
    # What the flow pass saw, in the order it was seen (one entry per node and kind of fact).
    labels_masked_where_pad_id: list[LabelsMaskedWherePadId] = field(default_factory=list)
    pad_id_masks_at_sink: list[PadIdMaskAtSink] = field(default_factory=list)
    labels_padded_with_token: list[LabelsPaddedWithToken] = field(default_factory=list)
    pad_id_fallbacks: list[PadIdFallback] = field(default_factory=list)
    right_padded_prompts: list[RightPaddedPrompts] = field(default_factory=list)
    real_tokens_as_ignored_keys: list[RealTokensAsIgnoredKeys] = field(default_factory=list)
    masked_means: list[MaskedMean] = field(default_factory=list)
    means_over_ignored: list[MeanOverIgnored] = field(default_factory=list)
    masks_after_average: list[MaskAfterAverage] = field(default_factory=list)
    means_over_positions: list[MeanOverPositions] = field(default_factory=list)
    last_position_reads: list[LastPositionRead] = field(default_factory=list)
    aliases_written_in_place: list[AliasWrittenInPlace] = field(default_factory=list)
    unmasked_list_padding: list[UnmaskedListPadding] = field(default_factory=list)
    label_values: list[LabelPadValue] = field(default_factory=list)  # values labels are padded/masked with
    labels_reaching: list[LabelsReaching] = field(default_factory=list)  # labels at labels places
    loss_ignores: list[LossIgnoreIndex] = field(default_factory=list)
    # The values calls outside the table were told to skip (`ignore_index=`): a project's own loss or metric.
    ignores_told: list[int | str | None] = field(default_factory=list)
    ignored_beside_memo: dict[frozenset[str] | None, frozenset[int | str]] = field(default_factory=dict)
    # (collate function or Dataset class, key) -> is that item of every batch only decoded (sinks.py)
    labels_decoded_memo: dict[tuple[cst.CSTNode, str], bool] = field(default_factory=dict, repr=False)
    lm_collators: list[tuple[cst.Call, OwnerOrScript]] = field(default_factory=list)  # DCLM(mlm=False) calls
    # Calls of its kin that build labels the same way: trl's completion-only collator, project subclasses
    lm_collator_kin: list[tuple[cst.Call, OwnerOrScript]] = field(default_factory=list)
    repadding_collator: bool = False  # tokenizer.pad / DataCollatorWithPadding / ... pads features again
    # One entry per labels store into a feature dict: are the stored label rows all of one width (padded
    # to `max_length` with truncation, or filled with -100 to one width)? A collator pads no such rows.
    label_rows_one_width: list[bool] = field(default_factory=list)
    # (function name, owner) of functions returning labels with -100 on the prompt (None: script code)
    labels_built: list[tuple[str | None, OwnerOrScript]] = field(default_factory=list)
    map_calls: list[tuple[str, OwnerOrScript]] = field(default_factory=list)  # (function name, owner) of `ds.map(fn)`
    _code: dict[cst.CSTNode, str] = field(default_factory=dict, repr=False)  # node (hashed by identity) -> its code
    _order: dict[int, int] | None = field(default=None, repr=False)  # id(node) -> reading order (order())
    # padding step of labels -> (how, pad) until the labels reach a labels place
    # ... and where a pad value handed in by a caller was handed (label_values.pad_origin)
    pending_label_pads: dict[
        cst.CSTNode, tuple[str, cst.Arg | cst.BaseExpression | None, cst.BaseExpression | None]
    ] = field(default_factory=dict)

    def record(self, found: list[FactT], fact: FactT) -> None:
        """Add `fact` to `found` (one of the lists above), once per node, owned by the current owner."""
        if all(seen.node is not fact.node for seen in found):
            fact.owner = self.current_owner
            found.append(fact)

    def note_pad_eos(
        self, node: cst.CSTNode, tokenizer: str | None = None, padding: bool = False, fallback: bool = False
    ) -> None:
        """The module makes the pad token of `tokenizer` (its code, when known) the EOS token here;
        `padding`: by padding with the EOS id (then comparisons with the EOS id are comparisons with
        the pad id, see pads_with_eos); `fallback`: only where the tokenizer has no pad token of its
        own (`if tok.pad_token is None:`, `tok.pad_token or tok.eos_token`). In a program, whether it has
        one is the checkpoint's, out of view: a fallback makes the pad possibly the EOS
        (`pad_eos_possible`, which fixes must be right for), not surely (`pad_is_eos`, which findings
        need). In library code it is pad = EOS for every caller whose checkpoint has no pad token."""
        if fallback:
            self.pad_eos_fallbacks.append((node, self.current_owner, tokenizer))
            if self.is_program():
                return  # the program's own checkpoint decides, and it is not in view
            # Library code (a trainer, a collator other code imports) serves every checkpoint its callers
            # pass: for those that ship no pad token the fallback fires, and the pad is the EOS.
        self.pad_is_eos = True
        self.pad_eos.append((node, self.current_owner, tokenizer))
        if padding:
            self.pads_with_eos = True
        else:
            self.pad_token_set_to_eos = True

    def held_with_loss_mask(self, sink: cst.CSTNode) -> bool:
        """Do the labels that reached `sink` (a feature dict, a return, a store) travel with a loss mask of
        their own (`"loss_mask"`, `"response_mask"`: P.LOSS_MASK_KEYS), which their reader weighs the loss by?"""
        return sink in self.loss_masked or self.label_store_places.get(sink) in self.loss_masked

    def is_program(self) -> bool:
        """Does the module run as a program (a main block, arguments parsed, a notebook, or a script no
        module imports that loads a model or tokenizer at its top level): code that runs with the
        checkpoint it loads, not a library?"""
        if self.program is None:
            from padlint.analysis import dead_code

            module, name = self.module, self.filename
            self.program = module is not None and (
                dead_code.runs_as_program(module, name)
                or dead_code.loads_at_top_level(module)
                and dead_code.works_nobody_imports(module, name)
            )
        return self.program

    @property
    def pad_eos_possible(self) -> bool:
        """May the pad be the EOS somewhere in the module: surely, or where a tokenizer has no pad token?"""
        return self.pad_is_eos or bool(self.pad_eos_fallbacks)

    def pad_eos_for(self, owner: OwnerOrScript, at: cst.CSTNode | None = None) -> cst.CSTNode | None:
        """Where pad is set to EOS in a way that reaches code owned by `owner` (at node `at`), if anywhere.

        Pad = EOS is a fact about one tokenizer from one point on: script code (a notebook's cells)
        runs in order, so for an event in script code a setting further down has not happened yet,
        and a tokenizer loaded again under the same name no longer has it."""
        candidates = self._pad_eos_candidates(owner, at)
        if len(candidates) <= 1:
            return candidates[0] if candidates else None
        return min(candidates, key=self.order)

    def model_feeding_labels(self) -> str | None:
        """A model class of the table that feeds its labels to the decoder as input ids, named in this module
        or its project (labels_as_inputs.py): -100 written into labels would reach its embedding."""
        if self.labels_fed_by == "":
            from padlint.analysis.labels_as_inputs import model_feeding_labels

            self.labels_fed_by = model_feeding_labels(self.filename, self.source_text)
        return self.labels_fed_by

    def labels_given_as_inputs(self) -> list:
        """The module's calls that hand one value as `labels=` and as input ids (labels_as_inputs.py), once."""
        if self.labels_shared is None:
            from padlint.analysis.labels_as_inputs import labels_given_as_inputs

            self.labels_shared = labels_given_as_inputs(self.module) if self.module is not None else []
        return self.labels_shared

    def ignored_by_readers(self, value: int | str | None, holder: str | None) -> bool:
        """Does a loss or metric of this module, or of a module beside it that imports `holder` (the
        top-level def or class holding the labels; ignores_beside.py), skip the label value `value`
        (an int, or "pad" for the pad id)? Then a reader of labels padded with it that is out of view
        may well skip the pads."""
        if value is None:
            return False
        from padlint.analysis.ignores_beside import same_ignore_value

        if any(same_ignore_value(value, loss.value) for loss in self.loss_ignores):
            return True
        beside = self.ignored_beside(frozenset({holder} if holder else ()))
        return any(same_ignore_value(value, ignored) for ignored in beside)

    def text_has(self, word: str) -> bool:
        """Does the module's text hold `word` (True where the text is not at hand)? Once per word: the
        analysis asks at every call it walks."""
        found = self.text_words_memo.get(word)
        if found is None:
            found = self.text_words_memo[word] = self.source_text is None or word in self.source_text
        return found

    def ignored_beside(self, names: frozenset[str] | None = None) -> frozenset[int | str]:
        """ignores_beside.ignore_values_beside for this module, once per `names` in one analysis (it reads
        the project's modules: the first call notes them for the result cache)."""
        found = self.ignored_beside_memo.get(names)
        if found is None:
            from padlint.analysis.ignores_beside import ignore_values_beside

            found = self.ignored_beside_memo[names] = ignore_values_beside(self.filename, names)
        return found

    def collator_labels_unread(self, call: cst.Call) -> bool:
        """Is the collator object `call` makes handed only to DataLoaders whose every batch is read in
        view, none of them reading the batch's labels (batch_uses.made_collator_item_unread)?"""
        from padlint.analysis.batch_uses import made_collator_item_unread

        return self.module is not None and made_collator_item_unread(self.module, call, self.imports, "labels")

    def eos_may_be_put_in(self) -> bool:
        """Can the module's data hold a real EOS? Not when it makes its token ids from text itself and
        never puts an EOS in (texts ended by `###`, no `eos_token_id` appended): then a pad id equal to
        EOS marks only the pads. Ids made out of view may hold one. An EOS put in by a def that does not
        build the rows (a generation prompt, `tok(tok.eos_token + "Once")`) where the module builds them
        by mapping functions over a dataset reaches no row."""
        return not self.text_tokenized or any(self._reaches_rows(owner) for _, owner in self.eos_additions)

    def note_eos_in_data(self, node: cst.CSTNode, every_text: bool = False) -> None:
        self.eos_in_data = self.eos_in_data or node
        self.eos_additions.append((node, None if every_text else self.current_owner))

    def _reaches_rows(self, owner: OwnerOrScript) -> bool:
        """Can what a def puts into text reach the rows of the module's mapped datasets? Yes for script
        code, a method, a mapped function, a def that maps, or a helper a mapped function or a def that
        maps names (`df["text"].apply(helper)` before `Dataset.from_pandas(df).map(...)`); and wherever
        the rows are not built by mapping named functions of the module."""
        mapped = {name for name, _ in self.map_calls}
        if not mapped or "<lambda>" in mapped or owner is None or owner.kind != "func":
            return True
        node = owner.node
        if node.name.value in mapped or any(where == owner for _, where in self.map_calls):
            return True
        named = re.compile(rf"\b{re.escape(node.name.value)}\b")
        module = self.module
        mapping = {where.node for _, where in self.map_calls if where is not None and where.kind == "func"}
        return module is not None and any(
            isinstance(stmt, cst.FunctionDef)
            and (stmt.name.value in mapped or stmt in mapping)
            and named.search(self.code(stmt))
            for stmt in module.body
        )

    def real_eos_in_ids(self, zero_pad_tokenizers: bool = False) -> bool:
        """eos_may_be_put_in, or a tokenizer call adds its special tokens where the module loads a class
        whose tokenizer ends every text with EOS by default (library table: appends_eos), or where the pad
        becomes the EOS also for tokenizers whose pad id is 0 (`zero_pad_tokenizers`: T5's family, whose
        texts end with EOS). The tokenizers that need pad = EOS otherwise have no pad token of their own
        (GPT-2, Llama, GPT-NeoX, Falcon) and end no text with EOS by default."""
        appended = self.eos_appending_class or zero_pad_tokenizers
        return self.eos_may_be_put_in() or (self.special_tokens_added and appended)

    def pad_eos_reaches(self, owner: OwnerOrScript, at: cst.CSTNode | None = None) -> bool:
        """Does a pad = EOS setting reach code owned by `owner` (at node `at`)? (pad_eos_for, unordered)"""
        return bool(self._pad_eos_candidates(owner, at))

    def _pad_eos_candidates(self, owner: OwnerOrScript, at: cst.CSTNode | None) -> list[cst.CSTNode]:
        from padlint.analysis.tokenizer_objects import setting_may_reach

        used = self.tokenizer_used(at) if at is not None else None
        if used in self.dedicated_pads and all(tok != used for _, _, tok in self.pad_eos):
            return []  # the tokenizer used here has a pad token of its own; pad = EOS is another one's
        reaching = [
            (node, where)
            for node, where, tok in self.pad_eos
            if self.reaches(node, where, tok, owner, at) and setting_may_reach(self, node, tok, at)
        ]
        same = [node for node, where in reaching if where == owner]
        return same or [node for node, where in reaching if self.connected(where, owner)]

    def reaches(
        self,
        node: cst.CSTNode,
        where: OwnerOrScript,
        tokenizer: str | None,
        owner: OwnerOrScript,
        at: cst.CSTNode | None,
    ) -> bool:
        if at is not None and where is not None and where == owner and where.kind == "func":
            # set and used in one function: a pad token of its own given in between, in that
            # function, ends pad = EOS
            endings = [(tok, reset) for reset, tok, fn in self.pad_resets if fn is where.node]
            return not self._ended_between(tokenizer, node, at, endings)
        if at is None or where is not None or owner is not None:
            return True  # functions run when called: order in the file says nothing
        if self.order(node) > self.order(at):
            return False
        # script code: the tokenizer loaded again, or given a pad token of its own by script code
        endings = [*self.tokenizer_loads, *((tok, reset) for reset, tok, fn in self.pad_resets if fn is None)]
        return not self._ended_between(tokenizer, node, at, endings)

    def _ended_between(
        self, tokenizer: str | None, start: cst.CSTNode, end: cst.CSTNode, endings: list[tuple[str, cst.CSTNode]]
    ) -> bool:
        """Does one of `endings` (tokenizer code, statement) for `tokenizer` come after `start`, before `end`?"""
        set_at, use_at = self.order(start), self.order(end)
        return any(name == tokenizer and set_at < self.order(ending) < use_at for name, ending in endings)

    def tokenizer_used(self, node: cst.CSTNode) -> str | None:
        """The tokenizer (its code) whose pad id `node` uses: a collator's `tokenizer` argument, or the
        one receiver of `.pad_token_id` / `.pad_token` written in it; None when not one."""
        if isinstance(node, cst.Call):
            given = tokenizer_argument(node)
            if given is None and node.args and node.args[0].keyword is None and not node.args[0].star:
                given = node.args[0]
            if given is not None and isinstance(given.value, (cst.Name, cst.Attribute)):
                return dotted(given.value) or None
        receivers = self.pad_id_receivers(node) - {"self", "cls"}  # an id kept on an object
        return receivers.pop() if len(receivers) == 1 else None

    def pad_id_receivers(self, node: cst.CSTNode) -> set[str]:
        """The receivers of `.pad_token_id` / `.pad_token` written in `node` (`tok`, `self.tokenizer`)."""
        return set(PAD_ID_RECEIVER.findall(self.code(node)))

    @staticmethod
    def connected(a: OwnerOrScript, b: OwnerOrScript) -> bool:
        """Do facts of two places meet? The same function or method, script code, a module-level
        function (a helper anyone may call), or a class's set-up (`__init__`, a fixture) and its methods."""
        if a is None or b is None or a == b or a.kind == "func" or b.kind == "func":
            return True
        return a.cls is not None and a.cls is b.cls and (_is_setup(a) or _is_setup(b))

    def code(self, node: cst.CSTNode) -> str:
        # The same node's code is asked for again and again; libcst renders it anew each time.
        found = self._code.get(node)
        if found is None:
            found = self._code[node] = self.module.code_for_node(node)
        return found

    def order(self, node: cst.CSTNode) -> int:
        """Where a node comes in this module, in reading order; -1 for a node of another module (of a
        callee the analysis followed there). Positions would say the same at many times the cost:
        libcst renders the whole module's code to work them out (seconds on a large file)."""
        if self._order is None:
            self._order = node_order(self.module)
        return self._order.get(id(node), -1)

    def is_local(self, node: cst.CSTNode) -> bool:
        """Is `node` a node of this module (so a finding there can be reported here)?"""
        return self.order(node) >= 0

    def span(self, node: cst.CSTNode) -> CodeRange | None:
        if getattr(self.positions, "resolved", True) is None and not self.is_local(node):
            return None  # another module's node: no need to work out this module's positions
        return self.positions.get(node)

    def range_of(self, node: cst.CSTNode) -> CodeRange:
        """Where a node of this module is (every node of the module has a position)."""
        span = self.span(node)
        if span is None:
            raise LookupError(f"no position for {type(node).__name__}: not a node of this module")
        return span

    def at(self, node: cst.CSTNode) -> str:
        """Where a node is, for messages: "on line 12", or in another module of the project."""
        line = self.line(node)
        return f"on line {line}" if line else "in another module of the project"

    def line(self, node: cst.CSTNode) -> int:
        span = self.span(node)
        return span.start.line if span is not None else 0

    def brief(self, node: cst.CSTNode) -> str:
        """A short form of an expression for messages: `pad_sequence(...)`, `ids + [pad] * gap`."""
        if isinstance(node, cst.Call):
            return f"{self.code(node.func)}(...)"
        text = " ".join(self.code(node).split())
        return text if len(text) <= 40 else text[:37] + "..."


SETUP_METHODS = {"__init__", "__post_init__", "setUp", "setUpClass", "setup", "setup_method", "setup_class"}


def tokenizer_argument(call: cst.Call) -> cst.Arg | None:
    """The `tokenizer=` argument of a call (a collator made with it), if any."""
    return next((a for a in call.args if a.keyword is not None and a.keyword.value == "tokenizer"), None)


def _is_setup(owner: Owner) -> bool:
    node = owner.node
    if owner.kind == "class" or not isinstance(node, cst.FunctionDef):
        return True
    return node.name.value in SETUP_METHODS or any(_is_fixture(d.decorator) for d in node.decorators)


def _is_fixture(decorator: cst.BaseExpression) -> bool:
    """`@fixture`, `@pytest.fixture`, `@pytest.fixture(scope=...)`; not `@pytest.mark.parametrize(...)`."""
    callee = decorator.func if isinstance(decorator, cst.Call) else decorator
    return "fixture" in dotted(callee).rpartition(".")[2]
