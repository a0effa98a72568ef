"""The tags a value can carry in the data-flow pass (see ANALYSIS.md: places and values).

A value is a frozenset of tags. Tags compare by identity: the same padding step seen through two
names is the same tag object, which is what lets a masking statement on one name silence a copy
made through another.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import libcst as cst

if TYPE_CHECKING:
    from padlint.analysis.facts import OnesAtMask

Value = frozenset


@dataclass(eq=False)
class Padded:
    """Token ids after a padding step (a row or a batch)."""

    node: cst.CSTNode  # the padding step
    kind: str = "?"  # "pt", "np", "list" or "?"
    pad: cst.BaseExpression | None = None  # the pad value, when known
    pad_spellings: tuple = ()  # (expression, bindings it reads) for the pad value, nearest first
    pad_number: int | None = None  # the int the pad value held where the padding ran (a helper handed 0)
    made_in: object = None  # the function being walked when the padding step was seen
    side: str = "right"
    from_tokenizer: bool = False
    encoding: str | None = None  # code of the encoding whose mask is still there ("enc")
    # The ids were read as an attribute (`enc.input_ids`): the mask is read the same way (an output class
    # of the project may have attributes and no `[...]`; transformers' BatchEncoding has both).
    by_attribute: bool = False
    lost_at: cst.CSTNode | None = None  # where a tokenizer's mask was dropped
    target_ids: bool = False  # tokenized with text_target=: labels by design
    of_labels: bool = False  # the padded data were labels (padded on their own, not a copy of ids)
    lengths: str | None = None  # code of a list of per-row lengths, valid where `lengths_names` hold
    lengths_names: tuple = ()  # (place, version) pairs the lengths code depends on
    gap: str | None = None  # list padding `x + [pad] * gap`: the gap's code
    data: str | None = None  # list padding: the code of the unpadded `x`
    data_names: tuple = ()  # bindings the data code reads
    names: tuple = ()  # (place, version) pairs the gap code depends on
    target: str | None = None  # code of the padding width (`max_length`)
    rows: bool | None = None  # True: a list of rows, False: one row, None: unknown
    batch_first: bool = True
    # How the value was derived from the encoding's ids, with § for them: "torch.tensor(§).to(device)";
    # None once positions moved (a start token inserted, rows folded): the encoding's mask no longer fits.
    template: str | None = "§"
    mask_kind: str | None = None  # kind of the encoding's own mask ("list" even when the ids became tensors)
    crossed_at: cst.CSTNode | None = None  # a call of project code the ids went into without their mask
    # A buffer made whole of the pad value (`torch.full(size, pad)`, `x.new_full`, `pad * torch.ones(size)`,
    # `torch.empty(size).fill_(pad)`): it pads what is concatenated to it or written into it.
    filled: bool = False
    # The sequences `generate` returned (consumers.continued_ids): the prompt's padding, then new tokens;
    # the prompt's mask is shorter than them.
    generated_at: cst.CSTNode | None = None
    # The pad value may be the EOS id on some path in view (eos_places.py): comparing with it does not
    # tell the pads from a real EOS.
    pad_may_be_eos: bool = False
    # The ignore value the data held before this step padded them (`[-100] * len(prompt) + answer`):
    # it hides the prompt, never the pads this step adds.
    masks_before: tuple = ()

    def but(self, **changes) -> Padded:
        return dataclasses.replace(self, **changes)

    @property
    def side_in_code(self) -> bool:
        """Is `side` written in the code (`x + [pad] * n`, `pad_sequence`, `np.pad`), not a tokenizer's,
        whose side is the checkpoint's unless stated, nor a buffer of pads whose rows go who knows where?"""
        return not self.from_tokenizer and not self.filled and self.kind in ("list", "pt", "np")

    @property
    def side_stated(self) -> bool:
        """Is `side` known from the code: written there, or told to the tokenizer call that padded
        (`tokenizer(texts, padding=True, padding_side="right")`)?"""
        if self.from_tokenizer and isinstance(self.node, cst.Call):
            return any(a.keyword is not None and a.keyword.value == "padding_side" for a in self.node.args)
        return self.side_in_code

    def derived(self, before: str, after: str, kind: str | None = None) -> Padded:
        """The same padding, seen through `before§after` (a method, an index, a conversion)."""
        template = None if self.template is None else f"{before}{self.template}{after}"
        return self.but(template=template, kind=kind or self.kind)

    def moved(self, kind: str | None = None) -> Padded:
        """The same padding at other positions (shape_ops.MOVED): neither the lengths, the gap nor
        the encoding's mask describe it any more."""
        return self.but(
            template=None,
            lengths=None,
            lengths_names=(),
            gap=None,
            data=None,
            kind=kind or self.kind,
        )

    def transposed(self, before: str, after: str) -> Padded:
        """The batch and sequence axes swapped (shape_ops.TRANSPOSED): the lengths read along the other axis."""
        return self.derived(before, after).but(batch_first=not self.batch_first)

    def encoding_mask(self) -> str | None:
        """The encoding's mask, derived the same way the ids were: `torch.tensor(enc["attention_mask"])`."""
        if not self.encoding or self.lost_at is not None or self.template is None:
            return None
        mask = f"{self.encoding}.attention_mask" if self.by_attribute else f'{self.encoding}["attention_mask"]'
        return self.template.replace("§", mask)


@dataclass(eq=False)
class PadId:
    node: cst.CSTNode
    eos_fallback: bool = False  # `pad or eos` / `pad if pad is not None else eos`
    names: tuple = ()  # bindings the node's code reads, where it was written
    aliases: tuple = ()  # (expression, bindings) of names it was read through, latest first
    handed: bool = False  # handed to a walked call by its caller (a constructor argument, say)


@dataclass(eq=False)
class Ones:
    """An all-ones mask; `over` is the padded value whose shape it copies."""

    node: cst.CSTNode
    over: Padded | None = None
    over_code: str | None = None  # code of the padded expression at the builder
    pads_only: bool = False  # `mask += [1] * gap`: these ones cover only the padding of `over`
    # `[1] * (len(prompt) + len(ids))`: as long as `over` and more (a row joined from it and other parts)
    longer: bool = False
    built_in: object = None  # the function whose walk built the mask
    # What a fix written at the builder may read, judged there (an OnesAtMask without its sink): the
    # sink may be in a caller, whose names mean nothing where the ones are built.
    at_builder: OnesAtMask | None = None


@dataclass(eq=False)
class ShapeOf:
    """A shape, size or length taken from a padded value."""

    padded: Padded
    code: str  # code of the padded expression it came from


@dataclass(eq=False)
class RealCount:
    """`mask.sum()`: how many real tokens a row of a mask holds. Slicing a row to it (`x[-n:]` under
    left padding, `x[:n]` under right padding) keeps the real tokens only."""

    node: cst.CSTNode = field(repr=False)


@dataclass(eq=False)
class Gap:
    """`width - len(x)`: how much padding a row needs; `width` is the padding target."""

    target: str


@dataclass(eq=False)
class Fill:
    """`[v] * n`: a run of one value; what = "pad", "ignore", "one", "zero", "value" (another int), "unread"
    (a name whose value is out of view)."""

    what: str
    count: cst.BaseExpression
    pad: cst.BaseExpression | None = None
    ones: Ones | None = None


@dataclass(eq=False)
class Copy:
    """Labels taken from ids (a copy or an alias), before or after padding."""

    node: cst.CSTNode
    padded: Padded | None
    source_code: str  # the ids expression that was copied
    mask_code: str | None = None  # a correct mask in scope at the copy, if any


@dataclass(eq=False)
class Masked:
    """Labels whose pad positions hold the ignore value."""

    node: cst.CSTNode
    # Each row was filled with the ignore value up to one width (`row + [-100] * (width - len(row))`):
    # rows of one width, which padding to the longest leaves as they are.
    to_width: bool = False


def pad_masking(value: Value) -> list[Masked]:
    """The ignore values written into labels `value` that may cover its pads: not those its padding
    steps were handed with the data (a prompt hidden before the rows were padded)."""
    before = {id(m) for p in tags_of(value, Padded) for m in p.masks_before}
    return [m for m in tags_of(value, Masked) if id(m) not in before]


@dataclass(eq=False)
class GoodMask:
    """An attention mask built from lengths or by the tokenizer."""

    node: cst.CSTNode
    padded: Padded | None = None
    kind: str = "?"  # "pt", "np", "list" or "?"
    made_by: cst.CSTNode | None = None  # the tokenizer call whose encoding holds it


@dataclass(eq=False)
class Encoding:
    """The result of a tokenizer call."""

    node: cst.Call
    padded: bool
    mask_kept: bool
    kind: str = "list"
    rows: bool | None = None
    target_ids: bool = False  # tokenized as targets (text_target=, as_target_tokenizer, `tokenizer(targets)`)
    lost_at: cst.CSTNode | None = None
    side: str = "right"
    of_labels: bool = False  # label ids padded by `tokenizer.pad(labels)`


@dataclass(eq=False)
class Tokenizer:
    node: cst.CSTNode


@dataclass(eq=False)
class ModelHolder:
    """What a library factory returns that holds a loaded model and tokenizer (`pipeline(...)`):
    `attributes` names the attribute of each (library table, `makes_model` rows)."""

    node: cst.CSTNode
    attributes: dict  # attribute name -> "model" or "tokenizer"


@dataclass(eq=False)
class MappedDataset:
    """A dataset mapped with a function whose features come from a padding tokenizer call."""

    encoding: Encoding


@dataclass
class Context:
    """What a fix may use at an event: names of torch / numpy and a correct mask in scope."""

    torch: str | None = None
    numpy: str | None = None
    mask_code: str | None = None


def tags_of(value: Value, kind: type | tuple[type, ...]) -> list:
    """The tags of one kind in a value, in a fixed order: a value is a set of objects that hash by
    identity, so its own order moves with addresses and the hash seed, and with it any finding or fix
    that names the first of several tags."""
    found = [t for t in value if isinstance(t, kind)]
    if len(found) > 1:
        found.sort(key=_tag_key)
    return found


def first(value: Value, kind: type):
    found = tags_of(value, kind)
    return found[0] if found else None


# How nodes of the module under analysis come in reading order (flow.analyse sets it while it runs).
_NODE_ORDERS: list[Callable[[cst.CSTNode], int]] = []


@contextmanager
def nodes_in_order(order: Callable[[cst.CSTNode], int]) -> Iterator[None]:
    _NODE_ORDERS.append(order)
    try:
        yield
    finally:
        _NODE_ORDERS.pop()


_TAG_FIELDS: dict[type, tuple[str, ...]] = {}


def _tag_key(tag: Any) -> tuple[str, ...]:
    """A key that orders tags by what they are: their kind, then each field in turn (a node by its
    place in the module being read, a string or number by its text), never by identity."""
    names = _TAG_FIELDS.get(type(tag))
    if names is None:
        names = _TAG_FIELDS[type(tag)] = tuple(f.name for f in dataclasses.fields(tag))
    return (type(tag).__name__, *(_field_key(getattr(tag, name)) for name in names))


def _field_key(item: object) -> str:
    if item is None or isinstance(item, (str, int, float)):
        return f"{type(item).__name__}:{item}"
    node = item if isinstance(item, cst.CSTNode) else getattr(item, "node", None)
    if isinstance(node, cst.CSTNode):
        return f"node:{_NODE_ORDERS[-1](node) if _NODE_ORDERS else -1:09d}:{type(node).__name__}"
    return type(item).__name__


@dataclass(eq=False)
class FunctionRef:
    """A function defined in the scanned module (a helper whose body we can read)."""

    node: cst.FunctionDef
    env: Any  # the Env it was defined in


@dataclass(eq=False)
class Arange:
    """Positions `arange(L)`: compared with lengths they make a mask."""

    node: cst.CSTNode


@dataclass(eq=False)
class DictOf:
    """A dict literal's values by constant key, so that `b = helper(); b["mask"]` reads what the
    helper's returned `{"ids": ids, "mask": masks}` held under "mask" (a mask known by its role)."""

    entries: dict
    # Every field went through one expression (`{k: v.squeeze(0) for k, v in enc.items()}`): the ids'
    # mask is the dict's own "attention_mask", in the same form.
    alike: bool = False


@dataclass(eq=False)
class ItemsWritten:
    """Fields a loop wrote into every item of a list (`for f in rows: f["labels"] = padded`): reading that
    field of an item afterwards (`[f["labels"] for f in rows]`) reads what was written, whatever the items
    held before."""

    entries: dict


@dataclass(eq=False)
class TupleOf:
    """A tuple literal's element values, so `a, b = helper()` can unpack a returned tuple."""

    items: tuple


@dataclass(eq=False)
class OneText:
    """One string (a literal, an f-string, a chat template rendered to text): tokenized with
    `padding=True` it pads nothing. A tag, so that a helper returning one string says so to its caller."""

    node: cst.CSTNode


@dataclass(eq=False)
class ModelOutput:
    """What a model returns for a batch whose ids were padded: its per-position fields (the hidden
    states) hold a vector at every position, pads included (hidden_states.py)."""

    call: cst.Call  # the model call
    mask: str | None = None  # code of the mask the model was given
    mask_names: tuple = ()  # the bindings the mask's code reads, where it was given
    base_model: bool = False  # a model without a head: `out[0]` is its last hidden state
    # The ids' padding where the code pads them on the right (stated): the last position of every row
    # shorter than the longest is a pad (hidden_states.last_position_read).
    right_padded: Padded | None = None


@dataclass(eq=False)
class HiddenStates:
    """One vector per position of a padded batch, from a model (`out.last_hidden_state`); `layers`:
    a tuple of them, one per layer (`out.hidden_states`)."""

    output: ModelOutput
    layers: bool = False
    logits: bool = False  # `out.logits`: one vector of scores per position


@dataclass(eq=False)
class LossInstance:
    """A loss module (`nn.CrossEntropyLoss(...)`): its calls show what targets it grades."""

    fact: Any  # facts.LossIgnoreIndex
    per_position: bool = False  # made with `reduction="none"`: its calls return a PerPositionLoss
    kept_ignore: str | None = None  # the attribute in which the instance keeps what it ignores (the table)
    averages: bool = False  # its calls return one number, the mean over what it grades (table: reduction)


@dataclass(eq=False)
class PerPositionLoss:
    """One loss per position (`reduction="none"`): the pads are graded only where it is reduced whole
    (`.mean()`, `.sum()`); an index or a write into it first leaves the reduction unknown, and so does a
    product for a sum (`scaled`)."""

    labels: Any  # the labels' value at the loss call
    target: cst.BaseExpression  # the target argument
    call: cst.Call
    ignored: Any = -100  # the value the loss ignores (-100, "pad", another int; None: unread)
    told: bool = False  # the loss was given an `ignore_index=`
    versions: tuple = ()  # the bindings the target's code reads at the loss call (expressions.versions_of)
    ignore_code: str | None = None  # code for the ignored value at the loss call (`self.loss_fn.ignore_index`)
    ignore_versions: tuple = ()  # the bindings that code reads there
    # Multiplied by a factor that is neither a padding mask nor made from a count (`losses * weights`): each
    # ignored position is still a 0 that a mean divides by, but what a sum grades at the pads is unknown.
    scaled: bool = False


@dataclass(eq=False)
class AveragedLoss:
    """What a loss reducing to one number returns (`nn.CrossEntropyLoss()(logits, y)`, the default
    reduction "mean"): every position it grades is averaged in already."""

    call: cst.Call
    target: cst.BaseExpression  # the target argument
    ignored: Any = -100  # the value the loss ignores (-100, "pad", another int; None: unread)


@dataclass(eq=False)
class MeanValue:
    """The value of `(x * mask).mean()`: where it goes tells whether its fact (facts.MaskedMean) is a loss."""

    fact: Any  # facts.MaskedMean (facts imports this module)


@dataclass(eq=False)
class MaskedProduct:
    """The value of `x * mask` with a padding mask: a later `.mean()` of it, wherever the product was
    stored or handed, averages over the pads too (facts.MaskedMean)."""

    product: cst.BinaryOperation
    mask: cst.BaseExpression


@dataclass(eq=False)
class PadIdMask:
    """A mask computed as `ids != pad_id`: right only while the pad id never occurs as a real token."""

    node: cst.CSTNode
    padded: Padded | None
    ids_code: str | None
    # What a fix written here, in place of the comparison, may read (an OnesAtMask without its sink):
    # judged where the mask is built, which may be a loop body the sink is after.
    at_builder: OnesAtMask | None = None
    # Made by zeroing a ones mask at the pad ids in place (`mask[ids == pad_id] = 0`): no expression of
    # the mask to replace.
    zeroed_in_place: bool = False


@dataclass(eq=False)
class TokenIds:
    """Token ids from a tokenizer (its `input_ids`, `encode(...)`), before any padding: what tells a
    run of zeros added to them, or a zero buffer filled with them, for padding with pad id 0."""

    node: cst.CSTNode


@dataclass(eq=False)
class ZeroFilled:
    """`torch.zeros(B, L)` / `np.zeros((B, L))`: a 2-D buffer that rows written into it pad with 0.

    `integer`: of an integer dtype (`.long()`, `dtype=torch.long`): a buffer for ids, not features.
    `padded`: the padding step it became once a row of varying length was written into it."""

    node: cst.Call
    kind: str
    integer: bool = False
    padded: Padded | None = None


@dataclass(eq=False)
class SentinelFilled:
    """`torch.full((B, L), -1)`: a buffer filled with a negative value other than the ignore index,
    which is never a token id or a class. Rows of labels written into it leave that value at the
    padding: the labels are padded with it (compared with what the loss ignores).

    `padded`: the padding step it became once a row of labels was written into it."""

    node: cst.Call
    kind: str
    fill: cst.BaseExpression
    padded: Padded | None = None


# ---- objects, wiring and the project's own code (objects.py, wiring.py, project.py) ----------------
@dataclass(eq=False)
class ClassRef:
    """A class defined in the scanned project (its body can be read)."""

    node: cst.ClassDef = field(repr=False)
    env: Any = field(repr=False)  # the Env it was defined in


@dataclass(eq=False)
class Instance:
    """An instance of a project class: what its `__init__` stored on `self` for these arguments."""

    cls: cst.ClassDef = field(repr=False)
    env: Any = field(repr=False)  # Env of `self.*` places; its parent is the class's module env
    model: bool = False  # an nn.Module / PreTrainedModel subclass: calling it runs a model


@dataclass(eq=False)
class Model:
    """A model by provenance: what `*.from_pretrained(...)` of a model class returns."""

    node: cst.CSTNode = field(repr=False)
    loaded_class: str | None = None  # the class it was loaded as, qualified (None: a pipeline's model)


@dataclass(eq=False)
class Batches:
    """Iterating this value (a DataLoader) yields `item` (one batch)."""

    item: Value


@dataclass(eq=False)
class DatasetOf:
    """A dataset whose items are `item` (what `__getitem__` or a map function returns)."""

    item: Value
    batched: bool | None = None  # the item is what a function mapped with this `batched=` returned
    reformatted: bool = False  # a format set or columns changed since: a later map reads them in another form


# The entries of a dict handed back by a function, by key: a dict literal's (DictOf), or the keys
# stored into a returned place (`batch["input_ids"] = ...; return batch`).
Fields = DictOf


@dataclass(eq=False)
class Partial:
    """`functools.partial(fn, *args, **kwargs)`: fn with some arguments bound."""

    func: Value
    args: tuple  # (keyword or None, Value) pairs, in call order


@dataclass(eq=False)
class Const:
    """An int handed to a parameter (a literal argument or default): `ignore_index=0`."""

    value: int


@dataclass(eq=False)
class NoneValue:
    """`None`, handed to a parameter (`attention_mask=None` left to its default)."""

    node: cst.CSTNode | None = field(default=None, repr=False)


@dataclass(frozen=True)
class Truth:
    """`True` or `False` written as such (`run_batched = False`): an `if` on a name holding only it runs
    one branch."""

    value: bool


def each_tag(value: Value, change: Callable[[Any], Any]) -> Value:
    """`value` with `change` applied to every tag in it that is no container, inside the tuples and
    feature dicts it holds too (their shape kept); a tag `change` maps to None is dropped."""

    def convert_all(tags) -> Value:
        return frozenset(t for t in map(convert, tags) if t is not None)

    def convert(tag):
        if isinstance(tag, TupleOf):
            return TupleOf(tuple(convert_all(item) for item in tag.items))
        if isinstance(tag, DictOf):
            return DictOf({k: convert_all(v) for k, v in tag.entries.items()}, tag.alike)
        return change(tag)

    return convert_all(value)
