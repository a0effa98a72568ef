"""Suppression comments: every placement, every syntax, and what must not suppress."""

from __future__ import annotations

import textwrap

import pytest

from padlint.suppress import filter_suppressed, noqa_row, parse_comment
from padlint.types import Diagnostic, Location


def diag(row: int, code: str = "PAD001", statement: tuple[int, int] = (0, 0)) -> Diagnostic:
    return Diagnostic(
        code=code,
        name="attention-mask-all-ones",
        message="m",
        filename="x.py",
        location=Location(row, 5),
        end_location=Location(row, 20),
        url="u",
        statement_rows=statement,
    )


def kept(source: str, *diagnostics: Diagnostic) -> list[Diagnostic]:
    return filter_suppressed(textwrap.dedent(source), list(diagnostics))


@pytest.mark.parametrize(
    "comment",
    [
        "# noqa: PAD001",
        "# noqa:PAD001",
        "# NOQA: pad001",
        "# noqa: E501, PAD001",
        "# noqa: E501 PAD001",
        "# noqa",
        "# noqa because the mask is rebuilt later",
        "# padlint: ignore[PAD001]",
        "# padlint: ignore[PAD002, PAD001]",
        "# type: ignore  # noqa: PAD001",
    ],
)
def test_trailing_comment_on_the_flagged_line_suppresses(comment):
    source = f"mask = torch.ones_like(ids)  {comment}\n"
    assert kept(source, diag(1, statement=(1, 1))) == []


@pytest.mark.parametrize(
    "comment",
    ["# noqa: PAD002", "# noqa: E501", "# padlint: ignore[PAD002]", "# noqa:", "# padlint: ignore[]", "# noqanope"],
)
def test_comments_naming_other_codes_do_not_suppress(comment):
    source = f"mask = torch.ones_like(ids)  {comment}\n"
    d = diag(1, statement=(1, 1))
    assert kept(source, d) == [d]


def test_noqa_inside_a_string_does_not_suppress():
    d = diag(1, statement=(1, 1))
    assert kept("mask = f('# noqa: PAD001')\n", d) == [d]


def test_end_of_last_line_of_a_multiline_statement():
    source = """\
    mask = torch.ones_like(
        input_ids,
    )  # noqa: PAD001
    """
    assert kept(source, diag(1, statement=(1, 3))) == []


def test_end_of_first_line_of_a_multiline_statement():
    source = """\
    mask = torch.ones_like(  # padlint: ignore[PAD001]
        input_ids,
    )
    """
    assert kept(source, diag(2, statement=(1, 3))) == []


def test_comment_in_the_middle_of_a_statement_does_not_count():
    source = """\
    mask = torch.ones_like(
        input_ids,  # noqa: PAD001
    )
    """
    d = diag(1, statement=(1, 3))
    assert kept(source, d) == [d]


def test_own_line_comment_above_the_statement():
    source = """\
    x = 1
    # padlint: ignore[PAD001]
    mask = torch.ones_like(
        input_ids,
    )
    """
    assert kept(source, diag(3, statement=(3, 5))) == []


def test_trailing_comment_of_the_previous_statement_does_not_count_as_above():
    source = """\
    x = 1  # noqa: PAD001
    mask = torch.ones_like(input_ids)
    """
    d = diag(2, statement=(2, 2))
    assert kept(source, d) == [d]


def test_comment_two_lines_above_does_not_count():
    source = """\
    # noqa: PAD001

    mask = torch.ones_like(input_ids)
    """
    d = diag(3, statement=(3, 3))
    assert kept(source, d) == [d]


def test_bare_noqa_silences_every_code_on_the_statement():
    source = "labels = ids  # noqa\n"
    assert kept(source, diag(1, "PAD001", (1, 1)), diag(1, "PAD002", (1, 1))) == []


def test_only_the_named_code_is_silenced():
    source = "labels = ids  # noqa: PAD002\n"
    d1, d2 = diag(1, "PAD001", (1, 1)), diag(1, "PAD002", (1, 1))
    assert kept(source, d1, d2) == [d1]


def test_missing_statement_rows_fall_back_to_the_diagnostic_row():
    source = "a = 1\nmask = torch.ones_like(ids)  # noqa: PAD001\n"
    assert kept(source, diag(2)) == []
    d = diag(1)
    assert kept(source, d) == [d]


def test_source_that_python_cannot_tokenize_keeps_earlier_comments():
    # An unterminated bracket at the end: tokenize stops there, the comment before it still counts.
    source = "mask = torch.ones_like(ids)  # noqa: PAD001\nbroken = (\n"
    assert kept(source, diag(1, statement=(1, 1))) == []


def test_parse_comment():
    assert parse_comment("# noqa") is None
    assert parse_comment("# noqa: PAD001,PAD002") == frozenset({"PAD001", "PAD002"})
    assert parse_comment("# just a comment") is False


def test_noqa_row_is_the_last_row_of_the_statement():
    assert noqa_row(diag(2, statement=(2, 5))) == 5
    assert noqa_row(diag(7)) == 7
