"""Why a mask or labels finding gets no fix: the `help:` line says what was missing where the code goes.

A mask (or labels masked by it) can be written from the tokenizer's own mask, from the row lengths
before padding, or, unsafely, from the pad id. When none of them is at hand at the edit point, the
finding says which were missing, so the user knows what to keep in view or what to write by hand.
"""

from __future__ import annotations

from padlint.analysis.fixshapes import is_place
from padlint.analysis.values import Padded
from padlint.rules.base import shorten

KINDS = {"pt": "tensor", "np": "array", "list": "list"}


def why_no_mask_fix(
    padded: Padded,
    ids_code: str | None,
    lengths_ok: bool,
    pad_code: str | None,
    pad_is_eos: bool,
    what: str,
    pad_eos_fallback: bool = False,
    pads_differ: bool = False,
) -> str:
    """One sentence: what a fix writing `what` ("the mask", "the labels") would have needed here and did not
    have. `pad_eos_fallback`: the module makes the pad the EOS where a tokenizer has no pad token;
    `pads_differ`: the ids are padded with different values on different paths."""
    may_be_eos = padded.pad_may_be_eos or pad_eos_fallback
    if padded.from_tokenizer and padded.template is None:
        return "the ids were reshaped after the tokenizer padded them, so its attention mask no longer lines up"
    if ids_code is not None and not is_place(ids_code) and (lengths_ok or pad_code is not None):
        return f"a fix would have to evaluate `{shorten(ids_code)}` twice: bind the padded ids to a name first"
    missing = ["attention mask of these ids"]
    if not lengths_ok:
        missing.append("row lengths before padding")
    if pads_differ:
        missing.append("single pad value (they are padded with different values on different paths)")
    elif pad_code is None and not pad_is_eos and not may_be_eos:
        missing.append("pad id")
    said = f"nothing to build {what} from is in view where the fix would go: no " + ", no ".join(missing)
    if pad_is_eos:
        said += " (and the pad token is the EOS token: comparing with the pad id would hide real EOS tokens too)"
    elif may_be_eos:
        said += " (and the pad value may be the EOS id: comparing with it would hide real EOS tokens too)"
    elif pad_code is not None and padded.kind not in KINDS:
        said += " (and whether the ids are a tensor, an array or a list is not known here)"
    return said
