"""Repository hygiene: ruff-clean code, and the README's commands match CI."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff not installed")
def test_ruff_clean():
    run = subprocess.run(
        ["ruff", "check", "--output-format", "concise", "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_readme_opens_with_the_two_setup_commands():
    blocks = ROOT.joinpath("README.md").read_text().split("```bash\n")[1:3]
    commands = [b.split("\n```")[0].strip() for b in blocks]
    assert commands[0].startswith("pip install torch==2.13.0 && pip install -e . &&")
    assert "examples/train_semeval.py" in commands[0]
    assert commands[1].startswith(
        'pip install torch==2.13.0 && pip install -e ".[test]"'
    )
    assert "pytest" in commands[1]


def test_readme_fits_on_two_screens():
    # the manual is the docs (docs/); the README says what it is and where to go
    assert len(ROOT.joinpath("README.md").read_bytes()) <= 12 * 1024
