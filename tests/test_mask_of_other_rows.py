"""A label fix names a mask in view only where it can be the mask of the labels' own rows (issue 12: a
fix must not be wrong when run). A mask built from lengths (`arange(width)[None] < counts[:, None]`)
spans `width` columns: over another width than the padded ids' (the top-k positions a sampler
picks), it is no mask of theirs, and a fix that used it would not even broadcast. Over their width
(`ids.size(1)`) it may be theirs: the execution fixtures p4_lengths_mask_class.py and the PAD004 rule
fixture run that fix. Fixtures are our own."""

from __future__ import annotations

import textwrap

from padlint.engine import lint_source

SCRIPT = """
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, IterableDataset
from transformers import AutoModelForCausalLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("org/code-model")
student = AutoModelForCausalLM.from_pretrained("org/student")


class Files(IterableDataset):
    def __init__(self, paths):
        self.paths = paths

    def __iter__(self):
        for path in self.paths:
            enc = tokenizer(open(path).read(), padding="max_length", max_length=256, truncation=True, return_tensors="pt")
            yield {"input_ids": enc["input_ids"][0]}


optimizer = torch.optim.AdamW(student.parameters())
for batch in DataLoader(Files(["a.py", "b.py"]), batch_size=4):
    ids = batch["input_ids"]
    logits = student(ids).logits
    counts = (logits.softmax(-1).max(-1).values > 0.9).sum(1)
    k = int(counts.max())
    pick_mask = torch.arange(k)[None, :] < counts[:, None]
    labels = ids.clone()
    loss = F.cross_entropy(logits.flatten(0, 1), labels.flatten())
    loss.backward()
    optimizer.step()
"""


def test_a_mask_over_another_width_is_not_the_labels_mask():
    found = [d for d in lint_source(textwrap.dedent(SCRIPT), "distill.py") if d.code == "PAD002"]
    assert len(found) == 1
    fix = found[0].fix
    assert fix is None or not any("pick_mask" in edit.content for edit in fix.edits)
