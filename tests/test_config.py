"""[tool.padlint] loading, validation, rule selection layers and per-file-ignores."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from padlint import config
from padlint.cli.main import main
from padlint.config import ConfigError, Settings, resolve_selection, with_cli
from padlint.config_file import load_settings

CODES = ("PAD001", "PAD002", "PAD003", "PAD010")
EVERYTHING = frozenset(CODES) | {"PAD000"}


@pytest.fixture(autouse=True)
def cli_fixed_registry(monkeypatch):
    # Selection logic is tested against a fixed set of codes, whatever rules exist today.
    monkeypatch.setattr(config, "known_codes", lambda: CODES)


def write_pyproject(directory: Path, body: str) -> Path:
    path = directory / "pyproject.toml"
    path.write_text(textwrap.dedent(body))
    return path


def test_defaults_without_any_pyproject(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    settings = load_settings(tmp_path)
    assert settings.config_path is None
    assert settings.respect_gitignore and not settings.unsafe_fixes and not settings.force_exclude
    assert "node_modules" in settings.exclude
    assert resolve_selection(settings, "a.py") == EVERYTHING


def test_nearest_pyproject_with_a_padlint_table_wins(tmp_path):
    write_pyproject(tmp_path, '[tool.padlint]\nselect = ["PAD002"]\n')
    sub = tmp_path / "pkg" / "sub"
    sub.mkdir(parents=True)
    write_pyproject(tmp_path / "pkg", '[project]\nname = "x"\n')  # no [tool.padlint]: skipped
    settings = load_settings(sub)
    assert settings.config_path == tmp_path / "pyproject.toml"
    assert settings.root == tmp_path.resolve()
    assert resolve_selection(settings, "a.py") == {"PAD002", "PAD000"}


def test_start_may_be_a_file(tmp_path):
    write_pyproject(tmp_path, '[tool.padlint]\nignore = ["PAD001"]\n')
    (tmp_path / "a.py").write_text("")
    assert load_settings(tmp_path / "a.py").config_path == tmp_path / "pyproject.toml"


def test_explicit_config_wins(tmp_path):
    write_pyproject(tmp_path, '[tool.padlint]\nselect = ["PAD002"]\n')
    other = tmp_path / "other"
    other.mkdir()
    explicit = write_pyproject(other, '[tool.padlint]\nselect = ["PAD003"]\n')
    settings = load_settings(tmp_path, config=explicit)
    assert resolve_selection(settings, "a.py") == {"PAD003", "PAD000"}


def test_all_keys_are_read(tmp_path):
    write_pyproject(
        tmp_path,
        """\
        [tool.padlint]
        select = ["ALL"]
        ignore = ["PAD00"]
        extend-select = ["PAD002"]
        exclude = ["generated"]
        extend-exclude = ["legacy/"]
        unsafe-fixes = true
        respect-gitignore = false
        force-exclude = true

        [tool.padlint.per-file-ignores]
        "tests/**" = ["PAD010"]
        """,
    )
    s = load_settings(tmp_path)
    assert s.exclude == ("generated",) and s.extend_exclude == ("legacy/",)
    assert s.unsafe_fixes and s.force_exclude and not s.respect_gitignore
    # Within one layer: select, then extend-select, then ignore. A prefix never hides PAD000.
    assert resolve_selection(s, tmp_path / "a.py") == {"PAD010", "PAD000"}
    assert resolve_selection(s, tmp_path / "tests" / "unit" / "t.py") == {"PAD000"}


@pytest.mark.parametrize(
    "body, message",
    [
        ('selct = ["PAD001"]', "pyproject.toml:2: 'selct' in [tool.padlint] is an unknown key"),
        ('select = ["PAD999"]', "pyproject.toml:2: 'select' in [tool.padlint] has an unknown rule code 'PAD999'"),
        ('ignore = ["XYZ"]', "unknown rule code 'XYZ'"),
        (
            'select = ["PAD001"]\nunsafe-fixes = "yes"',
            "pyproject.toml:3: 'unsafe-fixes' in [tool.padlint] must be true or false",
        ),
        ("select = [1]", "'select' in [tool.padlint] must be a list of strings"),
        ('per-file-ignores = ["x"]', "'per-file-ignores' in [tool.padlint] must be a table"),
        (
            '[tool.padlint.per-file-ignores]\n"a.py" = ["PAD777"]',
            "pyproject.toml:2: 'a.py' in [tool.padlint.per-file-ignores] has an unknown rule code 'PAD777'",
        ),
        (
            'per-file-ignores = { "a.py" = "PAD001" }',
            "pyproject.toml:2: 'a.py' in [tool.padlint.per-file-ignores] must",
        ),
        ('target-version = "py2"', "pyproject.toml:2: 'target-version' in [tool.padlint] must be one of py37,"),
        ("select = [", "invalid TOML"),
    ],
)
def test_bad_configuration_is_one_clear_error(tmp_path, monkeypatch, body, message):
    monkeypatch.chdir(tmp_path)
    header = "" if body.startswith("[tool") else "[tool.padlint]\n"
    write_pyproject(tmp_path, header + body + "\n")
    with pytest.raises(ConfigError) as info:
        load_settings(tmp_path)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_a_string_where_a_list_is_expected_is_an_error_at_its_line(tmp_path, monkeypatch):
    # It was split on commas silently, though the docs call a wrong type an error.
    monkeypatch.chdir(tmp_path)
    write_pyproject(
        tmp_path,
        '[project]\nname = "demo"\n\n[tool.ruff]\nselect = ["E"]\n\n[tool.padlint]\n'
        'ignore = []\n  select   = "PAD001,PAD002"  # one string\n',
    )
    with pytest.raises(ConfigError) as info:
        load_settings(tmp_path)
    assert str(info.value) == (
        "pyproject.toml:9: 'select' in [tool.padlint] must be a list of strings, not a string "
        "(write ['PAD001', 'PAD002'])"
    )
    result = CliRunner().invoke(main, ["check", "."])
    assert result.exit_code == 2 and result.output.startswith("padlint: error: pyproject.toml:9: 'select'")


def test_pad000_may_be_ignored(tmp_path):
    write_pyproject(tmp_path, '[tool.padlint]\nignore = ["PAD000"]\n')
    assert resolve_selection(load_settings(tmp_path), "a.py") == frozenset(CODES)


def test_cli_select_starts_over_and_cli_ignore_adds(tmp_path):
    write_pyproject(tmp_path, '[tool.padlint]\nignore = ["PAD002"]\n')
    base = load_settings(tmp_path)
    assert resolve_selection(with_cli(base, select=("PAD002",)), "a.py") == {"PAD002", "PAD000"}
    assert resolve_selection(with_cli(base, ignore=("PAD003",)), "a.py") == EVERYTHING - {"PAD002", "PAD003"}
    assert resolve_selection(with_cli(base, extend_select=("PAD002",)), "a.py") == EVERYTHING


def test_cli_flags_override_file_values(tmp_path):
    write_pyproject(tmp_path, "[tool.padlint]\nunsafe-fixes = true\nextend-exclude = ['a']\n")
    s = with_cli(load_settings(tmp_path), unsafe_fixes=False, force_exclude=True, extend_exclude=("b",))
    assert not s.unsafe_fixes and s.force_exclude and s.extend_exclude == ("a", "b")


def test_unknown_code_on_the_command_line(tmp_path):
    with pytest.raises(ConfigError, match="--select: unknown rule code 'PAD99'"):
        with_cli(Settings(root=tmp_path), select=("PAD99",))


def test_per_file_ignores_are_relative_to_the_pyproject(tmp_path, monkeypatch):
    write_pyproject(
        tmp_path,
        """\
        [tool.padlint.per-file-ignores]
        "scripts/*.py" = ["PAD001"]
        "conftest.py" = ["PAD002", "PAD003"]
        """,
    )
    (tmp_path / "scripts").mkdir()
    monkeypatch.chdir(tmp_path / "scripts")  # paths as the user typed them, from another folder
    s = load_settings()
    assert resolve_selection(s, "train.py") == EVERYTHING - {"PAD001"}
    assert resolve_selection(s, "../lib/train.py") == EVERYTHING
    assert resolve_selection(s, "../lib/conftest.py") == EVERYTHING - {"PAD002", "PAD003"}
    assert resolve_selection(s, "-") == EVERYTHING


BROKEN_OTHER_TOOLS = '[project]\nname = "demo"\n\n[tool.pytest.ini_options]\nmarkers = ["slow: "very" slow"]\n'


def test_another_tools_broken_pyproject_is_passed_over_with_a_note(tmp_path, monkeypatch):
    # A repository's own pyproject.toml that is not valid TOML, and names no padlint table, says nothing
    # about padlint: the defaults apply, and the user is told which file was passed over.
    monkeypatch.chdir(tmp_path)
    write_pyproject(tmp_path, BROKEN_OTHER_TOOLS)
    settings = load_settings(tmp_path)
    assert settings.config_path is None
    (note,) = settings.passed_over
    assert "pyproject.toml: invalid TOML" in note and "no [tool.padlint] table" in note


def test_a_nearer_broken_file_does_not_hide_the_padlint_table_above(tmp_path, monkeypatch):
    write_pyproject(tmp_path, '[tool.padlint]\nignore = ["PAD002"]\n')
    inner = tmp_path / "vendor"
    inner.mkdir()
    write_pyproject(inner, BROKEN_OTHER_TOOLS)
    monkeypatch.chdir(inner)
    settings = load_settings(inner)
    assert settings.config_path == tmp_path / "pyproject.toml"
    assert "PAD002" not in resolve_selection(settings, "x.py")
    assert len(settings.passed_over) == 1


def test_a_broken_file_that_names_padlint_is_still_an_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_pyproject(tmp_path, '[tool.padlint]\nselect = ["PAD001"\n')
    with pytest.raises(ConfigError, match="invalid TOML"):
        load_settings(tmp_path)


def test_check_warns_and_lints_under_a_broken_pyproject(cli_project):
    write_pyproject(cli_project, BROKEN_OTHER_TOOLS)
    (cli_project / "collate.py").write_text(
        "def collate(tok, texts):\n"
        '    enc = tok(texts, padding="max_length", max_length=8, return_tensors="pt")\n'
        '    enc["labels"] = enc["input_ids"].clone()\n'
        "    return enc\n"
    )
    result = CliRunner().invoke(main, ["check", "--no-cache", "collate.py"])
    assert result.exit_code == 1, result.output
    assert "PAD002" in result.stdout
    assert "padlint: warning: pyproject.toml: invalid TOML" in result.stderr
