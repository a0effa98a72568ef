"""What every rule is: a code, a name, a message, a docs page, fix safety and its own examples."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, ClassVar, TypeVar

from padlint.types import Applicability

if TYPE_CHECKING:
    import libcst as cst

    from padlint.analysis.facts import ModuleFacts
    from padlint.look.first_look import Look

DOCS_BASE = "https://github.com/padlint/padlint/blob/main/docs/rules/"


@dataclass
class FixProposal:
    """A fix as the rule sees it: replace (or insert at) CST positions with code."""

    applicability: Applicability
    message: str
    # (node, code): the node's text becomes the code; (start, end, code): the text between two
    # libcst CodePositions does (insertions and deletions that keep the layout around them).
    replacements: tuple
    needs_torch: bool = False  # the code uses `torch`, which the module does not import yet
    import_lines: tuple = ()  # import statements the code needs, added after the module's imports
    # Edits of another module of the project (padlint.types.Edit with its filename), where the harm is
    # repaired: the caller that unpacks what this module returns (rules/elsewhere.py).
    elsewhere: tuple = ()


@dataclass
class Finding:
    """What a rule reports before the engine turns it into a Diagnostic."""

    node: cst.CSTNode
    message: str
    fix: FixProposal | None = None
    confidence: str = "high"
    # Without a fix: why there is none here (the rule's MANUAL_FIX says what to change by hand).
    no_fix: str | None = None
    statement: cst.CSTNode | None = None  # for suppressions; defaults to the node's statement
    manual_fix: str | None = None  # what to change by hand here, where the rule's MANUAL_FIX does not fit


class Rule:
    """Base class. The class docstring is the rule's documentation page (Markdown)."""

    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]  # one line, for `padlint rules`
    fix_safety: ClassVar[str]  # "safe", "unsafe", "sometimes safe", "none"
    # What to change by hand when a finding has no fix: the second half of its `help:` line.
    MANUAL_FIX: ClassVar[str] = ""
    # Words (case-insensitive substrings) without which the rule cannot fire; the source must contain
    # at least one. Empty: it may fire on any source. padlint.look.prefilter skips libcst for a file that
    # no enabled rule can fire on, so keep this a necessary condition of the analysis.
    REQUIRES: ClassVar[tuple[str, ...]] = ()
    VALID: ClassVar[list[str]] = []
    INVALID: ClassVar[list[str]] = []

    @classmethod
    def may_fire(cls, look: Look) -> bool:
        """The sharp first look (padlint.look.first_look): False only if the rule cannot fire on this text.

        Like REQUIRES, a necessary condition of the analysis, never a sufficient one."""
        return True

    @classmethod
    def scopes(cls, look: Look) -> set | None:
        """The scopes (first_look unit indices) that hold everything this rule's findings need, or
        None: the whole file. Only asked when may_fire is True."""
        return None

    @classmethod
    def url(cls) -> str:
        return f"{DOCS_BASE}{cls.code}.md"

    @classmethod
    def page(cls) -> str:
        """The Markdown page for this rule (what `padlint rule CODE` prints)."""
        body = textwrap.dedent(cls.__doc__ or "").strip()
        return f"# {cls.code} `{cls.name}`\n\n{body}\n"

    def check(self, facts: ModuleFacts) -> Iterable[Finding]:
        raise NotImplementedError

    @classmethod
    def no_fix_help(cls, finding: Finding) -> str | None:
        """The `help:` text of a finding without a fix: why (when the rule said), then what to do by hand."""
        if finding.fix is not None:
            return None
        parts = [p for p in (finding.no_fix, finding.manual_fix or cls.MANUAL_FIX) if p]
        return "; ".join(parts) or None


EventT = TypeVar("EventT")
_PREFERENCE = (Applicability.SAFE, Applicability.UNSAFE, Applicability.DISPLAY_ONLY)


def pick_fix(
    events: Sequence[EventT], fix_of: Callable[[EventT], FixProposal | None]
) -> tuple[EventT, FixProposal | None]:
    """One finding seen through several events (the same ones reaching a feature dict, then the model
    call): the event whose fix to offer. The first safe fix, else the first unsafe one, else the
    first suggestion; with none, the first event. A fix one place cannot take (a row of the batch in
    a comprehension) does not keep the finding from the fix another place takes."""
    best: tuple[int, EventT, FixProposal | None] | None = None
    for event in events:
        fix = fix_of(event)
        rank = _PREFERENCE.index(fix.applicability) if fix is not None else len(_PREFERENCE)
        if best is None or rank < best[0]:
            best = (rank, event, fix)
        if rank == 0:
            break
    assert best is not None, "pick_fix needs an event"
    return best[1], best[2]


def shorten(code: str, width: int = 40) -> str:
    """Code for a one-line message: whitespace collapsed, cut with an ellipsis."""
    text = " ".join(code.split())
    return text if len(text) <= width else text[: width - 3] + "..."


def another_ignore_value_in_view(facts: ModuleFacts) -> bool:
    """Does the module show an ignore value other than -100: labels it marks with another value over
    positions that are not padding (`[pad_id] * len(prompt)`), or a loss given another `ignore_index`
    (here, or in the project's code beside it: analysis/ignores_beside.py), or a model of its own whose
    `forward` reads labels any way it likes (analysis/project_models.py)?
    Then which loss reads these labels decides whether -100 is right (a loss ignoring the pad id raises
    on a -100 target), and that loss is not in view: a fix writing -100 is unsafe there."""
    from padlint.analysis import patterns as P
    from padlint.analysis.project_models import project_model_reads_labels

    return (
        bool(facts.label_marks)
        or any(loss.value is not None and loss.value != P.IGNORE_VALUE for loss in facts.loss_ignores)
        or any(value != P.IGNORE_VALUE for value in facts.ignored_beside())
        or project_model_reads_labels(facts.filename, facts.source_text)
    )


def withheld_where_minus_100_breaks(
    facts: ModuleFacts, fix: FixProposal | None
) -> tuple[FixProposal | None, str | None, str | None]:
    """`fix` (writing -100 into labels), or None with why and what to do by hand where a reader of the
    labels breaks on -100: one in view (this module or one importing it) that decodes them as token ids
    without mapping -100 back (decoding -100 raises), or a model the project uses that feeds its labels to
    the decoder as input ids (labels_as_inputs.py: -100 reaches an embedding)."""
    if fix is None:
        return None, None, None
    from padlint.analysis.label_decoders import labels_decoded_beside

    reader = labels_decoded_beside(facts.filename, facts.source_text)
    if reader is not None:
        why = f"{reader} decodes labels as token ids (`batch_decode(labels)`) and -100 is no token id"
        return None, why, "map -100 back to the pad id before decoding, then set the labels of the pads to -100"
    shared = facts.labels_given_as_inputs()
    # A fix that writes at one such call's `labels=` leaves the input ids alone (each call is its own
    # finding); one that writes where the labels are made changes what those calls get as ids too.
    if shared and not any(_edits_within(facts, fix, labels) for labels, _, _ in shared):
        _, value, keyword = shared[0]
        why = f"the module gives `{value}` both as `labels=` and as `{keyword}=`: -100 would reach the embedding"
        return None, why, f"keep the ids as `{keyword}` and give the model a copy with -100 at the pads as `labels`"
    model = facts.model_feeding_labels()
    if model is not None:
        why = (
            f"the project uses {model}, which feeds its labels to the decoder as input ids when no "
            "`decoder_input_ids` are passed: -100 would reach the embedding"
        )
        manual = (
            "pass the padded ids as `decoder_input_ids` (their mask as `decoder_attention_mask`), then set the "
            "labels of the pads to -100"
        )
        return None, why, manual
    return fix, None, None


def unsafe_where_ignore_differs(facts: ModuleFacts, fix: FixProposal | None) -> FixProposal | None:
    """`fix` (writing -100 into labels), made unsafe where another ignore value is in view."""
    if fix is None or fix.applicability is not Applicability.SAFE or not another_ignore_value_in_view(facts):
        return fix
    return replace(fix, applicability=Applicability.UNSAFE)


def where_pad_is_not_eos(facts: ModuleFacts, node: cst.CSTNode) -> bool:
    """Does `node` sit in a branch that runs only where the pad differs from the EOS: the body of
    `if tok.pad_token_id != tok.eos_token_id:` (or of an `and` holding that), or the `else` of
    `if pad == eos:`? A comparison with the pad id there hides no real EOS."""
    import libcst

    from padlint.analysis.pad_guards import pad_is_eos_test
    from padlint.rules.sites import path_to

    path = path_to(facts, node)
    for i, step in enumerate(path[:-1]):
        if isinstance(step, libcst.If):
            said = pad_is_eos_test(step.test)
            in_body = path[i + 1] is step.body
            if said is False and in_body or said is True and not in_body:
                return True
    return False


def _edits_within(facts: ModuleFacts, fix: FixProposal, node) -> bool:
    """Does one of the fix's edits rewrite text of `node` (inside it, or a line rewritten around it)?"""
    where = facts.span(node)
    if where is None:
        return False
    first, last = (where.start.line, where.start.column), (where.end.line, where.end.column)
    for edit in fix.replacements:
        span = facts.span(edit[0]) if len(edit) == 2 else None
        if span is not None:
            start, end = (span.start.line, span.start.column), (span.end.line, span.end.column)
        elif len(edit) == 3:
            start, end = (edit[0].line, edit[0].column), (edit[1].line, edit[1].column)
        else:
            continue
        if start < end and start < last and first < end:
            return True
    return False
