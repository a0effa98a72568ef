"""PAD006 label-pad-not-ignored."""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from padlint.analysis import fixshapes
from padlint.analysis import patterns as P
from padlint.analysis.facts import LabelsPaddedWithToken, ModuleFacts
from padlint.analysis.ignores_beside import label_value_of
from padlint.analysis.loader_uses import nearest, parents_of
from padlint.analysis.value_writes import other_writes
from padlint.analysis.values import Context, Padded
from padlint.rules import sites
from padlint.rules.base import (
    Finding,
    FixProposal,
    Rule,
    unsafe_where_ignore_differs,
    withheld_where_minus_100_breaks,
)
from padlint.rules.catalogue import requires
from padlint.rules.edits import add_keyword, delete_item, ignore_spelling
from padlint.rules.labels_not_masked import (
    pad_labels_with_ignore,
    padded_by_their_own_step,
    replaced_by_lm_collator,
    unmasked_labels,
)
from padlint.types import Applicability

MESSAGES = {
    "padding_value": "labels are padded with `{pad}`{what}, not -100: {harm}",
    "list": "labels are padded with `{pad}`{what}, not -100: {harm}",
    "collator": "`label_pad_token_id={pad}` pads labels with {what_alone} instead of -100: {harm}",
    "zeros": "labels are a zero buffer filled row by row: the padding holds 0, not -100, and the loss trains on it",
    "text_target": "targets padded by the tokenizer keep the pad id as their label: set pad positions to -100 before training",
}


class LabelPadNotIgnored(Rule):
    """Labels padded with the pad id (or 0, or -1) where the loss ignores only -100."""

    code = "PAD006"
    REQUIRES = requires(code)
    name = "label-pad-not-ignored"
    summary = "Labels padded with the pad id, 0 or -1 where the loss ignores -100"
    fix_safety = "safe (pad labels with -100; text_target= labels masked by their mask); unsafe for a sentinel with no loss in view"
    MANUAL_FIX = "pad the labels with -100, the value the loss ignores"

    INVALID = [
        """
import torch
from torch.nn.utils.rnn import pad_sequence

def collate(batch, pad_id):
    labels = pad_sequence([torch.tensor(b["labels"]) for b in batch], batch_first=True, padding_value=pad_id)
    return {"labels": labels}
""",
    ]
    VALID = [
        """
import torch
from torch.nn.utils.rnn import pad_sequence

def collate(batch, pad_id):
    labels = pad_sequence([torch.tensor(b["labels"]) for b in batch], batch_first=True, padding_value=-100)
    return {"labels": labels}
""",
    ]

    @classmethod
    def may_fire(cls, look) -> bool:
        return look.has("label_pad_id") or look.linked(
            "pad_step", "labels"
        )  # a label pad id, or a padding step connected to labels

    @classmethod
    def scopes(cls, look) -> set | None:
        return None if look.has("label_pad_id") else look.reach("pad_step", "labels")

    def check(self, facts: ModuleFacts) -> Iterable[Finding]:
        ignored = {loss.value for loss in facts.loss_ignores}
        # the values the module's own losses skip, those of the table and those told so (`ignore_index=`)
        skipped = ignored | set(facts.ignores_told)
        for event in facts.labels_padded_with_token:
            pad = event.pad_arg
            pad_node = pad.value if isinstance(pad, cst.Arg) else pad
            if "pad" in skipped and pad_node is not None and P.is_pad_id_expression(pad_node):
                continue  # the module's loss ignores the pad id itself (PAD007 checks that it agrees)
            if "pad" in skipped and event.how == "text_target" and not _graded_otherwise(facts, event, "pad"):
                continue  # targets the tokenizer padded hold its pad id, which a loss here is told to skip
            if ignored and pad_node is not None and not P.is_pad_id_expression(pad_node) and event.how != "collator":
                continue  # a sentinel such as -1 with a loss in view: PAD007 says which end to change
            if pad_node is not None and event.how in ("padding_value", "list") and _marks(facts, pad_node):
                continue  # the module marks the labels it does not train on with this value: its own ignore value
            pad_token_may_be_eos = facts.pad_token_set_to_eos or bool(facts.pad_eos_fallbacks)
            if pad_node is not None and P.is_eos_expression(pad_node) and not pad_token_may_be_eos:
                continue  # EOS fill while the pad token is another: a target trained on on purpose (diffusion LMs)
            # No value given: the padding step's default fill, 0 (label_values.py reads it so)
            value = label_value_of(pad_node) if pad_node is not None else 0 if event.how == "padding_value" else None
            if _every_grader_skips(facts, event, value):
                continue  # each loss in view that grades these labels ignores their fill (`ignore_index=0`)
            if _read_out_of_view(facts, value, event.node):
                continue  # no loss here grades them, and the project's own readers skip this value
            if event.how == "text_target" and replaced_by_lm_collator(facts, event.sink_kind):
                continue  # the LM collator the module makes builds the labels again from the ids
            if event.sink is not None and facts.held_with_loss_mask(event.sink):
                continue  # handed on with a loss mask of their own (`response_mask`): the reader weighs the pads out
            if event.how == "collator" and facts.label_rows_one_width and all(facts.label_rows_one_width):
                continue  # every label row stored is of one width: a collator pads only rows that differ
            if _in_rows_no_model_reads(facts, event):
                continue  # stored in rows of a mapped dataset that nothing reads (dataset_uses.py)
            shown = facts.brief(pad_node) if pad_node is not None else "0"
            message = MESSAGES[event.how].format(pad=shown, **_pad_value_words(pad_node))
            fix, withheld, by_hand = withheld_where_minus_100_breaks(
                facts, unsafe_where_ignore_differs(facts, self.fix(facts, event, pad_node))
            )
            elsewhere = _written_elsewhere(facts, event, pad_node) if fix is not None else None
            if fix is not None and elsewhere is None and event.how in ("padding_value", "list"):
                elsewhere = _padding_helper_shared(facts, event.node)  # (the fix rewrites the fill itself)
            if elsewhere is not None:
                fix, withheld, by_hand = None, *elsewhere
            yield Finding(event.node, message, fix, no_fix=withheld, manual_fix=by_hand)
        yield from self.padded_as_labels(facts, skipped)

    def padded_as_labels(self, facts: ModuleFacts, skipped: set) -> Iterable[Finding]:
        """Labels made by a padding step of their own that fills with the pad id, from whatever they
        hold (`[[pad] * gap + f["input_ids"] for f in features]`): padded with a token, not -100."""
        reported = {
            id(e.pad_arg.value if isinstance(e.pad_arg, cst.Arg) else e.pad_arg) for e in facts.labels_padded_with_token
        }
        for events in unmasked_labels(facts).values():
            event = events[0]
            pad_node = event.padded.pad
            if pad_node is None or not padded_by_their_own_step(facts, event) or id(pad_node) in reported:
                continue
            if "pad" in skipped and P.is_pad_id_expression(pad_node):
                continue  # the module's loss ignores the pad id itself
            message = MESSAGES["list"].format(pad=facts.brief(pad_node), **_pad_value_words(pad_node))
            yield Finding(event.padded.node, message, pad_labels_with_ignore(facts, event))

    def fix(
        self, facts: ModuleFacts, event: LabelsPaddedWithToken, pad_node: cst.BaseExpression | None
    ) -> FixProposal | None:
        ignore = ignore_spelling(facts)
        title = "Pad the labels with -100"
        # A sentinel such as -1 or 0 may be what a loss out of view ignores (a collator's unit test may
        # assert it): -100 is right for sure only when a loss here ignores -100. The pad id and the EOS id
        # are tokens: no loss ignores them on purpose.
        sentinel = pad_node is not None and not (P.is_pad_id_expression(pad_node) or P.is_eos_expression(pad_node))
        in_view = any(loss.value == -100 for loss in facts.loss_ignores)
        safety = Applicability.UNSAFE if sentinel and not in_view else Applicability.SAFE
        if safety is Applicability.UNSAFE:
            title += " (assumes the loss ignores -100, as transformers models do: no loss is in view)"
        if event.how in ("padding_value", "list") and pad_node is not None:
            return FixProposal(safety, title, ((pad_node, ignore),))
        func = event.node.func if isinstance(event.node, cst.Call) else None
        padding_step = facts.imports.qualify(func) if isinstance(func, (cst.Name, cst.Attribute)) else None
        if event.how == "padding_value" and isinstance(event.node, cst.Call) and padding_step in P.PAD_SEQUENCE:
            edit = add_keyword(facts, event.node, "padding_value", ignore)  # its default fill, 0, left out
            return FixProposal(safety, title, (edit,)) if edit else None
        if event.how in ("zeros", "padding_value") and isinstance(event.node, cst.Call):
            # a zero buffer the labels' rows are written into (`torch.zeros(B, L).long()`): no `padding_value`
            code = _filled_with(facts, event.node, ignore)
            return (
                FixProposal(
                    Applicability.SAFE if event.how == "zeros" else safety,
                    "Start the labels from -100, not 0",
                    ((event.node, code),),
                )
                if code
                else None
            )
        if event.how == "text_target":
            return _mask_target_labels(facts, event)
        if event.how == "collator" and isinstance(event.node, cst.Call):
            edit = delete_item(facts, event.node, list(event.node.args), event.pad_arg)
            title = "Drop `label_pad_token_id` (the default is -100)" + title[len("Pad the labels with -100") :]
            return FixProposal(safety, title, (edit,)) if edit else None
        return None


def _written_elsewhere(
    facts: ModuleFacts, event: LabelsPaddedWithToken, pad_node: cst.BaseExpression | None
) -> tuple[str, str] | None:
    """Why not to rewrite the fill alone, and what to do by hand, where the function writes the same
    constant into the same labels at another statement (`labels.append(42)` at the special tokens, a
    second `np.pad(labels, ..., constant_values=42)`): the fix would leave the labels marking skipped
    positions two ways (value_writes.py)."""
    value = P.int_value(pad_node)
    node = event.node
    if value is None or facts.module is None:
        return None
    first = node.args[0].value if isinstance(node, cst.Call) and node.args else None
    first = node.left if isinstance(node, cst.BinaryOperation) else first
    if not isinstance(first, cst.Name):
        return None
    parents = parents_of(facts.module)
    scope = nearest(parents, node, cst.FunctionDef)
    others = other_writes(scope or facts.module, first.value, value, node, parents)
    if not others:
        return None
    why = f"`{value}` also labels other positions of `{first.value}` ({facts.at(others[0])})"
    return why, f"write -100 in place of `{value}` at each of them, or make the loss skip `{value}`"


def _padding_helper_shared(facts: ModuleFacts, node: cst.CSTNode) -> tuple[str, str] | None:
    """Why not to rewrite the fill where the padding sits in a module function called at more than one
    place (`collate_fn(src)`, `collate_fn(tgt)`): the same fill pads what the other calls hand it, input
    ids among them, and -100 there reaches an embedding."""
    if facts.module is None:
        return None
    scope = nearest(parents_of(facts.module), node, cst.FunctionDef)
    if not isinstance(scope, cst.FunctionDef) or not any(scope is stmt for stmt in facts.module.body):
        return None
    name = scope.name.value
    calls = [n for n in P.walk(facts.module) if isinstance(n, cst.Call) and P.dotted(n.func) == name]
    if len(calls) < 2:
        return None
    why = f"`{name}` pads what each of its {len(calls)} calls hands it, not only these labels ({facts.at(calls[0])})"
    return why, "pad the labels with -100 where they are padded for the loss, or give the helper the pad value"


def _ignored_by_graders(facts: ModuleFacts, event: LabelsPaddedWithToken) -> list[int | str | None]:
    """What each place in view that grades these padded labels ignores (a loss, a model given `labels=`)."""
    padded = id(event.padded.node if event.padded is not None else event.node)
    return [r.ignored for r in facts.labels_reaching if r.graded_there and padded in r.tags]


def _graded_otherwise(facts: ModuleFacts, event: LabelsPaddedWithToken, fill: int | str) -> bool:
    """Does a place in view grade these padded labels ignoring another value than their fill (a model
    given `labels=`, whose loss skips only -100)?"""
    return any(ignored != fill for ignored in _ignored_by_graders(facts, event))


def _every_grader_skips(facts: ModuleFacts, event: LabelsPaddedWithToken, value: int | str | None) -> bool:
    """Is every place in view that grades these padded labels one that ignores the value they are padded with
    (at least one: a loss told `ignore_index=` the fill, `NLLLoss(ignore_index=0)` over a zero buffer)?"""
    fill = 0 if value is None and event.how == "zeros" else value
    ignored = _ignored_by_graders(facts, event) if fill is not None else []
    return bool(ignored) and all(value == fill for value in ignored)


def _read_out_of_view(facts: ModuleFacts, value: int | str | None, at: cst.CSTNode) -> bool:
    """Do the labels padded at `at` go to a reader out of view (no loss here grades token labels) that
    may skip `value`: a loss or metric of the module, or of a module importing what holds them?"""
    if value is None or any(loss.labels_target for loss in facts.loss_ignores):
        return False
    return facts.ignored_by_readers(value, sites.top_level_name(facts, at))


def _marks(facts: ModuleFacts, pad_node: cst.BaseExpression) -> bool:
    """Is the pad value one the module also writes over labels that are not padding (`[-1] * len(prompt)`,
    `[pad_id] * len(prompt)`)?"""
    value = P.int_value(pad_node)
    if value is None:
        return P.is_pad_id_expression(pad_node) and P.PAD_ID_MARK in facts.label_marks
    return value in facts.label_marks


TRAINS_ON_PADDING = "the loss trains on the padding"
NOT_IGNORED = "a loss that ignores -100 does not ignore them"


def _pad_value_words(pad_node: cst.BaseExpression | None) -> dict[str, str]:
    """What the label pad value is, for the message: a token id (the pad id, a literal >= 0: the loss
    learns to predict it), a negative sentinel (no token: a loss that ignores -100 still reads it, and
    rejects it as a class), or a value the code does not show."""
    value = 0 if pad_node is None else P.int_value(pad_node)
    if (pad_node is not None and P.is_pad_id_expression(pad_node)) or (value is not None and value >= 0):
        return {"what": " (a token id)", "what_alone": "a token id", "harm": TRAINS_ON_PADDING}
    if value is not None:
        return {"what": " (a sentinel, no token id)", "what_alone": f"the sentinel {value}", "harm": NOT_IGNORED}
    return {"what": "", "what_alone": "a value that is not -100", "harm": NOT_IGNORED}


def _filled_with(facts: ModuleFacts, call: cst.Call, value: str) -> str | None:
    """`torch.zeros(B, L, dtype=d)` -> `torch.full((B, L), -100, dtype=d)`; `x.new_zeros(B, L)` -> `x.new_full(...)`."""
    func = facts.code(call.func)
    if not func.endswith("zeros"):
        return None  # `torch.full(shape, 0)`: its fill is the one argument to change
    dims = [a for a in call.args if a.keyword is None]
    if not dims or any(a.star for a in dims):
        return None
    shape = facts.code(dims[0].value) if len(dims) == 1 else "(" + ", ".join(facts.code(a.value) for a in dims) + ")"
    rest = "".join(f", {facts.code(a.keyword)}={facts.code(a.value)}" for a in call.args if a.keyword is not None)
    if P.keyword(call, "dtype") is None and not func.endswith("new_zeros"):
        # `zeros` without a dtype makes floats, `full` takes the fill's type: an int would change the dtype
        # (and `requires_grad=True` refuses integers)
        value = f"{value}.0" if P.int_value(cst.parse_expression(value)) is not None else f"float({value})"
    return f"{func[: -len('zeros')]}full({shape}, {value}{rest})"


TARGET_TITLE = "Set the labels of padding positions to -100 (from the targets' attention mask)"


def _mask_target_labels(facts: ModuleFacts, event: LabelsPaddedWithToken) -> FixProposal | None:
    """Targets tokenized with padding become labels with the pad id at every pad: mask them by the
    targets' own attention mask (the tokenizer's, so a real token equal to the pad id keeps its label)."""
    padded = event.padded
    if padded is not None and event.labels_at is not None and event.labels_code and padded.encoding_mask():
        # `labels = tok(text_target=...)`, then `features["labels"] = labels["input_ids"]`
        shape = fixshapes.masked_labels(
            padded,
            event.labels_code,
            padded.encoding_mask(),
            Context(),
            lengths_ok=False,
            gap_ok=False,
            pad_code=None,
            pad_is_eos=True,
        )
        if shape is None:
            return None
        fix = shape.proposal(event.labels_at, facts)
        fix.message = TARGET_TITLE
        return fix
    if event.encoding is not None:
        return _retokenize_targets(facts, event)
    return None


def _retokenize_targets(facts: ModuleFacts, event: LabelsPaddedWithToken) -> FixProposal | None:
    """`inputs = tok(texts, text_target=targets, padding=...)` returns labels without their mask: after
    it, tokenize the targets alone with the same options (that encoding has their mask) and mask them."""
    enc = event.encoding
    call = enc.node if enc is not None else None
    if enc is None or not isinstance(call, cst.Call):
        return None
    site = sites.site_of(facts, call)
    if site is None or not isinstance(site.statement, cst.SimpleStatementLine) or len(site.statement.body) != 1:
        return None
    assign = site.statement.body[0]
    if not (isinstance(assign, cst.Assign) and assign.value is call and len(assign.targets) == 1):
        return None
    holder = facts.code(assign.targets[0].target)
    positional = [a for a in call.args if a.keyword is None]
    if len(positional) > 1 or any(a.star for a in call.args):
        return None  # a text pair or unpacked options: the targets' own call is not a copy of the options
    options = [f"{a.keyword.value}={facts.code(a.value)}" for a in call.args if a.keyword is not None]
    name = site.fresh("target_encoding")
    ids, mask = f"{name}[{sites.key(facts, 'input_ids')}]", f"{name}[{sites.key(facts, 'attention_mask')}]"
    target = Padded(call, kind=enc.kind, rows=enc.rows)
    shape = fixshapes.masked_labels(
        target, ids, mask, Context(), lengths_ok=False, gap_ok=False, pad_code=None, pad_is_eos=True
    )
    if shape is None or shape.setup:
        return None
    tokenize = f"{name} = {facts.code(call.func)}({', '.join(options)})"
    labels = f"{holder}[{sites.key(facts, 'labels')}] = {shape.code}"
    return FixProposal(Applicability.SAFE, TARGET_TITLE, (site.insertion_after([tokenize, labels]),))


def _in_rows_no_model_reads(facts: ModuleFacts, event: LabelsPaddedWithToken) -> bool:
    """Are the labels stored into the feature dict of a mapped function whose rows no model reads?"""
    where = event.labels_at if event.labels_at is not None else event.node
    return any(P.contains(rows, where) for rows in facts.rows_unconsumed)
