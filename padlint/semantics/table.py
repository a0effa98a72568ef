"""What libraries do to padded batches, as data: one row per fact, each checked against a named source.

The analysis reads these rows through the small queries at the end of this module; rules never spell a
library name. A new library fact is a new row here (and a fixture), not new code. Each row says what a
callable does to the values padlint follows (token ids, attention masks, labels), the arguments that
matter, their defaults, and `checked`: the library version, file and function it was read from.

Matching: `match` holds qualified names (`torch.nn.utils.rnn.pad_sequence`, resolved through the
scanned module's imports) for functions and classes, or bare method names for `on="method"` rows.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Literal

Kind = Literal[
    "source",  # pads: its result is a padded batch (or pads features it is handed)
    "keeps",  # the result holds the same tokens as its first argument (a view, dtype or device change)
    "copies",  # the result is a copy of its first argument
    "removes",  # the result holds only the positions a mask selects: padding is gone
    "fills",  # builds a constant tensor or array (all ones, a fill value)
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
    style: str = ""  # which shape of arguments the analysis reads (for sources: "sequences", "widths", "keras")
    repads: bool = False  # a collator that pads the features it is handed again (through tokenizer.pad)
    # The row meant when the class is named without any import (a notebook fragment copying the
    # transformers examples): one row per bare name at most.
    bare: bool = False
    # The methods in which the class does what the row says (builds labels): a project subclass that
    # overrides one of them without calling super() there, or stores labels of its own, is not the row.
    builds_in: tuple[str, ...] = ()
    # A "holds" wiring object: the attributes and methods through which the rows it holds leave it.
    exposes: tuple[str, ...] = ()


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
PETALS = "petals 2.2.0.post1"

ROWS: tuple[Row, ...] = (
    # ---- sources: calls that pad ----------------------------------------------------------------
    Row(
        ("torch.nn.utils.rnn.pad_sequence",),
        "source",
        f"{TORCH}, torch/nn/utils/rnn.py pad_sequence",
        roles={"data": ("sequences", 0), "batch_first": ("batch_first", 1), "value": ("padding_value", 2)},
        defaults={"padding_value": 0, "batch_first": False, "padding_side": "right"},
        style="sequences",
    ),
    Row(
        ("torch.nested.to_padded_tensor",),
        "source",
        f"{TORCH}, torch/nested/__init__.py to_padded_tensor(input, padding, output_size=None): the rows of a "
        "nested tensor, padded with `padding`",
        roles={"data": ("input", 0), "value": ("padding", 1)},
        style="nested",
    ),
    Row(
        ("torch.nn.functional.pad",),
        "source",
        f"{TORCH}, torch/nn/functional.py pad (constant mode fills with `value`, 0 when None)",
        roles={"data": ("input", 0), "widths": ("pad", 1), "value": ("value", 3)},
        defaults={"value": 0},
        style="widths",
    ),
    Row(
        ("numpy.pad",),
        "source",
        f"{NUMPY}, numpy/lib/_arraypad_impl.py pad (mode='constant', constant_values=0)",
        roles={"data": ("array", 0), "widths": ("pad_width", 1), "value": ("constant_values", None)},
        defaults={"constant_values": 0},
        style="widths",
    ),
    Row(
        (
            "keras.preprocessing.sequence.pad_sequences",
            "keras.utils.pad_sequences",
            "tensorflow.keras.preprocessing.sequence.pad_sequences",
            "tensorflow.keras.utils.pad_sequences",
        ),
        "source",
        f"{KERAS}, keras/src/utils/sequence_utils.py pad_sequences (padding='pre', value=0.0)",
        roles={"side": ("padding", None), "value": ("value", None)},
        defaults={"padding": "pre", "value": 0},
        style="keras",
    ),
    Row(
        ("__call__", "encode", "encode_plus", "batch_encode_plus", "pad"),
        "tokenizer",
        f"{TRANSFORMERS}, tokenization_utils_base.py PreTrainedTokenizerBase.__call__/encode/pad "
        "(encode_plus and batch_encode_plus: transformers 4.46.3)",
        on="method",
        defaults={"padding_side": "right", "return_attention_mask": True},
        condition="pads with `padding=True|'longest'|'max_length'`; `pad` always pads; `encode` returns ids only, "
        "of one sequence, like encode_plus: its text is one text or one pre-tokenized text (4.46.3 encode -> "
        "encode_plus), a batch only when it is a list of texts (5.24.0 tokenization_utils_tokenizers.py "
        "_encode_plus: is_batched), so 'longest' pads nothing unless the text is known to be a list of texts",
    ),
    # Collators that pad the features they are handed again, through tokenizer.pad: a feature without
    # `attention_mask` gets `[1] * len(ids)` before padding (PreTrainedTokenizerBase._pad).
    Row(
        ("transformers.DataCollatorWithPadding", "transformers.data.data_collator.DataCollatorWithPadding"),
        "source",
        f"{TRANSFORMERS}, data/data_collator.py DataCollatorWithPadding.__call__ -> tokenization_utils_base._pad",
        on="class",
        condition="repads features; a feature without attention_mask gets ones over its (pre-padded) ids",
        repads=True,
        bare=True,
    ),
    Row(
        (
            "transformers.DataCollatorForSeq2Seq",
            "transformers.data.data_collator.DataCollatorForSeq2Seq",
            "transformers.DataCollatorForTokenClassification",
            "transformers.data.data_collator.DataCollatorForTokenClassification",
        ),
        "pads_labels",
        f"{TRANSFORMERS}, data/data_collator.py DataCollatorForSeq2Seq / DataCollatorForTokenClassification "
        "(label_pad_token_id: int = -100)",
        on="class",
        roles={"label_pad": ("label_pad_token_id", None)},
        defaults={"label_pad_token_id": -100},
        condition="repads features with tokenizer.pad and pads `labels` with label_pad_token_id",
        repads=True,
        bare=True,
    ),
    Row(
        (
            "transformers.DataCollatorForLanguageModeling",
            "transformers.data.data_collator.DataCollatorForLanguageModeling",
        ),
        "masks_labels",
        f"{TRANSFORMERS}, data/data_collator.py DataCollatorForLanguageModeling.torch_call "
        "(mlm=False: labels = input_ids.clone(); labels[labels == pad_token_id] = -100)",
        on="class",
        roles={"mlm": ("mlm", None)},
        defaults={"mlm": True},
        condition="mlm=False: repads, then rebuilds labels from input_ids and masks them by the pad id",
        repads=True,
        bare=True,
        # DataCollatorMixin.__call__ dispatches to torch_call / numpy_call (data/data_collator.py)
        builds_in=("__call__", "torch_call", "numpy_call"),
    ),
    Row(
        (
            "trl.DataCollatorForCompletionOnlyLM",
            "trl.trainer.DataCollatorForCompletionOnlyLM",
            "trl.trainer.utils.DataCollatorForCompletionOnlyLM",
        ),
        "masks_labels",
        "trl 0.19.1, trl/trainer/utils.py DataCollatorForCompletionOnlyLM(DataCollatorForLanguageModeling) "
        "(__init__: mlm: bool = False; torch_call = super().torch_call (labels equal to the pad id -> -100), "
        "then ignore_index before the response template); removed in trl 0.20.0 (absent from trl/__init__.py "
        f"and trl/trainer/utils.py) and absent in {TRL}",
        on="class",
        roles={"mlm": ("mlm", None)},
        defaults={"mlm": False},
        condition="the base's labels masked by the pad id, then the prompt masked: it masks the prompt itself, "
        "so labels a map function built are not a loss of intent",
        repads=True,
        style="completion",
        builds_in=("__call__", "torch_call", "numpy_call"),
    ),
    Row(
        ("trl.DataCollatorForLanguageModeling", "trl.trainer.sft_trainer.DataCollatorForLanguageModeling"),
        "pads_labels",
        f"{TRL}, trl/trainer/sft_trainer.py DataCollatorForLanguageModeling.torch_call "
        "(keeps the given labels, pads them with -100, mask from per-example ones padded with 0)",
        on="class",
        defaults={"label_pad_token_id": -100},
        condition="keeps labels a map function built; never masks by the pad id",
        repads=True,
    ),
    # ---- losses --------------------------------------------------------------------------------
    Row(
        (
            "torch.nn.CrossEntropyLoss",
            "torch.nn.modules.loss.CrossEntropyLoss",
            "torch.nn.functional.cross_entropy",
            "torch.nn.NLLLoss",
            "torch.nn.modules.loss.NLLLoss",
            "torch.nn.functional.nll_loss",
        ),
        "loss",
        f"{TORCH}, torch/nn/modules/loss.py CrossEntropyLoss/NLLLoss.__init__, torch/nn/functional.py "
        "cross_entropy/nll_loss (ignore_index: int = -100)",
        roles={"target": ("target", 1), "ignore_index": ("ignore_index", None)},
        defaults={"ignore_index": -100},
    ),
    Row(
        ("labels",),
        "loss",
        f"{TRANSFORMERS}, loss/loss_utils.py ForCausalLMLoss / fixed_cross_entropy (ignore_index: int = -100)",
        on="method",
        defaults={"ignore_index": -100},
        condition="a transformers model called with `labels=` computes its own loss, ignoring -100",
    ),
    # ---- consumers that build the mask themselves --------------------------------------------------
    Row(
        ("generate",),
        "builds_mask",
        f"{TRANSFORMERS}, generation/utils.py GenerationMixin.generate -> _prepare_attention_mask_for_generation; "
        f"{TRANSFORMERS_4}, generation/utils.py (requires_attention_mask: also encoder-decoders)",
        on="method",
        roles={"pad_id": ("pad_token_id", None)},
        condition="no mask passed, the generation config has a pad id, the ids hold it and it differs from EOS: "
        "mask = ids.ne(pad); 5.x only for decoder-only models, 4.x for every model",
    ),
    Row(
        (
            "transformers.DPRQuestionEncoder",
            "transformers.DPRContextEncoder",
            "transformers.models.dpr.modeling_dpr.DPRQuestionEncoder",
            "transformers.models.dpr.modeling_dpr.DPRContextEncoder",
        ),
        "builds_mask",
        f"{TRANSFORMERS}, models/dpr/modeling_dpr.py DPRQuestionEncoder.forward / DPRContextEncoder.forward "
        "(attention_mask = input_ids != config.pad_token_id when None)",
        on="class",
        condition="no mask passed: the encoder masks its config's pad id",
        attends="bidirectional",
    ),
    Row(
        (
            "transformers.AutoModelForSeq2SeqLM",
            "transformers.T5ForConditionalGeneration",
            "transformers.MT5ForConditionalGeneration",
            "transformers.BartForConditionalGeneration",
            "transformers.MBartForConditionalGeneration",
            "transformers.PegasusForConditionalGeneration",
            "transformers.MarianMTModel",
            "transformers.ProphetNetForConditionalGeneration",
            "transformers.LEDForConditionalGeneration",
            "transformers.M2M100ForConditionalGeneration",
            "transformers.BlenderbotForConditionalGeneration",
        ),
        "consumer",
        f"{TRANSFORMERS}, models/t5/configuration_t5.py T5Config (pad_token_id=0, eos_token_id=1, "
        "is_encoder_decoder); the same read in configuration_{mt5,pegasus,blenderbot,prophetnet}.py (pad 0), "
        "configuration_{bart,mbart,fsmt,led,m2m_100}.py (pad 1, eos 2), configuration_marian.py (pad 58100, eos 0)",
        on="class",
        attends="encoder_decoder",
        condition="a dedicated pad id in the config: `generate` without a mask infers it from that pad id in "
        "transformers 4.x (not in 5.x; the version is not in view)",
    ),
    Row(
        ("transformers.FSMTForConditionalGeneration", "transformers.FSMTModel"),
        "consumer",
        f"{TRANSFORMERS}, models/fsmt/modeling_fsmt.py FSMTModel.forward -> _prepare_fsmt_decoder_inputs "
        "(decoder_padding_mask = make_padding_mask(decoder_input_ids, config.pad_token_id) when "
        "decoder_attention_mask is None; not during generation); configuration_fsmt.py (pad 1, eos 2)",
        on="class",
        attends="encoder_decoder",
        roles={"decoder_mask_from_pad": ("decoder_attention_mask", None)},
        condition="its forward masks its config's pad id in decoder_input_ids when no decoder mask is passed",
    ),
    Row(
        (
            "transformers.AutoModelForCausalLM",
            "transformers.GPT2LMHeadModel",
            "transformers.LlamaForCausalLM",
            "transformers.MistralForCausalLM",
            "transformers.Qwen2ForCausalLM",
            "transformers.GPTNeoXForCausalLM",
            "transformers.OPTForCausalLM",
            "transformers.FalconForCausalLM",
            "transformers.GemmaForCausalLM",
            "transformers.PhiForCausalLM",
        ),
        "consumer",
        f"{TRANSFORMERS}, masking_utils.py causal_mask_function (kv_idx <= q_idx: a token attends only to "
        "itself and earlier positions); models/auto/modeling_auto.py MODEL_FOR_CAUSAL_LM_MAPPING_NAMES",
        on="class",
        attends="causal",
        condition="pads after the real tokens (right padding) are never attended to by a real token; with their "
        "labels at -100 a missing or all-ones mask changes no output the loss reads",
    ),
    # ---- consumers that rebuild the labels from a mask of their own --------------------------------
    # `roles["mask"]`: the batch key the consumer reads; label positions where it is 0 become -100. The
    # match names what makes the consumer (a config handed to `get_peft_model`).
    Row(
        ("peft.CPTConfig", "peft.tuners.CPTConfig", "peft.tuners.cpt.CPTConfig", "peft.tuners.cpt.config.CPTConfig"),
        "rebuilds_labels",
        f"{PEFT}, peft/peft_model.py PeftModelForCausalLM._cpt_forward (input_type_mask popped from the batch; "
        "labels_idx = (cpt_type_mask > 0) & (cpt_type_mask % 4 == 0); cpt_labels[~labels_idx] = -100; without "
        "input_type_mask it is all 4s and no label is changed); peft/tuners/cpt/config.py CPTConfig",
        on="class",
        roles={"mask": ("input_type_mask", None)},
        condition="a model made with this config ignores every label whose `input_type_mask` is 0 (pads padded with "
        "0 there), when the batch carries that key",
    ),
    # ---- models that refuse a custom attention mask -------------------------------------------------
    Row(
        (
            "petals.AutoDistributedModel",
            "petals.AutoDistributedModelForCausalLM",
            "petals.AutoDistributedModelForSequenceClassification",
            "petals.utils.auto_config.AutoDistributedModel",
            "petals.utils.auto_config.AutoDistributedModelForCausalLM",
            "petals.utils.auto_config.AutoDistributedModelForSequenceClassification",
            "petals.DistributedBloomModel",
            "petals.DistributedBloomForCausalLM",
            "petals.DistributedBloomForSequenceClassification",
            "petals.models.bloom.DistributedBloomForCausalLM",
            "petals.DistributedLlamaModel",
            "petals.DistributedLlamaForCausalLM",
            "petals.DistributedLlamaForSequenceClassification",
            "petals.models.llama.DistributedLlamaForCausalLM",
            "petals.DistributedFalconModel",
            "petals.DistributedFalconForCausalLM",
            "petals.DistributedFalconForSequenceClassification",
            "petals.models.falcon.DistributedFalconForCausalLM",
        ),
        "rejects_mask",
        f"{PETALS}, petals/models/llama/model.py DistributedLlamaModel.forward (assert attention_mask is None or "
        "(attention_mask == 1).all(), 'Custom attention masks are not supported'; the causal mask is added on the "
        "servers); the same assert in models/bloom/model.py and models/falcon/model.py; the ForCausalLM and "
        "ForSequenceClassification classes run that model, generate() through it; utils/auto_config.py "
        "AutoDistributedModel* pick these classes",
        on="class",
        condition="a mask with a zero raises AssertionError: ids go without one (or with all ones) on purpose, and "
        "a fix that adds the tokenizer's mask crashes",
    ),
    # ---- loaders whose model may be the checkpoint's own code -------------------------------------
    # `roles["remote"]`: the keyword that, true, makes `from_pretrained` return the class the checkpoint's
    # config names in `auto_map` (its own modeling file) instead of transformers' class. A concrete class
    # (`LlamaForCausalLM.from_pretrained(..., trust_remote_code=True)`) is always itself: not a row.
    Row(
        tuple(
            f"transformers.{auto}.from_pretrained"
            for auto in (
                "AutoModel",
                "AutoModelForCausalLM",
                "AutoModelForSeq2SeqLM",
                "AutoModelForMaskedLM",
                "AutoModelForPreTraining",
                "AutoModelForSequenceClassification",
                "AutoModelForTokenClassification",
                "AutoModelForQuestionAnswering",
                "AutoModelForMultipleChoice",
                "AutoModelForNextSentencePrediction",
                "AutoModelForTextEncoding",
                "AutoModelForImageTextToText",
                "AutoModelForMultimodalLM",
                "AutoModelForVisualQuestionAnswering",
                "AutoModelForDocumentQuestionAnswering",
                "AutoModelForTableQuestionAnswering",
                "AutoModelForSpeechSeq2Seq",
                "AutoModelForZeroShotImageClassification",
                "AutoModelForZeroShotObjectDetection",
                "AutoModelForVision2Seq",
                "AutoModelWithLMHead",
            )
        ),
        "checkpoint_code",
        f"{TRANSFORMERS}, models/auto/auto_factory.py _BaseAutoModelClass.from_pretrained (has_remote_code = "
        "cls.__name__ in config.auto_map; with trust_remote_code true the class is get_class_from_dynamic_module("
        "class_ref, ...), the checkpoint's own modeling file, unless the class is registered locally); "
        "models/auto/modeling_auto.py (these Auto classes, subclasses of _BaseAutoModelClass); "
        f"{TRANSFORMERS_4}, models/auto/modeling_auto.py AutoModelForVision2Seq, AutoModelWithLMHead (removed in 5.x)",
        roles={"remote": ("trust_remote_code", None)},
        defaults={"trust_remote_code": False},
        condition="trust_remote_code true and a checkpoint whose config maps the Auto class to code of its own: what "
        "the model's forward and generate do without an attention mask (attend to every position, build it from the "
        "pad id, replace it) is not in view",
    ),
    # ---- what keeps or removes padding -----------------------------------------------------------
    Row(
        (
            "torch.tensor",
            "torch.as_tensor",
            "torch.LongTensor",
            "torch.IntTensor",
            "torch.stack",
            "torch.vstack",
            "torch.cat",
            "torch.concat",
            "torch.from_numpy",
            "numpy.array",
            "numpy.asarray",
            "numpy.stack",
            "numpy.vstack",
            "numpy.concatenate",
            "tuple",
        ),
        "keeps",
        f"{TORCH}, torch/_torch_docs.py (tensor, stack, cat...); {NUMPY}, numpy/_core (array, stack...)",
    ),
    Row(
        (
            "to",
            "long",
            "int",
            "bool",
            "float",
            "half",
            "bfloat16",
            "cuda",
            "cpu",
            "squeeze",
            "unsqueeze",
            "contiguous",
            "view",
            "reshape",
            "detach",
            "numpy",
            "tolist",
            "astype",
            "type",
            "flatten",
            "view_as",
            "reshape_as",
            "pin_memory",
            "expand",
            "expand_as",
        ),
        "keeps",
        f"{TORCH}, torch/_tensor_docs.py Tensor methods; {NUMPY} ndarray.astype/tolist",
        on="method",
    ),
    # Shape operations that keep the padding at other places; `style` says what the positions do
    # (analysis/shape_ops.py): "transposed", the batch and sequence axes swap (on a swap of axes 0 and
    # 1; other axes: "moved"); "moved", positions shift or rows mix: lengths and the tokenizer's mask
    # no longer describe them.
    Row(
        ("t", "T", "mT", "transpose", "swapaxes", "permute"),
        "keeps",
        f"{TORCH}, torch/_tensor_docs.py Tensor.t (dims 0 and 1 of a <= 2-D tensor), .T/.mT, "
        f"transpose(dim0, dim1), swapaxes, permute(*dims); {NUMPY} ndarray.T, transpose(*axes), swapaxes",
        on="method",
        style="transposed",
    ),
    Row(
        ("torch.t", "torch.transpose", "numpy.transpose", "numpy.swapaxes"),
        "keeps",
        f"{TORCH}, torch/_torch_docs.py t, transpose(input, dim0, dim1); {NUMPY} transpose(a, axes), swapaxes",
        style="transposed",
    ),
    Row(("roll",), "keeps", f"{TORCH}, torch/_tensor_docs.py Tensor.roll(shifts, dims)", on="method", style="moved"),
    Row(
        ("numpy.insert", "numpy.append", "numpy.roll", "torch.roll", "torch.flip", "numpy.flip"),
        "keeps",
        f"{NUMPY}, numpy/lib/_function_base_impl.py insert(arr, obj, values, axis) (values before obj), "
        f"append, roll, flip; {TORCH}, torch/_torch_docs.py roll, flip",
        style="moved",
    ),
    Row(
        ("copy.deepcopy", "copy.copy", "list", "torch.clone", "numpy.copy"),
        "copies",
        f"{TORCH}, torch/_torch_docs.py clone; {NUMPY}, numpy copy; CPython 3.11 copy.py",
    ),
    Row(("clone", "copy", "deepcopy"), "copies", f"{TORCH}, torch/_tensor_docs.py Tensor.clone", on="method"),
    Row(
        ("torch.masked_select",),
        "removes",
        f"{TORCH}, torch/_torch_docs.py masked_select (a 1-D tensor of the selected elements)",
        roles={"data": ("input", 0), "mask": ("mask", 1)},
    ),
    Row(
        ("masked_select",),
        "removes",
        f"{TORCH}, torch/_tensor_docs.py Tensor.masked_select",
        on="method",
        roles={"mask": ("mask", 0)},
    ),
    Row(
        ("__getitem__",),
        "removes",
        f"{TORCH}, torch/_tensor.py Tensor.__getitem__ with a boolean mask or `torch.where(mask)` / "
        f"`nonzero()` indices (the selected elements only, as {NUMPY} boolean indexing)",
        on="method",
        condition="the index is a mask (a boolean tensor, `where(mask)` with one argument, `mask.nonzero()`)",
    ),
    # ---- constant builders ----------------------------------------------------------------------
    Row(
        ("torch.ones", "numpy.ones"),
        "fills",
        f"{TORCH}, torch/_torch_docs.py ones; {NUMPY} ones",
        defaults={"fill": 1},
        style="ones",
    ),
    Row(
        ("torch.ones_like", "numpy.ones_like"),
        "fills",
        f"{TORCH}, torch/_torch_docs.py ones_like; {NUMPY} ones_like",
        defaults={"fill": 1},
        style="ones_like",
    ),
    # Zero or uninitialised buffers, and one-hot codes: what is then written into them is a class score
    # target (a detection head's one-hot), not language-model token ids.
    Row(
        (
            "torch.zeros",
            "torch.zeros_like",
            "torch.empty",
            "torch.empty_like",
            "numpy.zeros",
            "numpy.zeros_like",
            "numpy.empty",
            "torch.nn.functional.one_hot",
        ),
        "fills",
        f"{TORCH}, torch/_torch_docs.py zeros/zeros_like/empty/empty_like, torch/nn/functional.py one_hot; "
        f"{NUMPY} zeros/empty",
        defaults={"fill": 0},
        style="zeros",
    ),
    Row(
        ("new_zeros", "new_empty"),
        "fills",
        f"{TORCH}, torch/_tensor_docs.py Tensor.new_zeros/new_empty",
        on="method",
        defaults={"fill": 0},
        style="zeros",
    ),
    Row(
        ("torch.full", "numpy.full"),
        "fills",
        f"{TORCH}, torch/_torch_docs.py full; {NUMPY} full",
        roles={"fill": ("fill_value", 1)},
        style="full",
    ),
    Row(
        ("torch.full_like", "numpy.full_like"),
        "fills",
        f"{TORCH}, torch/_torch_docs.py full_like; {NUMPY} full_like",
        roles={"fill": ("fill_value", 1)},
        style="full_like",
    ),
    # ---- factories of objects that hold a model --------------------------------------------------
    Row(
        ("transformers.pipeline", "transformers.pipelines.pipeline"),
        "makes_model",
        f"{TRANSFORMERS}, pipelines/__init__.py pipeline(task, model, ..., tokenizer, ...) -> Pipeline; "
        "pipelines/base.py Pipeline.__init__ (self.model = model, self.tokenizer = tokenizer: the loaded "
        "model and tokenizer)",
        roles={"model": ("model", None), "tokenizer": ("tokenizer", None)},
    ),
    # ---- framework wiring: what hands rows and batches on (analysis/wiring.py) ------------------------
    # styles: "loader" walks `collate` over the `dataset`'s items and yields its batches; "trainer" walks
    # `collate` over the rows of its datasets (it then calls the model with `**batch`); "partial" binds
    # arguments to a callable; "same" yields its first argument's items; "next" is one item of it.
    Row(
        ("torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"),
        "wiring",
        f"{TORCH}, torch/utils/data/dataloader.py DataLoader.__init__ (dataset, batch_size, shuffle, sampler, "
        "batch_sampler, num_workers, collate_fn: collate_fn at 6); torch/utils/data/_utils/collate.py collate "
        "(default_collate keeps a sample's dict/tuple structure and stacks its tensors)",
        on="class",
        roles={"dataset": ("dataset", 0), "collate": ("collate_fn", 6)},
        style="loader",
    ),
    Row(
        (
            "transformers.Trainer",
            "transformers.trainer.Trainer",
            "transformers.Seq2SeqTrainer",
            "transformers.trainer_seq2seq.Seq2SeqTrainer",
            "trl.SFTTrainer",
            "trl.trainer.sft_trainer.SFTTrainer",
        ),
        "wiring",
        f"{TRANSFORMERS}, trainer.py Trainer.__init__ (model, args, data_collator, train_dataset, eval_dataset); "
        "Trainer.get_train_dataloader hands data_collator to the DataLoader as collate_fn; trainer_seq2seq.py "
        f"Seq2SeqTrainer.__init__ (same positions); {TRL}, trl/trainer/sft_trainer.py SFTTrainer.__init__ "
        "(same positions)",
        on="class",
        roles={"collate": ("data_collator", 2), "dataset": ("train_dataset", 3), "eval_dataset": ("eval_dataset", 4)},
        style="trainer",
    ),
    # "holds": keeps the dataset and hands its rows on only through the attributes or methods in
    # `exposes`; no other method of its own reads a column of them.
    Row(
        ("trl.PPOTrainer", "trl.trainer.PPOTrainer", "trl.trainer.ppo_trainer.PPOTrainer"),
        "wiring",
        "trl 0.11.4, trl/trainer/ppo_trainer.py PPOTrainer.__init__(config, model, ref_model, tokenizer, dataset, ...): "
        "self.dataset = dataset; self.dataloader = self.prepare_dataloader(dataset, data_collator); no method reads "
        "self.dataset or self.dataloader (the user's loop iterates `trainer.dataloader` and hands queries to "
        "generate/step); trl 0.19.1 PPOTrainer.__init__(args, processing_class, model, ref_model, reward_model, "
        "train_dataset, ...) feeds data['input_ids'] in train(): only the `dataset=` keyword is the held dataset",
        on="class",
        roles={"dataset": ("dataset", None)},
        style="holds",
        exposes=("dataloader", "dataset", "train"),
    ),
    # "rows": what a dataset's rows become without any model reading them. Functions and methods of
    # datasets that return a dataset holding the same rows (a subset, an order, a format, fewer columns)
    # or change the format in place; `map` and `filter` run a function over the rows (read by the
    # analysis: the function itself may feed a model).
    Row(
        ("datasets.Dataset.from_dict", "datasets.Dataset.from_list", "datasets.arrow_dataset.Dataset.from_dict"),
        "wiring",
        f"{DATASETS}, src/datasets/arrow_dataset.py Dataset.from_dict(mapping, ...) / from_list(mapping, ...): a new "
        "Dataset of the given columns",
        style="rows",
    ),
    Row(
        (
            "map",
            "filter",
            "select",
            "shuffle",
            "sort",
            "train_test_split",
            "with_format",
            "set_format",
            "reset_format",
            "remove_columns",
            "rename_column",
            "select_columns",
        ),
        "wiring",
        f"{DATASETS}, src/datasets/arrow_dataset.py Dataset.map/filter/select/shuffle/sort/train_test_split/"
        "with_format/set_format/reset_format/remove_columns/rename_column/select_columns: a Dataset (or DatasetDict) "
        "of the same rows, or the format set in place; no model is called",
        on="method",
        style="rows",
    ),
    Row(
        ("functools.partial",),
        "wiring",
        f"{CPYTHON}, Lib/functools.py partial(func, /, *args, **keywords): calls func(*args, *more, **keywords)",
        style="partial",
    ),
    Row(
        ("tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm", "tqdm", "iter"),
        "wiring",
        f"{TQDM}, tqdm/std.py tqdm.__iter__ (yields the iterable's items); {CPYTHON} Python/bltinmodule.c builtin_iter",
        style="same",
    ),
    Row(("next",), "wiring", f"{CPYTHON}, Python/bltinmodule.c builtin_next: one item of the iterator", style="next"),
)


# ---- queries the analysis makes ------------------------------------------------------------------
@functools.cache
def names(kind: Kind, on: On = "function", style: str | None = None) -> frozenset[str]:
    """Every name matched by rows of this kind (and style)."""
    return frozenset(
        name
        for row in ROWS
        if row.kind == kind and row.on == on and (style is None or row.style == style)
        for name in row.match
    )


@functools.cache
def short_names(kind: Kind | None = None, repads: bool | None = None) -> frozenset[str]:
    """The last part of every class name of this kind (`DataCollatorForSeq2Seq`), for code that sees
    a class by its bare name (text before parsing)."""
    return frozenset(
        name.rsplit(".", 1)[-1]
        for row in ROWS
        if row.on == "class" and (kind is None or row.kind == kind) and (repads is None or row.repads == repads)
        for name in row.match
    )


@functools.cache
def class_row(qualified: str) -> Row | None:
    """The row of a class by its qualified name; a bare name (no import seen) takes the row marked `bare`."""
    row = row_for(qualified, "class")
    if row is not None or "." in qualified:
        return row
    for candidate in ROWS:
        if (
            candidate.on == "class"
            and candidate.bare
            and any(n.rsplit(".", 1)[-1] == qualified for n in candidate.match)
        ):
            return candidate
    return None


@functools.cache
def row_for(name: str, on: On = "function") -> Row | None:
    """The row matching a qualified name (or a method name), if any."""
    for row in ROWS:
        if row.on == on and name in row.match:
            return row
    return None


@functools.cache
def wiring_row(qualified: str) -> Row | None:
    """The wiring row of a callable by its qualified name (a DataLoader, a Trainer, `partial`, `next`)."""
    row = row_for(qualified, "class") or row_for(qualified)
    return row if row is not None and row.kind == "wiring" else None


@functools.cache
def rebuilt_label_masks(qualified: str) -> frozenset[str]:
    """The batch keys a consumer made with this class reads to set labels to -100 (rebuilds_labels rows)."""
    row = row_for(qualified, "class")
    if row is None or row.kind != "rebuilds_labels":
        return frozenset()
    return frozenset(name for name, _ in row.roles.values())


def dataset_rows(name: str, on: On = "function") -> bool:
    """Does this function or method of datasets hand back (or reformat) a dataset's rows, calling no model?"""
    row = row_for(name, on)
    return row is not None and row.kind == "wiring" and row.style == "rows"


def holds_rows(qualified: str | None) -> Row | None:
    """The row of a class that keeps a dataset and hands its rows on only through `exposes`."""
    row = row_for(qualified, "class") if qualified else None
    return row if row is not None and row.kind == "wiring" and row.style == "holds" else None


def rejects_mask(qualified: str | None) -> bool:
    """Does a model of this class refuse an attention mask with zeros (rejects_mask rows)?"""
    row = row_for(qualified, "class") if qualified else None
    return row is not None and row.kind == "rejects_mask"


@functools.cache
def checkpoint_code_switch(qualified: str | None) -> str | None:
    """The keyword that, true, makes this loader (`transformers.AutoModel.from_pretrained`) return the
    checkpoint's own class (checkpoint_code rows); None for any other callable."""
    row = row_for(qualified) if qualified else None
    return row.roles["remote"][0] if row is not None and row.kind == "checkpoint_code" else None


@functools.cache
def checkpoint_code_switches() -> frozenset[str]:
    """Every keyword of the checkpoint_code rows (`trust_remote_code`), as a dict of keyword arguments spells it."""
    return frozenset(row.roles["remote"][0] for row in ROWS if row.kind == "checkpoint_code")


def default(name: str, argument: str, on: On = "function") -> Default:
    """The default of `argument` for the callable `name` in the checked version (None if unknown)."""
    row = row_for(name, on)
    return row.defaults.get(argument) if row is not None else None
