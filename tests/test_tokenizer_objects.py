"""Pad = EOS is a fact about one tokenizer object.

A trainer that loads a reward model's tokenizer and gives it EOS as its pad says nothing about the
policy's tokenizer it keeps on `self.tokenizer`: a mask `ids != self.tokenizer.pad_token_id` built
with the policy's tokenizer hides no EOS. Within one scope (a function, the methods of a class, script
code) the code says which names can hold one object: an assignment, a loop target, a call of one of
the class's own methods, an attribute of an object stored under another name. Where no such link is
written, the setting on the other tokenizer is not evidence; where one is, the finding stays.
"""

from __future__ import annotations

import textwrap

from padlint.engine import lint_source


def codes(source: str) -> list[str]:
    return [d.code for d in lint_source(textwrap.dedent(source), "trainer.py")]


# A rollout trainer shaped like GRPO/PPO loops: prompts padded to a fixed length, completions padded
# with the pad id, a mask rebuilt from the pad id. {setup} decides which tokenizer gets pad = EOS.
TRAINER = """
import torch
from transformers import AutoModelForCausalLM, AutoModelForSequenceClassification, AutoTokenizer


class RolloutTrainer:
    def __init__(self, model, tokenizer, reward_models, reward_tokenizers=None):
        self.model = model
        self.tokenizer = self.prepare(tokenizer)
        reward_tokenizers = reward_tokenizers or [None] * len(reward_models)
        for i, (reward_model, reward_tokenizer) in enumerate(zip(reward_models, reward_tokenizers)):
            if reward_tokenizer is None:
                reward_tokenizer = AutoTokenizer.from_pretrained(reward_model.config._name_or_path)
{setup}
            reward_model.config.pad_token_id = reward_tokenizer.pad_token_id
            reward_tokenizers[i] = reward_tokenizer
        self.reward_models = reward_models
        self.reward_tokenizers = reward_tokenizers

    def prepare(self, tokenizer):
        tokenizer.padding_side = "left"
        return tokenizer

    def rollout(self, prompt, max_length):
        text = self.tokenizer.apply_chat_template([{{"role": "user", "content": prompt}}], tokenize=False) + self.tokenizer.eos_token
        inputs = self.tokenizer([text] * 4, padding="max_length", max_length=64, return_tensors="pt")
        with torch.no_grad():
            out = self.model.generate(**inputs, max_new_tokens=32)
        gap = max_length - out.size(1)
        out = torch.cat([out, torch.full((out.size(0), gap), self.tokenizer.pad_token_id)], dim=1)
        attention_mask = out.ne(self.tokenizer.pad_token_id).long()
        return self.model(input_ids=out, attention_mask=attention_mask).logits
"""

REWARD_TOKENIZER_PAD_EOS = """\
            reward_tokenizer.pad_token = reward_tokenizer.eos_token"""

POLICY_TOKENIZER_PAD_EOS = """\
            self.tokenizer.pad_token = self.tokenizer.eos_token"""

POLICY_PARAMETER_PAD_EOS = """\
            tokenizer.pad_token = tokenizer.eos_token"""


def test_pad_eos_on_the_reward_tokenizer_says_nothing_about_the_policy_one():
    assert "PAD005" not in codes(TRAINER.format(setup=REWARD_TOKENIZER_PAD_EOS))


def test_pad_eos_on_the_policy_tokenizer_is_reported():
    assert "PAD005" in codes(TRAINER.format(setup=POLICY_TOKENIZER_PAD_EOS))


def test_the_parameter_stored_on_self_through_a_method_is_the_same_object():
    # `self.tokenizer = self.prepare(tokenizer)`: prepare hands its argument back.
    assert "PAD005" in codes(TRAINER.format(setup=POLICY_PARAMETER_PAD_EOS))


SFT_SCRIPT = """
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("policy")
judge_tokenizer = AutoTokenizer.from_pretrained("judge")
judge_tokenizer.pad_token = judge_tokenizer.eos_token
{alias}
model = AutoModelForCausalLM.from_pretrained("policy")
rows = [tokenizer(t + tokenizer.eos_token)["input_ids"] for t in ["a b", "c"]]
width = max(len(r) for r in rows)
ids = torch.tensor([r + [tokenizer.pad_token_id] * (width - len(r)) for r in rows])
labels = ids.clone()
labels[labels == tokenizer.pad_token_id] = -100
loss = model(input_ids=ids, attention_mask=(ids != tokenizer.pad_token_id).long(), labels=labels).loss
"""


def test_script_code_another_tokenizer_given_pad_eos_is_silent():
    found = codes(SFT_SCRIPT.format(alias=""))
    assert "PAD004" not in found and "PAD005" not in found


def test_script_code_an_alias_makes_it_the_same_tokenizer():
    found = codes(SFT_SCRIPT.format(alias="tokenizer = judge_tokenizer"))
    assert "PAD004" in found


COLLATOR_WITH_PROCESSOR = """
import torch


class VisionChatCollator:
    def __init__(self, processor, max_length=128):
        tokenizer = processor.tokenizer
        {setup}
        self.processor = processor
        self.max_length = max_length

    def __call__(self, examples):
        texts = [e["text"] + self.processor.tokenizer.eos_token for e in examples]
        batch = self.processor(text=texts, padding=True, return_tensors="pt")
        labels = batch["input_ids"].clone()
        labels[labels == self.processor.tokenizer.pad_token_id] = -100
        batch["labels"] = labels
        return batch
"""


def test_an_attribute_of_an_object_stored_under_another_name_is_the_same_tokenizer():
    source = COLLATOR_WITH_PROCESSOR.format(setup="tokenizer.pad_token = tokenizer.eos_token")
    assert "PAD004" in codes(source)


def test_a_tokenizer_loaded_apart_in_the_collator_is_another_object():
    source = COLLATOR_WITH_PROCESSOR.format(
        setup='judge = AutoTokenizer.from_pretrained("judge"); judge.pad_token = judge.eos_token'
    )
    assert "PAD004" not in codes("from transformers import AutoTokenizer\n" + source)


PAD_ID_KEPT_ON_THE_COLLATOR = """
import torch
from torch.nn.utils.rnn import pad_sequence


class CausalCollator:
    def __init__(self, tokenizer):
        tokenizer.pad_token = tokenizer.eos_token
        self.pad_token_id = tokenizer.pad_token_id

    def __call__(self, rows):
        ids = pad_sequence([torch.tensor(r + [0]) for r in rows], batch_first=True, padding_value=self.pad_token_id)
        return {"input_ids": ids, "attention_mask": ids.ne(self.pad_token_id).long()}
"""


def test_a_pad_id_kept_on_the_object_still_comes_from_the_tokenizer_given_pad_eos():
    assert "PAD005" in codes(PAD_ID_KEPT_ON_THE_COLLATOR)


TWO_TOKENIZERS_ONE_LOSS = """
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer


class DistillLoss:
    def __init__(self, student_tokenizer, teacher_tokenizer):
        self.student_tokenizer = student_tokenizer
        self.teacher_tokenizer = teacher_tokenizer


def distill(student_name, teacher_name, texts, args):
    student_tok = AutoTokenizer.from_pretrained(student_name, trust_remote_code=args.trust_remote_code)
    teacher_tok = AutoTokenizer.from_pretrained(teacher_name, trust_remote_code=args.trust_remote_code)
    teacher_tok.pad_token = teacher_tok.eos_token
    loss_fn = DistillLoss(student_tokenizer=student_tok, teacher_tokenizer=teacher_tok)
    student = AutoModelForCausalLM.from_pretrained(student_name)
    batch = student_tok([t + student_tok.eos_token for t in texts], padding=True, return_tensors="pt")
    labels = batch["input_ids"].clone()
    labels[labels == student_tok.pad_token_id] = -100
    return student(**batch, labels=labels).loss, loss_fn
"""


def test_an_object_built_from_two_tokenizers_or_a_shared_flag_does_not_make_them_one():
    assert "PAD004" not in codes(TWO_TOKENIZERS_ONE_LOSS)
    same = TWO_TOKENIZERS_ONE_LOSS.replace(
        "teacher_tok.pad_token = teacher_tok.eos_token", "student_tok.pad_token = student_tok.eos_token"
    )
    assert "PAD004" in codes(same)


# `generate(..., pad_token_id=tok.eos_token_id)` fills the rows generation finishes early with EOS: a fact
# of the sequences it returns. The tokenizer keeps its own pad token, which the collator pads with and masks.
GENERATION_PAD = """
import torch
from torch.utils.data import DataLoader
from transformers import DataCollatorForLanguageModeling


def train(model, tokenizer, dataset, optimizer):
    collator = DataCollatorForLanguageModeling(tokenizer, mlm=False)
    for batch in DataLoader(dataset, batch_size=8, collate_fn=collator):
        model(**batch).loss.backward()
        optimizer.step()


def sample(model, tokenizer):
    start = torch.tensor([[tokenizer.bos_token_id]])
    out = model.generate(start, do_sample=True, max_length=64, pad_token_id=tokenizer.eos_token_id)
    return tokenizer.decode(out[0], skip_special_tokens=True)
"""


def test_a_pad_id_handed_to_generate_does_not_make_the_tokenizers_pad_the_eos():
    assert codes(GENERATION_PAD) == []
    # the tokenizer's own pad set to EOS does
    set_on_the_tokenizer = GENERATION_PAD.replace(
        "    collator = DataCollatorForLanguageModeling(tokenizer, mlm=False)\n",
        "    tokenizer.pad_token = tokenizer.eos_token\n    collator = DataCollatorForLanguageModeling(tokenizer, mlm=False)\n",
    )
    assert set_on_the_tokenizer != GENERATION_PAD
    assert codes(set_on_the_tokenizer) == ["PAD004"]
