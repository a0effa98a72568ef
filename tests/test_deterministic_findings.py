"""The same file gives the same findings on every run.

Labels copied from ids that two branches pad differently hold two padded values. Which one a set of
them hands out first depends on where the interpreter put the objects, so a finding that depends on it
came and went from run to run (a real PAD002 reported in about a third of the runs). Each padded value
now gives its own copy, judged in reading order.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

from padlint.engine import lint_source

TWO_BRANCHES = """
import torch
import torch.utils.data as data


def fit(ids, width, pad_id):
    if len(ids) < width:
        ids += [pad_id] * (width - len(ids))
    else:
        ids = ids[:width]
    return ids


class Translations(data.Dataset):
    def __init__(self, cfg, split="train"):
        super().__init__()
        self.cfg = cfg
        self.src_lines, self.tgt_lines = self.read_lines(split)
        if self.cfg.arch == "scratch":
            source_rows = self.encode(self.src_lines, source=True)
            decoder_rows, target_rows = self.encode(self.tgt_lines, source=False)
            self.decoder_in = torch.LongTensor(decoder_rows)
            self.decoder_out = torch.LongTensor(target_rows)
        else:
            source_rows = self.encode(self.src_lines)
            target_rows = self.encode(self.tgt_lines)
            self.labels = torch.LongTensor(target_rows)
        self.source = torch.LongTensor(source_rows)

    def read_lines(self, split):
        with open(f"{self.cfg.data_dir}/{split}.{self.cfg.source_lang}", encoding="utf-8") as f:
            sources = f.readlines()
        with open(f"{self.cfg.data_dir}/{split}.{self.cfg.target_lang}", encoding="utf-8") as f:
            targets = f.readlines()
        return sources, targets

    def encode(self, texts, source=True):
        if self.cfg.arch == "scratch":
            if source:
                rows = []
                for text in texts:
                    rows.append(fit(self.cfg.sp.encode(text) + [self.cfg.eos_id], self.cfg.width, self.cfg.pad_id))
                return rows
            else:
                decoder_rows, target_rows = [], []
                for text in texts:
                    ids = self.cfg.sp.encode(text)
                    decoder_rows.append(fit([self.cfg.bos_id] + ids, self.cfg.width, self.cfg.pad_id))
                    target_rows.append(fit(ids + [self.cfg.eos_id], self.cfg.width, self.cfg.pad_id))
                return decoder_rows, target_rows
        elif self.cfg.arch == "pretrained":
            encoded = self.cfg.tokenizer(texts, padding="max_length", truncation=True, max_length=self.cfg.width, return_tensors="pt")
            return encoded.input_ids

    def __len__(self):
        return len(self.source)

    def __getitem__(self, i):
        if self.cfg.arch == "scratch":
            return {"input_ids": self.source[i], "decoder_in": self.decoder_in[i], "decoder_out": self.decoder_out[i]}
        return {"input_ids": self.source[i], "labels": self.labels[i]}
"""


def test_labels_of_ids_padded_two_ways_are_judged_the_same_on_every_run():
    source = textwrap.dedent(TWO_BRANCHES)
    runs = {tuple((d.code, d.location.row) for d in lint_source(source, "pairs.py")) for _ in range(12)}
    assert len(runs) == 1
    assert "PAD002" in [code for code, _ in runs.pop()]


# Ids padded once and reached on two paths (a tensor, and the same rows made a tensor again where they
# might be a list): two copies of one padding step, each with the mask spelled for its own kind. The
# PAD002 fix named whichever a set handed out first, so its text changed with the interpreter's hash seed.
# (Both paths of the `try` bind `encoded`: a fix may read it.)
TWO_SPELLINGS = """
import torch
import torch.nn.functional as F
from transformers import AutoModelForCausalLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("org/teacher")
student = AutoModelForCausalLM.from_pretrained("org/student")

try:
    texts = [line.strip() for line in open("corpus.txt")]
    encoded = tokenizer(texts, truncation=True, max_length=256, padding="max_length", return_tensors="pt")
    rows = {"input_ids": encoded["input_ids"]}
except OSError:
    encoded = rows = tokenizer(["def f(): pass"] * 16, truncation=True, max_length=256, padding="max_length", return_tensors="pt")

ids_all = rows["input_ids"]
if not isinstance(ids_all, torch.Tensor):
    ids_all = torch.tensor(ids_all)

optimizer = torch.optim.AdamW(student.parameters())
for start in range(0, len(ids_all), 8):
    ids = ids_all[start : start + 8]
    half = ids.shape[1] // 2
    logits = student(ids).logits
    labels = ids.clone()
    labels[:, :half] = -100
    loss = F.cross_entropy(logits.flatten(0, 1), labels.flatten(), ignore_index=-100)
    loss.backward()
    optimizer.step()
"""

LABEL_FIX = """
import json, sys
from padlint.engine import lint_source
found = [d for d in lint_source(sys.stdin.read(), "distill.py") if d.code == "PAD002"]
print(json.dumps([[e.content for e in d.fix.edits] if d.fix else None for d in found]))
"""

ALL_FIXES = """
import json, sys
from padlint.engine import lint_source
found = lint_source(sys.stdin.read(), "distill.py")
print(json.dumps([[d.code, d.location.row, [e.content for e in d.fix.edits] if d.fix else None] for d in found]))
"""


def output_under_six_hash_seeds(script: str, source: str) -> set[str]:
    seen = set()
    for seed in range(6):
        env = {**os.environ, "PYTHONHASHSEED": str(seed)}
        run = subprocess.run(
            [sys.executable, "-c", script], input=source, env=env, capture_output=True, text=True, check=True
        )
        seen.add(run.stdout)
    return seen


def test_the_label_fix_is_the_same_under_every_hash_seed():
    seen = output_under_six_hash_seeds(LABEL_FIX, TWO_SPELLINGS)
    assert len(seen) == 1, seen
    (fixes,) = json.loads(seen.pop())  # one PAD002, with a fix that puts -100 at the pads
    assert fixes is not None and any("-100" in edit for edit in fixes)


# The same rows reach the model as they were and made a tensor again: two derivations of one padding
# step. The keep-the-mask fix (PAD003) spelled the mask for whichever a set handed out first.
def test_every_finding_and_fix_is_the_same_under_every_hash_seed():
    seen = output_under_six_hash_seeds(ALL_FIXES, TWO_SPELLINGS)
    assert len(seen) == 1, seen
    codes = [code for code, _, _ in json.loads(seen.pop())]
    assert "PAD003" in codes and "PAD002" in codes
