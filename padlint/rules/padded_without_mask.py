"""PAD003 padded-without-mask."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

import libcst as cst

from padlint.analysis import patterns as P
from padlint.analysis.facts import MaskLost, ModuleFacts
from padlint.analysis.script_names import string_key
from padlint.rules import sites
from padlint.rules.base import Finding, FixProposal, Rule, pick_fix
from padlint.rules.catalogue import requires
from padlint.rules.edits import add_keyword as add_keyword_arg
from padlint.rules.edits import add_mask_beside_ids, delete_item
from padlint.rules.ids_without_mask import unmasked_ids_findings
from padlint.rules.keep_mask import keep_encoding
from padlint.rules.mask_through_tuple import mask_through_tuple, plain_names
from padlint.types import Applicability

MESSAGES = {
    "dropped": "`return_attention_mask=False` on a padded tokenizer call: the model never gets the mask and attends to padding",
    "subscript": "only `input_ids` is kept from a padded tokenizer call: its attention mask is lost and the model attends to padding",
    "encode": "`{method}(..., padding=...)` returns padded ids without an attention mask: the model attends to padding",
    "sink": "padded `input_ids` reach the model without the attention mask of `{encoding}`: the model attends to padding",
    "call": "padded `input_ids` go into this call without their attention mask, and reach a model inside it: the model attends to padding",
    "columns": "the dataset keeps `input_ids` of padded features but drops their `attention_mask` column",
    "decoder": "left-padded `decoder_input_ids` reach the model without `decoder_attention_mask`: the decoder's "
    "real tokens attend to the padding before them",
    "generated": "the sequences `generate` returned on line {line} keep the prompts' left padding and reach the "
    "model without an attention mask: every token attends to the pads before it",
}
GENERATED_NO_FIX = "the prompts' mask is shorter than the sequences `generate` returned"
GENERATED_MANUAL_FIX = (
    "pass `torch.cat([prompt_mask, completion_mask], dim=1)` as `attention_mask=`, the completion mask 0 after "
    "each row's first EOS"
)


# A keyword added to a call of a model whose signature is not in view may raise TypeError there.
UNSEEN = " (unsafe: the called model's signature is not in view; it must take `attention_mask=`)"


class PaddedWithoutMask(Rule):
    """The output of a padding tokenizer call loses its attention mask on the way to the model; or ids the code
    padded itself reach, with no mask, a model that reads their pads (rules/ids_without_mask.py)."""

    code = "PAD003"
    REQUIRES = requires(code)
    name = "padded-without-mask"
    summary = "Padded ids reach the model without their attention mask"
    fix_safety = (
        "safe (keep the encoding and carry its mask along); unsafe where the called model's signature is not in "
        "view; none where the ids leave the function alone or the model takes no `attention_mask`"
    )
    MANUAL_FIX = "keep the tokenizer's encoding and pass its `attention_mask` with the ids (to the model call, or in the returned features)"

    INVALID = [
        """
def predict(model, tokenizer, texts):
    ids = tokenizer(texts, padding=True, return_tensors="pt")["input_ids"]
    return model(ids).logits
""",
        """
def run(model, tokenizer, texts):
    enc = tokenizer(texts, padding="longest", return_tensors="pt")
    return model.generate(input_ids=enc["input_ids"], max_new_tokens=20)
""",
        """
from torch.nn.utils.rnn import pad_sequence
from transformers import BertForSequenceClassification

model = BertForSequenceClassification.from_pretrained("bert-base-uncased")

def classify(rows, pad_id):
    ids = pad_sequence(rows, batch_first=True, padding_value=pad_id)
    return model(ids).logits
""",
    ]
    VALID = [
        """
def run(model, tokenizer, texts):
    enc = tokenizer(texts, padding="longest", return_tensors="pt")
    return model.generate(**enc, max_new_tokens=20)
""",
        """
def score(model, tokenizer, text: str):
    ids = tokenizer(text, padding=True, return_tensors="pt")["input_ids"]
    return model(ids, labels=ids).loss
""",
        """
def run(model, tokenizer, texts):
    ids = tokenizer(texts, padding=True, return_tensors="pt")["input_ids"]
    return model(ids, attention_mask=ids.ne(tokenizer.pad_token_id)).logits
""",
        """
from torch.nn.utils.rnn import pad_sequence
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("gpt2")

def step(rows, targets, pad_id):
    ids = pad_sequence(rows, batch_first=True, padding_value=pad_id)
    labels = pad_sequence(targets, batch_first=True, padding_value=-100)
    return model(ids, labels=labels).loss
""",
    ]

    @classmethod
    def may_fire(cls, look) -> bool:
        # a padding tokenizer call or `.pad(...)`; or ids padded by the code and a model that reads pads
        return look.has("tokenizer_padding") or look.has("pad_step") and look.has("reading_model")

    @classmethod
    def scopes(cls, look) -> set | None:
        found = look.reach("tokenizer_padding")  # the padding call and wherever its output goes
        if look.has("reading_model"):
            found = found | look.reach("pad_step")  # the model is named where it is loaded, anywhere
        return found

    def check(self, facts: ModuleFacts) -> Iterable[Finding]:
        by_node: dict[cst.CSTNode, list[MaskLost]] = {}  # one finding per place, in the order first seen
        for event in facts.mask_lost:
            if not facts.is_local(event.node):
                continue  # found while following a callee of another module: reported in that module
            if event.sink in facts.rows_unconsumed:
                continue  # the rows of a dataset no model reads (a trainer that only holds it, never fed on)
            if _consumers_need_no_mask(facts, event):
                continue  # bare ids a collate function returns, read only by consumers that rebuild the mask
            if _is_feature_dict(event.sink) and facts.mask_rebuilt_from_pad_id:
                # Features without a mask, and the module rebuilds it from the pad id when it collates
                # (LLaVA-style `preprocess` + `attention_mask=input_ids.ne(pad_id)`; PAD005's business).
                continue
            if (
                event.how == "sink"
                and event.padded is not None
                and event.padded.generated_at is None  # the prompts' mask went to `generate`, not here
                and event.padded.node in facts.masks_read
            ):
                continue  # the encoding's mask is read (and used) elsewhere: the ids went on alone to a layer
            by_node.setdefault(event.node, []).append(event)
        for events in by_node.values():
            event, fix = pick_fix(events, lambda e: self.fix(facts, e))
            generated = event.padded.generated_at if event.padded is not None else None
            if generated is not None:
                line = facts.line(generated)
                message = MESSAGES["generated"].format(line=line)
                yield Finding(event.node, message, None, no_fix=GENERATED_NO_FIX, manual_fix=GENERATED_MANUAL_FIX)
                continue
            encoding = event.padded.encoding if event.padded is not None else None
            method = P.last_name(event.node.func) if isinstance(event.node, cst.Call) else "encode"
            message = MESSAGES[event.how].format(encoding=encoding or "the encoding", method=method)
            yield Finding(event.node, message, fix, no_fix=None if fix else _why_no_fix(event))
        # Ids padded by the code itself (no tokenizer mask to lose), where the model reads their pads.
        yield from (f for f in unmasked_ids_findings(facts) if f.node not in by_node)

    def fix(self, facts: ModuleFacts, event: MaskLost) -> FixProposal | None:
        if event.ids_grown:
            return None  # a mask taken once no longer fits ids a decoding loop grows (the loop must grow it too)
        if event.how == "call" or not isinstance(event.sink, cst.Call) or _is_feature_dict(event.sink):
            return self.fix_in_view(facts, event)  # a feature dict, or a callee whose parameters were checked
        if event.mask_accepted is False:
            return None  # the model call takes no `attention_mask=`: adding one raises TypeError
        proposal = self.fix_in_view(facts, event)
        if proposal is None or event.mask_accepted or proposal.applicability is not Applicability.SAFE:
            return proposal
        return dataclasses.replace(proposal, applicability=Applicability.UNSAFE, message=proposal.message + UNSEEN)

    def fix_in_view(self, facts: ModuleFacts, event: MaskLost) -> FixProposal | None:
        safe = Applicability.SAFE
        sink = event.sink
        if (
            event.how in ("subscript", "encode")
            and event.padded is not None
            and sink is not None
            and _takes_a_mask(sink)
        ):
            # name the encoding where the ids are split off it, and hand its mask to where they go
            kept = keep_encoding(facts, event.padded, (sink,))
            edit = add_mask_beside_ids(facts, sink, kept.mask_where_ids_are()) if kept is not None else None
            if kept is None or edit is None:
                # returned in a tuple that a loop of another function unpacks: carry the mask through it
                return mask_through_tuple(facts, event)
            *named, split = kept.edits
            at_sink = sites.fit_line(facts, [split, edit])  # one line: broken up together
            if at_sink == [split, edit]:
                at_sink = [split, *sites.fit_line(facts, [edit])]
            title = "Keep the tokenizer's encoding and pass its attention mask along" + _left_padding_caveat(event)
            return FixProposal(safe, title, (*named, *at_sink))
        if event.how in ("subscript", "encode") and event.padded is not None and isinstance(sink, cst.Subscript):
            return _mask_stored_beside(facts, event.padded, sink)
        if event.how == "dropped":
            if _new_mask_reaches_nothing(event):
                return None  # the ids went on changed (joined, rebuilt): the call's new mask would reach nothing
            made = event.padded or event.encoding  # a dropped mask comes with one of them
            call = made.node if made is not None else None
            if not isinstance(call, cst.Call):
                return None
            edit = delete_item(facts, call, list(call.args), event.node)
            return FixProposal(safe, "Drop `return_attention_mask=False`", (edit,)) if edit else None
        if event.how == "sink" and event.mask_code and event.sink is not None:
            edit = add_mask_beside_ids(facts, event.sink, event.mask_code)
            title = "Pass the tokenizer's attention mask along" + _left_padding_caveat(event)
            return FixProposal(safe, title, (edit,)) if edit else None
        if event.how == "call" and isinstance(event.node, cst.Call) and event.padded is not None:
            return _mask_into_callee(facts, event.node, event.sink, event.padded.encoding_mask())
        if event.how == "columns" and isinstance(event.sink, cst.Call):
            edit = _columns_with_mask(facts, event.sink)
            return FixProposal(safe, "Keep the `attention_mask` column", (edit,)) if edit else None
        return None


def _mask_stored_beside(facts: ModuleFacts, padded, sink: cst.Subscript) -> FixProposal | None:
    """`example["input_ids"] = tokenizer(texts, padding=...).input_ids` in a map function: name the
    encoding and store its mask under `"attention_mask"` of the same features, right after the ids.
    Not where the function stores a mask there already (another finding's business) or the features
    are not a plain name."""
    if string_key(sink) != "input_ids" or not isinstance(sink.value, cst.Name):
        return None
    site = sites.site_of(facts, sink)
    fn = sites.enclosing(facts, sink, cst.FunctionDef)
    if site is None or fn is None or _stores_key(fn, sink.value.value, "attention_mask"):
        return None
    kept = keep_encoding(facts, padded, (sink,))
    if kept is None:
        return None
    container = sink.value.value
    mask = f"{container}[{sites.key(facts, 'attention_mask')}] = {kept.mask_where_ids_are()}"
    *named, split = kept.edits
    edits = (*named, *sites.fit_line(facts, [split]), site.insertion_after([mask]))
    return FixProposal(
        Applicability.SAFE, "Keep the tokenizer's encoding and store its attention mask beside the ids", edits
    )


def _stores_key(fn: cst.FunctionDef, container: str, key: str) -> bool:
    """Does `fn` store anything under `container[key]`?"""
    return any(
        isinstance(node, cst.AssignTarget)
        and isinstance(node.target, cst.Subscript)
        and isinstance(node.target.value, cst.Name)
        and node.target.value.value == container
        and string_key(node.target) == key
        for node in P.walk(fn)
    )


def _left_padding_caveat(event: MaskLost) -> str:
    """`generate` continues each row after its last position: for a decoder-only model the mask alone
    does not help prompts padded on the right, whose new tokens follow their pads (PAD013 reports that
    where the side is known). Where the side is not known to be left, the title says so."""
    sink = event.sink
    if not (isinstance(sink, cst.Call) and P.last_name(sink.func) == "generate"):
        return ""
    if event.padded is not None and event.padded.side == "left":
        return ""  # told so, by the call or the module
    return ' (for a decoder-only model, also pad the prompts on the left: padding_side="left")'


def _mask_into_callee(facts: ModuleFacts, call: cst.Call, sink, mask_code: str | None) -> FixProposal | None:
    """The ids go into a function of this module that hands its own mask parameter to the model
    (`forward(self, input_ids, attention_mask=None)`): pass the encoding's mask to that parameter."""
    if mask_code is None or not isinstance(sink, cst.Call) or any(a.star for a in call.args):
        return None
    given = P.keyword(sink, "attention_mask")
    if given is None or not isinstance(given.value, cst.Name):
        return None
    callee = sites.enclosing(facts, sink, cst.FunctionDef)
    if callee is None or not _called_here(call, callee):
        return None
    param = given.value.value
    names = [p.name.value for p in P.parameters(callee.params) if p.star not in ("*", "**")]
    posonly = {p.name.value for p in callee.params.posonly_params}
    if param not in names or param in posonly or P.keyword(call, param) is not None or _rebinds(callee, param):
        return None
    edit = add_keyword_arg(facts, call, param, mask_code)
    title = f"Pass the tokenizer's attention mask to `{param}`"
    return FixProposal(Applicability.SAFE, title, tuple(sites.fit_line(facts, [edit]))) if edit else None


def _called_here(call: cst.Call, callee: cst.FunctionDef) -> bool:
    """Is `callee` what `call` runs: the function or method of that name, or a module's `forward`
    (`__call__`) for a call of the instance itself?"""
    name = P.last_name(call.func)
    return name == callee.name.value or (
        callee.name.value in ("forward", "__call__") and isinstance(call.func, cst.Name)
    )


def _rebinds(fn: cst.FunctionDef, name: str) -> bool:
    """Does the function assign `name` anywhere (then the parameter may not be what reaches the model)?"""
    found: list[str] = []

    class _Targets(cst.CSTVisitor):
        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            found.extend(n for n in plain_names(node.target) if n == name)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            found.extend(n for n in plain_names(node.target) if n == name)

        def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
            found.extend(n for n in plain_names(node.target) if n == name)

    fn.body.visit(_Targets())
    return bool(found)


def _new_mask_reaches_nothing(event: MaskLost) -> bool:
    """Did the ids of a call whose mask was turned off go on alone, changed on the way (`s + t` of two
    padded calls) or to no place that takes a mask? Ids derived from the encoding as its mask can be
    (`enc["input_ids"].squeeze(0)`), reaching such a place, get the mask there on the fix's next pass once
    the call makes it again; an encoding that goes on whole carries it."""
    padded = event.padded
    if padded is None or event.encoding is not None:
        return False
    return padded.template is None or not _takes_a_mask(event.sink)


def _takes_a_mask(sink) -> bool:
    """A model call or a feature dict: a place the mask can go beside the ids."""
    return isinstance(sink, (cst.Call, cst.Dict))


def _why_no_fix(event: MaskLost) -> str | None:
    if event.ids_grown:
        return (
            "a loop around the model call grows the ids (a decoding loop), so a mask taken once fits only its "
            "first pass: grow the mask with the ids (a 1 for each token added)"
        )
    if event.mask_accepted is False and isinstance(event.sink, cst.Call) and not _is_feature_dict(event.sink):
        return "the model called here takes no `attention_mask` parameter (nor `**kwargs`): give its forward one first"
    if event.how in ("subscript", "encode", "sink") and not _takes_a_mask(event.sink):
        return "the ids leave this function without a place for the mask (returned or passed on alone)"
    if event.how in ("subscript", "encode") and isinstance(event.node, cst.Tuple) and event.sink is not None:
        # returned beside other values and unpacked by the caller before the model call
        return (
            "the ids are returned in a tuple that a caller unpacks before the model call where no fix can follow them: "
            "return the encoding's `attention_mask` in the tuple too, unpack it there and pass it as `attention_mask=`"
        )
    if event.how in ("subscript", "encode"):
        return "the encoding cannot be named where the ids are used (another function, or a branch)"
    if event.how == "dropped" and _new_mask_reaches_nothing(event):
        return (
            "the ids go on changed (joined or rebuilt): dropping `return_attention_mask=False` would make a mask "
            "that nothing hands on and that does not fit them"
        )
    if event.how == "decoder":
        return "pass the decoder encoding's mask as `decoder_attention_mask=` (or pad the decoder inputs on the right)"
    return None


def _consumers_need_no_mask(facts: ModuleFacts, event: MaskLost) -> bool:
    """Bare ids returned by a collate function are judged where its batches are consumed: when every
    call receiving them is in view and makes the mask itself from the pad id (`generate` of an
    encoder-decoder with a dedicated pad token) or refuses one, the mask lost at the return harms nothing.
    A consumer that needs it reports the same place; one not in view keeps the finding."""
    consumers = facts.batch_consumers.get(event.sink) if event.sink is not None else None
    return bool(consumers) and all(call in facts.mask_not_needed_at for call in consumers or ())


def _is_feature_dict(node) -> bool:
    return isinstance(node, cst.Dict) or (
        isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "dict"
    )


def _columns_with_mask(facts: ModuleFacts, call: cst.Call) -> tuple | None:
    for arg in call.args:
        value = arg.value
        if not isinstance(value, (cst.List, cst.Tuple)):
            continue
        elements = list(value.elements)
        names = [P.string_value(e.value) for e in elements]
        if P.last_name(call.func) == "remove_columns":
            if "attention_mask" in names and len(elements) > 1:
                return delete_item(facts, value, elements, elements[names.index("attention_mask")])
            continue
        if "input_ids" in names:
            element = elements[names.index("input_ids")]
            quote = element.value.value[0] if isinstance(element.value, cst.SimpleString) else '"'
            end = facts.range_of(element.value).end
            return (end, end, f", {quote}attention_mask{quote}")
    return None
