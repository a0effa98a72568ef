"""The catalogue (codes, names, words; read without importing the rules) and the registry agree, and a
run over a file no rule can fire on imports neither the rules nor libcst nor a worker pool."""

from __future__ import annotations

import subprocess
import sys

from padlint.rules import ALL_RULES, RULES_BY_CODE
from padlint.rules.catalogue import CATALOGUE, requires


def test_every_rule_is_in_the_catalogue_as_registered():
    assert [rule.code for rule in ALL_RULES] == list(CATALOGUE)
    assert set(RULES_BY_CODE) == set(CATALOGUE)
    for rule in ALL_RULES:
        name, module, cls, words = CATALOGUE[rule.code]
        assert (rule.name, rule.__module__, rule.__name__) == (name, f"padlint.rules.{module}", cls)
        assert rule.REQUIRES == words == requires(rule.code)


def test_a_file_without_padding_code_loads_no_rule_no_libcst_no_pool(tmp_path):
    (tmp_path / "util.py").write_text("def add(a, b):\n    return a + b\n", encoding="utf-8")
    probe = (
        "import sys\n"
        "from padlint.cli.main import main\n"
        "sys.argv = ['padlint', 'check', '--no-cache', 'util.py']\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as done:\n"
        "    assert done.code == 0, done.code\n"
        # `libcst` itself is lazy_imports.py's stand-in until first used: its submodules are the real load
        "loaded = [m for m in sys.modules if m.startswith(('libcst.', 'multiprocessing', 'padlint.analysis.'))\n"
        "          and m != 'padlint.analysis.reads'\n"
        "          or (m.startswith('padlint.rules.') and m != 'padlint.rules.catalogue')]\n"
        "print(sorted(loaded))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stdout + out.stderr
