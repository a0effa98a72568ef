"""An EOS put into the texts by a helper that a mapping def applies before it maps (fixtures are our own):
`df["text"] = df["dialog"].apply(format_dialog)` where `format_dialog` joins turns with `eos_token` (a
name holding `tokenizer.eos_token`), then `Dataset.from_pandas(df).map(tokenize)`. The EOS reaches the rows,
so with pad = EOS, labels masked by the pad id lose it. A loop that masks from the end and stops at the
first token that is not the pad masks only the EOS next to the pads: the message says so."""

from __future__ import annotations

import textwrap

from padlint.engine import lint_source

DIALOGS = """
    import pandas as pd
    from datasets import Dataset
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained("gpt2")
    tokenizer.pad_token = tokenizer.eos_token


    def format_dialog(turns):
        eos_token = tokenizer.eos_token
        return eos_token.join(turns) + eos_token


    def prepare(path):
        df = pd.read_json(path)
        df["text"] = df["turns"].apply(format_dialog)

        def tokenize(batch):
            enc = tokenizer(batch["text"], truncation=True, max_length=128, padding="max_length")
            enc["labels"] = [[-100 if t == tokenizer.pad_token_id else t for t in row] for row in enc["input_ids"]]
            return enc

        return Dataset.from_pandas(df[["text"]]).map(tokenize, batched=True, remove_columns=["text"])
"""

FROM_THE_END = """
            labels = []
            for row in enc["input_ids"]:
                row = list(row)
                for i in range(len(row) - 1, -1, -1):
                    if row[i] == tokenizer.pad_token_id:
                        row[i] = -100
                    else:
                        break
                labels.append(row)
            enc["labels"] = labels
"""


def pad004(source: str):
    return [d for d in lint_source(textwrap.dedent(source), "prepare.py") if d.code == "PAD004"]


def test_an_eos_a_mapping_def_puts_in_before_it_maps_reaches_the_labels():
    (finding,) = pad004(DIALOGS)
    assert "every real EOS" in finding.message


def test_texts_with_no_eos_put_in_cost_nothing():
    no_eos = DIALOGS.replace("return eos_token.join(turns) + eos_token", 'return "\\\\n".join(turns)')
    assert no_eos != DIALOGS
    assert pad004(no_eos) == []


def test_a_walk_from_the_end_that_stops_at_a_real_token_masks_the_last_eos():
    lines = textwrap.dedent(DIALOGS).splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if 'enc["labels"] =' in line)
    source = "".join(lines[:at]) + textwrap.indent(textwrap.dedent(FROM_THE_END), " " * 8) + "".join(lines[at + 1 :])
    (finding,) = [d for d in lint_source(source, "prepare.py") if d.code == "PAD004"]
    assert "the EOS that ends each padded row" in finding.message
