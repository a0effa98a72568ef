"""Rows of the library table for calls that pad: padding functions, tokenizers, and the collators that pad
features (and labels) again."""

from __future__ import annotations

from padlint.semantics.row import KERAS, NUMPY, TORCH, TRANSFORMERS, TRANSFORMERS_4, TRL, Row

PADDING_ROWS: tuple[Row, ...] = (
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
    Row(
        ("apply_chat_template",),
        "tokenizer",
        f"{TRANSFORMERS_4}, tokenization_utils_base.py PreTrainedTokenizerBase.apply_chat_template (lines 1709-1918: "
        "tokenize=True renders, then self(rendered, padding=padding, truncation=..., max_length=..., "
        "add_special_tokens=False, return_tensors=...); return_dict=False by default: out['input_ids'] only); "
        f"{TRANSFORMERS}, the same method with return_dict=True by default (the BatchEncoding, its mask kept)",
        on="method",
        defaults={"padding_side": "right", "return_attention_mask": True},
        condition="pads with `padding=` like __call__, one conversation (a list of messages) or a batch of them "
        "(a list of lists); tokenize=False returns the rendered text; without return_dict the result is the ids "
        "(4.x) or the encoding (5.x): the mask is known lost only with return_dict=False",
    ),
    # The EOS token's text, as tokenizer classes default it: written into a template (`"... [/INST]
    # {answer}</s>"`), a tokenizer that knows it as a special token parses it as the EOS id.
    Row(
        ("</s>", "<|endoftext|>", "<eos>"),
        "eos_text",
        f"{TRANSFORMERS}, models/llama/tokenization_llama.py LlamaTokenizer.__init__(eos_token='</s>') (also "
        "t5, bart, marian and 36 more tokenization_*.py); models/gpt2/tokenization_gpt2.py GPT2Tokenizer.__init__"
        "(eos_token='<|endoftext|>'); models/qwen2/tokenization_qwen2.py Qwen2Tokenizer.__init__(eos_token="
        "'<|endoftext|>'); models/gemma/tokenization_gemma.py GemmaTokenizer.__init__(eos_token='<eos>'); "
        "tokenization_utils_tokenizers.py: added special tokens in a text are split out as their ids",
        condition="a text holding it holds an EOS for the tokenizers whose EOS it is",
    ),
    Row(
        ("decode", "batch_decode"),
        "decodes",
        f"{TRANSFORMERS}, tokenization_utils_base.py PreTrainedTokenizerBase.decode/batch_decode (token ids to "
        "text; skip_special_tokens drops pads)",
        on="method",
    ),
    # The side a tokenizer class pads on when nothing states one: its class attribute `padding_side`
    # (PreTrainedTokenizerBase: "right"; `__init__` takes `padding_side` from the checkpoint's
    # tokenizer_config.json first, so this is the side of a checkpoint that names none). None: the two
    # checked versions differ. An Auto class has no side of its own: the checkpoint's class decides.
    Row(
        tuple(
            f"transformers.{family}{kind}"
            for family in ("GPT2", "Bert", "Roberta", "DistilBert", "Qwen2")
            for kind in ("Tokenizer", "TokenizerFast")
        )
        + ("transformers.GPTNeoXTokenizerFast", "transformers.PreTrainedTokenizerFast"),
        "tokenizer",
        f"{TRANSFORMERS}, tokenization_utils_base.py PreTrainedTokenizerBase (padding_side: str = 'right', and "
        "in __init__ padding_side = kwargs.pop('padding_side', padding_side)); none of these classes sets its own; "
        f"{TRANSFORMERS_4}, the same (tokenization_utils_base.py lines 1583, 1604)",
        on="class",
        defaults={"padding_side": "right"},
    ),
    # The sequence-to-sequence tokenizers end every text with their EOS when special tokens are added (the
    # call's default): `</s>` after the text, before a language code for some.
    Row(
        tuple(
            f"transformers.{family}{kind}"
            for family in ("T5", "Bart", "MBart", "MBart50", "Pegasus", "Nllb")
            for kind in ("Tokenizer", "TokenizerFast")
        )
        + ("transformers.MarianTokenizer", "transformers.M2M100Tokenizer"),
        "tokenizer",
        f"{TRANSFORMERS}, models/t5/tokenization_t5.py T5Tokenizer (post_processor TemplateProcessing single="
        "['$A', '</s>']), models/bart/tokenization_bart.py (aliases of RobertaTokenizer: RobertaProcessing, "
        "'<s> $A </s>', sep = eos = '</s>'), models/mbart/tokenization_mbart.py and mbart50/tokenization_mbart50.py "
        "(suffix_tokens = [eos_token_id, ...] / [eos_token_id]), models/pegasus/tokenization_pegasus.py "
        "(single='$A {eos_token}'), models/nllb/tokenization_nllb.py (suffix_tokens [eos_token_id] or "
        "[eos_token_id, cur_lang_code]), models/marian/tokenization_marian.py build_inputs_with_special_tokens "
        "(token_ids_0 + [eos_token_id]), models/m2m_100/tokenization_m2m_100.py (suffix_tokens = [eos_token_id]); "
        "padding_side as PreTrainedTokenizerBase (tokenization_utils_base.py: 'right'), none sets its own; "
        f"{TRANSFORMERS_4}, the same padding side for T5, Bart, MBart and MBart50 (tokenization_utils_base.py lines "
        "1583, 1604; the other four classes were read in 5.24.0 only)",
        on="class",
        defaults={"padding_side": "right"},
        appends_eos=True,
    ),
    Row(
        (
            "transformers.LlamaTokenizerFast",
            "transformers.GemmaTokenizerFast",
            "transformers.CodeLlamaTokenizerFast",
            "transformers.CohereTokenizerFast",
            "transformers.XLNetTokenizer",
            "transformers.XLNetTokenizerFast",
        ),
        "tokenizer",
        f"{TRANSFORMERS}, models/llama/tokenization_llama.py LlamaTokenizer (padding_side = 'left'), and the same "
        "in gemma, code_llama, cohere and xlnet tokenization_*.py (the Fast names are aliases); "
        f"{TRANSFORMERS_4}, models/llama/tokenization_llama_fast.py (padding_side = 'left'), and the same in the "
        "gemma, code_llama, cohere and xlnet *_fast.py and xlnet/tokenization_xlnet.py",
        on="class",
        defaults={"padding_side": "left"},
    ),
    Row(
        (
            "transformers.LlamaTokenizer",
            "transformers.GemmaTokenizer",
            "transformers.CodeLlamaTokenizer",
            "transformers.CohereTokenizer",
        ),
        "tokenizer",
        f"{TRANSFORMERS}, models/llama/tokenization_llama.py (padding_side = 'left'), the same in gemma, code_llama "
        f"and cohere; {TRANSFORMERS_4}, models/llama/tokenization_llama.py and the others' slow tokenizers set "
        "none (base: 'right')",
        on="class",
        defaults={"padding_side": None},
        condition="the side depends on the transformers version installed",
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
        f"{TRANSFORMERS}, data/data_collator.py DataCollatorForLanguageModeling.torch_call, lines 793-801 "
        "(mlm: batch['labels'] from torch_mask_tokens, -100 but at the masked positions; mlm=False: labels = "
        "input_ids.clone(); labels[labels == pad_token_id] = -100)",
        on="class",
        roles={"mlm": ("mlm", None)},
        defaults={"mlm": True},
        condition="repads, then replaces any labels the features carried: mlm=False rebuilds them from input_ids "
        "and masks them by the pad id; mlm=True grades only the positions it masks",
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
)
