"""The same file gives the same findings on every run.

Labels copied from ids that two branches pad differently hold two padded values. Which one a set of
them hands out first depends on where the interpreter put the objects, so a finding that depends on it
came and went from run to run (a real PAD002 reported in about a third of the runs). Each padded value
now gives its own copy, judged in reading order.
"""

from __future__ import annotations

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
