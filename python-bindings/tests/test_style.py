"""The style gates (CONTRIBUTING.md): ruff's lint and mypy's type check, as pyproject.toml
configures them, find nothing new in the source tree. They run with the other tests, so a change
that adds a finding fails before it lands."""
import importlib.util
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _needs(module):
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed (pyproject.toml's [test] extra has it: "
                    f"pip install -e '.[test]')")


def test_ruff_finds_nothing():
    _needs("ruff")
    run = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "."],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, (
        "ruff check found problems (pyproject.toml's [tool.ruff] says which rules and why):\n"
        f"{run.stdout}{run.stderr}\n"
        "fix: `ruff check --fix .` corrects the ones marked [*]; correct the others by hand")


def test_ruff_reports_a_noqa_that_silences_nothing(tmp_path):
    _needs("ruff")
    # pyproject.toml selects RUF100: a noqa for a rule that is not selected, or for a finding the
    # line no longer has, fails test_ruff_finds_nothing like any other finding.
    probe = tmp_path / "probe.py"
    probe.write_text("x = 1  # noqa: F401\n")
    run = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise",
                          "--config", os.path.join(ROOT, "pyproject.toml"), str(probe)],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode != 0 and "RUF100" in run.stdout, run.stdout + run.stderr


def test_mypy_finds_nothing_new():
    _needs("mypy")
    run = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "type_check.py")],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
