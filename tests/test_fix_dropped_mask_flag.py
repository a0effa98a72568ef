"""`return_attention_mask=False` on a padded call: dropping the flag is a fix where the encoding itself
goes on (returned whole, handed as `**enc`), since then its new mask goes with the ids. Where the
ids go on as the encoding's (`enc["input_ids"]` to a model), the next pass of the fix hands the new mask
beside them. Where they are joined from two padded calls, the call's new mask would reach nothing and
fit nothing: the finding stays, with no fix (seen in bench/fresh24: the flag dropped, the batch
unchanged). Fixtures are our own."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from standin_tokenizer import PAD_ID, StandInTokenizer  # noqa: E402
from test_fix_execution import load_module  # noqa: E402

from padlint.engine import fix_source, lint_source  # noqa: E402

WHOLE = """
class ReviewRows:
    def __init__(self, tokenizer, texts):
        self.tokenizer, self.texts = tokenizer, texts

    def __len__(self):
        return len(self.texts)

    def __getitem__(self, i):
        return self.tokenizer(self.texts[i], padding="max_length", max_length=8, return_attention_mask=False)
"""

JOINED = """
def tokenize(examples, tokenizer):
    sources = tokenizer(examples["question"], padding="max_length", max_length=6, return_attention_mask=False)
    targets = tokenizer(examples["answer"], padding="max_length", max_length=4, return_attention_mask=False)
    ids, labels = [], []
    for s, t in zip(sources["input_ids"], targets["input_ids"]):
        ids.append(s + t)
        labels.append([-100] * len(s) + [x if x != tokenizer.pad_token_id else -100 for x in t])
    return {"input_ids": ids, "labels": labels}


def build(ds, tokenizer):
    return ds.map(lambda e: tokenize(e, tokenizer), batched=True)
"""

IDS_ALONE = """
from transformers import AutoModelForMaskedLM

model = AutoModelForMaskedLM.from_pretrained("bert-base-uncased")


def embed(tokenizer, texts):
    enc = tokenizer(texts, padding=True, return_attention_mask=False, return_tensors="pt")
    return model(enc["input_ids"]).logits
"""


def _pad003(source: str):
    return [f for f in lint_source(textwrap.dedent(source), "rows.py") if f.code == "PAD003"]


def test_the_encoding_returned_whole_gets_the_fix_and_it_runs(tmp_path):
    [finding] = _pad003(WHOLE)
    assert finding.fix is not None and "Drop" in finding.fix.message
    fixed = tmp_path / "rows_fixed.py"
    fixed.write_text(fix_source(textwrap.dedent(WHOLE), "rows.py").source)
    module = load_module(fixed, "padlint_rows_dropped_flag")
    item = module.ReviewRows(StandInTokenizer(), ["good film", "a long and very slow film"])[0]
    assert item["attention_mask"] == [int(t != PAD_ID) for t in item["input_ids"]]  # 0 exactly at the pads
    assert item["attention_mask"].count(1) == len(StandInTokenizer()("good film")["input_ids"])  # the real tokens


def test_ids_joined_from_two_padded_calls_get_no_fix():
    findings = _pad003(JOINED)
    assert findings and all(f.fix is None for f in findings)
    assert all("nothing hands on" in f.no_fix for f in findings)


def test_ids_split_off_the_encoding_get_the_flag_dropped_and_then_its_mask():
    """The ids reach the model as the encoding's: once the call makes its mask again, the next pass of the
    fix hands it to the model beside them."""
    [finding] = _pad003(IDS_ALONE)
    assert finding.fix is not None and "Drop" in finding.fix.message
    fixed = fix_source(textwrap.dedent(IDS_ALONE), "rows.py").source
    assert 'model(enc["input_ids"], attention_mask=enc["attention_mask"])' in fixed
    assert "return_attention_mask" not in fixed
    assert _pad003(fixed) == []


SPREAD = """
from transformers import AutoModelForMaskedLM

model = AutoModelForMaskedLM.from_pretrained("bert-base-uncased")


def embed(tokenizer, texts):
    enc = tokenizer(texts, padding=True, return_attention_mask=False, return_tensors="pt")
    return model(**enc).logits
"""


def test_an_encoding_without_its_mask_spread_into_the_model_is_reported_and_the_flag_dropped():
    [finding] = _pad003(SPREAD)
    assert finding.fix is not None and "Drop" in finding.fix.message
    fixed = fix_source(textwrap.dedent(SPREAD), "rows.py").source
    assert "return_attention_mask" not in fixed and _pad003(fixed) == []


def test_a_spread_beside_a_mask_of_its_own_is_silent():
    given = SPREAD.replace("model(**enc)", "model(**enc, attention_mask=enc['input_ids'].ne(tokenizer.pad_token_id))")
    assert _pad003(given) == []
