"""A name that holds one of several project models is each of them on some path (fixtures are our own).

`model = MeanHead(...)` in one branch and `model = MaxHead(...)` in another, then `model(ids, mask)` in
the training loop: the call runs whichever the flag chose, so the analysis calls each, in a fixed order,
and joins what they return. Before, it called the first instance of an unordered set: which head's
`forward` was walked, and so whether its unmasked mean was reported, changed from run to run (seen on
unseen code: five files of one repository came and went between two scans).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from padlint.engine import lint_source

SOURCE = textwrap.dedent(
    """
    import sys

    import torch
    from torch import nn
    from transformers import AutoModel, AutoTokenizer


    class MeanHead(nn.Module):
        def __init__(self, name):
            super().__init__()
            self.lm = AutoModel.from_pretrained(name)
            self.out = nn.Linear(self.lm.config.hidden_size, 2)

        def forward(self, input_ids, attention_mask):
            states = self.lm(input_ids, attention_mask=attention_mask).last_hidden_state
            return self.out(states.mean(dim=1))


    class MaxHead(nn.Module):
        def __init__(self, name):
            super().__init__()
            self.lm = AutoModel.from_pretrained(name)
            self.out = nn.Linear(self.lm.config.hidden_size, 2)

        def forward(self, input_ids, attention_mask):
            states = self.lm(input_ids, attention_mask=attention_mask).last_hidden_state
            return self.out(torch.mean(states, dim=1))


    def train(texts, labels, kind):
        tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")
        if kind == "mean":
            model = MeanHead("bert-base-uncased")
        else:
            model = MaxHead("bert-base-uncased")
        batch = tokenizer(texts, padding=True, return_tensors="pt")
        logits = model(batch["input_ids"], batch["attention_mask"])
        return nn.functional.cross_entropy(logits, torch.tensor(labels))


    if __name__ == "__main__":
        print(train(["a b c", "d"], [0, 1], sys.argv[1]))
    """
)


def test_both_heads_are_walked():
    found = sorted((d.code, d.location.row) for d in lint_source(SOURCE, "heads.py"))
    assert found == [("PAD015", 17), ("PAD015", 28)]


def test_the_same_findings_in_fresh_processes(tmp_path):
    path = tmp_path / "heads.py"
    path.write_text(SOURCE)
    script = "import sys\nfrom padlint.engine import lint_source\n" + (
        "print(sorted((d.code, d.location.row) for d in lint_source(open(sys.argv[1]).read(), sys.argv[1])))"
    )
    runs = {
        subprocess.run(
            [sys.executable, "-c", script, str(path)],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
        ).stdout
        for seed in range(3)
    }
    assert runs == {"[('PAD015', 17), ('PAD015', 28)]\n"}
