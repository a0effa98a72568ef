"""Rows of the library table for what grades and consumes a batch: losses, models (how they attend, which build
or refuse a mask, which rebuild labels), loaders of a checkpoint's own code, and factories of objects holding a
model."""

from __future__ import annotations

from padlint.semantics.row import PEFT, PETALS, TORCH, TRANSFORMER_LENS, TRANSFORMERS, TRANSFORMERS_4, Row

# The encoder families whose classes the bidirectional consumer rows name.
ENCODER_FAMILIES = (
    "Bert",
    "Roberta",
    "XLMRoberta",
    "Camembert",
    "DistilBert",
    "Albert",
    "Electra",
    "Deberta",
    "DebertaV2",
    "ModernBert",
    "MPNet",
)

MODEL_ROWS: tuple[Row, ...] = (
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
        "cross_entropy/nll_loss (ignore_index: int = -100, reduction: str = 'mean'; 'none' returns one loss per "
        "position; the modules keep `self.ignore_index = ignore_index`)",
        roles={"target": ("target", 1), "ignore_index": ("ignore_index", None), "reduction": ("reduction", None)},
        defaults={"ignore_index": -100, "reduction": "mean"},
        keeps={"ignore_index": "ignore_index"},
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
        f"{TRANSFORMERS_4}, generation/utils.py (requires_attention_mask: also encoder-decoders); "
        f"{TRANSFORMERS}, generation/utils.py generate (an encoder-decoder's input_ids become the decoder start, "
        "lines 2916-2920) and _sample (input_ids = torch.cat([input_ids, next_tokens[:, None]]), a finished row "
        "continued with pad_token_id, lines 3283-3286); a decoder-only model given right-padded rows is warned "
        '("right-padding was detected", line 2868): each row is continued after its last position',
        on="method",
        roles={"pad_id": ("pad_token_id", None), "ids": ("input_ids", 0)},
        condition="no mask passed, the generation config has a pad id, the ids hold it and it differs from EOS: "
        "mask = ids.ne(pad); 5.x only for decoder-only models, 4.x for every model. Its result (style "
        "`continues`), for a decoder-only model: the sequences start with the ids it was given, padded as they "
        "were, and new tokens follow (rows that end early are filled with the pad id)",
        style="continues",
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
            "transformer_lens.HookedTransformer",
            "transformer_lens.HookedTransformer.HookedTransformer",
            "transformer_lens.HookedSAETransformer",
        ),
        "builds_mask",
        f"{TRANSFORMER_LENS}, HookedTransformer.py HookedTransformer.forward lines 287-307 (no attention_mask "
        "given: utils.get_attention_mask(self.tokenizer, tokens, prepend_bos) when self.tokenizer.padding_side "
        "== 'left' or a past_kv_cache is used), generate lines 1991-2146 (no attention_mask argument; "
        "use_past_kv_cache=True by default, each step through forward); utils.py get_attention_mask lines "
        "969-1005 (zeros only the leading pads on the left, the trailing ones on the right: a pad that is the "
        "EOS keeps every later EOS)",
        on="class",
        condition="no mask passed: a causal decoder that masks its tokenizer's leading pads itself where that "
        "tokenizer pads on the left; pads on the right follow every real token, which a causal decoder never reads",
        attends="causal",
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
            "transformers.LEDForConditionalGeneration",
            "transformers.M2M100ForConditionalGeneration",
        ),
        "consumer",
        f"{TRANSFORMERS}, models/t5/configuration_t5.py T5Config (pad_token_id=0, eos_token_id=1, "
        "is_encoder_decoder); the same read in configuration_{mt5,pegasus}.py (pad 0), "
        "configuration_{bart,mbart,led,m2m_100}.py (pad 1, eos 2), configuration_marian.py (pad 58100, eos 0); "
        "their tokenizers end every text with the EOS (the appends_eos tokenizer row; LED's is converted as RoBERTa's, "
        "convert_slow_tokenizer.py LEDTokenizer: RobertaConverter); AutoModelForSeq2SeqLM's checkpoints are of these families in the main",
        on="class",
        attends="encoder_decoder",
        condition="a dedicated pad id in the config: `generate` without a mask infers it from that pad id in "
        "transformers 4.x (not in 5.x; the version is not in view)",
        appends_eos=True,
    ),
    Row(
        ("transformers.ProphetNetForConditionalGeneration", "transformers.BlenderbotForConditionalGeneration"),
        "consumer",
        f"{TRANSFORMERS}, models/prophetnet/configuration_prophetnet.py and models/blenderbot/configuration_blenderbot.py "
        "(pad 0, is_encoder_decoder); models/prophetnet/tokenization_prophetnet.py ends a text with [SEP], not "
        "the EOS",
        on="class",
        attends="encoder_decoder",
        condition="a dedicated pad id in the config: `generate` without a mask infers it from that pad id in "
        "transformers 4.x (not in 5.x; the version is not in view)",
    ),
    Row(
        (
            "trl.AutoModelForSeq2SeqLMWithValueHead",
            "trl.models.AutoModelForSeq2SeqLMWithValueHead",
            "trl.models.modeling_value_head.AutoModelForSeq2SeqLMWithValueHead",
        ),
        "consumer",
        "trl 0.11.4, trl/models/modeling_value_head.py AutoModelForSeq2SeqLMWithValueHead "
        "(transformers_parent_class = AutoModelForSeq2SeqLM, line 291; generate returns "
        "self.pretrained_model.generate(*args, **kwargs), lines 441-445): the wrapped encoder-decoder's generate "
        "(the class is gone from trl 1.x)",
        on="class",
        attends="encoder_decoder",
        condition="wraps an encoder-decoder; `generate` is the wrapped model's, as in the row above",
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
    Row(
        (
            "transformers.AutoModelForMaskedLM",
            "transformers.T5EncoderModel",
            "transformers.MT5EncoderModel",
            *(
                f"transformers.{family}{head}"
                for family in ENCODER_FAMILIES
                for head in (
                    "Model",
                    "ForMaskedLM",
                    "ForTokenClassification",
                    "ForQuestionAnswering",
                )
            ),
        ),
        "consumer",
        f"{TRANSFORMERS}, models/bert/modeling_bert.py BertModel._create_attention_masks (create_bidirectional_mask "
        "unless config.is_decoder, which defaults to False); masking_utils.py create_bidirectional_mask (no "
        "attention_mask: every position is attended); the same in modeling_{roberta,xlm_roberta,camembert,electra}.py, "
        "and is_causal = False in modeling_{distilbert,albert,modernbert}.py; DeBERTa(-v2) and MPNet build no causal "
        "mask; T5EncoderModel runs T5Stack with is_decoder False; models/auto/modeling_auto.py "
        "MODEL_FOR_MASKED_LM_MAPPING_NAMES maps only encoders and encoder-decoders (bart, mbart, mvp)",
        on="class",
        attends="bidirectional",
        condition="every token attends to every position, before and after it: without a mask each real token's "
        "output mixes in the pads of its row",
    ),
    # ---- heads whose labels are one per row --------------------------------------------------------
    # The encoders' classification heads read ids as their consumer row above does, and take one label
    # per row; the others' heads (auto classes, decoders, encoder-decoders) are named for the labels only.
    Row(
        tuple(
            f"transformers.{family}{head}"
            for family in ENCODER_FAMILIES
            for head in ("ForSequenceClassification", "ForMultipleChoice")
        ),
        "consumer",
        f"{TRANSFORMERS}, models/bert/modeling_bert.py _create_attention_masks (as the encoders' consumer row "
        "above); BertForSequenceClassification.forward: logits of shape (batch, num_labels), "
        "single-label loss CrossEntropyLoss()(logits.view(-1, num_labels), labels.view(-1)), regression MSELoss, "
        "multi-label BCEWithLogitsLoss(logits, labels); BertForMultipleChoice.forward: labels of shape (batch_size,)",
        on="class",
        attends="bidirectional",
        labels="row",
        condition="every token attends to every position; labels hold one class (or score) per row",
    ),
    Row(
        (
            "transformers.AutoModelForSequenceClassification",
            "transformers.AutoModelForMultipleChoice",
            *(
                f"transformers.{family}{head}"
                for family in (
                    "GPT2",
                    "Llama",
                    "Mistral",
                    "Qwen2",
                    "Qwen3",
                    "Gemma",
                    "Gemma2",
                    "Phi3",
                    "OPT",
                    "Bart",
                    "T5",
                )
                for head in ("ForSequenceClassification", "ForMultipleChoice")
            ),
        ),
        "row_labels",
        f"{TRANSFORMERS}, modeling_layers.py GenericForSequenceClassification (the decoders' heads: "
        "loss_function over pooled logits, one per row); models/bart/modeling_bart.py "
        "BartForSequenceClassification.forward and models/t5/modeling_t5.py T5ForSequenceClassification.forward "
        "(CrossEntropyLoss over logits.view(-1, num_labels) and labels.view(-1)); models/auto/modeling_auto.py "
        "MODEL_FOR_SEQUENCE_CLASSIFICATION_MAPPING_NAMES, MODEL_FOR_MULTIPLE_CHOICE_MAPPING_NAMES",
        on="class",
        condition="labels hold one class (or score) per row, never a position of the sequence",
    ),
    # ---- models whose labels are also their decoder's input ids --------------------------------------
    # -100 written into such labels reaches the decoder's embedding (an IndexError), unless the caller
    # passes `decoder_input_ids` itself. Other encoder-decoders shift the labels right and replace -100
    # with the pad id first (`_shift_right`, `shift_tokens_right`).
    Row(
        ("transformers.BlipForQuestionAnswering", "transformers.models.blip.BlipForQuestionAnswering"),
        "labels_as_inputs",
        f"{TRANSFORMERS}, models/blip/modeling_blip.py BlipForQuestionAnswering.forward (`if labels is not None "
        "and decoder_input_ids is None: decoder_input_ids = labels`, 'labels are already shifted right'; then "
        "text_decoder(input_ids=decoder_input_ids, labels=labels))",
        on="class",
        condition="`decoder_input_ids` not passed: the labels are the decoder's input ids as they are",
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
    # ---- factories of objects that hold a model --------------------------------------------------
    Row(
        ("transformers.pipeline", "transformers.pipelines.pipeline"),
        "makes_model",
        f"{TRANSFORMERS}, pipelines/__init__.py pipeline(task, model, ..., tokenizer, ...) -> Pipeline; "
        "pipelines/base.py Pipeline.__init__ (self.model = model, self.tokenizer = tokenizer: the loaded "
        "model and tokenizer)",
        roles={"model": ("model", None), "tokenizer": ("tokenizer", None)},
    ),
)
