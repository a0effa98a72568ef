"""The facts one analysis of a module provides: what the rules read.

Events are recorded while the flow pass walks each scope; the sets of corrected masks and masked
labels are read only after every scope has been walked, so a correction anywhere later silences.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import CodeRange

from padlint.analysis.patterns import Imports
from padlint.analysis.values import Context, Copy, Encoding, Ones, Padded


@dataclass
class OnesAtMask:
    """An all-ones mask over a padded value reached an attention-mask place."""

    ones: Ones
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


@dataclass
class MaskLost:
    """A padded tokenizer output whose attention mask does not reach the model."""

    node: cst.CSTNode  # where to report
    how: str  # "dropped", "subscript", "encode", "sink", "columns"
    padded: Padded | None = None
    encoding: Encoding | None = None
    sink: cst.CSTNode | None = None
    mask_code: str | None = None  # the mask to carry along, when known


@dataclass
class ModuleFacts:
    module: cst.Module
    positions: dict  # node -> CodeRange
    imports: Imports
    pad_is_eos: bool = False
    lm_collator_rebuilds_labels: bool = False
    mask_rebuilt_from_pad_id: bool = False  # a collator in this module derives the mask from the pad id
    ones_at_mask: list[OnesAtMask] = field(default_factory=list)
    corrected_ones: set = field(default_factory=set)  # Ones tags zeroed at pad positions later
    rows_overwritten: set = field(default_factory=set)  # padding steps whose rows are all written over
    masks_read: set = field(default_factory=set)  # tokenizer calls whose encoding's attention_mask is read
    # Features that carry a loss mask next to their labels (`label_mask`, Megatron's `loss_mask`): a dict
    # node, or (function, place) of `batch["loss_mask"] = ...`; label sinks there need no -100.
    loss_masked: set = field(default_factory=set)
    label_store_places: dict = field(default_factory=dict)  # `batch["labels"] = ...` target -> (function, place)
    labels_at_sink: list[LabelsAtSink] = field(default_factory=list)
    masked_copies: set = field(default_factory=set)  # Copy tags set to -100 at pad positions later
    mask_lost: list[MaskLost] = field(default_factory=list)
    filename: str = "-"
    line_length: int = 88  # the scanned project's line length: fixes keep their lines within it
    fix_memo: dict = field(default_factory=dict, repr=False)  # what fixes work out once per module
    pad_eos: list = field(default_factory=list)  # (node, owner) where pad is set to EOS
    current_owner: cst.CSTNode | None = None  # the top-level def/class being gathered or walked
    # The relatives (PAD004–PAD012): one list of events per rule code, in the order they were seen.
    events: dict = field(default_factory=dict)
    label_values: list = field(default_factory=list)  # (node, int | None, code): values labels are padded/masked with
    loss_ignores: list = field(default_factory=list)  # (loss call, ignore_index Arg | None, int | None, code)
    lm_collators: list = field(default_factory=list)  # DataCollatorForLanguageModeling(mlm=False) calls
    repadding_collator: bool = False  # tokenizer.pad / DataCollatorWithPadding / ... pads features again
    labels_built: list = field(default_factory=list)  # (function name, owner) returning prompt-masked labels
    map_calls: list = field(default_factory=list)  # (function name, owner) of `dataset.map(fn)` calls
    _code: dict = field(default_factory=dict, repr=False)  # node (hashed by identity) -> its code
    pending_label_pads: dict = field(
        default_factory=dict
    )  # padding step -> (how, pad) until labels reach a sink  # owners of functions returning labels with -100 on the prompt

    def note_pad_eos(self, node: cst.CSTNode) -> None:
        """The module makes the pad token the EOS token here."""
        self.pad_is_eos = True
        self.pad_eos.append((node, self.current_owner))

    def pad_eos_for(self, owner) -> cst.CSTNode | None:
        """Where pad is set to EOS in a way that reaches code owned by `owner`, if anywhere."""
        same = [node for node, where in self.pad_eos if where == owner]
        linked = [node for node, where in self.pad_eos if self.connected(where, owner)]
        candidates = same or linked
        return min(candidates, key=self.line) if candidates else None

    @staticmethod
    def connected(a, b) -> bool:
        """Do facts of two places meet? The same function or method, script code, a module-level
        function (a helper anyone may call), or a class's set-up (`__init__`, a fixture) and its methods."""
        if a is None or b is None or a == b or a[0] == "func" or b[0] == "func":
            return True
        return a[2] is not None and a[2] is b[2] and (_is_setup(a) or _is_setup(b))

    def add(self, code: str, node: cst.CSTNode, how: str = "", **detail) -> None:
        events = self.events.setdefault(code, [])
        if all(e.node is not node for e in events):
            events.append(Event(node, how, detail, self.current_owner))

    def code(self, node: cst.CSTNode) -> str:
        # The same node's code is asked for again and again; libcst renders it anew each time.
        found = self._code.get(node)
        if found is None:
            found = self._code[node] = self.module.code_for_node(node)
        return found

    def span(self, node: cst.CSTNode) -> CodeRange | None:
        return self.positions.get(node)

    def line(self, node: cst.CSTNode) -> int:
        span = self.positions.get(node)
        return span.start.line if span is not None else 0

    def brief(self, node: cst.CSTNode) -> str:
        """A short form of an expression for messages: `pad_sequence(...)`, `ids + [pad] * gap`."""
        if isinstance(node, cst.Call):
            return f"{self.code(node.func)}(...)"
        text = " ".join(self.code(node).split())
        return text if len(text) <= 40 else text[:37] + "..."


@dataclass
class Event:
    """A finding candidate of the relatives (PAD004–PAD012): a node and what a fix needs."""

    node: cst.CSTNode
    how: str = ""
    detail: dict = field(default_factory=dict)
    owner: cst.CSTNode | None = None  # the top-level def/class it sits in


SETUP_METHODS = {"__init__", "__post_init__", "setUp", "setUpClass", "setup", "setup_method", "setup_class"}


def _is_setup(owner) -> bool:
    kind, node, _ = owner
    if kind == "class":
        return True
    return node.name.value in SETUP_METHODS or any(
        "fixture" in getattr(d.decorator, "value", "")
        or "fixture" in getattr(getattr(d.decorator, "attr", None), "value", "")
        or isinstance(d.decorator, cst.Call)
        and "fixture" in getattr(getattr(d.decorator.func, "attr", d.decorator.func), "value", "")
        for d in node.decorators
    )
