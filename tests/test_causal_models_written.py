"""Right pads before a causal decoder the project writes itself (issue 12, false-alarm class 3).

A decoder written by hand (its attention masks every later position) reads no pad that follows the real
tokens: rows a map function pads on the right and hands on without their mask harm nothing, when the pad
targets are ignored. The side is the tokenizer class's default when the module states none (library
table). Each near-miss differs from the silent case in one thing the mechanism reads, and must still be
reported. Fixtures are our own."""

from __future__ import annotations

import textwrap

import pytest

from padlint.engine import lint_source

STORY_DECODER = """
    import torch
    from torch import nn
    from torch.utils.data import DataLoader
    from datasets import load_dataset
    from transformers import GPT2TokenizerFast

    tokenizer = GPT2TokenizerFast.from_pretrained("gpt2")
    tokenizer.add_special_tokens({"pad_token": "<|pad|>"})


    class MaskedSelfAttention(nn.Module):
        def __init__(self, width, context):
            super().__init__()
            self.qkv = nn.Linear(width, 3 * width)
            self.register_buffer("later", torch.triu(torch.ones(context, context, dtype=torch.bool), diagonal=1))

        def forward(self, x):
            steps = x.size(1)
            q, k, v = self.qkv(x).chunk(3, dim=-1)
            scores = q @ k.transpose(-2, -1) / x.size(-1) ** 0.5
            scores = scores.masked_fill(self.later[:steps, :steps], float("-inf"))
            return torch.softmax(scores, dim=-1) @ v


    class StoryDecoder(nn.Module):
        def __init__(self, vocab, width=64, context=128):
            super().__init__()
            self.embed = nn.Embedding(vocab, width)
            self.attend = MaskedSelfAttention(width, context)
            self.head = nn.Linear(width, vocab)

        def forward(self, ids):
            hidden = self.attend(self.embed(ids))
            return self.head(hidden)


    def tokenize(batch):
        enc = tokenizer(batch["story"], truncation=True, padding="max_length", max_length=128)
        enc["labels"] = enc["input_ids"].copy()
        return enc


    stories = load_dataset("my-org/stories", split="train").map(tokenize, batched=True, remove_columns=["story"])
    stories.set_format("torch", columns=["input_ids", "labels"])


    def collate(rows):
        ids = torch.stack([row["input_ids"] for row in rows])
        targets = torch.stack([row["labels"] for row in rows])
        return ids, targets


    model = StoryDecoder(len(tokenizer))
    loss_fn = nn.CrossEntropyLoss(ignore_index=tokenizer.pad_token_id)
    for ids, targets in DataLoader(stories, batch_size=8, collate_fn=collate):
        logits = model(ids)
        loss = loss_fn(logits[:, :-1].reshape(-1, logits.size(-1)), targets[:, 1:].reshape(-1))
        loss.backward()
"""


def pad003_lines(source: str) -> list[int]:
    found = lint_source(textwrap.dedent(source), "train_stories.py")
    return sorted(d.location.row for d in found if d.code == "PAD003")


def test_right_pads_before_a_decoder_written_here_need_no_mask():
    assert pad003_lines(STORY_DECODER) == []


def test_the_causal_mask_built_in_the_forward_counts_too():
    in_forward = STORY_DECODER.replace(
        'scores = scores.masked_fill(self.later[:steps, :steps], float("-inf"))',
        'scores = scores.masked_fill(torch.ones(steps, steps).triu(1).bool(), float("-inf"))',
    ).replace(
        '            self.register_buffer("later", torch.triu(torch.ones(context, context, dtype=torch.bool), diagonal=1))\n',
        "",
    )
    assert "triu(1)" in in_forward and "register_buffer" not in in_forward
    assert pad003_lines(in_forward) == []


def test_library_attention_told_to_be_causal_counts_too():
    sdpa = STORY_DECODER.replace(
        "scores = q @ k.transpose(-2, -1) / x.size(-1) ** 0.5",
        "return nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)",
    )
    assert pad003_lines(sdpa) == []


# ---- near-misses: the same rows, harm manifest ----------------------------------------------------------
def test_an_encoder_written_here_reads_the_right_pads():
    bidirectional = STORY_DECODER.replace(
        'scores = scores.masked_fill(self.later[:steps, :steps], float("-inf"))', "pass"
    ).replace(
        '            self.register_buffer("later", torch.triu(torch.ones(context, context, dtype=torch.bool), diagonal=1))\n',
        "",
    )
    assert "triu" not in bidirectional
    assert pad003_lines(bidirectional) != []


def test_attention_told_not_to_be_causal_somewhere_reads_them():
    # The same layer serves an encoder beside the decoder: `causal=False` there attends to every pad.
    flagged = STORY_DECODER.replace(
        "def __init__(self, width, context):", "def __init__(self, width, context, causal=True):"
    ).replace(
        "self.attend = MaskedSelfAttention(width, context)",
        "self.attend = MaskedSelfAttention(width, context)\n            self.memory = MaskedSelfAttention(width, context, causal=False)",
    )
    assert "causal=False" in flagged
    assert pad003_lines(flagged) != []


def test_a_decoder_that_reads_its_last_position_reads_a_pad():
    last = STORY_DECODER.replace("return self.head(hidden)", "return self.head(hidden[:, -1])")
    assert pad003_lines(last) != []


def test_an_encoder_decoder_loaded_beside_it_keeps_the_finding():
    with_encoder = STORY_DECODER.replace(
        "from transformers import GPT2TokenizerFast",
        "from transformers import AutoModelForSeq2SeqLM, GPT2TokenizerFast",
    ).replace(
        "model = StoryDecoder(len(tokenizer))",
        'model = StoryDecoder(len(tokenizer))\n    summarizer = AutoModelForSeq2SeqLM.from_pretrained("t5-small")',
    )
    assert pad003_lines(with_encoder) != []


@pytest.mark.parametrize(
    "loaded",
    [
        "LlamaTokenizerFast",  # pads on the left by default
        "LlamaTokenizer",  # left in transformers 5, right in 4: not known
        "AutoTokenizer",  # the checkpoint's class decides
    ],
)
def test_a_tokenizer_class_not_known_to_pad_right_keeps_the_finding(loaded):
    other = STORY_DECODER.replace("GPT2TokenizerFast", loaded)
    assert pad003_lines(other) != []


def test_a_side_stated_left_keeps_the_finding():
    left = STORY_DECODER.replace(
        'tokenizer.add_special_tokens({"pad_token": "<|pad|>"})',
        'tokenizer.add_special_tokens({"pad_token": "<|pad|>"})\n    tokenizer.padding_side = "left"',
    )
    assert pad003_lines(left) != []


# ---- the outputs at the pads must go unread too -------------------------------------------------------
def test_a_decoder_that_pools_over_the_sequence_reads_the_pads_outputs():
    # A causal mask keeps real tokens from the later pads, but a mean over the sequence takes the pad
    # positions' own outputs in.
    pooled = STORY_DECODER.replace("return self.head(hidden)", "return self.head(hidden.mean(dim=1))")
    assert pad003_lines(pooled) != []


SAMPLER = """
    import torch
    from torch import nn
    from transformers import GPT2TokenizerFast

    tokenizer = GPT2TokenizerFast.from_pretrained("gpt2")
    tokenizer.pad_token = "<|pad|>"


    class Decoder(nn.Module):
        def __init__(self, vocab, width=32):
            super().__init__()
            self.embed = nn.Embedding(vocab, width)
            self.mix = nn.MultiheadAttention(width, 4, batch_first=True)
            self.head = nn.Linear(width, vocab)

        def forward(self, ids):
            x = self.embed(ids)
            later = torch.triu(torch.ones(ids.size(1), ids.size(1), dtype=torch.bool), diagonal=1)
            return self.head(self.mix(x, x, x, attn_mask=later)[0])


    model = Decoder(len(tokenizer))


    def next_tokens(prompts):
        ids = tokenizer(prompts, padding=True, return_tensors="pt")["input_ids"]
        logits = model(ids)
        return logits[:, -1, :].argmax(-1)
"""


def test_the_next_token_read_at_the_last_position_is_read_at_a_pad():
    assert pad003_lines(SAMPLER) != []


def test_the_same_decoder_scoring_every_real_position_needs_no_mask():
    scoring = SAMPLER.replace(
        "        return logits[:, -1, :].argmax(-1)",
        "        targets = ids[:, 1:].masked_fill(ids[:, 1:] == tokenizer.pad_token_id, -100)\n"
        "        return nn.functional.cross_entropy(logits[:, :-1].transpose(1, 2), targets)",
    )
    assert "cross_entropy" in scoring
    assert pad003_lines(scoring) == []
