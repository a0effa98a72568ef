"""PAD008 collator-overwrites-labels."""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.facts import ModuleFacts
from padlint.rules.base import Finding, FixProposal, Rule
from padlint.rules.catalogue import requires
from padlint.types import Applicability


class CollatorOverwritesLabels(Rule):
    """A map function builds labels, and `DataCollatorForLanguageModeling(mlm=False)` throws them away."""

    code = "PAD008"
    REQUIRES = requires(code)
    name = "collator-overwrites-labels"
    summary = "DataCollatorForLanguageModeling(mlm=False) rebuilds the labels a map function built"
    fix_safety = "safe (use DataCollatorForSeq2Seq, which pads the given labels with -100)"
    MANUAL_FIX = "use `DataCollatorForSeq2Seq(tokenizer, padding=True)`, which pads the labels it is given with -100"

    INVALID = [
        """
from transformers import DataCollatorForLanguageModeling

def encode(example, tokenizer):
    prompt = tokenizer(example["prompt"])["input_ids"]
    answer = tokenizer(example["answer"], add_special_tokens=False)["input_ids"]
    return {"input_ids": prompt + answer, "labels": [-100] * len(prompt) + answer}

def prepare(dataset, tokenizer):
    dataset = dataset.map(encode, fn_kwargs={"tokenizer": tokenizer})
    return dataset, DataCollatorForLanguageModeling(tokenizer, mlm=False)
""",
    ]
    VALID = [
        """
from transformers import DataCollatorForSeq2Seq

def encode(example, tokenizer):
    prompt = tokenizer(example["prompt"])["input_ids"]
    answer = tokenizer(example["answer"], add_special_tokens=False)["input_ids"]
    return {"input_ids": prompt + answer, "labels": [-100] * len(prompt) + answer}

def prepare(dataset, tokenizer):
    dataset = dataset.map(encode, fn_kwargs={"tokenizer": tokenizer})
    return dataset, DataCollatorForSeq2Seq(tokenizer, padding=True)
""",
    ]

    def check(self, facts: ModuleFacts) -> Iterable[Finding]:
        builders = {name for name, _ in facts.labels_built}
        for call, owner in facts.lm_collators:
            # The labels must come from a function mapped where this collator is made (or in script code).
            mapped_here = any(
                name in builders and (where == owner or where is None or owner is None)
                for name, where in facts.map_calls
            )
            built_here = any(name is None and (where == owner or where is None) for name, where in facts.labels_built)
            if not (mapped_here or built_here):
                continue
            message = (
                "`DataCollatorForLanguageModeling(mlm=False)` rebuilds labels from input_ids: the labels "
                "built in the map function (with -100 on the prompt) are thrown away"
            )
            yield Finding(call, message, self.fix(facts, call))

    def fix(self, facts: ModuleFacts, call: cst.Call) -> FixProposal | None:
        tokenizer = P.positional(call, 0) or P.keyword(call, "tokenizer")
        if tokenizer is None:
            return None
        func = facts.code(call.func)
        new_func = func[: -len("DataCollatorForLanguageModeling")] + "DataCollatorForSeq2Seq"
        imports: tuple[str, ...] = ()
        if "." not in func and "DataCollatorForSeq2Seq" not in facts.imports.aliases:
            imports = ("from transformers import DataCollatorForSeq2Seq",)
        code = f"{new_func}({facts.code(tokenizer.value)}, padding=True)"
        return FixProposal(
            Applicability.SAFE,
            "Use DataCollatorForSeq2Seq, which keeps the labels",
            ((call, code),),
            import_lines=imports,
        )
