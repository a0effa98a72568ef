"""PAD015: hidden states of a padded batch averaged over the sequence without the mask. Run on a tiny
BERT built from a config (nothing loaded from a hub) and the word-level stand-in tokenizer: each row's
vector from a padded batch must equal the same sentence's vector computed alone. The unfixed code
fails that for every shorter sentence; the fixed code meets it. Fixtures are our own."""

from __future__ import annotations

import textwrap

import pytest

from padlint.engine import fix_source, lint_source
from tests.standin_tokenizer import StandInTokenizer

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

SOURCES = {
    "method": """
        def embed(model, tokenizer, sentences):
            enc = tokenizer(sentences, padding=True, return_tensors="pt")
            out = model(**enc)
            return out.last_hidden_state.mean(dim=1)
        """,
    "function": """
        import torch


        def embed(model, tokenizer, sentences):
            enc = tokenizer(sentences, padding="max_length", max_length=12, return_tensors="pt")
            out = model(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"], output_hidden_states=True)
            return torch.mean(out.hidden_states[-1].detach(), dim=1)
        """,
}
SENTENCES = ["a short one", "a much longer sentence with many more words in it", "two words"]


def tiny_encoder():
    torch.manual_seed(0)
    config = transformers.BertConfig(
        vocab_size=1000, hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32
    )
    return transformers.BertModel(config).eval()


def run(source: str, pool: str = "mean"):
    """The embeddings of SENTENCES as `source` makes them in one batch, and each sentence's alone."""
    namespace: dict = {}
    exec(compile(source, "<pooler>", "exec"), namespace)
    model, tokenizer = tiny_encoder(), StandInTokenizer()
    with torch.no_grad():
        batched = namespace["embed"](model, tokenizer, SENTENCES)
        states = [model(**tokenizer([s], return_tensors="pt")).last_hidden_state for s in SENTENCES]
        alone = torch.cat([getattr(h, pool)(dim=1) for h in states])
    return batched, alone


@pytest.mark.parametrize("name", SOURCES)
def test_flagged_and_the_unsafe_fix_gives_each_row_its_own_mean(name):
    source = textwrap.dedent(SOURCES[name])
    found = [d for d in lint_source(source) if d.code == "PAD015"]
    assert len(found) == 1 and found[0].fix is not None
    batched, alone = run(source)
    assert not torch.allclose(batched, alone, atol=1e-5)  # the bug: shorter rows take in their pads
    fixed = fix_source(source, select={"PAD015"}, unsafe=True).source
    assert fixed != source
    batched, alone = run(fixed)
    assert torch.allclose(batched, alone, atol=1e-5)
    assert lint_source(fixed) == []


def test_a_mean_taken_where_the_mask_cannot_be_read_has_no_fix():
    source = textwrap.dedent(
        """
        def pool(out):
            return out.last_hidden_state.mean(dim=1)


        def embed(model, tokenizer, texts):
            enc = tokenizer(texts, padding=True, return_tensors="pt")
            return pool(model(**enc))
        """
    )
    (found,) = [d for d in lint_source(source) if d.code == "PAD015"]
    assert found.fix is None


def test_ids_handed_without_their_mask_are_padded_without_mask_not_a_pooling_finding():
    # The one harm is the missing mask (PAD003): passing it makes the model's own pooling branch right.
    source = textwrap.dedent(
        """
        def embed(model, tokenizer, texts):
            enc = tokenizer(texts, padding=True, return_tensors="pt")
            return model(input_ids=enc["input_ids"]).last_hidden_state.mean(dim=1)
        """
    )
    assert [d.code for d in lint_source(source)] == ["PAD003"]


MAX_SOURCES = {
    "method": """
        import torch


        def embed(model, tokenizer, sentences):
            enc = tokenizer(sentences, padding=True, return_tensors="pt")
            out = model(**enc)
            return out.last_hidden_state.max(dim=1).values
        """,
    "function": """
        import torch


        def embed(model, tokenizer, sentences):
            enc = tokenizer(sentences, padding="max_length", max_length=12, return_tensors="pt")
            out = model(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"])
            return torch.amax(out.last_hidden_state, dim=1)
        """,
}


@pytest.mark.parametrize("name", MAX_SOURCES)
def test_a_max_pool_is_flagged_and_its_fix_gives_each_row_its_own_max(name):
    source = textwrap.dedent(MAX_SOURCES[name])
    found = [d for d in lint_source(source) if d.code == "PAD015"]
    assert len(found) == 1 and found[0].fix is not None
    batched, alone = run(source, "amax")
    assert not torch.allclose(batched, alone, atol=1e-5)  # a pad's state is the largest in some dimension
    fixed = fix_source(source, select={"PAD015"}, unsafe=True).source
    assert fixed != source
    batched, alone = run(fixed, "amax")
    assert torch.allclose(batched, alone, atol=1e-5)
    assert lint_source(fixed) == []


def test_a_max_over_the_hidden_size_or_of_two_tensors_is_no_pooling():
    source = textwrap.dedent(
        """
        import torch


        def scores(model, tokenizer, sentences, floor):
            enc = tokenizer(sentences, padding=True, return_tensors="pt")
            h = model(**enc).last_hidden_state
            return h.max(dim=-1).values, torch.max(h, floor)
        """
    )
    assert [d.code for d in lint_source(source) if d.code == "PAD015"] == []
