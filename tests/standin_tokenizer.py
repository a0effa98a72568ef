"""A word-level stand-in for a Hugging Face tokenizer, for tests that run collators.

Nothing here loads from a hub. Each whitespace-separated word maps to a fixed id (never 0, 1 or 2; the
word `</s>` is the EOS), and every text ends with EOS when special tokens are added (as a T5 tokenizer's). Padding is on the right unless `padding_side = "left"` is set.

    tok = StandInTokenizer()                 # pad id 0, EOS id 2: pad != EOS
    tok = StandInTokenizer(pad_is_eos=True)  # pad id == EOS id == 2
    tok.pad_token = tok.eos_token            # the usual GPT-2 style assignment: pad_token_id becomes 2

Supported: `tok(text_or_list, padding=False|True|"longest"|"max_length"|"do_not_pad", truncation=...,
max_length=..., return_tensors=None|"pt"|"np", return_attention_mask=True, add_special_tokens=True,
padding_side=None|"left"|"right")`,
`tok.pad(features, padding=True, max_length=None, return_tensors=None, return_attention_mask=True)`,
`tok.encode(text, ...)` (same keywords, ids only), `tok.batch_encode_plus(texts, ...)`,
`tok.decode(ids)`, `pad_token`, `pad_token_id`, `eos_token`, `eos_token_id`, `padding_side`.
"""

from __future__ import annotations

PAD_ID = 0
UNK_ID = 1
EOS_ID = 2
PAD_TOKEN = "<pad>"
EOS_TOKEN = "</s>"
FIRST_WORD_ID = 3
VOCAB_SPAN = 997

_PADDING_ON = (True, "longest", "max_length")


def word_id(word: str) -> int:
    """A stable id for a word, never a special id."""
    h = 0
    for ch in word:
        h = (h * 31 + ord(ch)) % 1_000_003
    return FIRST_WORD_ID + h % VOCAB_SPAN


class Encoding(dict):
    """A dict with attribute access and a no-op `.to()`, like `BatchEncoding`."""

    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key) from None

    def to(self, *args, **kwargs):
        return Encoding({k: (v.to(*args, **kwargs) if hasattr(v, "to") else v) for k, v in self.items()})


def _as_list(x):
    if hasattr(x, "tolist"):
        x = x.tolist()
    return [int(t) for t in x]


class StandInTokenizer:
    def __init__(self, pad_is_eos: bool = False, padding_side: str = "right", model_max_length: int = 64):
        self.eos_token = EOS_TOKEN
        self.eos_token_id = EOS_ID
        self.unk_token = "<unk>"
        self.unk_token_id = UNK_ID
        self._pad_token = EOS_TOKEN if pad_is_eos else PAD_TOKEN
        self.pad_token_id = EOS_ID if pad_is_eos else PAD_ID
        self.padding_side = padding_side
        self.model_max_length = model_max_length

    # `tok.pad_token = tok.eos_token` must also move the pad id, as it does in transformers.
    @property
    def pad_token(self):
        return self._pad_token

    @pad_token.setter
    def pad_token(self, value):
        self._pad_token = value
        if value == self.eos_token:
            self.pad_token_id = self.eos_token_id
        elif value == PAD_TOKEN:
            self.pad_token_id = PAD_ID
        elif value == self.unk_token:
            self.pad_token_id = self.unk_token_id

    # ---- encoding -------------------------------------------------------------------------------
    def _ids(self, text: str, add_special_tokens: bool = True) -> list[int]:
        # the EOS written in a text is the EOS, as a tokenizer splits out its special tokens
        words = text.replace(self.eos_token, f" {self.eos_token} ").split()
        ids = [self.eos_token_id if w == self.eos_token else word_id(w) for w in words]
        return ids + [self.eos_token_id] if add_special_tokens else ids

    def _width(self, rows, padding, max_length):
        if padding == "max_length":
            return max_length if max_length is not None else self.model_max_length
        return max((len(r) for r in rows), default=0)

    def _pad_rows(self, rows, masks, width, padding_side=None):
        out_rows, out_masks = [], []
        for r, m in zip(rows, masks):
            gap = max(width - len(r), 0)
            if (padding_side or self.padding_side) == "left":
                out_rows.append([self.pad_token_id] * gap + list(r))
                out_masks.append([0] * gap + list(m))
            else:
                out_rows.append(list(r) + [self.pad_token_id] * gap)
                out_masks.append(list(m) + [0] * gap)
        return out_rows, out_masks

    @staticmethod
    def _tensors(out: dict, return_tensors):
        if return_tensors == "pt":
            import torch

            return {k: torch.tensor(v, dtype=torch.long) for k, v in out.items()}
        if return_tensors == "np":
            import numpy as np

            return {k: np.array(v, dtype=np.int64) for k, v in out.items()}
        if return_tensors is not None:
            raise ValueError(f"unsupported return_tensors={return_tensors!r}")
        return out

    def __call__(
        self,
        text=None,
        padding=False,
        truncation=False,
        max_length=None,
        return_tensors=None,
        return_attention_mask=True,
        add_special_tokens=True,
        text_target=None,
        padding_side=None,  # transformers >= 4.45: this call's side, over the tokenizer's own
        **_,
    ):
        if text is None:
            text, text_target = text_target, None
        elif text_target is not None:  # inputs and targets in one call: the targets come back as `labels`
            options = dict(padding=padding, truncation=truncation, max_length=max_length)
            targets = self(text_target, return_tensors=return_tensors, add_special_tokens=add_special_tokens, **options)
            encoding = self(text, return_tensors=return_tensors, add_special_tokens=add_special_tokens, **options)
            if not return_attention_mask:
                encoding.pop("attention_mask")
            encoding["labels"] = targets["input_ids"]
            return encoding
        single = isinstance(text, str)
        texts = [text] if single else list(text)
        rows = [self._ids(t, add_special_tokens) for t in texts]
        if truncation and max_length is not None:
            rows = [r[:max_length] for r in rows]
        masks = [[1] * len(r) for r in rows]
        if padding in _PADDING_ON:
            rows, masks = self._pad_rows(rows, masks, self._width(rows, padding, max_length), padding_side)
        out = {"input_ids": rows}
        if return_attention_mask:
            out["attention_mask"] = masks
        if single:
            out = {k: v[0] for k, v in out.items()}
            if return_tensors is not None:  # like transformers: a batch of one
                out = {k: [v] for k, v in out.items()}
        return Encoding(self._tensors(out, return_tensors))

    def encode(
        self, text, padding=False, truncation=False, max_length=None, return_tensors=None, add_special_tokens=True, **_
    ):
        enc = self(
            text,
            padding=padding,
            truncation=truncation,
            max_length=max_length,
            return_tensors=return_tensors,
            add_special_tokens=add_special_tokens,
        )
        return enc["input_ids"]

    def encode_plus(self, text, **kwargs):
        return self(text, **kwargs)

    def batch_encode_plus(self, texts, **kwargs):
        return self(list(texts), **kwargs)

    def pad(self, features, padding=True, max_length=None, return_tensors=None, return_attention_mask=True, **_):
        """Pad a list of features (dicts with `input_ids`, maybe `attention_mask`) or a dict of lists."""
        if isinstance(features, dict):
            keys = list(features)
            features = [dict(zip(keys, vals)) for vals in zip(*features.values())]
        rows = [_as_list(f["input_ids"]) for f in features]
        masks = [
            _as_list(f["attention_mask"]) if "attention_mask" in f else [1] * len(r) for f, r in zip(features, rows)
        ]
        extra = {k: [f[k] for f in features] for k in features[0] if k not in ("input_ids", "attention_mask")}
        if padding in _PADDING_ON:
            rows, masks = self._pad_rows(rows, masks, self._width(rows, padding, max_length))
        out = {"input_ids": rows}
        if return_attention_mask:
            out["attention_mask"] = masks
        out.update(extra)  # like transformers, other keys are passed through (labels are not padded)
        return Encoding(self._tensors(out, return_tensors))

    def decode(self, ids, skip_special_tokens=False):
        ids = _as_list(ids)
        if skip_special_tokens:
            ids = [t for t in ids if t >= FIRST_WORD_ID]
        return " ".join(f"w{t}" for t in ids)

    def batch_decode(self, rows, skip_special_tokens=False):
        return [self.decode(r, skip_special_tokens) for r in rows]
