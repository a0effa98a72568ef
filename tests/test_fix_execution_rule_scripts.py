"""Rule fixtures shaped as scripts or Trainer set-ups, fixed and run as they are (see
test_fix_execution_rule_fixtures.py for the harness and its invariants).

Their fixes take code paths no other execution test reaches: a collate function written at module
level between blank lines (PAD004, the DataCollatorForLanguageModeling of a script), a column added to
`set_format(columns=[...])` (PAD003), labels masked inside a lambda mapped over the rows (PAD002),
masks built where a map function pads the rows that a Trainer's padding collator pads again (PAD009). The script's `datasets` is a stand-in whose rows are the ragged
texts, and its `Trainer` collates the training rows once when `train()` is called.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from rule_fixture_runner import Case, case_tests  # noqa: E402
from test_fix_execution import TEXTS  # noqa: E402


class StandInDataset(list):
    """The rows of a `datasets.Dataset`, as far as these scripts use one: `map` (one row or a batch at a
    time; the function's columns join the row's, `remove_columns` drops some), `remove_columns`,
    `column_names`, and `set_format(type="torch", columns=[...])`, which keeps those columns, as tensors."""

    @property
    def column_names(self) -> list[str]:
        return list(self[0])

    def map(self, function, batched=False, fn_kwargs=None, remove_columns=None, **_):
        kwargs = fn_kwargs or {}
        if batched:
            columns = function({key: [row[key] for row in self] for key in self[0]}, **kwargs)
            made = [dict(zip(columns, values)) for values in zip(*columns.values())]
        else:
            made = [dict(function(row, **kwargs)) for row in self]
        dropped = set(remove_columns or ())
        return StandInDataset(
            {**{k: v for k, v in row.items() if k not in dropped}, **new} for row, new in zip(self, made)
        )

    def remove_columns(self, names):
        return StandInDataset({k: v for k, v in row.items() if k not in names} for row in self)

    def set_format(self, type=None, columns=None, **_):
        import torch

        self[:] = [{k: torch.tensor(row[k]) for k in columns or row} for row in self]


class CollatingTrainer:
    """A stand-in `Trainer`: `train()` collates the whole training set once, as one batch."""

    def __init__(self, model=None, args=None, train_dataset=None, data_collator=None, **_):
        self.train_dataset, self.data_collator = train_dataset, data_collator
        self.batches: list = []

    def train(self):
        self.batches.append(self.data_collator([dict(row) for row in self.train_dataset]))


def _rows(**columns) -> StandInDataset:
    """A dataset whose rows hold the ragged texts under each column name given (`text=True`), or the
    values given (`label=[0, 1, 0]`)."""
    values = {name: list(TEXTS) if given is True else given for name, given in columns.items()}
    return StandInDataset(dict(zip(values, row)) for row in zip(*values.values()))


def _script(**columns):
    def stand_ins() -> dict:
        return {
            "datasets": {"load_dataset": lambda *_, **__: _rows(**columns)},
            "transformers": {"Trainer": CollatingTrainer, "TrainingArguments": dict},
        }

    return stand_ins


def _dclm_script(module, tokenizer, models):
    tok = module.tokenizer
    return [tok.encode(t + tok.eos_token) for t in TEXTS], module.trainer.batches[0]


def _set_format_script(module, tokenizer, models):
    return [module.tok.encode(t) for t in TEXTS], module.batch


def _mapped_rows_script(module, tokenizer, models):
    rows = module.stories  # formatted as torch: one tensor per row and column
    return [module.tok.encode(t) for t in TEXTS], {key: [row[key].tolist() for row in rows] for key in rows[0]}


def _trainer_of(build):
    def run(module, tokenizer, models):
        trainer = build(module, tokenizer)
        trainer.train()
        return [tokenizer.encode(t) for t in TEXTS], trainer.batches[0]

    return run


def _batched_rows_collated(module, tokenizer, models):
    encoded, collator = module.prepare(_rows(sentence=True, label=[0, 1, 0]))
    return [module.tokenizer.encode(t) for t in TEXTS], collator([dict(row) for row in encoded])


CASES = {
    # the collator of a training script, replaced by a collate function written at module level
    "PAD004/script_dclm_pad_eos_trainer.py": Case(
        ("PAD004",),
        _dclm_script,
        checks=("mask", "labels"),
        safe=False,
        eos=True,
        lib="transformers",
        stand_ins=_script(text=True),
    ),
    # `set_format(type="torch", columns=[...])` that left the mask out; the loop reads one batch
    "PAD003/script_lambda_map_set_format_columns.py": Case(
        ("PAD003",), _set_format_script, safe=False, stand_ins=_script(text=True, label=[0, 1, 0])
    ),
    # labels made in a second `map` pass, by a lambda: the fix is written inside the lambda
    "PAD002/chained_map_lambda_labels_per_example.py": Case(
        ("PAD002",), _mapped_rows_script, checks=("labels",), stand_ins=_script(text=True)
    ),
    # rows padded by a map function, padded again by a Trainer's collator or one handed back
    "PAD009/block_pad_then_dclm.py": Case(
        ("PAD009",),
        _trainer_of(lambda m, tok: m.build_trainer(None, tok, _rows(text=True), None)),
        lib="transformers",
        stand_ins=_script(),
    ),
    "PAD009/map_right_pad_with_padding_collator.py": Case(
        ("PAD009",),
        _trainer_of(lambda m, tok: m.build_trainer(None, tok, _rows(review=True, stars=[1, 5, 3]), None)),
        lib="transformers",
        stand_ins=_script(),
    ),
    "PAD009/batched_map_rows_padding_collator.py": Case(
        ("PAD009",), _batched_rows_collated, lib="transformers", stand_ins=_script()
    ),
}

# the unfixed fixture is reported and breaks the batch; its safe fix, and its unsafe fixes, are right when run
(
    test_unfixed_script_breaks_the_batch,
    test_safe_fix_of_script_is_right_when_run,
    test_unsafe_fix_of_script_is_right_when_run,
) = case_tests(CASES)
