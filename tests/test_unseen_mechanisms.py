"""Mechanisms behind false alarms met on unseen repositories (issue 12): each near-miss must stay silent
and the bug beside it, differing only in what the mechanism reads, must still fire. Fixtures are our own."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from padlint.engine import lint_source


def codes(source: str, filename: str = "case.py") -> list[str]:
    return sorted({d.code for d in lint_source(textwrap.dedent(source), filename)})


# ---- a one-element list handed across calls is a batch of one --------------------------------------
RENDER_AND_TOKENIZE = """
    def render_turns(examples, tokenizer):
        texts = []
        for example in examples:
            texts.append("\\n".join(turn["text"] for turn in example))
        ids = tokenizer(texts, return_tensors="pt", padding="longest", truncation=True).input_ids
        return dict(input_ids=ids, labels=ids.clone())

    def dispatch(examples, tokenizer):
        return render_turns(examples, tokenizer)
"""

ONE_EXAMPLE_PER_ITEM = (
    RENDER_AND_TOKENIZE
    + """
    class ChatDataset:
        def __init__(self, rows, tokenizer):
            self.rows, self.tokenizer = rows, tokenizer

        def __getitem__(self, i):
            out = dispatch([self.rows[i]], self.tokenizer)
            return {k: v[0] for k, v in out.items()}
"""
)

BATCH_OF_EXAMPLES = (
    RENDER_AND_TOKENIZE
    + """
    def collate(batch, tokenizer, model):
        out = dispatch([row["turns"] for row in batch], tokenizer)
        return model(input_ids=out["input_ids"], labels=out["labels"])
"""
)


def test_one_element_list_through_a_dispatcher_pads_nothing():
    assert "PAD003" not in codes(ONE_EXAMPLE_PER_ITEM)


def test_a_batch_through_the_same_dispatcher_still_loses_its_mask():
    assert "PAD003" in codes(BATCH_OF_EXAMPLES)


def test_a_second_caller_with_a_batch_gives_the_exemption_up():
    both = (
        ONE_EXAMPLE_PER_ITEM
        + """
    def evaluate(rows, tokenizer, model):
        out = dispatch(rows, tokenizer)
        return model(out["input_ids"])
"""
    )
    assert "PAD003" in codes(both)


def test_appending_in_a_nested_loop_makes_many_rows():
    nested = ONE_EXAMPLE_PER_ITEM.replace(
        '        for example in examples:\n            texts.append("\\n".join(turn["text"] for turn in example))',
        '        for example in examples:\n            for turn in example:\n                texts.append(turn["text"])',
    )
    assert nested != ONE_EXAMPLE_PER_ITEM
    assert "PAD003" in codes(nested)


def test_a_one_element_list_literal_pads_nothing_and_a_pair_of_texts_does():
    source = """
    def embed(tokenizer, encoder, question, context):
        ids = tokenizer([question], padding=True, return_tensors="pt")["input_ids"]
        return encoder(ids)
    """
    assert "PAD003" not in codes(source)
    assert "PAD003" in codes(source.replace("[question]", "[question, context]"))


# ---- labels that reach no loss: the model's loss is never read ---------------------------------------
SCORER = """
    import torch
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    class Scorer:
        def __init__(self, name):
            self.tok = AutoTokenizer.from_pretrained(name)
            self.model = AutoModelForSeq2SeqLM.from_pretrained(name)
            self.nll = torch.nn.NLLLoss(reduction="none", ignore_index=self.model.config.pad_token_id)

        @torch.no_grad()
        def score(self, sources, targets):
            src = self.tok(sources, padding=True, return_tensors="pt")
            tgt = self.tok(targets, padding=True, return_tensors="pt")
            out = self.model(input_ids=src["input_ids"], attention_mask=src["attention_mask"], labels=tgt["input_ids"])
            logp = out.logits.log_softmax(-1)
            per_token = self.nll(logp.transpose(1, 2), tgt["input_ids"])
            return -(per_token.sum(1) / tgt["attention_mask"].sum(1))
"""


def test_labels_to_a_model_whose_loss_is_never_read_are_not_graded():
    assert "PAD006" not in codes(SCORER)


def test_the_same_labels_trained_on_through_the_models_loss_fire():
    training = SCORER.replace("logp = out.logits.log_softmax(-1)", "out.loss.backward()\n            logp = out.logits")
    assert "PAD006" in codes(training)


# ---- a sentinel the module also writes over the labels it does not train on ----------------------------
DIALOGUE = """
    import torch
    from torch.nn.utils.rnn import pad_sequence

    class DialogueData(torch.utils.data.Dataset):
        def __init__(self, dialogues, pad_id):
            self.dialogues, self.pad_id = dialogues, pad_id

        def __getitem__(self, i):
            history, reply = self.dialogues[i]
            item = {"input_ids": history + reply}
            item["lm_labels"] = [-1] * len(history) + reply
            return item

        def collate(self, batch):
            ids = pad_sequence([torch.tensor(b["input_ids"]) for b in batch], batch_first=True, padding_value=self.pad_id)
            labels = pad_sequence([torch.tensor(b["lm_labels"]) for b in batch], batch_first=True, padding_value=-1)
            return {"input_ids": ids, "labels": labels}
"""


def test_padding_with_the_modules_own_ignore_value_is_consistent():
    assert "PAD006" not in codes(DIALOGUE)


def test_padding_with_a_sentinel_other_than_the_prompts_one_fires():
    assert "PAD006" in codes(DIALOGUE.replace("[-1] * len(history)", "[-100] * len(history)"))


def test_a_run_of_the_sentinel_that_is_itself_padding_is_no_evidence():
    padded_by_hand = DIALOGUE.replace(
        'item["lm_labels"] = [-1] * len(history) + reply',
        'item["lm_labels"] = history + reply + [-1] * (64 - len(history) - len(reply))',
    )
    assert "PAD006" in codes(padded_by_hand)


# ---- a model made by a library the table does not know -------------------------------------------------
FOREIGN_MODEL = """
    import torch
    from transformers import AutoTokenizer
    from othermodels.builders import build_language_model

    tokenizer = AutoTokenizer.from_pretrained("some/checkpoint")
    model = build_language_model(config_path="config.json", checkpoint_path="weights.bin").half().to("cuda")

    prompts = ["first question", "a second, longer question"]
    inputs = tokenizer(prompts, padding="longest", return_tensors="pt")
    logits = model(inputs.input_ids)
"""


def test_a_model_from_an_unknown_library_is_not_judged():
    assert "PAD003" not in codes(FOREIGN_MODEL)


def test_a_transformers_model_in_the_same_place_fires():
    loaded = FOREIGN_MODEL.replace(
        "from othermodels.builders import build_language_model",
        "from transformers import AutoModelForCausalLM",
    ).replace(
        'build_language_model(config_path="config.json", checkpoint_path="weights.bin")',
        'AutoModelForCausalLM.from_pretrained("some/checkpoint")',
    )
    assert "PAD003" in codes(loaded)


def test_a_wrapper_around_a_loaded_model_is_still_judged():
    wrapped = FOREIGN_MODEL.replace(
        "from othermodels.builders import build_language_model",
        "from transformers import AutoModelForCausalLM\n    from peft import get_peft_model",
    ).replace(
        'model = build_language_model(config_path="config.json", checkpoint_path="weights.bin").half().to("cuda")',
        'model = AutoModelForCausalLM.from_pretrained("some/checkpoint")\n    model = get_peft_model(model, None)',
    )
    assert "PAD003" in codes(wrapped)


# ---- dead code: a script's helper nobody calls ------------------------------------------------------
SCRIPT = """
    import torch.nn.functional as F

    def sequence_loss(logits, labels, pad_id):
        return F.cross_entropy(logits.view(-1, logits.size(-1)), labels.view(-1), ignore_index=pad_id)

    def collate(batch):
        labels = [b["labels"] + [-100] * (32 - len(b["labels"])) for b in batch]
        return {"labels": labels}

    def main():
        print(collate([]))

    if __name__ == "__main__":
        main()
"""


def test_a_scripts_uncalled_loss_helper_is_dead_code():
    assert "PAD007" not in codes(SCRIPT, "train.py")


def test_the_same_helper_called_from_main_fires():
    called = SCRIPT.replace("print(collate([]))", "print(sequence_loss(None, collate([])['labels'], 0))")
    assert "PAD007" in codes(called, "train.py")


def test_a_decorated_helper_may_be_registered_and_stays_walked():
    registered = SCRIPT.replace("def sequence_loss(", "@LOSSES.register\n    def sequence_loss(")
    assert "PAD007" in codes(registered, "train.py")


def test_a_library_modules_uncalled_helper_stays_walked():
    library = SCRIPT.replace('if __name__ == "__main__":\n        main()', "")
    assert "PAD007" in codes(library, "losses.py")


def codes_beside(tmp_path: Path, importer: str) -> set[str]:
    """Codes for SCRIPT as train.py of a project (the marker makes tmp_path its root: without it the root
    was pytest's shared temporary directory, whose size decided whether the project was read at all)
    whose evaluate.py holds `importer`."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'trainer'\n")
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent(SCRIPT))
    (tmp_path / "evaluate.py").write_text(importer)
    return {d.code for d in lint_source(script.read_text(), str(script))}


def test_a_helper_another_module_imports_and_calls_is_alive(tmp_path: Path):
    assert "PAD007" in codes_beside(tmp_path, "from train import sequence_loss\n\nprint(sequence_loss(None, [], 0))\n")


def test_a_helper_another_module_only_imports_stays_dead(tmp_path: Path):
    assert "PAD007" not in codes_beside(tmp_path, "from train import sequence_loss  # noqa: F401\n")


@pytest.mark.parametrize("source", [ONE_EXAMPLE_PER_ITEM, SCORER, DIALOGUE, FOREIGN_MODEL])
def test_near_misses_are_silent_for_every_rule(source):
    assert codes(source) == []


# ---- an array padded by np.pad / F.pad is token ids only with evidence --------------------------------
PIXEL_PADDING = """
    import numpy as np


    class MaskProcessor:
        def pad_image(self, image, size, fill_value=0):
            height, width = image.shape[-2:]
            return np.pad(image, ((0, size - height), (0, size - width)), constant_values=fill_value)

        def __call__(self, images, maps=None, size=256):
            data = {"pixel_values": [self.pad_image(image, size) for image in images]}
            if maps is not None:
                processed = [self.pad_image(m, size) for m in maps]
                data["labels"] = [m.astype(np.int64) for m in processed]
            return data
"""

IDS_PADDING = """
    import numpy as np


    def pad_row(input_ids, width, pad_token_id):
        return np.pad(input_ids, (0, width - len(input_ids)), constant_values=pad_token_id)


    def collate(rows, tokenizer, width=32):
        ids = np.stack([pad_row(r["input_ids"], width, tokenizer.pad_token_id) for r in rows])
        return {"input_ids": ids, "labels": ids.copy()}
"""


def test_pixels_padded_by_np_pad_are_not_token_ids():
    assert "PAD002" not in codes(PIXEL_PADDING)


def test_ids_padded_by_np_pad_with_the_pad_id_still_fire():
    assert "PAD002" in codes(IDS_PADDING)
