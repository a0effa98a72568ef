"""Ids the code pads itself (`pad_sequence`, `ids + [pad] * n`) reach a model with no mask at all (PAD003).

No tokenizer made a mask for them, so the harm is the consumer's, read from the library table: a model that
attends in both directions (an encoder, an encoder-decoder's encoder) mixes every row's pads into its real
tokens; pads before the tokens are attended by any model. A causal decoder given right-padded rows is the
deliberate litgpt/torchtune shape (no real token attends to a later pad): silent, as is every call that hands
the model anything that may be a mask. Fixtures are our own; the fix is run on a tiny random BERT.
"""

from __future__ import annotations

import textwrap

import pytest
from click.testing import CliRunner

from padlint.cli import main
from padlint.engine import fix_source, lint_source


def pad003(source: str) -> list:
    return [d for d in lint_source(textwrap.dedent(source), "train.py") if d.code == "PAD003"]


# ---- reported ---------------------------------------------------------------------------------------
MLM_COLLATE = """
    from torch.nn.utils.rnn import pad_sequence
    from torch.utils.data import DataLoader
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained("roberta-base")
    model = AutoModelForMaskedLM.from_pretrained("roberta-base")


    def collate(examples):
        return pad_sequence(examples, batch_first=True, padding_value=tokenizer.pad_token_id)


    def train(dataset, optimizer):
        for batch in DataLoader(dataset, batch_size=8, shuffle=True, collate_fn=collate):
            inputs, labels = mask_tokens(batch)
            loss = model(batch, labels=labels).loss
            loss.backward()
            optimizer.step()
"""

CLASSIFIER_LIST_PADDING = """
    import torch
    from transformers import BertForSequenceClassification, BertTokenizerFast

    tokenizer = BertTokenizerFast.from_pretrained("bert-base-uncased")
    classifier = BertForSequenceClassification.from_pretrained("bert-base-uncased", num_labels=3)


    def predict(texts, width=64):
        rows = []
        for text in texts:
            ids = tokenizer.encode(text, truncation=True, max_length=width)
            rows.append(ids + [tokenizer.pad_token_id] * (width - len(ids)))
        logits = classifier(torch.tensor(rows)).logits
        return logits.argmax(-1)
"""

SEQ2SEQ_ENCODER = """
    import torch
    from torch.nn.utils.rnn import pad_sequence
    from transformers import T5ForConditionalGeneration

    model = T5ForConditionalGeneration.from_pretrained("t5-small")


    def step(sources, targets, pad_id):
        source_ids = pad_sequence(sources, batch_first=True, padding_value=pad_id)
        target_ids = pad_sequence(targets, batch_first=True, padding_value=-100)
        return model(input_ids=source_ids, labels=target_ids).loss
"""

CAUSAL_LEFT_PADDED = """
    import torch
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained("gpt2")


    def left_pad(rows, pad_id):
        width = max(len(r) for r in rows)
        return torch.tensor([[pad_id] * (width - len(r)) + r for r in rows])


    def next_token_logits(rows, pad_id):
        ids = left_pad(rows, pad_id)
        return model(ids).logits[:, -1]
"""


@pytest.mark.parametrize(
    ("source", "words"),
    [
        (MLM_COLLATE, ["`batch`", "AutoModelForMaskedLM", "both directions"]),
        (CLASSIFIER_LIST_PADDING, ["BertForSequenceClassification", "both directions"]),
        (SEQ2SEQ_ENCODER, ["`source_ids`", "T5ForConditionalGeneration", "its encoder attends"]),
        (CAUSAL_LEFT_PADDED, ["`ids`", "padded on the left", "pads before them"]),
    ],
    ids=["mlm-collate-loader", "classifier-list-padding", "seq2seq-encoder", "causal-left-padded"],
)
def test_self_padded_ids_reaching_a_model_that_reads_their_pads_are_reported(source, words):
    found = pad003(source)
    assert len(found) == 1
    assert all(word in found[0].message for word in words), found[0].message


def test_the_first_look_lets_a_file_with_only_self_padding_through(tmp_path, monkeypatch):
    (tmp_path / "mlm.py").write_text(textwrap.dedent(MLM_COLLATE))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--output-format", "concise", "mlm.py"])
    assert "mlm.py:17:" in result.output and "PAD003" in result.output


# ---- near misses: silent ----------------------------------------------------------------------------
CAUSAL_RIGHT_PADDED = """
    from torch.nn.utils.rnn import pad_sequence
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained("gpt2")


    def step(ids, labels, pad_id):
        input_ids = pad_sequence(ids, batch_first=True, padding_value=pad_id)
        targets = pad_sequence(labels, batch_first=True, padding_value=-100)
        return model(input_ids, labels=targets).loss
"""

MASK_BY_KEYWORD = MLM_COLLATE.replace(
    "model(batch, labels=labels)", "model(batch, attention_mask=batch.ne(tokenizer.pad_token_id), labels=labels)"
)
MASK_BY_POSITION = MLM_COLLATE.replace(
    "inputs, labels = mask_tokens(batch)", "inputs, labels, am = mask_tokens(batch)"
).replace("model(batch, labels=labels)", "model(batch, am, labels=labels)")
UNKNOWN_MODEL = MLM_COLLATE.replace(
    'model = AutoModelForMaskedLM.from_pretrained("roberta-base")', "model = build_model(config)"
)
AUTO_MODEL = MLM_COLLATE.replace("AutoModelForMaskedLM", "AutoModel")  # an encoder or a decoder: the checkpoint's

DPR_BUILDS_ITS_MASK = """
    from torch.nn.utils.rnn import pad_sequence
    from transformers import DPRQuestionEncoder

    encoder = DPRQuestionEncoder.from_pretrained("facebook/dpr-question_encoder-single-nq-base")


    def embed(questions, pad_id):
        ids = pad_sequence(questions, batch_first=True, padding_value=pad_id)
        return encoder(ids).pooler_output
"""

SEQ2SEQ_GENERATE = """
    from torch.nn.utils.rnn import pad_sequence
    from transformers import T5ForConditionalGeneration

    model = T5ForConditionalGeneration.from_pretrained("t5-small")


    def translate(sources, pad_id):
        ids = pad_sequence(sources, batch_first=True, padding_value=pad_id)
        return model.generate(ids, max_new_tokens=32)
"""

RIGHT_PADDED_LEFT_WORD = CAUSAL_RIGHT_PADDED.replace("def step(", "def step_left_unused(")


@pytest.mark.parametrize(
    "source",
    [
        CAUSAL_RIGHT_PADDED,
        MASK_BY_KEYWORD,
        MASK_BY_POSITION,
        UNKNOWN_MODEL,
        AUTO_MODEL,
        DPR_BUILDS_ITS_MASK,
        SEQ2SEQ_GENERATE,
        RIGHT_PADDED_LEFT_WORD,
    ],
    ids=[
        "causal-right-padded",
        "mask-keyword",
        "mask-positional",
        "unknown-model",
        "auto-model",
        "dpr-builds-mask",
        "seq2seq-generate",
        "right-padded-causal-with-left-word",
    ],
)
def test_no_finding_where_the_model_does_not_read_the_pads_or_may_get_a_mask(source):
    assert pad003(source) == []


# ---- the fix, run ---------------------------------------------------------------------------------
RUNNABLE = """
    import torch
    from torch.nn.utils.rnn import pad_sequence

    PAD = 0


    def encode_all(model, rows):
        ids = pad_sequence([torch.tensor(r) for r in rows], batch_first=True, padding_value=PAD)
        return model(ids).last_hidden_state
"""


def test_the_fix_masks_exactly_the_pads_and_leaves_real_tokens_unchanged(tmp_path):
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    source = RUNNABLE.replace("import torch\n", "import torch\n    from transformers import BertModel\n")
    assert [d.code for d in lint_source(textwrap.dedent(source), "encode.py")] == []  # model class not in view
    source = source.replace(
        "def encode_all(model, rows):", "model = BertModel.from_pretrained('tiny')\n\n\n    def encode_all(rows):"
    )
    found = pad003(source)
    assert len(found) == 1 and found[0].fix is not None and found[0].fix.applicability.value == "unsafe"
    outcome = fix_source(textwrap.dedent(source), "encode.py", select={"PAD003"}, unsafe=True)
    assert [d.code for d in outcome.fixed] == ["PAD003"]
    assert "attention_mask=(ids != PAD).long()" in outcome.source

    torch.manual_seed(0)
    config = transformers.BertConfig(
        vocab_size=50, hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32, pad_token_id=0
    )
    tiny = transformers.BertModel(config).eval()
    namespace: dict = {}
    runnable = outcome.source.replace("BertModel.from_pretrained('tiny')", "None")
    exec(compile(runnable, str(tmp_path / "encode.py"), "exec"), namespace)
    namespace["model"] = tiny
    rows = [[5, 7, 9, 11, 13], [6, 8]]  # ragged: the second row gets three pads
    with torch.no_grad():
        batched = namespace["encode_all"](rows)
        alone = tiny(torch.tensor([rows[1]])).last_hidden_state
    assert torch.allclose(batched[1, :2], alone[0], atol=1e-5)  # the real tokens no longer see the pads
    with torch.no_grad():
        unfixed = tiny(pad_rows := torch.tensor([rows[0], rows[1] + [0, 0, 0]])).last_hidden_state
    assert pad_rows.shape == (2, 5)
    assert not torch.allclose(unfixed[1, :2], alone[0], atol=1e-5)  # without the mask they did
