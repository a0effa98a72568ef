"""PAD014 key-padding-mask-inverted."""

from __future__ import annotations

from collections.abc import Iterable

from padlint.analysis.facts import ModuleFacts, RealTokensAsIgnoredKeys
from padlint.rules.base import Finding, FixProposal, Rule
from padlint.rules.catalogue import requires
from padlint.types import Applicability


class KeyPaddingMaskInverted(Rule):
    """A mask of the real tokens is given to a torch layer as the key padding mask, which ignores what is True."""

    code = "PAD014"
    REQUIRES = requires(code)
    name = "key-padding-mask-inverted"
    summary = "A mask that is 1 at real tokens is a torch layer's key padding mask: it ignores the real tokens"
    fix_safety = "safe (`mask == 0`: True at the pads, for bool, int and float masks)"
    MANUAL_FIX = "pass a mask that is True at the pads: `attention_mask == 0`"

    INVALID = [
        """
import torch
from torch import nn

class Classifier(nn.Module):
    def __init__(self, vocab, dim=256):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(dim, 4, batch_first=True), 2)
        self.head = nn.Linear(dim, 2)

    def forward(self, input_ids, attention_mask):
        h = self.encoder(self.embed(input_ids), src_key_padding_mask=attention_mask.bool())
        return self.head(h[:, 0])

def collate(rows, pad_id):
    width = max(len(r) for r in rows)
    ids = torch.tensor([r + [pad_id] * (width - len(r)) for r in rows])
    mask = torch.tensor([[1] * len(r) + [0] * (width - len(r)) for r in rows])
    return ids, mask

def predict(rows, pad_id):
    model = Classifier(1000)
    ids, mask = collate(rows, pad_id)
    return model(ids, mask).argmax(-1)
""",
    ]
    VALID = [
        # True at the pads: what the layer ignores
        """
import torch
from torch import nn

class Classifier(nn.Module):
    def __init__(self, vocab, dim=256):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(dim, 4, batch_first=True), 2)
        self.head = nn.Linear(dim, 2)

    def forward(self, input_ids, attention_mask):
        h = self.encoder(self.embed(input_ids), src_key_padding_mask=~attention_mask.bool())
        return self.head(h[:, 0])

def collate(rows, pad_id):
    width = max(len(r) for r in rows)
    ids = torch.tensor([r + [pad_id] * (width - len(r)) for r in rows])
    mask = torch.tensor([[1] * len(r) + [0] * (width - len(r)) for r in rows])
    return ids, mask

def predict(rows, pad_id):
    model = Classifier(1000)
    ids, mask = collate(rows, pad_id)
    return model(ids, mask).argmax(-1)
""",
    ]

    @classmethod
    def may_fire(cls, look) -> bool:
        # The finding is at the keyword in this file: its own text must hold it (no imported helper's words,
        # whose reading costs more than this rule's whole question).
        return "key_padding_mask" in look.lower

    @classmethod
    def scopes(cls, look) -> set | None:
        return None  # the mask may be made anywhere the layer's caller reads it from

    def check(self, facts: ModuleFacts) -> Iterable[Finding]:
        for event in facts.real_tokens_as_ignored_keys:
            layer = event.layer.rsplit(".", 1)[-1]
            message = (
                f"this mask is 1 (True) at the real tokens, and `{layer}` ignores the keys where "
                f"`{event.keyword}` is True: the real tokens are hidden and the pads attended"
            )
            yield Finding(event.node, message, self.fix(facts, event))

    def fix(self, facts: ModuleFacts, event: RealTokensAsIgnoredKeys) -> FixProposal:
        code = facts.code(event.node)
        return FixProposal(Applicability.SAFE, "Pass the mask of the pads", ((event.node, f"({code}) == 0"),))
