"""The sharp first look (padlint/look/first_look.py): what it reads from the text, and that it never
rules out a file a rule fires on (its rules' own INVALID examples; the fixtures and the bench corpus
are compared with the full analysis in tests/test_prefilter.py)."""

from __future__ import annotations

import textwrap

import pytest

from padlint.look import prefilter
from padlint.look.first_look import Look
from padlint.rules import ALL_RULES


def look(code: str) -> Look:
    return Look(textwrap.dedent(code))


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.code)
def test_every_invalid_example_passes_its_rules_look(rule):
    for example in rule.INVALID:
        assert rule.may_fire(Look(example)), (rule.code, example)
        assert prefilter.look_may_fire(example, {rule.code})


def test_scopes_end_where_the_next_statement_starts():
    code = look('''
        import torch

        class Collator:
            """A docstring that mentions
        def not_a_function(): at column 0
            """

            @torch.no_grad()
            def __call__(
                self,
                batch,
            ) -> dict:
                return self.helper(batch)

            def helper(self, batch):
                return batch

        def module_function(x):
            return x

        SCRIPT = module_function(1)
    ''')
    assert [(u.name, u.kind) for u in code.units()] == [
        ("__call__", "method"),
        ("helper", "method"),
        ("module_function", "func"),
    ]
    assert code.unit_at(code.text.index("SCRIPT")) is None  # script code
    assert code.unit_at(code.text.index("@torch")) == -1  # a class body: not walked by the analysis
    call, helper, function = code.units()
    assert code.text[call.start : call.end].rstrip().endswith("return self.helper(batch)")


def test_comments_and_docstrings_do_not_count():
    code = look('''
        def f(tokenizer, texts):
            """Pads with tokenizer(texts, padding=True)."""
            # tokenizer(texts, padding="max_length")
            return tokenizer(texts)
    ''')
    assert not code.has("tokenizer_padding")
    assert look("def f(tok, t):\n    return tok(t, padding=True)\n").has("tokenizer_padding")


def test_array_padding_is_a_padding_step_but_not_a_tokenizers():
    code = look("""
        import torch.nn.functional as F

        def f(x, tokenizer, feats):
            a = F.pad(x, (0, 3))
            b = tokenizer.pad(feats)
    """)
    assert len(code.positions("pad_step")) == 2
    assert len(code.positions("tokenizer_padding")) == 1
    assert not look("def f(x):\n    return self.pad(x)\n").has("pad_step")  # a local method: its body counts
    assert not look("def f(x):\n    return maybe_pad(x)\n").has("pad_step")


def test_torch_full_counts_only_with_a_fill_that_can_be_a_pad_id():
    assert not look("import torch\ndef f(n, c):\n    return torch.full((), c.image_token_id)\n").has("pad_step")
    assert not look("import torch\ndef f(n):\n    return torch.full((n, 3), 1)\n").has("pad_step")
    assert look("import torch\ndef f(n, tok):\n    return torch.full((n, 3), tok.pad_token_id)\n").has("pad_step")
    assert look("import torch\ndef f(n, fill):\n    return torch.full((n, 3), fill)\n").has("pad_step")


ZERO_BUFFER_FILLED_BY_THE_CALLER = """
import torch
import torch.nn.functional as F


def empty_batch(rows):
    return torch.zeros(len(rows), max(len(r) for r in rows), dtype=torch.long)


def make_batch(texts):
    rows = [[b + 1 for b in t.encode("utf-8")] for t in texts]
    tokens = empty_batch(rows)
    for i, row in enumerate(rows):
        tokens[i, : len(row)] = torch.tensor(row)
    return tokens, tokens.clone()


def step(lm, texts):
    tokens, targets = make_batch(texts)
    logits = lm(tokens)
    return F.cross_entropy(logits[:, :-1].reshape(-1, logits.size(-1)), targets[:, 1:].reshape(-1))


def embed(model, input_shape):
    token_type_ids = torch.zeros(input_shape, dtype=torch.long)
    features = torch.zeros(4, 8, 16)
    return model(token_type_ids=token_type_ids, inputs_embeds=features)
"""


def test_a_zero_buffer_pads_only_in_two_dimensions_and_where_its_rows_are_written():
    """The analysis takes `zeros(B, L)` / `zeros((B, L))` for padding only once rows are written into
    part of it (analysis/zero_padding.py); a buffer of another shape, or one whose reach writes no
    rows, makes no padding step the look needs to follow."""
    code = Look(ZERO_BUFFER_FILLED_BY_THE_CALLER)
    units = code.units()
    steps = {units[code.unit_at(p)].name for p in code.positions("pad_step")}
    assert steps == {"empty_batch"}  # `zeros(input_shape)` and `zeros(4, 8, 16)` are not 2-D buffers
    assert {units[i].name for i in code.reach("pad_step")} == {"empty_batch", "make_batch", "step"}
    # The rows written only in a def the buffer never reaches (an image crop): nothing to follow.
    unfilled = ZERO_BUFFER_FILLED_BY_THE_CALLER.replace("tokens[i, : len(row)] = torch.tensor(row)", "pass")
    unfilled += "\n\ndef crop(image, out, h):\n    out[0, :h] = image[:h]\n    return out\n"
    assert Look(unfilled).has("pad_step") and not Look(unfilled).reach("pad_step")


def test_a_zero_buffer_filled_in_its_callers_reach_is_still_analysed():
    """Padding made in a helper and written in its caller: the sharp look keeps both, so the finding
    is the full analysis's."""
    from padlint import engine

    found = engine.lint_source(ZERO_BUFFER_FILLED_BY_THE_CALLER, "batches.py", {"PAD002"})
    plan = prefilter.look_plan(ZERO_BUFFER_FILLED_BY_THE_CALLER, {"PAD002"})
    assert [d.code for d in found] == ["PAD002"]
    assert isinstance(plan, str) and "def embed(*args, **kwargs): ..." in plan
    assert [(d.code, d.location) for d in engine.lint_source(plan, "batches.py", {"PAD002"})] == [
        (d.code, d.location) for d in found
    ]


@pytest.mark.parametrize("run", ['["hybrid"] * n', "[(0, 0)] * x.ndim", "[f'{a}]'] * 3"])
def test_a_run_of_strings_or_tuples_is_no_padding_step(run):
    assert not look(f"def f(x, n, a):\n    return {run}\n").has("pad_step")
    assert look("def f(x, n, pad):\n    return x + [pad] * n\n").has("pad_step")


def test_a_padding_step_reaches_the_callers_of_its_function_and_its_callees():
    code = look("""
        from torch.nn.utils.rnn import pad_sequence

        def pad_rows(rows, pad_id):
            return pad_sequence(rows, batch_first=True, padding_value=pad_id)

        def collate(batch):
            ids = pad_rows([b["input_ids"] for b in batch], 0)
            return {"input_ids": ids, "labels": ids}

        def unrelated(logits, target):
            return logits.mean()
    """)
    assert code.linked("pad_step", "labels")
    names = {code.units()[i].name for i in code.reach("pad_step")}
    assert names == {"pad_rows", "collate"}


def test_init_hands_its_attributes_to_the_methods_that_read_them():
    code = look("""
        class Collator:
            def __init__(self, tok, n):
                self.pad_row = [tok.pad_token_id] * n
                self.size = n

            def __call__(self, batch):
                return {"input_ids": [b + self.pad_row for b in batch], "labels": batch}

            def other(self):
                return {"attention_mask": 1}
    """)
    assert {code.units()[i].name for i in code.reach("pad_step")} == {"__init__", "__call__"}
    assert code.linked("pad_step", "labels")
    assert not code.linked("pad_step", "mask")


def test_a_method_inherited_from_a_base_class_of_the_module_reaches_the_subclass_caller():
    code = look("""
        from torch.nn.utils.rnn import pad_sequence

        class RowPadder:
            def __init__(self, fill):
                self.fill = fill

            def stack(self, rows):
                return pad_sequence(rows, batch_first=True, padding_value=self.fill)

        class Batcher(RowPadder):
            def __call__(self, rows):
                ids = self.stack(rows)
                return {"input_ids": ids, "attention_mask": ids.new_ones(ids.shape)}

        class Unrelated:
            def stack(self, xs):
                return {"attention_mask": xs}
    """)
    names = {(code.units()[i].name, code.units()[i].cls) for i in code.reach("pad_step")}
    assert ("__call__", 2) in names and ("stack", 3) not in names
    assert code.linked("pad_step", "mask", "ones")


MODEL = '''
import torch
import torch.nn.functional as F
from torch.nn.utils.rnn import pad_sequence


class Conv:
    @torch.no_grad()
    def forward(
        self,
        hidden_states,
    ):
        """Pads the time axis."""
        return F.pad(hidden_states, (0, 1))


class Attention:
    def forward(self, input_ids, attention_mask=None):
        if attention_mask is None:
            attention_mask = torch.ones_like(input_ids)
        return attention_mask
'''
MODEL_AND_COLLATOR = (
    MODEL
    + """

def collate(batch, pad_id):
    ids = pad_sequence([torch.tensor(b["input_ids"]) for b in batch], batch_first=True, padding_value=pad_id)
    return {"input_ids": ids, "labels": ids}
"""
)


def test_a_padding_step_in_one_model_does_not_reach_an_unrelated_forward():
    code = Look(MODEL)
    assert code.has("pad_step")
    assert not code.linked("pad_step", "mask", "ones")
    assert not prefilter.look_may_fire(code.text, {"PAD001", "PAD002", "PAD003"})


def test_script_code_reaches_everything():
    code = look("""
        from torch.nn.utils.rnn import pad_sequence

        def make_batch(ids):
            return {"input_ids": ids, "labels": ids}

        padded = pad_sequence(rows, batch_first=True)
        batch = make_batch(padded)
    """)
    assert None in code.reach("pad_step")
    assert code.linked("pad_step", "labels")


def test_pad_set_to_eos_and_its_fallback():
    assert look("tokenizer.pad_token = tokenizer.eos_token\n").has("pad_is_eos")
    assert look("m = Model(pad_token_id=tok.eos_token_id)\n").has("pad_is_eos")
    assert look("pad = tok.pad_token_id or tok.eos_token_id\n").has("pad_is_eos")
    assert not look("x = pixel_values or pixel_values_videos\n").has("eos_fallback")
    assert not look("tokenizer.pad_token = '<pad>'\n").has("pad_is_eos")


def test_mean_of_a_product():
    assert look("loss = (per_token * mask).mean()\n").has("mean_product")
    assert look("loss = torch.mean(per_token * mask, dim=1)\n").has("mean_product")
    assert not look("h = hidden.pow(2).mean(-1, keepdim=True)\n").has("mean_product")


# ---- the reduced analysis -----------------------------------------------------------------------------
def test_the_reduced_text_stubs_unreached_defs_on_one_line_each():
    plan = prefilter.look_plan(MODEL_AND_COLLATOR, {"PAD002"})
    assert isinstance(plan, str)
    kept = plan.splitlines()
    original = MODEL_AND_COLLATOR.splitlines()
    collate_at = original.index("def collate(batch, pad_id):")
    tail = original[collate_at:]
    assert kept[-len(tail) :] == tail  # the padding step's scope, unchanged
    # Only the reduced text's verdict is used, never its rows: a stub takes one line (blank lines
    # made a tenth of libcst's time on the bench corpus's reduced texts).
    assert len(kept) < len(original)
    # F.pad's reach has no labels: its class, like the other one, is cut to a stub
    assert kept.count("class Conv: ...") == 1 and kept.count("class Attention: ...") == 1
    assert "F.pad" not in plan and "ones_like" not in plan
    import ast

    ast.parse(plan)


def test_the_plan_is_the_whole_file_or_nothing_when_it_must_be():
    assert prefilter.look_plan("import torch\nx = torch.ones(3)\n", {"PAD001", "PAD002"}) is False
    script = "from torch.nn.utils.rnn import pad_sequence\nids = pad_sequence(rows)\nbatch = {'labels': ids}\n"
    assert prefilter.look_plan(script, {"PAD002"}) is True  # script code reaches everything
    assert prefilter.look_plan(MODEL_AND_COLLATOR, {"PAD008"}) is False  # no DataCollatorForLanguageModeling


def test_a_finding_of_the_reduced_text_is_checked_on_the_whole_file(tmp_path):
    """The collator in a def no padding step reaches silences PAD002 (it rebuilds the labels): the
    reduced text, without it, has a finding; the whole file, which decides, has none."""
    from padlint import engine
    from padlint.config import Settings, with_cli
    from padlint.run.runner import Options, check_files

    source = textwrap.dedent("""
        from transformers import DataCollatorForLanguageModeling


        def encode(example, tokenizer):
            ids = tokenizer(example["text"], padding="max_length", max_length=64)["input_ids"]
            return {"input_ids": ids, "labels": ids}


        def make_collator(tokenizer):
            return DataCollatorForLanguageModeling(tokenizer, mlm=False)
    """)
    plan = prefilter.look_plan(source, {"PAD002"})
    assert isinstance(plan, str) and engine.lint_source(plan, "x.py", {"PAD002"})
    assert not engine.lint_source(source, "x.py", {"PAD002"})
    path = tmp_path / "encode.py"
    path.write_text(source)
    settings = with_cli(Settings(root=tmp_path), select=("PAD002",))
    result = check_files([str(path)], settings, Options(cache=False), lambda m: None, lambda m: None)
    assert result.diagnostics == []
    assert result.stats["parsed"] == 1


def test_a_syntax_error_in_a_def_the_reduced_text_stubs_is_still_reported(tmp_path):
    """The stub hides the broken body from libcst; the whole text's syntax is checked as well."""
    from padlint.config import Settings, with_cli
    from padlint.run.runner import Options, check_files

    source = textwrap.dedent("""
        import torch
        from torch.nn.utils.rnn import pad_sequence


        def collate(batch):
            ids = pad_sequence([torch.tensor(b) for b in batch], batch_first=True, padding_value=0)
            mask = torch.ones_like(ids)
            mask[ids == 0] = 0
            return {"input_ids": ids, "attention_mask": mask}


        def unrelated(x):
            return x +* 2
    """)
    plan = prefilter.look_plan(source, {"PAD001"})
    assert isinstance(plan, str) and "x +* 2" not in plan  # the broken def is a stub
    path = tmp_path / "collate.py"
    path.write_text(source)
    settings = with_cli(Settings(root=tmp_path), select=("PAD000", "PAD001"))
    result = check_files([str(path)], settings, Options(cache=False), lambda m: None, lambda m: None)
    assert [(d.code, d.location.row) for d in result.diagnostics] == [("PAD000", 14)]


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_the_look_reads_crlf_and_cr_files_like_lf_ones(newline):
    source = MODEL_AND_COLLATOR.replace("\n", newline)
    for code in ("PAD001", "PAD002", "PAD003"):
        assert prefilter.look_may_fire(source, {code}) == prefilter.look_may_fire(MODEL_AND_COLLATOR, {code})
    plan = prefilter.look_plan(source, {"PAD002"})
    assert plan == prefilter.look_plan(MODEL_AND_COLLATOR, {"PAD002"})  # the same defs cut, read as LF


def test_a_backslash_continuation_at_column_0_does_not_end_a_def():
    code = look("""
        from torch.nn.utils.rnn import pad_sequence

        def collate(rows):
            ids = pad_sequence(rows, batch_first=True) + \\
        0
            return {"input_ids": ids, "labels": ids}
    """)
    assert [u.name for u in code.units()] == ["collate"]
    assert code.unit_at(code.text.index('"labels"')) == 0
    assert code.linked("pad_step", "labels")


def test_a_kept_method_keeps_its_class_and_the_other_methods_become_stubs():
    source = textwrap.dedent('''
        import torch


        class Collator:
            @property
            def name(self):
                return "c"

            def __call__(self, batch, tok):
                ids = torch.nn.utils.rnn.pad_sequence(batch, batch_first=True, padding_value=tok.pad_token_id)
                return {"input_ids": ids, "labels": ids}


        class Unrelated:
            """Pads nothing."""

            def forward(self, x):
                return x
    ''')
    plan = prefilter.look_plan(source, {"PAD002"})
    assert isinstance(plan, str)
    lines = plan.splitlines()
    assert "class Collator:" in lines and "    @property" in lines and "    def name(*args, **kwargs): ..." in lines
    assert "class Unrelated: ..." in lines and '"""Pads nothing."""' not in plan
    assert lines[lines.index("    def name(*args, **kwargs): ...") + 1].startswith(
        "    def __call__(self, batch, tok):"
    )


@pytest.mark.parametrize("ones", ["[1] * len(ids)", "[ 1 ] * len(ids)", "[1  for _ in ids]", "[1\tfor _ in ids]"])
def test_ones_spelled_any_way_count_for_pad001(ones):
    code = look(f"""
        def encode(example, tokenizer):
            ids = tokenizer(example["text"], padding="max_length", max_length=8)["input_ids"]
            return {{"input_ids": ids, "attention_mask": {ones}}}
    """)
    assert code.linked("pad_step", "mask", "ones")


@pytest.mark.parametrize(
    "line, alias",
    [
        ("labels = input_ids", True),
        ('labels = batch["input_ids"]', True),
        ("labels = (input_ids)", True),
        ("target_ids = self.ids  # aliased", True),
        ('rename(target_patterns="model.embed_tokens")', False),  # a keyword argument holding a string
        ('labels = "input_ids"', False),  # a string: no place to alias
        ('labels, mask = batch["input_ids"], batch["attention_mask"]', True),
        ("mask, labels = batch.attention_mask, batch.input_ids", True),
        ("labels, mask = make(batch)", False),
    ],
)
def test_a_labels_alias_is_a_name_bound_to_an_ids_place(line, alias):
    code = look(f"""
        def convert(batch, rename):
            {line}
            return batch
    """)
    assert code.has("labels_alias") is alias


def test_the_look_and_the_analysis_know_the_same_repadding_collators():
    from padlint.analysis import patterns
    from padlint.look import padding_features

    assert set(padding_features.REPADDING_COLLATORS) == patterns.REPADDING_COLLATORS
