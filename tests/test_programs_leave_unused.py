"""A program leaves some of its values unused (fixtures are our own).

A program that nothing in its project imports (a script with a main block, argument parsing or a
top-level loop) runs its own top-level code and nothing else: a
definition that code never reads, with code running after it, never runs, and a mapped dataset it never
names again after the map, while it goes on running, is never read. Nothing found there is a harm
(analysis/unused_definitions.py, dataset_uses.py). A module of definitions and set-up code, a module
another module imports, or a dataset a later statement still names stays judged.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from padlint.engine import lint_source

SCRIPT = textwrap.dedent("""
    from datasets import load_dataset
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained("t5-small")
    model = AutoModelForSeq2SeqLM.from_pretrained("t5-small")


    def encode(batch):
        sources = tokenizer(batch["question"], padding="max_length", max_length=64, truncation=True)
        targets = tokenizer(batch["answer"], padding="max_length", max_length=16, truncation=True)
        return {"input_ids": sources["input_ids"], "attention_mask": sources["attention_mask"], "labels": targets["input_ids"]}


    rows = load_dataset("squad", split="validation")
    encoded = rows.map(encode, batched=True)

    answers = []
    for row in rows:
        ids = tokenizer(row["question"], return_tensors="pt").input_ids
        answers.append(tokenizer.decode(model.generate(ids)[0], skip_special_tokens=True))
    print(answers[:3])
""")


def codes(tmp_path: Path, source: str, name: str = "evaluate.py", others: dict | None = None) -> list[str]:
    (tmp_path / ".git").mkdir(exist_ok=True)
    for other, text in (others or {}).items():
        (tmp_path / other).write_text(text)
    path = tmp_path / name
    path.write_text(source)
    return sorted(d.code for d in lint_source(source, str(path)))


def test_a_mapped_dataset_the_script_never_names_again_is_never_read(tmp_path):
    assert codes(tmp_path, SCRIPT) == []


def test_the_same_dataset_named_again_is_judged(tmp_path):
    """Set up to be read (a format set, shown): who reads it is not in view."""
    assert codes(tmp_path, SCRIPT + '\nencoded.set_format("torch")\n') == ["PAD002"]


def test_the_same_dataset_at_the_end_of_the_script_is_judged(tmp_path):
    """Nothing runs after it: the script may still be being written."""
    source = SCRIPT.split("\nanswers = []")[0] + "\n"
    assert codes(tmp_path, source) == ["PAD002"]


def test_a_module_another_module_imports_is_no_program(tmp_path):
    assert codes(tmp_path, SCRIPT, others={"train.py": "from evaluate import encoded\n"}) == ["PAD002"]


UNCALLED = textwrap.dedent("""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained("gpt2")
    tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained("gpt2")


    def score(texts):
        ids = tokenizer(texts, padding=True, return_tensors="pt").input_ids
        return model(ids, labels=ids).loss


    for text in ["one text", "another"]:
        ids = tokenizer(text, return_tensors="pt").input_ids
        print(model(ids, labels=ids).loss)
""")


def test_a_definition_the_script_never_calls_never_runs(tmp_path):
    assert codes(tmp_path, UNCALLED) == []


def test_a_definition_the_script_calls_is_judged(tmp_path):
    assert codes(tmp_path, UNCALLED + '\nprint(score(["a", "b c"]))\n') == ["PAD002", "PAD003"]


def test_a_snippet_of_definitions_is_judged(tmp_path):
    """No code of its own runs: whoever runs it is not in view."""
    snippet = UNCALLED.split("\nfor text")[0] + "\n"
    assert codes(tmp_path, snippet) == ["PAD002", "PAD003"]


def test_a_module_of_set_up_code_is_no_program(tmp_path):
    """Loading a model and calling its tokenizer at the top level is set-up, not a program running."""
    setup = UNCALLED.split("\nfor text")[0] + '\ntokenizer.add_special_tokens({"sep_token": "<sep>"})\n'
    assert codes(tmp_path, setup) == ["PAD002", "PAD003"]


def test_a_main_block_makes_a_program(tmp_path):
    head, loop = UNCALLED.split("\nfor text")
    guarded = head + '\nif __name__ == "__main__":\n    for text' + loop.replace("\n    ", "\n        ")
    assert codes(tmp_path, guarded) == []


LOADERS_BUILT = textwrap.dedent("""
    import torch
    from torch.utils.data import DataLoader
    from transformers import AutoTokenizer, Pix2StructForConditionalGeneration

    tokenizer = AutoTokenizer.from_pretrained("google/pix2struct-base")
    model = Pix2StructForConditionalGeneration.from_pretrained("google/pix2struct-base")
    records = [{"answer": "forty two", "patches": torch.zeros(4, 8)}, {"answer": "no", "patches": torch.zeros(4, 8)}]


    def collate(items):
        batch = {"flattened_patches": torch.stack([item["patches"] for item in items])}
        answers = tokenizer([item["answer"] for item in items], padding="max_length", max_length=32, return_tensors="pt")
        batch["labels"] = answers.input_ids
        return batch


    train_loader = DataLoader(records, batch_size=2, collate_fn=collate)
    valid_loader = DataLoader(records[:1], batch_size=1, collate_fn=collate)
    print(len(train_loader), len(valid_loader))
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5)
""")


def test_a_collate_function_only_loaders_nothing_iterates_take_never_runs(tmp_path):
    """The script builds its loaders and stops before the training loop: no batch is ever made."""
    assert codes(tmp_path, LOADERS_BUILT, "train.py") == []


def test_the_same_loader_iterated_is_judged(tmp_path):
    loop = "\nfor batch in train_loader:\n    model(**batch).loss.backward()\n"
    assert codes(tmp_path, LOADERS_BUILT + loop, "train.py") == ["PAD002"]


def test_one_batch_taken_from_the_loader_is_judged(tmp_path):
    taken = "\nbatch = next(iter(valid_loader))\nprint(model(**batch).loss)\n"
    assert codes(tmp_path, LOADERS_BUILT + taken, "train.py") == ["PAD002"]


def test_a_loader_handed_on_is_judged(tmp_path):
    handed = "\ntrain(model, train_loader)\n"
    assert codes(tmp_path, LOADERS_BUILT + handed, "train.py") == ["PAD002"]


LABELS_IN_THE_LITERAL = LOADERS_BUILT.replace(
    """    batch = {"flattened_patches": torch.stack([item["patches"] for item in items])}
    answers = tokenizer([item["answer"] for item in items], padding="max_length", max_length=32, return_tensors="pt")
    batch["labels"] = answers.input_ids
    return batch""",
    """    answers = tokenizer([item["answer"] for item in items], padding="max_length", max_length=32, return_tensors="pt")
    return {"flattened_patches": torch.stack([item["patches"] for item in items]), "labels": answers.input_ids}""",
)


def test_loaders_a_module_importing_the_script_may_iterate_are_judged(tmp_path):
    assert LABELS_IN_THE_LITERAL != LOADERS_BUILT
    others = {"run.py": "from train import train_loader\n\nfor batch in train_loader:\n    print(batch)\n"}
    for shape, script in (("stored", LOADERS_BUILT), ("literal", LABELS_IN_THE_LITERAL)):
        folder = tmp_path / shape
        folder.mkdir()
        assert codes(folder, script, "train.py", others) == ["PAD002"], shape
        (folder / "run.py").unlink()
        assert codes(folder, script, "train.py") == [], shape
