"""patterns.string_value reads string literals without compiling them, with libcst's own answer."""

from __future__ import annotations

import libcst as cst
import pytest

from padlint.analysis.patterns import string_value

LITERALS = [
    "'max_length'",
    '"longest"',
    "''",
    '""',
    "'''left'''",
    '"""two\nlines"""',
    "''''''",
    "'tab\\there'",
    "r'raw\\d'",
    "b'bytes'",
    "u'unicode'",
    "'say \"pad\"'",
    '"it\'s"',
    "'''a'b'''",
    '"""a"b"""',
    "'caf\u00e9'",
]


@pytest.mark.parametrize("literal", LITERALS)
def test_string_value_matches_libcst(literal):
    node = cst.parse_expression(literal)
    expected = node.evaluated_value
    assert string_value(node) == (expected if isinstance(expected, str) else None)


def test_crlf_inside_a_triple_quoted_string_reads_as_python_reads_it():
    module = cst.parse_module('x = """a\r\nb"""\r\n')
    node = module.body[0].body[0].value
    assert string_value(node) == "a\nb"
