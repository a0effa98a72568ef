"""A local holding only `True` or only `False` where an `if` reads it selects one branch (fixtures are our
own): `batched = False` just before `if batched:` means the batched arm, whatever it would do to a batch,
never runs. A flag set differently on two paths, or a global a function reads (another statement may
set it between the def and a call), stays unknown: both arms are checked."""

from __future__ import annotations

import textwrap

from padlint.engine import lint_source

GENERATE = """
    def answer_all(model, tokenizer, prompts):
        outputs = []
        for prompt in prompts:
            batched = len(prompts) > 8
            batched = False
            if batched:
                ids = tokenizer(prompts, padding=True, return_tensors="pt").input_ids
                outputs.append(model.generate(input_ids=ids, max_new_tokens=20))
            else:
                enc = tokenizer(prompt, return_tensors="pt")
                outputs.append(model.generate(**enc, max_new_tokens=20))
        return outputs
"""


def pad003(source: str) -> list[int]:
    return [d.location.row for d in lint_source(textwrap.dedent(source), "answers.py") if d.code == "PAD003"]


def test_an_arm_a_local_false_never_selects_is_not_judged():
    assert pad003(GENERATE) == []
    negated = GENERATE.replace("batched = False", "single = True").replace("if batched:", "if not single:")
    assert negated != GENERATE
    assert pad003(negated) == []


def test_a_flag_set_differently_on_two_paths_leaves_both_arms():
    two_paths = GENERATE.replace(
        "            batched = False\n",
        "            batched = False\n            if len(prompt) > 100:\n                batched = True\n",
    )
    assert two_paths != GENERATE
    assert pad003(two_paths) == [10]


def test_a_global_read_in_a_function_is_unknown_there():
    global_flag = "BATCHED = False\n" + textwrap.dedent(GENERATE).replace(
        "        batched = len(prompts) > 8\n        batched = False\n", ""
    ).replace("if batched:", "if BATCHED:")
    assert "BATCHED = False" in global_flag and "batched = False" not in global_flag
    assert [d.code for d in lint_source(global_flag, "answers.py")] == ["PAD003"]


def test_script_code_reads_its_own_flag():
    script = """
        from transformers import AutoModelForCausalLM, AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained("gpt2")
        model = AutoModelForCausalLM.from_pretrained("gpt2")
        prompts = ["a", "b c d"]
        BATCHED = False
        if BATCHED:
            ids = tokenizer(prompts, padding=True, return_tensors="pt").input_ids
            print(model.generate(input_ids=ids))
    """
    assert pad003(script) == []
    assert pad003(script.replace("BATCHED = False", "BATCHED = True")) == [9]
