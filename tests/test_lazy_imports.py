"""A run that never parses never loads libcst (pre-commit over files without padding code), and a
run that does gets the ordinary module (lazy_imports.py)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from samples import BUGGY  # noqa: E402  (tests/samples.py)

PROBE = textwrap.dedent(
    """
    import json, sys
    from padlint.cli import main
    try:
        main(["check", "--no-cache", "--output-format", "concise", *sys.argv[1:]])
    except SystemExit as done:
        status = done.code
    print(json.dumps({"status": status, "libcst_loaded": "libcst._nodes" in sys.modules}))
    """
)


def _probe(*files) -> tuple[dict, str]:
    """What `padlint check` returned and whether libcst was loaded in this process; and what it printed."""
    out = subprocess.run(
        [sys.executable, "-c", PROBE, *map(str, files)], capture_output=True, text=True, timeout=120, check=False
    )
    assert out.stderr == "", out.stderr
    *printed, state = out.stdout.strip().splitlines()
    return json.loads(state), "\n".join(printed)


def test_files_no_rule_can_fire_on_never_load_libcst(tmp_path):
    plain = tmp_path / "plain.py"
    plain.write_text("import os\n\n\ndef size(path):\n    return os.path.getsize(path)\n")
    labels = tmp_path / "labels.py"  # words the rules look for, but no padding step
    labels.write_text("def count(labels, pad=None):\n    return sum(1 for x in labels if x != pad)\n")
    assert _probe(plain, labels)[0] == {"status": 0, "libcst_loaded": False}


def test_a_file_that_needs_the_analysis_is_reported(tmp_path):
    buggy = tmp_path / "buggy.py"
    buggy.write_text(BUGGY)
    (state, printed), direct = _probe(buggy), _probe(buggy, "--jobs", "1")
    assert state["status"] == direct[0]["status"] == 1
    assert "PAD001" in printed and printed == direct[1]


def test_a_deferred_module_is_the_ordinary_module_once_used():
    code = (
        "import sys; from padlint.lazy_imports import defer; defer('libcst'); import libcst as cst; "
        "tree = cst.parse_module('x = 1\\n'); import libcst.metadata; "
        "print(sys.modules['libcst'] is cst, type(tree).__name__, '__getattr__' in vars(cst))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.split() == ["True", "Module", "False"]
