"""A label fill the code also writes elsewhere into the same labels (fixtures are our own).

Token-classification preprocessing often labels the special tokens and the pads with one constant
(`aligned.append(42)` where `word_ids()` is None) and pads the list with the same constant
(`np.pad(aligned, (0, gap), constant_values=42)`). Rewriting the fill alone to -100 would leave 42 at
the other positions, and the labels would then mark skipped positions two ways: no fix is offered, and
the help says which other write to change. Where the constant appears only as the fill (elsewhere only
as an index), the -100 fix is offered, and the fixed code runs.
"""

from __future__ import annotations

import textwrap

from padlint.engine import fix_source, lint_source

ALIGN = textwrap.dedent(
    """
    import numpy as np
    import torch


    def encode(tokenizer, sentences, prefix=0):
        out = {"input_ids": [], "attention_mask": [], "labels": []}
        for words, word_labels in sentences:
            enc = tokenizer(words, is_split_into_words=True, padding="max_length", max_length=8, return_tensors="pt")
            aligned_labels = []
            for word_id in enc.word_ids():
                if word_id is None:
                    aligned_labels.append(42)
                else:
                    aligned_labels.append(word_labels[word_id])
            aligned_labels = np.array(aligned_labels)
            aligned_labels = np.pad(aligned_labels, (prefix, 0), mode="constant", constant_values=42)
            enc["labels"] = torch.tensor(aligned_labels).unsqueeze(0)
            for key, value in enc.items():
                out[key].append(value.squeeze(0).tolist())
        return out
    """
)

# The special tokens and pads get -100 already; 42 is the prefix's fill and, elsewhere, an index.
PAD_ONLY = ALIGN.replace("aligned_labels.append(42)", "aligned_labels.append(-100)").replace(
    "    return out", '    out["first"] = [word_labels[42 % len(word_labels)]]\n    return out'
)


def test_the_fill_is_flagged_without_a_fix_that_would_leave_the_other_write():
    [finding] = lint_source(ALIGN, "align.py")
    assert finding.code == "PAD006"
    assert finding.fix is None
    assert "line 13" in (finding.no_fix or "")  # `aligned_labels.append(42)`: the special tokens' label
    assert fix_source(ALIGN, select={"PAD006"}, unsafe=True).source == ALIGN


def test_a_fill_written_only_there_is_fixed_and_the_fixed_code_runs():
    [finding] = lint_source(PAD_ONLY, "align.py")
    assert finding.code == "PAD006" and finding.fix is not None
    fixed = fix_source(PAD_ONLY, select={"PAD006"}, unsafe=True).source
    assert fixed != PAD_ONLY
    namespace: dict = {}
    exec(compile(fixed, "<fixed>", "exec"), namespace)
    tok = WordTokenizer()
    out = namespace["encode"](tok, [(["the", "cat"], [3, 1]), (["a", "big", "dog"], [2, 5, 4])], prefix=2)
    # two virtual tokens first, then [CLS] the cat [SEP] and the pads: -100 exactly where no word is
    assert out["labels"][0] == [-100, -100, -100, 3, 1, -100, -100, -100, -100, -100]
    assert out["labels"][1] == [-100, -100, -100, 2, 5, 4, -100, -100, -100, -100]
    assert out["first"] == [2]  # `word_labels[42 % 3]`: the 42 used as an index is untouched


class WordTokenizer:
    """Words to ids, [CLS] first and [SEP] last, padded to max_length; word_ids as transformers gives them."""

    def __call__(self, words, is_split_into_words, padding, max_length, return_tensors):
        import torch

        ids = [101] + [1000 + len(w) for w in words] + [102]
        self._word_ids = [None, *range(len(words)), None] + [None] * (max_length - len(ids))
        mask = [1] * len(ids) + [0] * (max_length - len(ids))
        ids = ids + [0] * (max_length - len(ids))
        return _Encoding({"input_ids": torch.tensor([ids]), "attention_mask": torch.tensor([mask])}, self._word_ids)


class _Encoding(dict):
    def __init__(self, data, word_ids):
        super().__init__(data)
        self._ids = word_ids

    def word_ids(self):
        return list(self._ids)
