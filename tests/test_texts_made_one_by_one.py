"""A loop over texts made one at a time hands the tokenizer one text per call (fixtures are our own):
`seqs = [" ".join(s) for s in raw]`, `[re.sub(r"[UZOB]", "X", s) for s in seqs]`, `[str(x) for x in
xs]` each hold one string per item, so `for seq in seqs: tok(seq, padding=True)` pads nothing and the
model reads no pads without a mask. A comprehension of slices (`[seqs[i : i + 8] for i in ...]`) holds
batches: padded to their longest, they are padded."""

from __future__ import annotations

import textwrap

from padlint.engine import lint_source

TIMING = """
    import re

    import torch
    from transformers import BertModel, BertTokenizer

    tokenizer = BertTokenizer.from_pretrained("bert-base-uncased")
    model = BertModel.from_pretrained("bert-base-uncased").eval()

    raw = ["MKTAYIAK", "GLSDGEWQQVLNVWGKVEAD", "PKV"]
    seqs = [" ".join(list(s)) for s in raw]
    seqs = [re.sub(r"[UZOB]", "X", s) for s in seqs]

    for seq in seqs:
        enc = tokenizer(seq, return_tensors="pt", padding=True)
        with torch.no_grad():
            out = model(input_ids=enc["input_ids"])
"""


def pad003(source: str) -> list[int]:
    return [d.location.row for d in lint_source(textwrap.dedent(source), "timing.py") if d.code == "PAD003"]


def test_a_loop_over_texts_made_one_by_one_tokenizes_one_text_per_call():
    assert pad003(TIMING) == []
    as_strings = TIMING.replace('[re.sub(r"[UZOB]", "X", s) for s in seqs]', "[str(s) for s in seqs]")
    assert as_strings != TIMING
    assert pad003(as_strings) == []


def test_a_loop_over_slices_of_the_texts_tokenizes_batches():
    batches = TIMING.replace("for seq in seqs:", "for seq in [seqs[i : i + 2] for i in range(0, len(seqs), 2)]:")
    assert batches != TIMING
    assert pad003(batches) == [17]
