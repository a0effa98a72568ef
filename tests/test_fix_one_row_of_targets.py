"""Labels taken as one row of a padded batch of targets (`targets["input_ids"][mapping[i]]`, a
question-answering style map that gives each feature its example's target) are one list of ids: the
fix masks that row by the same row of the mask. A fix written for a batch zipped the row's ints as if
they were rows (TypeError when run, seen on unseen code). Run on the stand-in tokenizer."""

from __future__ import annotations

import textwrap

from padlint.engine import fix_source, lint_source
from tests.standin_tokenizer import StandInTokenizer

SOURCE = textwrap.dedent(
    """
    def make_preprocess(tokenizer):
        def preprocess(examples):
            features = tokenizer(examples["document"], padding="longest")
            summary_targets = [text.strip() for text in examples["summary"]]
            targets = tokenizer(summary_targets, padding="longest")
            features["labels"] = []
            for i in range(len(features["input_ids"])):
                label = targets["input_ids"][examples["source"][i]]
                features["labels"].append(label)
            return features

        return preprocess
    """
)

EXAMPLES = {
    "document": ["one two", "three", "four five six"],
    "summary": ["a b c d", "e", "f g"],
    "source": [2, 0, 1],
}


def test_the_row_is_flagged():
    assert [d.code for d in lint_source(SOURCE, "summaries.py")] == ["PAD006"]


def test_the_fixed_row_holds_minus_100_exactly_at_its_pads():
    fixed = fix_source(SOURCE, select={"PAD006"}, unsafe=True).source
    assert fixed != SOURCE
    namespace: dict = {}
    exec(compile(fixed, "<fixed>", "exec"), namespace)
    tok = StandInTokenizer()
    out = namespace["make_preprocess"](tok)(dict(EXAMPLES))
    targets = tok(EXAMPLES["summary"], padding="longest")
    for labels, source in zip(out["labels"], EXAMPLES["source"]):
        ids, mask = targets["input_ids"][source], targets["attention_mask"][source]
        assert labels == [t if m else -100 for t, m in zip(ids, mask)]
        assert (
            labels[len(tok.encode(EXAMPLES["summary"][source])) - 1] == tok.eos_token_id
        )  # a real EOS keeps its label
