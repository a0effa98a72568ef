"""Which fix a finding gets when its value reaches several places (events), checked by running it.

The same padded ids can reach a place no fix can take (a row of the batch inside a comprehension,
where the batch's mask would pair each row with every row's mask) before the model call that can
take the mask. The finding gets the fix of the place that can take it, and the row place never gets
the batch's mask.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from test_fix_cross_scope import _run  # noqa: E402

from padlint.engine import fix_source, lint_source  # noqa: E402
from padlint.types import Applicability  # noqa: E402

SELECT_DIR = Path(__file__).parent / "fixtures" / "fix_select"

# name: (code, entry, how the entry is called, the applicability the chosen fix must have)
CASES = {
    # ids cached row by row, then handed to a model class of the module (its forward takes the mask)
    "s1_row_cache_then_scorer.py": ("PAD003", "score_queries", "texts", Applicability.SAFE),
    # per-text feature rows for a report, then a model whose signature is out of view
    "s2_row_features_then_model.py": ("PAD003", "score_texts", "model", Applicability.UNSAFE),
}


def test_every_selection_fixture_is_described():
    assert {p.name for p in SELECT_DIR.glob("*.py")} == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_finding_gets_the_fix_of_the_place_that_can_take_it(name, tmp_path):
    pytest.importorskip("torch")
    code, entry, how, applicability = CASES[name]
    source = (SELECT_DIR / name).read_text()
    found = [d for d in lint_source(source, name) if d.code == code]
    assert len(found) == 1 and found[0].fix is not None, found
    assert found[0].fix.applicability is applicability
    stem = Path(name).stem
    original = tmp_path / f"{stem}_orig.py"
    original.write_text(source)
    assert _run(original, f"{stem}_orig", entry, how, ("mask",), 1)["pad!=eos"], "the fixture is not buggy"
    outcome = fix_source(source, name, unsafe=applicability is Applicability.UNSAFE)
    assert outcome.error is None and outcome.source != source
    assert '"input_ids": row}' in outcome.source or '"input_ids": row,' in outcome.source  # rows keep no batch mask
    fixed = tmp_path / f"{stem}_fixed.py"
    fixed.write_text(outcome.source)
    results = _run(fixed, f"{stem}_fixed", entry, how, ("mask",), 1)
    assert not any(results.values()), f"{results}\n---- fixed ----\n{outcome.source}"
