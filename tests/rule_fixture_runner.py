"""Load a rule fixture (tests/fixtures/rules/PADnnn/*.py), fixed or not, and run it on the ragged batch.

Rule fixtures are shaped like real code: some load a tokenizer or a model at import time
(`AutoTokenizer.from_pretrained(...)`). While a fixture is imported here, `transformers` is a stand-in
module whose `from_pretrained` hands out the run's stand-in tokenizer (a fresh one per call, as two
checkpoints give two tokenizers) or a recording model; nothing is downloaded. Fixed code that names
another transformers class (a collator the fix swaps in) gets the real one when it is installed.
"""

from __future__ import annotations

import importlib.util
import sys
import types
from contextlib import contextmanager
from pathlib import Path

from standin_tokenizer import PAD_ID, PAD_TOKEN, StandInTokenizer
from test_fix_execution import load_module

RULE_FIXTURES = Path(__file__).parent / "fixtures" / "rules"


class StandInCheckpointTokenizer(StandInTokenizer):
    """A stand-in tokenizer that also takes `add_special_tokens({"pad_token": ...})`."""

    def add_special_tokens(self, tokens: dict) -> int:
        if tokens.get("pad_token") == PAD_TOKEN:
            self.pad_token = PAD_TOKEN
            self.pad_token_id = PAD_ID
        return 0


class RecordingEncoder:
    """A stand-in model: records each call's arguments (positional ids as `input_ids`) and answers
    with zero hidden states and logits of the ids' shape, and `generate` with the ids it was given."""

    def __init__(self):
        self.calls: list[dict] = []
        self.encoder = self  # `seq2seq.encoder(...)`: the encoder half is a model too

    def _record(self, args, kwargs) -> dict:
        seen = dict(kwargs)
        if args:
            seen.setdefault("input_ids", args[0])
        self.calls.append(seen)
        return seen

    def __call__(self, *args, **kwargs):
        import torch

        ids = self._record(args, kwargs)["input_ids"]
        hidden = torch.zeros(*ids.shape, 4)
        return types.SimpleNamespace(last_hidden_state=hidden, logits=hidden)

    def generate(self, *args, **kwargs):
        return self._record(args, kwargs)["input_ids"]

    def eval(self):
        return self


def _stand_in_transformers(pad_is_eos: bool, models: list[RecordingEncoder]) -> types.ModuleType:
    real = None
    if importlib.util.find_spec("transformers") is not None:
        import transformers as real

    class Checkpoint:
        def __init__(self, name: str):
            self.name = name

        def from_pretrained(self, *_, padding_side: str = "right", **__):
            if "Tokenizer" in self.name:
                return StandInCheckpointTokenizer(pad_is_eos=pad_is_eos, padding_side=padding_side)
            model = RecordingEncoder()
            models.append(model)
            return model

    def attribute(name: str):
        if name.startswith("Auto"):
            return Checkpoint(name)
        if real is not None:
            return getattr(real, name)
        raise AttributeError(name)

    module = types.ModuleType("transformers")
    module.__getattr__ = attribute  # PEP 562: `from transformers import X` asks the module for X
    return module


@contextmanager
def _transformers_stood_in(pad_is_eos: bool, models: list[RecordingEncoder]):
    saved = sys.modules.get("transformers")
    sys.modules["transformers"] = _stand_in_transformers(pad_is_eos, models)
    try:
        yield
    finally:
        if saved is None:
            sys.modules.pop("transformers", None)
        else:
            sys.modules["transformers"] = saved


def load_fixture(source: str, path: Path, name: str, pad_is_eos: bool):
    """Write `source` to `path`, import it with the stand-in `transformers`: (module, models it loaded)."""
    path.write_text(source)
    models: list[RecordingEncoder] = []
    with _transformers_stood_in(pad_is_eos, models):
        module = load_module(path, name)
    return module, models
