"""One library fact, as the table holds it (`Row`: what a callable does to padded batches, the arguments that
matter, their defaults, where it was checked), and the library versions the rows were checked against.

Matching: `match` holds qualified names (`torch.nn.utils.rnn.pad_sequence`, resolved through the
scanned module's imports) for functions and classes, or bare method names for `on="method"` rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Kind = Literal[
    "source",  # pads: its result is a padded batch (or pads features it is handed)
    "keeps",  # the result holds the same tokens as its first argument (a view, dtype or device change)
    "copies",  # the result is a copy of its first argument
    "removes",  # the result holds only the positions a mask selects: padding is gone
    "fills",  # builds a constant tensor or array (all ones, a fill value)
    "positions",  # builds the indices 0..n-1 of a size (in-batch class targets, position ids): no token ids
    "masks_labels",  # sets label positions to the ignore value (how: `by`)
    "pads_labels",  # pads the labels it is given with a label pad value
    "builds_mask",  # makes the attention mask itself when none is passed (when: `condition`)
    "consumer",  # a model that reads ids and a mask (how it attends: `attends`)
    "loss",  # grades labels, skipping one ignore value
    "tokenizer",  # a tokenizer method that can pad (`padding=`) and returns a mask beside the ids
    "wiring",  # hands datasets, rows and batches from producers to consumers (how: `style`)
    "makes_model",  # returns an object holding a loaded model and tokenizer (attribute names: `roles`)
    "rebuilds_labels",  # a consumer that sets labels to the ignore value where a mask argument it reads is 0
    "rejects_mask",  # a model that refuses an attention mask holding zeros (it attends to every position)
    "checkpoint_code",  # a loader whose class is the checkpoint's own code when `roles["remote"]` is true
    "attention",  # a layer or function that mixes every position with every other (unless masked)
    "decodes",  # turns token ids into text (a metric's input): grades nothing
    "ignores_true_keys",  # a layer whose key padding mask is True (non-zero) at the keys it ignores
    "reduces",  # reduces every element it is given to one number ("mean": divided by their count; "sum")
    "multiplies",  # its two arguments multiplied element by element: the value of `x * y`
    "pools",  # picks one value per row along an axis (the largest): every position it is given takes part
    "row_labels",  # a model whose `labels` are one class (or score) per row (also `labels="row"` of a consumer)
    "labels_as_inputs",  # a model that feeds `labels` to its decoder as input ids (when: `condition`)
    "eos_text",  # the text of a tokenizer class's default EOS token: written in a text, it is the EOS
    "fills_where",  # writes a value into its `target` in place where its `mask` is true (`target.masked_fill_`)
]
On = Literal["function", "class", "method"]
Attends = Literal["bidirectional", "causal", "encoder_decoder", ""]
Default = int | str | None


@dataclass(frozen=True)
class Row:
    match: tuple[str, ...]
    kind: Kind
    checked: str  # library version, file, function: where this row was verified
    on: On = "function"
    # Argument roles: role -> keyword name (and its position, when it can be passed positionally).
    roles: dict[str, tuple[str, int | None]] = field(default_factory=dict)
    defaults: dict[str, Default] = field(default_factory=dict)  # argument -> default value in that version
    condition: str = ""  # when the row applies, in words (mirrored by the analysis that reads it)
    attends: Attends = ""
    # Which shape of arguments the analysis reads (for sources: "sequences", "widths", "keras"); for
    # `generate`, "continues": its result starts with the ids it was handed (the "ids" role).
    style: str = ""
    repads: bool = False  # a collator that pads the features it is handed again (through tokenizer.pad)
    # A loader's batches without a collate function: "stacks" (torch's default_collate keeps each
    # sample's dict/tuple structure, stacks tensors and arrays into tensors, and transposes other
    # sequences into lists of per-position tensors).
    default_collate: str = ""
    # A model's `labels`: "row", one class (or score) per row, holding no positions of the sequence.
    labels: str = ""
    # The row meant when the class is named without any import (a notebook fragment copying the
    # transformers examples): one row per bare name at most.
    bare: bool = False
    # The methods in which the class does what the row says (builds labels): a project subclass that
    # overrides one of them without calling super() there, or stores labels of its own, is not the row.
    builds_in: tuple[str, ...] = ()
    # A "holds" wiring object: the attributes and methods through which the rows it holds leave it.
    exposes: tuple[str, ...] = ()
    # Arguments an instance keeps as attributes: role -> the attribute (`loss.ignore_index`).
    keeps: dict[str, str] = field(default_factory=dict)
    # A "rows" wiring method after which a later `map` reads the rows in another form (a format set,
    # columns removed or renamed): "returns" a new dataset, or changes its receiver "in place".
    reformats: Literal["", "returns", "in place"] = ""
    # A tokenizer class (or a model class: its checkpoints' tokenizer) that ends every text with its EOS
    # when the call adds its special tokens (the default): a pad equal to that EOS then hides a real one.
    appends_eos: bool = False


ACCELERATE = "accelerate 1.15.0"
TORCH = "torch 2.13.0"
TRANSFORMERS = "transformers 5.24.0"
TRANSFORMERS_4 = "transformers 4.46.3"
TRL = "trl 1.16.0"
NUMPY = "numpy 2.4.6"
KERAS = "keras 3.15.1"
DATASETS = "datasets 5.2.0"
TQDM = "tqdm 4.70.1"
CPYTHON = "CPython 3.11.7"
PEFT = "peft 0.21.2"
OPACUS = "opacus 1.5.4"
PETALS = "petals 2.2.0.post1"
TRANSFORMER_LENS = "transformer_lens 2.5.0"
TENSORFLOW = "tensorflow (tensorflow/tensorflow 9a4b6b6)"
