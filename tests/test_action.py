"""The composite GitHub Action at the repository root (action.yml): its structure, and its two
steps run with bash the way the Actions runner runs them."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
ACTION = ROOT / "action.yml"
EXPRESSION = re.compile(r"\$\{\{\s*([\w.-]+)\s*\}\}")


def _action() -> dict:
    return yaml.safe_load(ACTION.read_text(encoding="utf-8"))


def test_action_metadata():
    action = _action()
    assert action["name"] == "padlint" and action["description"]
    inputs = action["inputs"]
    assert inputs["args"]["default"] == "check ."
    assert inputs["version"]["default"] == ""
    assert inputs["output-format"]["default"] == "github"
    assert all(not spec.get("required", False) for spec in inputs.values())
    assert all(spec.get("description") for spec in inputs.values())


def test_action_is_composite_with_bash_steps():
    steps = _action()["runs"]["steps"]
    assert _action()["runs"]["using"] == "composite"
    assert [s["name"] for s in steps] == ["Install padlint", "Run padlint"]
    assert all(s["shell"] == "bash" and s["run"].strip() for s in steps)


def test_action_installs_its_own_checkout_and_reports_as_annotations():
    install, check = _action()["runs"]["steps"]
    assert install["env"]["PADLINT_ACTION_PATH"] == "${{ github.action_path }}"
    assert "pip install" in install["run"] and '"$PADLINT_ACTION_PATH"' in install["run"]
    assert check["env"]["PADLINT_OUTPUT_FORMAT"] == "${{ inputs.output-format }}"
    assert check["env"]["PADLINT_ARGS"] == "${{ inputs.args }}"


def test_inputs_never_reach_a_script_as_text():
    """`${{ inputs.x }}` pasted into `run:` would let a quote in the input run shell code."""
    for step in _action()["runs"]["steps"]:
        assert "${{" not in step["run"], step["name"]


def test_install_leaves_the_jobs_python_alone():
    """Later steps of the job run the project's own `python` and `pip`: the install step must not
    put padlint's virtual environment on the job's PATH (or change the job's environment)."""
    install, check = _action()["runs"]["steps"]
    assert "$GITHUB_PATH" not in install["run"] and "$GITHUB_ENV" not in install["run"]
    assert install["id"] == "install" and "GITHUB_OUTPUT" in install["run"]
    assert check["env"]["PADLINT_BIN"] == "${{ steps.install.outputs.padlint }}"
    assert '"$PADLINT_BIN" $PADLINT_ARGS' in check["run"]


def _env_for(step: dict, values: dict[str, str]) -> dict[str, str]:
    return {key: EXPRESSION.sub(lambda m: values[m.group(1)], str(value)) for key, value in step.get("env", {}).items()}


def _outputs(path: Path) -> dict[str, str]:
    """A step's `name=value` lines in its GITHUB_OUTPUT file."""
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_action_steps_run_and_annotate_a_buggy_collator(tmp_path):
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    shutil.copy(ROOT / "examples" / "buggy_collator.py", workspace / "collate.py")
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir()
    runner_files = {name: tmp_path / name.lower() for name in ("GITHUB_PATH", "GITHUB_ENV", "GITHUB_OUTPUT")}
    for path in runner_files.values():
        path.write_text("")
    values = {
        "github.action_path": str(ROOT),
        "inputs.version": "",
        "inputs.args": "check .",
        "inputs.output-format": "github",
    }
    base = {k: v for k, v in os.environ.items() if not k.startswith(("PADLINT_", "VIRTUAL_ENV"))}
    base.update(RUNNER_TEMP=str(runner_temp), **{name: str(path) for name, path in runner_files.items()})
    install, check = _action()["runs"]["steps"]

    proc = subprocess.run(
        ["bash", "-e", "-c", install["run"]],
        cwd=workspace,
        env={**base, **_env_for(install, values)},
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert runner_files["GITHUB_PATH"].read_text() == "" and runner_files["GITHUB_ENV"].read_text() == ""
    padlint = _outputs(runner_files["GITHUB_OUTPUT"])["padlint"]
    assert Path(padlint).exists() and str(runner_temp) in padlint
    values["steps.install.outputs.padlint"] = padlint

    # The job's PATH as it was: padlint runs by its path, not from PATH.
    env = {**base, **_env_for(check, values)}
    proc = subprocess.run(
        ["bash", "-e", "-c", check["run"]], cwd=workspace, env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines and all(line.startswith("::error title=padlint (PAD00") for line in lines)
    assert any(",file=collate.py,line=" in line for line in lines)

    # an input with shell syntax in it stays text: nothing runs, padlint just gets odd paths
    hostile = {**values, "inputs.args": 'check "$(touch pwned)" `touch pwned2` .'}
    env = {**base, **_env_for(check, hostile)}
    proc = subprocess.run(
        ["bash", "-e", "-c", check["run"]], cwd=workspace, env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert not (workspace / "pwned").exists() and not (workspace / "pwned2").exists()
